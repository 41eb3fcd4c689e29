package scoring

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestReachableScores walks formula (4) through every score the published
// policy can produce.
func TestReachableScores(t *testing.T) {
	perfect := func() *result.Stage { return behavioural(10, mod{"m", 1, 1}) }
	tests := []struct {
		name      string
		audit     *result.Stage
		beh       *result.Stage
		ver       *result.Stage
		score     float64
		valid     bool
		blockedBy string
	}{
		{"gate fails", audit("shim=fail"), perfect(), verification(6, 0, 0), 0, true, BlockedAuditGate},
		{"stage 2 one check short", audit("shim=pass"), behavioural(10, mod{"m", 1, 0.9}), verification(6, 0, 0), 0, true, BlockedBehaviouralIncomplete},
		{"every adversary broke through", audit("shim=pass"), perfect(), verification(0, 6, 0), 40, true, ""},
		{"1 survivor", audit("shim=pass"), perfect(), verification(1, 5, 0), 50, true, ""},
		{"2 survivors", audit("shim=pass"), perfect(), verification(2, 4, 0), 60, true, ""},
		{"3 survivors", audit("shim=pass"), perfect(), verification(3, 3, 0), 70, true, ""},
		{"4 survivors", audit("shim=pass"), perfect(), verification(4, 2, 0), 80, true, ""},
		{"5 survivors", audit("shim=pass"), perfect(), verification(5, 1, 0), 90, true, ""},
		{"full marks", audit("shim=pass"), perfect(), verification(6, 0, 0), 100, true, ""},
		{"stage 3 undeclared and absent", audit("shim=pass"), perfect(), nil, 40, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := grade(tt.audit, tt.beh, tt.ver)
			if v.Score != tt.score || v.Valid() != tt.valid || v.BlockedBy != tt.blockedBy {
				t.Errorf("score, valid, blocked_by = %v, %v, %q; want %v, %v, %q (harness_error %q)",
					v.Score, v.Valid(), v.BlockedBy, tt.score, tt.valid, tt.blockedBy, v.HarnessError)
			}
			if got := v.BehaviouralPoints + v.VerificationPoints; tt.score > 0 && got != v.Score {
				t.Errorf("stage points %v do not add up to the score %v", got, v.Score)
			}
			if want := tt.score / 100; v.Reward() != want {
				t.Errorf("reward = %v, want %v", v.Reward(), want)
			}
		})
	}
}

func TestScoreIsCappedAtMaxScore(t *testing.T) {
	p := Policy{MaxScore: 50, BehaviouralPoints: 40, VerificationPoints: 60, VerificationModels: 6, PointsPerSurvivedModel: 10}
	v := Grade("t", Stages{Audit: audit("g=pass"), Behavioural: behavioural(2, mod{"m", 1, 1}), Verification: verification(6, 0, 0)}, p)
	if v.Score != 50 || v.VerificationPoints != 60 {
		t.Errorf("score %v, verification points %v; want 50 (capped), 60", v.Score, v.VerificationPoints)
	}
	// Stage 3 is capped at its own figure too.
	p = Policy{MaxScore: 100, BehaviouralPoints: 40, VerificationPoints: 30, VerificationModels: 6, PointsPerSurvivedModel: 10}
	v = Grade("t", Stages{Audit: audit("g=pass"), Behavioural: behavioural(2, mod{"m", 1, 1}), Verification: verification(6, 0, 0)}, p)
	if v.VerificationPoints != 30 || v.Score != 70 {
		t.Errorf("verification points %v, score %v; want 30, 70", v.VerificationPoints, v.Score)
	}
}

