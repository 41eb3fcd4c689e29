package result

import (
	"encoding/json"
	"strings"
	"testing"
)

// paidStage2 is a valid verdict that paid stage 2 for one complete module.
func paidStage2() *Verdict {
	v := NewVerdict("t", 100)
	v.AuditGate = GatePass
	v.StagesRun = []string{StageAudit, StageBehavioural}
	v.BehaviouralPoints, v.BehaviouralRate, v.Score = 40, 1, 40
	v.Modules = []ModuleScore{{ID: "m", Title: "m", Weight: 1, Rate: 1, Complete: true, Status: UnitOK, ScoredWeight: 3, Passed: 3}}
	return v
}

// TestForgedStage2Refused: a score.json that pays stage 2 must show what
// paying it takes. Forged files that kept the arithmetic of formula (4)
// and every other check were read as valid 40s: stage 2 paid with no
// module row at all, with a weighted mean rate below 1, and with a module
// row marked complete that failed checks, scored none or did not finish.
func TestForgedStage2Refused(t *testing.T) {
	if _, err := ParseVerdict(mustJSON(t, paidStage2())); err != nil {
		t.Fatalf("the honest verdict: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(v *Verdict)
		field string
	}{
		{"no module rows", func(v *Verdict) { v.Modules = nil }, "/behavioural/modules"},
		{"only weightless rows", func(v *Verdict) { v.Modules[0].Weight = 0 }, "/behavioural/modules"},
		{"rate below 1", func(v *Verdict) { v.BehaviouralRate = 0.5 }, "/behavioural/rate"},
		{"complete with a failing check", func(v *Verdict) { v.Modules[0].Passed, v.Modules[0].Rate = 2, 0.666667 }, "/behavioural/modules/0/complete"},
		{"complete with no scored check", func(v *Verdict) { v.Modules[0].ScoredWeight, v.Modules[0].Passed, v.Modules[0].Rate = 0, 0, 0 }, "/behavioural/modules/0/complete"},
		{"complete but timed out", func(v *Verdict) { v.Modules[0].Status = UnitTimeout }, "/behavioural/modules/0/complete"},
	} {
		v := paidStage2()
		tc.edit(v)
		_, err := ParseVerdict(mustJSON(t, v))
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err %v, want one at %s", tc.name, err, tc.field)
		}
	}
}

func mustJSON(t *testing.T, v *Verdict) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
