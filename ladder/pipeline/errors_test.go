package pipeline

import (
	"errors"
	"fmt"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

func TestCode(t *testing.T) {
	bad := &Error{Code: BadTask, Err: errors.New("verification.candidate_command: no command")}
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("engine gone"), CouldNotRun},
		{bad, BadTask},
		{fmt.Errorf("the behavioural image: %w", bad), BadTask},
		{&Error{Code: CouldNotRun}, CouldNotRun},
	} {
		if got := Code(c.err); got != c.want {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if bad.Error() != "verification.candidate_command: no command" || (&Error{Code: 2}).Error() != "exit 2" {
		t.Errorf("messages %q, %q", bad.Error(), (&Error{Code: 2}).Error())
	}
}

func TestOutcomeCode(t *testing.T) {
	valid := result.NewVerdict("t1", 100)
	invalid := result.ErrorVerdict("t1", "stage 2 left no result")
	for _, c := range []struct {
		name    string
		o       Outcome
		want    int
		wantErr string
	}{
		{"graded", Outcome{Verdict: valid}, 0, ""},
		{"a stage said the task is wrong", Outcome{Verdict: invalid, StageErrors: map[string]error{"verification": &Error{Code: BadTask, Err: errors.New("x")}}}, BadTask,
			"the grader could not complete: stage 2 left no result"},
		{"a stage could not run", Outcome{Verdict: invalid, StageErrors: map[string]error{"audit": errors.New("no engine")}}, CouldNotRun,
			"the grader could not complete: stage 2 left no result"},
		{"bad exclusions", Outcome{Verdict: invalid, BadTask: true, Err: errors.New("artifacts.exclude: bad")}, BadTask, "artifacts.exclude: bad"},
		{"the pipeline's fault", Outcome{Err: errors.New("disk full")}, CouldNotRun, "disk full"},
	} {
		code, err := c.o.Code()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if code != c.want || msg != c.wantErr {
			t.Errorf("%s: (%d, %q), want (%d, %q)", c.name, code, msg, c.want, c.wantErr)
		}
	}
}