// TestBlockedBy reaches every id of the blocked_by vocabulary.
func TestBlockedBy(t *testing.T) {
	errored := func(stage, msg string) *result.Stage {
		s := result.NewStage(stage, "t", t0)
		s.Status = result.StatusError
		if msg != "" {
			s.Metadata["error"] = msg
		}
		return s
	}
	advisory := result.NewStage(result.StageAudit, "t", t0)
	advisory.Add(result.Check{ID: "style", Verdict: "fail", Weight: 1})
	weightless := behavioural(2, mod{"a", 0, 1}, mod{"b", 0, 1})
	ok := audit("g=pass")
	full := behavioural(2, mod{"m", 1, 1})
	tests := []struct {
		id           string
		audit, b, v  *result.Stage
		declared     []string
		valid        bool
		score        float64
		harnessError string
	}{
		{BlockedAuditMissing, nil, full, nil, nil, false, 0, "the audit stage produced no result file"},
		{BlockedAuditError, errored(result.StageAudit, "the model gateway refused"), full, nil, nil, false, 0, "the model gateway refused"},
		{BlockedAuditEmpty, advisory, full, nil, nil, false, 0, "the audit result declares no required checks; a gate that cannot fail is not a gate"},
		{BlockedAuditGate, audit("g=fail"), full, nil, nil, true, 0, ""},
		{BlockedAuditUndecided, audit("a=pass", "g=error"), full, nil, nil, false, 0, "1 required audit check(s) could not be decided: g"},
		{BlockedBehaviouralMissing, ok, nil, nil, nil, false, 0, "the behavioural stage produced no result file"},
		{BlockedBehaviouralError, ok, errored(result.StageBehavioural, ""), nil, nil, false, 0, "the behavioural stage reported status=error"},
		{BlockedBehaviouralEmpty, ok, result.NewStage(result.StageBehavioural, "t", t0), nil, nil, false, 0, "the behavioural stage declared no modules"},
		{BlockedBehaviouralWeights, ok, weightless, nil, nil, false, 0, "behavioural module weights sum to zero"},
		{BlockedBehaviouralIncomplete, ok, behavioural(2, mod{"m", 1, 0.5}), nil, nil, true, 0, ""},
		{BlockedVerificationMissing, ok, full, nil, result.StageNames(), false, 40,
			"the verification stage was declared and the ladder reached it, but it produced no result file, so 60 of the 100 points were never contested"},
		{BlockedVerificationError, ok, full, errored(result.StageVerification, "the gateway refused every request"), nil, false, 40,
			"the verification stage did not complete: the gateway refused every request"},
		{BlockedVerificationIncomplete, ok, full, verification(5, 0, 1), nil, false, 90,
			"1 of 6 verification round(s) did not complete, so 10 of the 60 stage-3 points could not be contested: adv6 -- re-run the stage; an adversary that could not run has not demonstrated a defect, and must not be paid for as though it had found one"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			v := grade(tt.audit, tt.b, tt.v, tt.declared...)
			if v.BlockedBy != tt.id {
				t.Fatalf("blocked_by = %q, want %q (harness_error %q)", v.BlockedBy, tt.id, v.HarnessError)
			}
			if v.Valid() != tt.valid || v.Score != tt.score || v.HarnessError != tt.harnessError {
				t.Errorf("valid, score, harness_error = %v, %v, %q\nwant %v, %v, %q",
					v.Valid(), v.Score, v.HarnessError, tt.valid, tt.score, tt.harnessError)
			}
		})
	}
}

func TestAuditGate(t *testing.T) {
	t.Run("advisory checks never gate", func(t *testing.T) {
		a := audit("shim=pass")
		a.Add(result.Check{ID: "style", Verdict: "fail", Weight: 1})
		v := grade(a, behavioural(2, mod{"m", 1, 1}), verification(6, 0, 0))
		if v.AuditGate != result.GatePass || v.Score != 100 {
			t.Errorf("gate %q score %v, want pass 100", v.AuditGate, v.Score)
		}
	})
	t.Run("reduced quorum is noted on a pass", func(t *testing.T) {
		a := audit("shim=pass")
		a.Metadata["samples_requested"] = 3
		a.Metadata["samples_usable"] = 1
		v := grade(a, behavioural(2, mod{"m", 1, 1}), verification(6, 0, 0))
		want := "stage 1 ran on a reduced quorum: 1 of 3 reviews completed, and carried every gate verdict below"
		if !cmp.Equal(v.Notes, []string{want}) {
			t.Errorf("notes = %q", v.Notes)
		}
	})
	t.Run("reduced quorum is noted on a fail", func(t *testing.T) {
		a := audit("shim=fail")
		a.Metadata["samples_requested"] = 3
		a.Metadata["samples_usable"] = 2
		if v := grade(a, nil, nil); !hasNote(v, "reduced quorum: 2 of 3") {
			t.Errorf("notes = %q", v.Notes)
		}
	})
	t.Run("a full quorum says nothing", func(t *testing.T) {
		a := audit("shim=pass")
		a.Metadata["samples_requested"] = 3
		a.Metadata["samples_usable"] = 3
		if v := grade(a, behavioural(2, mod{"m", 1, 1}), nil); hasNote(v, "quorum") {
			t.Errorf("notes = %q", v.Notes)
		}
	})
	t.Run("a quorum of zero is the stage's error, not a note", func(t *testing.T) {
		a := result.NewStage(result.StageAudit, "t", t0)
		a.Status = result.StatusError
		a.Metadata["samples_requested"] = 3
		a.Metadata["samples_usable"] = 0
		a.Note("no review completed; the audit gate is undecided")
		v := grade(a, nil, nil)
		if v.BlockedBy != BlockedAuditError || v.HarnessError != "no review completed; the audit gate is undecided" || hasNote(v, "quorum") {
			t.Errorf("blocked_by %q harness_error %q notes %q", v.BlockedBy, v.HarnessError, v.Notes)
		}
	})
	t.Run("undecided ids are capped at six", func(t *testing.T) {
		a := audit("a=error", "b=error", "c=error", "d=error", "e=error", "f=error", "g=error")
		v := grade(a, nil, nil)
		if v.HarnessError != "7 required audit check(s) could not be decided: a, b, c, d, e, f" {
			t.Errorf("harness_error = %q", v.HarnessError)
		}
		if len(v.AuditFailures) != 7 || v.AuditGate != result.GateNotRun {
			t.Errorf("audit_failures %d, gate %q", len(v.AuditFailures), v.AuditGate)
		}
	})
	t.Run("failure details are clipped", func(t *testing.T) {
		a := result.NewStage(result.StageAudit, "t", t0)
		ev := make([]map[string]any, 15)
		for i := range ev {
			ev[i] = map[string]any{"note": "x"}
		}
		a.Add(result.Check{ID: "g", Verdict: "fail", Required: true, Weight: 1, Detail: strings.Repeat("é", 2500), Evidence: ev})
		v := grade(a, nil, nil)
		f := v.AuditFailures[0]
		if n := len([]rune(f["detail"].(string))); n != 2000 {
			t.Errorf("detail has %d characters, want 2000", n)
		}
		if n := len(f["evidence"].([]any)); n != 12 {
			t.Errorf("evidence has %d items, want 12", n)
		}
	})
	t.Run("a passing gate clears audit_failures", func(t *testing.T) {
		v := grade(audit("a=pass"), nil, nil)
		if v.AuditFailures == nil || len(v.AuditFailures) != 0 {
			t.Errorf("audit_failures = %v", v.AuditFailures)
		}
	})
}

