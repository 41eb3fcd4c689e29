package cli

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/moby/buildkit/client"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
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
	// Engine returns the Docker engine at DOCKER_HOST (engine.NewDocker),
	// made on the first call and shared after; commands call it only when
	// they start a container or load an image. Tests put an *engine.Fake
	// behind it.
	Engine func() (engine.Runner, error)
	// BuildKit dials buildkitd at addr (image.Dial); commands call it only
	// when they build. Tests replace it.
	BuildKit func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
}

// NewFactory returns a Factory on the process's streams and clock, with a
// Docker engine made on first use and BuildKit dialled on demand.
func NewFactory() *Factory {
	return &Factory{
		IO:       IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Now:      time.Now,
		Getwd:    os.Getwd,
		Engine:   lazyEngine(func() (engine.Runner, error) { return engine.NewDocker() }),
		BuildKit: image.Dial,
	}
}

// lazyEngine returns a func that calls newEngine once, on its first call,
// and returns that engine (or error) ever after.
func lazyEngine(newEngine func() (engine.Runner, error)) func() (engine.Runner, error) {
	var (
		once sync.Once
		r    engine.Runner
		err  error
	)
	return func() (engine.Runner, error) {
		once.Do(func() { r, err = newEngine() })
		return r, err
	}
}
