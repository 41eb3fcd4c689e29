package submission

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Observed is what a verdict says about the keys of [Expect], whether the
// stage was counted or ran and was not counted (HARNESS.md §4.4
// "Uncounted").
type Observed struct {
	Score          float64
	Stage1         string // passed | failed | not-run
	Stage2Ran      bool
	Stage2Rate     float64
	Stage2Complete bool
	// Stage2Error says why stage 2 did not complete ("" when it did, or
	// when it did not run): its result was an error, counted or not.
	Stage2Error   string
	Stage3        string // ran | not-run
	FailedModules []string
	Valid         bool
}

// Observe reads the keys of [Expect] off a verdict: stage 2's rate and
// completeness from the counted stage, or from its uncounted record when
// the ladder stopped below it; the failed modules are the scored module
// rows that were not complete, sorted.
func Observe(v *result.Verdict) Observed {
	flat := result.Reward(v)
	o := Observed{Score: v.Score, Valid: v.Valid(), Stage1: "not-run", Stage3: "not-run"}
	switch v.AuditGate {
	case result.GatePass:
		o.Stage1 = "passed"
	case result.GateFail:
		o.Stage1 = "failed"
	}
	switch {
	case flat["stage2_scored"] == 1:
		o.Stage2Ran, o.Stage2Rate = true, v.BehaviouralRate
		o.Stage2Complete = v.BlockedBy != "behavioural-incomplete" && v.BehaviouralPoints > 0
		if v.BlockedBy == "behavioural-error" {
			o.Stage2Error = v.HarnessError
		}
	case flat["stage2_uncounted_ran"] == 1:
		o.Stage2Ran, o.Stage2Rate = true, flat["stage2_uncounted_rate"]
		o.Stage2Complete = flat["stage2_uncounted_complete"] == 1
		// Unscored holds the earlier harness's dict (status, harness_error
		// or error); Uncounted its projection.
		for _, unc := range []map[string]any{v.Unscored[result.StageBehavioural], v.Uncounted()[result.StageBehavioural]} {
			st, _ := unc["status"].(string)
			if st == "" || st == "ok" {
				continue
			}
			if o.Stage2Error = stageError(unc); o.Stage2Error == "" {
				o.Stage2Error = "status " + st
				continue // the other spelling may say why
			}
			break
		}
	}
	if flat["stage3_ran"] == 1 {
		o.Stage3 = "ran"
	}
	for _, m := range v.Modules {
		if m.Weight > 0 && !m.Complete {
			o.FailedModules = append(o.FailedModules, m.ID)
		}
	}
	sort.Strings(o.FailedModules)
	return o
}

// Check compares e with what was observed and returns one sentence per
// key that differs, none when the expectation is met (or e is nil).
// Rates compare to 6 decimal places.
func (e *Expect) Check(o Observed) []string {
	if e == nil {
		return nil
	}
	var out []string
	near := func(a, b float64) bool { return math.Abs(a-b) < 5e-7 }
	if e.Score != nil && !near(*e.Score, o.Score) {
		out = append(out, fmt.Sprintf("score: want %g, got %g", *e.Score, o.Score))
	}
	if e.Valid != nil && *e.Valid != o.Valid {
		out = append(out, fmt.Sprintf("valid: want %t, got %t", *e.Valid, o.Valid))
	}
	if e.Stage1 != "" && e.Stage1 != o.Stage1 {
		out = append(out, fmt.Sprintf("stage1: want %s, got %s", e.Stage1, o.Stage1))
	}
	if (e.Stage2Rate != nil || e.Stage2Complete != nil) && o.Stage2Error != "" {
		out = append(out, "stage 2 did not complete: "+o.Stage2Error)
	} else if e.Stage2Rate != nil {
		if !o.Stage2Ran {
			out = append(out, fmt.Sprintf("stage2_rate: want %g, but stage 2 did not run", *e.Stage2Rate))
		} else if !near(*e.Stage2Rate, o.Stage2Rate) {
			out = append(out, fmt.Sprintf("stage2_rate: want %g, got %.6f", *e.Stage2Rate, o.Stage2Rate))
		}
	}
	if e.Stage2Complete != nil && o.Stage2Error == "" && *e.Stage2Complete != o.Stage2Complete {
		out = append(out, fmt.Sprintf("stage2_complete: want %t, got %t", *e.Stage2Complete, o.Stage2Complete))
	}
	if e.Stage3 != "" && e.Stage3 != o.Stage3 {
		out = append(out, fmt.Sprintf("stage3: want %s, got %s", e.Stage3, o.Stage3))
	}
	if e.FailedModules != nil {
		want := slices.Clone(e.FailedModules)
		sort.Strings(want)
		if !slices.Equal(want, o.FailedModules) {
			out = append(out, fmt.Sprintf("failed_modules: want [%s], got [%s]", strings.Join(want, ", "), strings.Join(o.FailedModules, ", ")))
		}
	}
	return out
}

// stageError is an uncounted stage's harness_error, else its error.
func stageError(unc map[string]any) string {
	for _, k := range []string{"harness_error", "error"} {
		if e, _ := unc[k].(string); e != "" {
			return e
		}
	}
	return ""
}
