package agent

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// Command is one program the run tool starts: Argv (no shell), the working
// directory Dir as the stage sees it, the complete environment Env
// ("NAME=value"), and the Timeout after which every process it started is killed.
type Command struct {
	Argv    []string
	Dir     string
	Env     []string
	Timeout time.Duration
}

// RunResult is what a command did. ExitCode is -1 when it was killed or
// never started; TimedOut says the timeout killed it. Stdout and Stderr
// hold at most MaxCapturedOutput bytes each (the first ones).
type RunResult struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	TimedOut bool
}

// Runner starts commands for the run tool. The stages run them inside
// their container; [LocalRunner] runs them on this machine. An error means
// the command could not be started at all.
type Runner interface {
	Run(ctx context.Context, c Command) (RunResult, error)
}

// LocalRunner runs a command on this machine contained (ladder/proc) and
// kills every process it started, setsid ones included, when it times out
// or returns, so nothing it started outlives it.
type LocalRunner struct{}

// Run implements [Runner].
func (LocalRunner) Run(ctx context.Context, c Command) (RunResult, error) {
	if len(c.Argv) == 0 {
		return RunResult{ExitCode: -1}, errors.New("run: empty argv")
	}
	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	env := c.Env
	if env == nil {
		env = []string{}
	}
	stdout, stderr := &capped{max: MaxCapturedOutput}, &capped{max: MaxCapturedOutput}
	e, err := proc.Run(rctx, proc.Spec{Argv: c.Argv, Dir: c.Dir, Env: env, Stdout: stdout, Stderr: stderr, WaitDelay: 2 * time.Second})
	res := RunResult{ExitCode: -1, Stdout: stdout.b.Bytes(), Stderr: stderr.b.Bytes()}
	if err != nil { // nothing ran, whatever the clock says
		return res, err
	}
	if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		res.TimedOut = true
		return res, nil
	}
	switch {
	case e.Exited():
		res.ExitCode = e.Code
	}
	return res, nil
}

// MaxCapturedOutput is how much of each output stream [LocalRunner] keeps;
// the rest is read and dropped, so a command that floods its output
// neither blocks nor fills memory.
const MaxCapturedOutput = 1 << 20

// capped keeps the first max bytes written to it and accepts the rest.
type capped struct {
	b   bytes.Buffer
	max int
}

// Write implements io.Writer.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
