// Package cli builds srb's cobra command tree: one file per command, each
// with an Options struct, a NewCmdX constructor and a runX function that
// is plain Go. Only this package writes to the process's stdout/stderr.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/pipeline"
)

// Exit codes (the project's standard; the earlier harness's cli.py, HARNESS.md §1.1): a stage's exit status says
// whether it ran, never what it decided.
const (
	// ExitRan: the command ran; its verdict, if any, is in its output.
	ExitRan = 0
	// ExitCouldNotRun: a harness fault (missing engine, unreadable file).
	ExitCouldNotRun = 1
	// ExitBadTask: the task's own configuration is wrong.
	ExitBadTask = 2
)

// exitError is a command's error with its exit code: a [pipeline.Error]
// (what a stage returns too), Code the exit code and Printed saying the
// command already showed it, so Main does not print it again (cue's
// ErrPrintedError).
type exitError = pipeline.Error

// exitCode is the exit code err maps to (0 for nil).
func exitCode(err error) int {
	if err == nil {
		return ExitRan
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitCouldNotRun
}

// badTask wraps err as a configuration error (exit 2).
func badTask(err error) error { return &exitError{Code: ExitBadTask, Err: err} }

// couldNotRun wraps err as a harness fault (exit 1).
func couldNotRun(err error) error { return &exitError{Code: ExitCouldNotRun, Err: err} }

// silent returns an exit code whose message was already printed.
func silent(code int, err error) error { return &exitError{Code: code, Err: err, Printed: true} }

// Main runs srb with os.Args and returns the process exit code.
//
// Before any command, srb's process state is made its own
// ([processDefaults]): its umask, and the descriptors it inherited marked
// close-on-exec; if that fails srb exits 1 without running a command.
func Main() int {
	if err := processDefaults(); err != nil {
		fmt.Fprintf(os.Stderr, "srb: cannot mark inherited descriptors close-on-exec: %v\n", err)
		return ExitCouldNotRun
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := NewFactory()
	return Run(ctx, f, os.Args[1:])
}

// Run executes srb with args against the factory's streams and returns the
// exit code. Tests call it in-process.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return reportExit(ctx, f.IO.ErrOut, root.ExecuteContext(ctx))
}

// reportExit is the exit status for a command's error (ExitRan for nil),
// printing the error on errOut unless the command printed it already.
func reportExit(ctx context.Context, errOut io.Writer, err error) int {
	if err == nil {
		return ExitRan
	}
	code := ExitCouldNotRun
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.Code
		if ee.Printed {
			return code
		}
	} else if isUsageError(err) {
		code = ExitCouldNotRun
	}
	if ctx.Err() != nil {
		fmt.Fprintln(errOut, "srb: interrupted")
		return ExitCouldNotRun
	}
	fmt.Fprintf(errOut, "srb: %v\n", err)
	return code
}

func isUsageError(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// usageError is a wrong invocation (unknown flag, wrong argument count).
type usageError struct{ err error }

// Error implements error.
func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *usageError) Unwrap() error { return e.err }
