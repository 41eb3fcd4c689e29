package agent

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Command is one program the run tool starts: Argv (no shell), the working
// directory Dir as the stage sees it, the complete environment Env
// ("NAME=value"), and the Timeout after which the process group is killed.
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

// LocalRunner runs a command on this machine in its own process group,
// and kills the whole group when it times out or returns, so nothing it
// started outlives it.
type LocalRunner struct{}

// Run implements [Runner].
func (LocalRunner) Run(ctx context.Context, c Command) (RunResult, error) {
	if len(c.Argv) == 0 {
		return RunResult{ExitCode: -1}, errors.New("run: empty argv")
	}
	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	stdout, stderr := &capped{max: MaxCapturedOutput}, &capped{max: MaxCapturedOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := RunResult{ExitCode: -1, Stdout: stdout.b.Bytes(), Stderr: stderr.b.Bytes()}
	if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		res.TimedOut = true
		return res, nil
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	default:
		return res, err
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
