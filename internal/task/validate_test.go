package task

import (
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