func TestBehaviouralStage(t *testing.T) {
	pass := audit("shim=pass")
	t.Run("one failed check in two thousand pays nothing and says so", func(t *testing.T) {
		v := grade(pass, behavioural(2000, mod{"m", 1, 0.9995}), verification(6, 0, 0))
		if v.BehaviouralPoints != 0 || v.Score != 0 || v.BlockedBy != BlockedBehaviouralIncomplete || !approx(v.BehaviouralRate, 0.9995) {
			t.Fatalf("points %v score %v blocked %q rate %v", v.BehaviouralPoints, v.Score, v.BlockedBy, v.BehaviouralRate)
		}
		want := "1 behavioural module(s) did not pass every scored check, so stage 2 pays none of its 40 points and no verification points are available: m (1999/2000) -- the modules passed 0.9995 of their weighted checks, which is reported and not paid"
		if got := noteWith(t, v, "did not pass every scored check"); got != want {
			t.Errorf("note\n got %q\nwant %q", got, want)
		}
	})
	t.Run("modules are weighted, not pooled", func(t *testing.T) {
		b := behavioural(1000, mod{"big", 0.5, 0.5})
		b.Units = append(b.Units, result.Unit{ID: "small", Title: "small", Weight: 0.5, Status: "ok"})
		for i := 0; i < 10; i++ {
			b.Add(result.Check{ID: "small/c", Unit: "small", Verdict: "pass", Weight: 1})
		}
		v := grade(pass, b, nil)
		if !approx(v.BehaviouralRate, 0.75) {
			t.Errorf("rate %v, want 0.75", v.BehaviouralRate)
		}
		if p, tot := result.Pooled(b.Checks); p != 510 || tot != 1010 {
			t.Errorf("pooled = %d/%d", p, tot)
		}
		if s := moduleByID(t, v, "small"); !s.Complete || s.Rate != 1 {
			t.Errorf("small = %+v", s)
		}
	})
	t.Run("full marks is decided per module, not by a float", func(t *testing.T) {
		for _, mods := range [][]mod{
			{{"m", 1, 1}},
			{{"a", 0.3, 1}, {"b", 0.7, 1}},
			{{"a", 0.25, 1}, {"b", 0.63, 1}, {"c", 0.05, 1}},
		} {
			v := grade(pass, behavioural(10, mods...), verification(6, 0, 0))
			if v.BehaviouralRate != 1 || v.BehaviouralPoints != 40 || v.BlockedBy != "" || v.VerificationPoints != 60 {
				t.Errorf("%v: rate %v points %v blocked %q", mods, v.BehaviouralRate, v.BehaviouralPoints, v.BlockedBy)
			}
		}
	})
	t.Run("a timed-out module is charged, keeps its weight and the run stays valid", func(t *testing.T) {
		b := behavioural(10, mod{"built", 0.5, 1})
		b.Units = append(b.Units, result.Unit{ID: "ran-out", Title: "ran-out", Weight: 0.5, Status: "timeout"})
		b.Add(result.Check{ID: "ran-out/a", Unit: "ran-out", Verdict: "pass", Weight: 1})
		b.Add(result.Check{ID: "ran-out/b", Unit: "ran-out", Verdict: "fail", Weight: 1})
		v := grade(pass, b, nil)
		if !v.Valid() || v.BlockedBy != BlockedBehaviouralIncomplete || !approx(v.BehaviouralRate, 0.5) {
			t.Fatalf("valid %v blocked %q rate %v", v.Valid(), v.BlockedBy, v.BehaviouralRate)
		}
		want := "behavioural module(s) exceeded the budget the task declares for them, so each scores zero and keeps its weight: ran-out (weight 0.5, 1/2 recorded before the deadline) -- a budget overrun is charged to the submission, because the reference tree meets the same budget on the same machine"
		if got := noteWith(t, v, "exceeded the budget"); got != want {
			t.Errorf("note\n got %q\nwant %q", got, want)
		}
		if m := moduleByID(t, v, "ran-out"); m.Rate != 0 || m.Note != "module status=timeout" {
			t.Errorf("ran-out = %+v", m)
		}
	})
	t.Run("a killed module is dead, charged and named", func(t *testing.T) {
		b := behavioural(10, mod{"built", 0.5, 1})
		b.Units = append(b.Units, result.Unit{ID: "killed", Title: "killed", Weight: 0.5, Status: "error", Summary: "the module was killed by signal 9 (SIGKILL) and wrote no checks"})
		v := grade(pass, b, nil)
		want := "behavioural module(s) did not finish, so each scores zero and keeps its weight: killed (status error, weight 0.5) -- a module that did not finish has not measured the submission, so if this reproduces, the module or its image may be at fault rather than the tree under test"
		if got := noteWith(t, v, "did not finish"); got != want {
			t.Errorf("note\n got %q\nwant %q", got, want)
		}
		if !v.Valid() || moduleByID(t, v, "killed").Note != "the module was killed by signal 9 (SIGKILL) and wrote no checks" {
			t.Errorf("valid %v modules %+v", v.Valid(), v.Modules)
		}
	})
	t.Run("a dead reporting module is said out loud and paid in full", func(t *testing.T) {
		b := behavioural(10, mod{"behaviour", 1, 1})
		b.Units = append(b.Units, result.Unit{ID: "provenance", Title: "reports only", Weight: 0, Status: "error", Summary: "the collector crashed"})
		v := grade(pass, b, nil)
		want := "behavioural module(s) did not finish, so each scores zero and keeps its weight: provenance (status error) -- these carry no weight, so the score is unaffected; their observations are simply absent from this report"
		if got := noteWith(t, v, "did not finish"); got != want || v.BehaviouralPoints != 40 || v.BlockedBy != "" {
			t.Errorf("note %q points %v blocked %q", got, v.BehaviouralPoints, v.BlockedBy)
		}
	})
	t.Run("more than six named modules are counted", func(t *testing.T) {
		b := result.NewStage(result.StageBehavioural, "t", t0)
		for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			b.Units = append(b.Units, result.Unit{ID: id, Weight: 1, Status: "unreached"})
		}
		v := grade(pass, b, nil)
		note := noteWith(t, v, "were reached")
		if !strings.HasPrefix(note, "the behavioural stage ended before 8 of 8 module(s) were reached, so each scores zero and keeps its weight: a (weight 1), b (weight 1), c (weight 1), d (weight 1), e (weight 1), f (weight 1), and 2 more -- the stage clock") {
			t.Errorf("note = %q", note)
		}
		inc := noteWith(t, v, "did not pass every scored check")
		if !strings.Contains(inc, "a (0/0, status unreached), b (0/0, status unreached), c (0/0, status unreached), d (0/0, status unreached), e (0/0, status unreached), f (0/0, status unreached), and 2 more -- the modules passed 0.0000") {
			t.Errorf("note = %q", inc)
		}
	})
	t.Run("skips are charged and said", func(t *testing.T) {
		b := behavioural(10, mod{"built", 0.5, 1})
		b.Units = append(b.Units, result.Unit{ID: "inapplicable", Weight: 0.5, Status: "ok"})
		for i := 0; i < 6; i++ {
			b.Add(result.Check{ID: "i", Unit: "inapplicable", Verdict: "skip", Weight: 1, Summary: "not applicable to this tree"})
		}
		v := grade(pass, b, nil)
		m := moduleByID(t, v, "inapplicable")
		want := "6 of 6 scored check(s) did not run and are charged 0 -- every check in this module declined, so its 0.0 is the absence of an artifact to measure rather than a measurement"
		if m.Note != want || m.ScoredWeight != 6 || m.Skipped != 6 || m.Title != "inapplicable" || !approx(v.BehaviouralRate, 0.5) {
			t.Errorf("row %+v rate %v", m, v.BehaviouralRate)
		}
	})
	t.Run("a partial skip says how many", func(t *testing.T) {
		b := behavioural(4, mod{"m", 1, 0.5})
		b.Add(result.Check{ID: "m/s", Unit: "m", Verdict: "skip", Weight: 1})
		m := moduleByID(t, grade(pass, b, nil), "m")
		if m.Note != "1 of 5 scored check(s) did not run and are charged 0" {
			t.Errorf("note = %q", m.Note)
		}
	})
	t.Run("weight-zero modules report without judging", func(t *testing.T) {
		b := behavioural(10, mod{"built", 0.93, 1})
		b.Units = append(b.Units, result.Unit{ID: "provenance", Weight: 0, Status: "ok"})
		for i := 0; i < 6; i++ {
			b.Add(result.Check{ID: "p", Unit: "provenance", Verdict: "skip", Weight: 1})
		}
		b.Units = append(b.Units, result.Unit{ID: "silent", Weight: 0, Status: "ok"})
		b.Units = append(b.Units, result.Unit{ID: "observer", Weight: 0, Status: "ok"})
		for i := 0; i < 42; i++ {
			b.Add(result.Check{ID: "o", Unit: "observer", Verdict: "pass", Weight: 0, Summary: "an  observation\nspanning lines " + strings.Repeat("x", 420)})
		}
		v := grade(pass, b, nil)
		if v.BehaviouralPoints != 40 || v.BlockedBy != "" {
			t.Fatalf("points %v blocked %q", v.BehaviouralPoints, v.BlockedBy)
		}
		if n := moduleByID(t, v, "silent").Note; n != "reports only, by design -- weight zero, and it recorded no checks at all, so it decides nothing" {
			t.Errorf("silent note = %q", n)
		}
		obs := moduleByID(t, v, "observer")
		if obs.Note != "reports only, by design -- weight zero, and it recorded no checks at all, so it decides nothing" {
			t.Errorf("observer note = %q", obs.Note)
		}
		if len(obs.Observations) != 41 || obs.Observations[40] != "(2 further observation(s) in results/behavioural.json)" {
			t.Fatalf("observations: %d, last %q", len(obs.Observations), obs.Observations[len(obs.Observations)-1])
		}
		if o := obs.Observations[0]; len([]rune(o)) != 400 || !strings.HasPrefix(o, "an observation spanning lines xxx") || !strings.HasSuffix(o, "x...") {
			t.Errorf("observation = %q (%d)", o, len(o))
		}
	})
	t.Run("a program module's weight-0 findings reach its row", func(t *testing.T) {
		b := behavioural(10, mod{"built", 1, 1})
		b.Units = append(b.Units, result.Unit{ID: "module-system", Weight: 0, Status: "ok", Metadata: map[string]any{
			"unscored_observations": 2,
			"unscored_findings": []any{
				map[string]any{"id": "module-system/type", "verdict": "pass", "summary": "package.json type: commonjs"},
				map[string]any{"id": "module-system/require", "verdict": "fail", "summary": "17 shipped files use require", "detail": "lib/a.js"},
			}}})
		v := grade(pass, b, nil)
		got := moduleByID(t, v, "module-system").Observations
		want := []string{"module-system/type (weight 0, pass): package.json type: commonjs",
			"module-system/require (weight 0, fail): 17 shipped files use require -- lib/a.js"}
		if !slices.Equal(got, want) {
			t.Errorf("observations %q, want %q", got, want)
		}
	})
	t.Run("a weighted module with no checks is charged and explained", func(t *testing.T) {
		b := behavioural(10, mod{"built", 0.5, 1})
		b.Units = append(b.Units, result.Unit{ID: "silent", Weight: 0.5, Status: "ok"})
		m := moduleByID(t, grade(pass, b, nil), "silent")
		if m.Note != "module produced no scored checks despite carrying weight 0.5 (it recorded no checks at all); its 0.0 rate is charged to the submission and may not belong to it" {
			t.Errorf("note = %q", m.Note)
		}
	})
	t.Run("a module's own notes reach the row, a bare string too", func(t *testing.T) {
		b := behavioural(2, mod{"structure", 0.5, 1}, mod{"built", 0.5, 1})
		b.Units[0].Metadata = map[string]any{"notes": []any{"7 of 17 structural case(s) are not applicable", "  "}}
		b.Units[1].Metadata = map[string]any{"notes": "a single note, not in a list"}
		v := grade(pass, b, nil)
		if got := moduleByID(t, v, "structure"); !cmp.Equal(got.Notes, []string{"7 of 17 structural case(s) are not applicable"}) || got.Note != "" {
			t.Errorf("structure = %+v", got)
		}
		if got := moduleByID(t, v, "built").Notes; !cmp.Equal(got, []string{"a single note, not in a list"}) {
			t.Errorf("built notes = %q", got)
		}
	})
}

