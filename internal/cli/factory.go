package cli

import (
	"io"
	"os"
	"time"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Factory holds what commands depend on, created lazily so a command that
// needs no engine never dials one.
type Factory struct {
	IO IOStreams
	// Now is the clock; tests fix it.
	Now func() time.Time
	// Getwd returns the working directory paths are shown relative to.
	Getwd func() (string, error)
}

// NewFactory returns a Factory on the process's streams and clock.
func NewFactory() *Factory {
	return &Factory{
		IO:    IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Now:   time.Now,
		Getwd: os.Getwd,
	}
}
