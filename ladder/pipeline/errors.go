package pipeline

import (
	"errors"
	"fmt"
)

// Exit classes of an [Error] and of an [Outcome] (the project's exit
// codes: 0 ran, 1 could not run, 2 the task's configuration is wrong).
const (
	// CouldNotRun is a fault of the grader (a missing engine, an
	// unreadable file, a round that did not complete): exit 1.
	CouldNotRun = 1
	// BadTask is the task's own configuration being wrong: exit 2.
	BadTask = 2
)

// Error is an error with its exit class, as a [Stage] returns it.
type Error struct {
	// Code is [CouldNotRun] or [BadTask].
	Code int
	// Err is what happened.
	Err error
	// Printed says the stage already printed what happened on its
	// output (a command need not print Err again).
	Printed bool
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Code is err's exit class: 0 for nil, an [*Error]'s Code, else
// [CouldNotRun].
func Code(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CouldNotRun
}

// Code is how the grading ended as an exit class, with the error to
// report (nil when there is none): [BadTask] when the task's own
// configuration is wrong (its exclusions, or a stage that said so),
// [CouldNotRun] when the pipeline could not complete or the verdict is
// invalid, else 0.
func (o *Outcome) Code() (int, error) {
	code := 0
	for _, stage := range StageFiles {
		if Code(o.StageErrors[stage]) == BadTask {
			code = BadTask
		}
	}
	switch {
	case o.BadTask:
		return BadTask, o.Err
	case o.Err != nil:
		return CouldNotRun, o.Err
	case o.Verdict == nil:
		return CouldNotRun, errors.New("no verdict was published")
	case !o.Verdict.Valid():
		return max(code, CouldNotRun), fmt.Errorf("the grader could not complete: %s", o.Verdict.HarnessError)
	}
	return code, nil
}