func TestSharedCause(t *testing.T) {
	checks := func(summaries ...string) []result.Check {
		var out []result.Check
		for _, s := range summaries {
			out = append(out, result.Check{Verdict: "fail", Weight: 1, Summary: s})
		}
		return out
	}
	tests := []struct {
		name   string
		checks []result.Check
		want   string
	}{
		{"same headline", checks("launcher exited with 1 before becoming ready", "launcher  exited with 1 before becoming ready", "launcher exited with 1 before becoming ready", "other"),
			"3 of 4 failing checks report the same thing: launcher exited with 1 before becoming ready"},
		{"same final clause", checks("GET /a: launcher exited with 1", "POST /b: launcher exited with 1", "PUT /c: x: launcher exited with 1"),
			"3 of 3 failing checks end on the same cause: launcher exited with 1"},
		{"fewer than three", checks("x", "x"), ""},
		{"below two thirds", checks("x", "x", "x", "y", "z", "w"), ""},
		{"disagreeing failures", checks("a", "b", "c"), ""},
		{"skips, passes and weight 0 are not read", append(checks("x", "x"),
			result.Check{Verdict: "skip", Weight: 1, Summary: "x"},
			result.Check{Verdict: "fail", Weight: 0, Summary: "x"},
			result.Check{Verdict: "pass", Weight: 1, Summary: "x"}), ""},
		{"errors count", append(checks("x", "x"), result.Check{Verdict: "error", Weight: 1, Summary: "x"}), "3 of 3 failing checks report the same thing: x"},
		{"clipped to 400", checks(strings.Repeat("a", 500), strings.Repeat("a", 500), strings.Repeat("a", 500)),
			("3 of 3 failing checks report the same thing: " + strings.Repeat("a", 500))[:400]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sharedCause(tt.checks); got != tt.want {
				t.Errorf("sharedCause = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVerificationStage(t *testing.T) {
	pass, full := audit("g=pass"), behavioural(2, mod{"m", 1, 1})
	t.Run("breaks are recorded, errored rounds are not breaks", func(t *testing.T) {
		s := verification(4, 1, 1)
		s.Checks[4].Detail = "detail"
		s.Checks[4].Summary = "/range suffix ranges are wrong"
		s.Checks[4].Unit = "b00-breaker"
		v := grade(pass, full, s)
		want := []map[string]any{{"adversary": "b00-breaker", "summary": "/range suffix ranges are wrong", "detail": "detail", "evidence": []any{}}}
		if !cmp.Equal(v.VerificationBreaks, want) {
			t.Errorf("breaks = %v", v.VerificationBreaks)
		}
		if v.VerificationPoints != 40 || v.AdversariesTotal != 6 || v.AdversariesSurvived != 4 || v.BlockedBy != BlockedVerificationIncomplete {
			t.Errorf("points %v total %d survived %d blocked %q", v.VerificationPoints, v.AdversariesTotal, v.AdversariesSurvived, v.BlockedBy)
		}
		if !hasNote(v, "1 verification round(s) could not be completed and paid nothing: adv6") {
			t.Errorf("notes = %q", v.Notes)
		}
	})
	// Without the task, the policy's count of rounds must be met: a
	// missing round was never contested (0 rounds used to pay a valid
	// 40, 5 of 6 a valid 90), and an extra one is refused.
	t.Run("a round count other than the policy's is a harness fault", func(t *testing.T) {
		for _, tt := range []struct {
			rounds  int
			blocked string
			msg     string
		}{
			{0, BlockedVerificationIncomplete, "the verification result holds 0 round(s) but the policy declares 6 adversaries, so 60 of the 60 stage-3 points were never contested -- re-run the stage"},
			{5, BlockedVerificationIncomplete, "the verification result holds 5 round(s) but the policy declares 6 adversaries, so 10 of the 60 stage-3 points were never contested -- re-run the stage"},
			{7, BlockedVerificationError, "the verification result holds 7 round(s) but the policy declares 6 adversaries: a round the policy does not declare is refused, not paid"},
		} {
			v := grade(pass, full, verification(tt.rounds, 0, 0))
			if v.Valid() || v.HarnessError != tt.msg || v.BlockedBy != tt.blocked || v.VerificationPoints != 0 || v.Score != 40 {
				t.Errorf("%d rounds: valid %v error %q blocked %q points %v score %v", tt.rounds, v.Valid(), v.HarnessError, v.BlockedBy, v.VerificationPoints, v.Score)
			}
		}
	})
	t.Run("rounds fall back to checks with a unit", func(t *testing.T) {
		s := result.NewStage(result.StageVerification, "t", t0)
		s.Add(result.Check{ID: "r1", Unit: "a01", Verdict: "pass", Weight: 1})
		s.Add(result.Check{ID: "r2", Unit: "a02", Verdict: "fail", Weight: 1})
		s.Add(result.Check{ID: "loose", Verdict: "pass", Weight: 1})
		v := grade(pass, full, s)
		if v.AdversariesTotal != 2 || v.AdversariesSurvived != 1 || v.VerificationBreaks[0]["adversary"] != "a02" {
			t.Errorf("total %d survived %d breaks %v", v.AdversariesTotal, v.AdversariesSurvived, v.VerificationBreaks)
		}
	})
	t.Run("an undeclared absent stage 3 is a note", func(t *testing.T) {
		v := grade(pass, full, nil)
		if !cmp.Equal(v.Notes, []string{"the verification stage produced no result file; no stage-3 points were awarded"}) || v.Metadata[MetaVerificationMissing] != true {
			t.Errorf("notes %q metadata %v", v.Notes, v.Metadata)
		}
	})
	t.Run("an errored stage 3 falls back to its notes", func(t *testing.T) {
		s := result.NewStage(result.StageVerification, "t", t0)
		s.Status = result.StatusError
		s.Note("no round completed")
		v := grade(pass, full, s)
		if v.HarnessError != "the verification stage did not complete: no round completed" {
			t.Errorf("harness_error %q", v.HarnessError)
		}
		if !cmp.Equal(v.Notes, []string{"stage 3: no round completed",
			"no stage-3 points were awarded, and the score is not published: a stage that could not run has established nothing about the submission"}) {
			t.Errorf("notes %q", v.Notes)
		}
	})
}

func TestCarriedNotes(t *testing.T) {
	a, b, c := audit("g=pass"), behavioural(2, mod{"m", 1, 1}), verification(6, 0, 0)
	a.Notes = append(a.Notes, "a sample was retried", "", "   ", "a sample was retried")
	b.Notes = append(b.Notes, "a sample was retried")
	c.Notes = append(c.Notes, " adversary a04 fell back to a smaller context window ")
	v := grade(a, b, c)
	want := []string{"stage 1: a sample was retried", "stage 2: a sample was retried", "stage 3: adversary a04 fell back to a smaller context window"}
	if !cmp.Equal(v.Notes, want) || v.Score != 100 {
		t.Errorf("notes %q score %v", v.Notes, v.Score)
	}
	// On the error path the notes are the harness error, not carried twice.
	e := result.NewStage(result.StageAudit, "t", t0)
	e.Status = result.StatusError
	e.Note("the audit model returned 503 on every sample")
	v = grade(e, nil, nil)
	if v.HarnessError != "the audit model returned 503 on every sample" || len(v.Notes) != 0 {
		t.Errorf("harness_error %q notes %q", v.HarnessError, v.Notes)
	}
}

func TestHarnessesAreCollectedPerStage(t *testing.T) {
	a, b, c := audit("g=pass"), behavioural(2, mod{"m", 1, 1}), verification(6, 0, 0)
	a.Harness = map[string]any{"fingerprint": "aaaaaaaaaaaa"}
	b.Harness = map[string]any{}
	c.Harness = map[string]any{"fingerprint": "bbbbbbbbbbbb"}
	v := grade(a, b, c)
	want := []map[string]any{{"fingerprint": "aaaaaaaaaaaa", "stage": "audit"}, {"fingerprint": "bbbbbbbbbbbb", "stage": "verification"}}
	if !cmp.Equal(v.Harnesses, want) {
		t.Errorf("harnesses = %v", v.Harnesses)
	}
	if a.Harness["stage"] != nil {
		t.Error("the stage's own harness map was modified")
	}
}

func TestGatePredicates(t *testing.T) {
	tests := []struct {
		name string
		r    *result.Stage
		ok   bool
		why  string
	}{
		{"pass", audit("a=pass"), true, "stage 1 passed every required gate"},
		{"fail", audit("a=fail", "b=pass", "c=fail"), false, "the audit gate failed on 2 required check(s): a, c [audit-gate]"},
		{"missing", nil, false, "the audit stage produced no result file [audit-missing]"},
		{"undecided", audit("a=error"), false, "1 required audit check(s) could not be decided: a [audit-undecided]"},
	}
	for _, tt := range tests {
		t.Run("audit "+tt.name, func(t *testing.T) {
			ok, why := AuditPassesGate(tt.r, policy, "")
			if ok != tt.ok || why != tt.why {
				t.Errorf("AuditPassesGate = %v, %q; want %v, %q", ok, why, tt.ok, tt.why)
			}
		})
	}
	btests := []struct {
		name   string
		r      *result.Stage
		ok     bool
		points float64
		why    string
	}{
		{"complete", behavioural(4, mod{"m", 1, 1}), true, 40, "stage 2 passed every scored check, worth 40 of 40 points (paid only when the audit gate passes too)"},
		{"short", behavioural(4, mod{"m", 1, 0.75}), false, 0,
			"stage 2 did not pass every scored check, so none of its 40 points are paid; the modules passed 0.7500 of their weighted checks [behavioural-incomplete]"},
		{"missing", nil, false, 0, "stage 2 has produced no result file"},
		{"empty", result.NewStage(result.StageBehavioural, "t", t0), false, 0, "the behavioural stage declared no modules [behavioural-empty]"},
	}
	for _, tt := range btests {
		t.Run("behavioural "+tt.name, func(t *testing.T) {
			ok, points, why := BehaviouralReachesGate(tt.r, policy, "")
			if ok != tt.ok || points != tt.points || why != tt.why {
				t.Errorf("BehaviouralReachesGate = %v, %v, %q; want %v, %v, %q", ok, points, why, tt.ok, tt.points, tt.why)
			}
		})
	}
	// "May run" and "will pay" agree: the predicate's answer is the ladder's.
	for _, r := range []*result.Stage{behavioural(4, mod{"m", 1, 1}), behavioural(4, mod{"m", 1, 0.75})} {
		ok, _, _ := BehaviouralReachesGate(r, policy, "t")
		v := grade(audit("a=pass"), r, verification(6, 0, 0))
		if ok != (v.VerificationPoints > 0) {
			t.Errorf("the gate says %v but the ladder paid stage 3 %v", ok, v.VerificationPoints)
		}
	}
}

func TestPolicy(t *testing.T) {
	if err := Published().Check(); err != nil {
		t.Fatalf("the published policy fails its own check: %v", err)
	}
	if p := Published(); p != (Policy{100, 40, 60, 6, 10, nil}) {
		t.Errorf("Published() = %+v", p)
	}
	tests := []struct {
		p    Policy
		want string
	}{
		{Policy{100, 40, 55, 6, 4, nil}, "check scoring policy: points_per_survived_model × verification_models is 4 × 6 = 24, not verification_points 55; behavioural_points + verification_points is 40 + 55 = 95, not max_score 100"},
		{Policy{60, 0, 60, 6, 10, nil}, "check scoring policy: behavioural_points must be greater than 0, not 0"},
		{Policy{40, 40, 0, -1, 0, nil}, "check scoring policy: verification_models must not be negative, not -1"},
		{Policy{100.0000001, 40, 60, 6, 10, nil}, ""},
	}
	for _, tt := range tests {
		err := tt.p.Check()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v.Check() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// A module that timed out or died keeps whatever checks it recorded, all
// passing here, and still pays nothing: only a module that finished ok can
// be complete (HARNESS.md §4.4: non-ok statuses "all score 0"). Found by a
// hostile input: the earlier rule read only the counts, and paid 40.
func TestUnfinishedModuleIsNeverComplete(t *testing.T) {
	for _, status := range []string{result.UnitTimeout, result.UnitError, result.UnitUnreached} {
		t.Run(status, func(t *testing.T) {
			b := behavioural(4, mod{"build", 1, 1})
			b.Units[0].Status = status
			v := grade(audit("g=pass"), b, verification(6, 0, 0))
			m := moduleByID(t, v, "build")
			if m.Complete || m.Rate != 0 || v.BehaviouralPoints != 0 || v.Score != 0 || v.BlockedBy != BlockedBehaviouralIncomplete {
				t.Fatalf("module %+v; points %v score %v blocked %q", m, v.BehaviouralPoints, v.Score, v.BlockedBy)
			}
			if !v.Valid() {
				t.Errorf("a measured timeout is a valid zero, got harness error %q", v.HarnessError)
			}
		})
	}
}
