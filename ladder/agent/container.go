package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// Execer runs one command in a container: *engine.Session is one.
type Execer interface {
	Exec(ctx context.Context, es engine.ExecSpec) (*engine.Result, error)
}

// SessionRunner is a [Runner] that runs the run tool's commands inside a
// stage's container (HARNESS.md §4.1: "run from a declared allowlist
// inside the stage's container"). Command.Dir is a path inside the
// container (a [RootSpec]'s Shown path), Command.Env is the command's
// whole environment on top of the image's, and the engine kills the
// command's process group at Command.Timeout. Output is kept up to
// [MaxCapturedOutput] bytes per stream, as [LocalRunner] keeps it.
type SessionRunner struct {
	Session Execer
	// User runs the commands ("uid", "uid:gid" or a name); "" is the
	// image's user.
	User string
	// RequireStart makes a command whose container never reported that
	// it started (engine.Result.Unstarted: an earlier command run as root
	// replaced the image's /bin/sh) an error, not its exit code.
	RequireStart bool
}

// ContainerPath is the PATH the run tool gives commands in a stage's
// container (Debian's default for root), whatever the host's PATH is.
const ContainerPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// ContainerEnv is a [ToolboxOptions.Getenv] for a toolbox whose run
// executes in a container: PATH is [ContainerPath] and HOME /tmp, so
// nothing of the host's environment reaches the command.
func ContainerEnv(name string) string {
	switch name {
	case "PATH":
		return ContainerPath
	case "HOME":
		return "/tmp"
	}
	return ""
}

// Run implements [Runner]. An error means the command could not be
// started in the container (or ctx ended); a command that ran and failed,
// including one the container has no program for (exit 126 or 127), is a
// result.
func (r SessionRunner) Run(ctx context.Context, c Command) (RunResult, error) {
	if len(c.Argv) == 0 {
		return RunResult{ExitCode: -1}, errors.New("run: empty argv")
	}
	if r.Session == nil {
		return RunResult{ExitCode: -1}, errors.New("run: no container")
	}
	res, err := r.Session.Exec(ctx, engine.ExecSpec{
		Argv: c.Argv, Env: c.Env, WorkDir: c.Dir, User: r.User, Timeout: c.Timeout, MaxOutput: MaxCapturedOutput,
		// The run tool's commands are the graded party's (the
		// submission's build and tests): at the container's memory
		// limit the OOM killer takes them before the container's own
		// processes or the grader's steps.
		OOMFirst: true,
	})
	out := RunResult{ExitCode: -1}
	if res != nil {
		out = RunResult{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr, TimedOut: res.TimedOut}
		if res.TimedOut {
			out.ExitCode = -1
		}
	}
	if err != nil && !out.TimedOut {
		return out, err
	}
	if res != nil && res.Unstarted && r.RequireStart && !out.TimedOut {
		return out, fmt.Errorf("run: %q did not start: the container's exec wrapper never reported (exit %d)", c.Argv[0], res.ExitCode)
	}
	return out, nil
}
