package scoring_test

import (
	"fmt"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// A submission that passes the audit gate, completes stage 2 and survives
// four of six adversaries scores 40 + 4×10 = 80.
func ExampleGrade() {
	now := time.Date(2026, 7, 30, 9, 0, 0, 0, time.UTC)

	audit := result.NewStage(result.StageAudit, "fw06", now)
	audit.Add(result.Check{ID: "mux_retired", Verdict: result.VerdictPass, Weight: 1, Required: true})

	behavioural := result.NewStage(result.StageBehavioural, "fw06", now)
	behavioural.Units = append(behavioural.Units, result.Unit{ID: "routes", Weight: 1, Status: result.UnitOK})
	behavioural.Add(result.Check{ID: "routes/get", Unit: "routes", Verdict: result.VerdictPass, Weight: 1})

	verification := result.NewStage(result.StageVerification, "fw06", now)
	for i, verdict := range []string{"pass", "pass", "fail", "pass", "fail", "pass"} {
		verification.Add(result.Check{ID: fmt.Sprintf("a%02d", i), Unit: fmt.Sprintf("a%02d", i),
			Verdict: verdict, Weight: 1, Metadata: map[string]any{"kind": "round"}})
	}

	v := scoring.Grade("fw06", scoring.Stages{
		Audit: audit, Behavioural: behavioural, Verification: verification,
		Declared: result.StageNames(),
	}, scoring.Published())
	fmt.Println(v.Score, v.Valid(), v.AuditGate, v.BehaviouralPoints, v.VerificationPoints)
	fmt.Println(len(v.VerificationBreaks), "breaks")
	// Output:
	// 80 true pass 40 40
	// 2 breaks
}

// The gate predicates answer "may the next stage run" with the ladder's
// own code.
func ExampleBehaviouralReachesGate() {
	r := result.NewStage(result.StageBehavioural, "t", time.Unix(0, 0))
	r.Units = append(r.Units, result.Unit{ID: "m", Weight: 1, Status: result.UnitOK})
	r.Add(result.Check{ID: "m/a", Unit: "m", Verdict: result.VerdictPass, Weight: 1})
	r.Add(result.Check{ID: "m/b", Unit: "m", Verdict: result.VerdictFail, Weight: 1})
	ok, points, why := scoring.BehaviouralReachesGate(r, scoring.Published(), "")
	fmt.Println(ok, points)
	fmt.Println(why)
	// Output:
	// false 0
	// stage 2 did not pass every scored check, so none of its 40 points are paid; the modules passed 0.5000 of their weighted checks [behavioural-incomplete]
}
