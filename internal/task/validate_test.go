package task

import (
	"path/filepath"
	"testing"
)

func TestFixtureValidatesClean(t *testing.T) {
	r := Validate("../../testdata/tasks/lang90-tally-c-to-go")
	for _, p := range r.Problems {
		t.Errorf("problem: %s", p.Format(""))
	}
	for _, n := range r.Notes {
		t.Logf("note[%s]: %s", n.Rule, n.Msg)
	}
	if r.Task == nil || r.Task.ID != "lang90-tally-c-to-go" || r.Task.Agent.BudgetSec != 21600 || r.Task.Scoring.MaxScore != 100 {
		t.Fatalf("task not decoded: %+v", r.Task)
	}
}

// TestTasksValidate validates every task under tasks/ (cue's TestLatest:
// tasks are data, and data that stops validating fails the build).
func TestTasksValidate(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "tasks", "*", FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := Validate(dir)
			for _, p := range r.Problems {
				t.Errorf("%s", p.Format(""))
			}
		})
	}
}
