package scoring

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// The fixtures below build stage results the way the earlier harness's
// tests did (infra/tests/test_scoring.py), so the same scenarios can be
// asserted here.

var t0 = time.Date(2026, 7, 30, 9, 0, 0, 0, time.UTC)

var policy = Published()

// audit builds an ok audit result with one required check per "id=verdict".
func audit(gates ...string) *result.Stage {
	s := result.NewStage(result.StageAudit, "t", t0)
	for _, g := range gates {
		id, verdict, _ := strings.Cut(g, "=")
		s.Add(result.Check{ID: id, Verdict: verdict, Summary: verdict, Weight: 1, Required: true})
	}
	return s
}

type mod struct {
	id     string
	weight float64
	rate   float64
}

// behavioural builds an ok stage-2 result: each module expanded into n
// checks, the first round(rate·n) passing (Python's round: ties to even).
func behavioural(n int, mods ...mod) *result.Stage {
	s := result.NewStage(result.StageBehavioural, "t", t0)
	for _, m := range mods {
		s.Units = append(s.Units, result.Unit{ID: m.id, Title: m.id, Weight: m.weight, Status: result.UnitOK})
		passing := int(math.RoundToEven(m.rate * float64(n)))
		for i := 0; i < n; i++ {
			v := result.VerdictFail
			if i < passing {
				v = result.VerdictPass
			}
			s.Add(result.Check{ID: fmt.Sprintf("%s/c%d", m.id, i), Unit: m.id, Verdict: v, Weight: 1})
		}
	}
	return s
}

// verification builds an ok stage-3 result with that many rounds of each
// outcome, each a check with metadata kind "round".
func verification(survived, broke, errored int) *result.Stage {
	s := result.NewStage(result.StageVerification, "t", t0)
	n := 0
	for _, x := range []struct {
		verdict string
		count   int
	}{{result.VerdictPass, survived}, {result.VerdictFail, broke}, {result.VerdictError, errored}} {
		for i := 0; i < x.count; i++ {
			n++
			s.Add(result.Check{ID: fmt.Sprintf("adv%d", n), Verdict: x.verdict, Weight: 1,
				Metadata: map[string]any{"kind": "round"}})
		}
	}
	return s
}

func grade(a, b, v *result.Stage, declared ...string) *result.Verdict {
	return Grade("t", Stages{Audit: a, Behavioural: b, Verification: v, Declared: declared}, policy)
}

func hasNote(v *result.Verdict, sub string) bool {
	for _, n := range v.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func noteWith(t *testing.T, v *result.Verdict, sub string) string {
	t.Helper()
	for _, n := range v.Notes {
		if strings.Contains(n, sub) {
			return n
		}
	}
	t.Fatalf("no note contains %q; notes:\n%s", sub, strings.Join(v.Notes, "\n"))
	return ""
}

func moduleByID(t *testing.T, v *result.Verdict, id string) result.ModuleScore {
	t.Helper()
	for _, m := range v.Modules {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no module %q in %v", id, v.Modules)
	return result.ModuleScore{}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
