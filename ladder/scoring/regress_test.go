package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// One test per documented scoring bug of the earlier harness (HARNESS.md
// §7), named by its number.

// Bug 7: a declared stage 3 that never produced a file published 40.00 as
// a final score.
func TestBug7DeclaredButAbsentVerificationIsARerun(t *testing.T) {
	v := grade(audit("g=pass"), behavioural(2, mod{"m", 1, 1}), nil, result.StageNames()...)
	if v.Valid() || v.BlockedBy != BlockedVerificationMissing || v.Metadata[MetaVerificationMissing] != true {
		t.Errorf("valid %v blocked %q metadata %v", v.Valid(), v.BlockedBy, v.Metadata)
	}
	if v.BehaviouralPoints != 40 || !strings.Contains(v.HarnessError, "60 of the 100 points were never contested") {
		t.Errorf("points %v harness_error %q", v.BehaviouralPoints, v.HarnessError)
	}
	// The same run graded by hand, without declared stages, is a valid 40.
	if v := grade(audit("g=pass"), behavioural(2, mod{"m", 1, 1}), nil); !v.Valid() || v.Score != 40 {
		t.Errorf("undeclared: valid %v score %v", v.Valid(), v.Score)
	}
}

// Bug 38: a decided failure was reported as "could not be decided".
func TestBug38DecidedFailureOutranksUndecided(t *testing.T) {
	v := grade(audit("posix_layer_retired=fail", "wasi_platform_layer_is_real=fail", "no_host_escape=error", "engine_untouched=pass"),
		behavioural(2, mod{"m", 1, 1}), nil)
	if v.AuditGate != result.GateFail || v.BlockedBy != BlockedAuditGate || !v.Valid() {
		t.Fatalf("gate %q blocked %q valid %v", v.AuditGate, v.BlockedBy, v.Valid())
	}
	var ids []string
	for _, f := range v.AuditFailures {
		ids = append(ids, f["id"].(string))
	}
	if !cmp.Equal(ids, []string{"posix_layer_retired", "wasi_platform_layer_is_real"}) {
		t.Errorf("audit_failures = %v", ids)
	}
	if !cmp.Equal(v.Metadata[MetaAuditUndecided], []any{"no_host_escape"}) {
		t.Errorf("audit_undecided = %v", v.Metadata[MetaAuditUndecided])
	}
	want := "1 further required check(s) could not be decided (no_host_escape); the gate is already decided by the failure(s) above, so this did not affect the outcome and does not call for a re-run"
	if got := noteWith(t, v, "could not be decided"); got != want {
		t.Errorf("note %q", got)
	}
}

// Bug 61: a timed-out module was reported as "re-run the stage".
func TestBug61TimeoutIsMeasuredNotDead(t *testing.T) {
	b := behavioural(2, mod{"built", 0.5, 1})
	b.Units = append(b.Units, result.Unit{ID: "slow", Weight: 0.5, Status: result.UnitTimeout})
	v := grade(audit("g=pass"), b, nil)
	if hasNote(v, "did not finish") || !hasNote(v, "exceeded the budget") || !v.Valid() {
		t.Errorf("valid %v notes %q", v.Valid(), v.Notes)
	}
}

// Bug 62: an all-unreached stage was referred back; it is a charged zero.
func TestBug62AllUnreachedIsAChargedZero(t *testing.T) {
	b := result.NewStage(result.StageBehavioural, "t", t0)
	for _, id := range []string{"build", "walk"} {
		b.Units = append(b.Units, result.Unit{ID: id, Title: id, Weight: 0.5, Status: result.UnitUnreached})
	}
	v := grade(audit("g=pass"), b, nil)
	if !v.Valid() || v.BlockedBy != BlockedBehaviouralIncomplete || v.BehaviouralRate != 0 || len(v.Modules) != 2 {
		t.Fatalf("valid %v blocked %q rate %v modules %d", v.Valid(), v.BlockedBy, v.BehaviouralRate, len(v.Modules))
	}
	want := "the behavioural stage ended before 2 of 2 module(s) were reached, so each scores zero and keeps its weight: build (weight 0.5), walk (weight 0.5) -- the stage clock is the task's own declaration and the reference tree completes the same suite well inside it, so the exhaustion is charged to the submission; the modules that did run are where it went"
	if got := noteWith(t, v, "were reached"); got != want {
		t.Errorf("note\n got %q\nwant %q", got, want)
	}
}

// Bug 64: pooled summed weights; it counts checks.
func TestBug64PooledCountsChecks(t *testing.T) {
	b := result.NewStage(result.StageBehavioural, "t", t0)
	b.Units = append(b.Units, result.Unit{ID: "m", Weight: 1, Status: "ok"})
	for i, w := range []float64{2.5, 2.5, 2.5, 2.5} {
		verdict := "pass"
		if i == 3 {
			verdict = "fail"
		}
		b.Add(result.Check{ID: "c", Unit: "m", Verdict: verdict, Weight: w})
	}
	m := moduleByID(t, grade(audit("g=pass"), b, nil), "m")
	if m.ScoredWeight != 4 || m.Rate != 0.75 || m.Passed != 3 {
		t.Errorf("row %+v; want 3 of 4 checks", m)
	}
}

// Bug 66: required on behavioural checks or modules is never a live rule.
func TestBug66RequiredIsNotABehaviouralRule(t *testing.T) {
	b := behavioural(10, mod{"behaviour", 1, 1})
	b.Units[0].Metadata = map[string]any{"required": true}
	b.Add(result.Check{ID: "observation", Unit: "behaviour", Verdict: "fail", Weight: 0, Required: true})
	v := grade(audit("g=pass"), b, nil)
	if m := moduleByID(t, v, "behaviour"); m.Rate != 1 || strings.Contains(m.Note, "required") || v.BehaviouralPoints != 40 {
		t.Errorf("row %+v points %v", m, v.BehaviouralPoints)
	}
}

// Bug 68: a failing build module wiped the suite's rate through a clamp.
func TestBug68NoClamps(t *testing.T) {
	b := behavioural(10, mod{"build", 0.2, 0}, mod{"behaviour", 0.8, 1})
	for i := range b.Checks {
		if b.Checks[i].Unit == "build" {
			b.Checks[i].Required = true
		}
	}
	b.Units[0].Metadata = map[string]any{"required": true}
	v := grade(audit("g=pass"), b, nil)
	if !approx(v.BehaviouralRate, 0.8) || v.BehaviouralPoints != 0 || v.BlockedBy != BlockedBehaviouralIncomplete {
		t.Errorf("rate %v points %v blocked %q", v.BehaviouralRate, v.BehaviouralPoints, v.BlockedBy)
	}
}

// Bug 71: stage 2 reported NOT RUN beside a behavioural.json it measured.
func TestBug71DiscardedStagesAreRecorded(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 1}), verification(6, 0, 0))
	if v.Score != 0 || v.BehaviouralPoints != 0 || v.VerificationPoints != 0 || v.BehaviouralRate != 0 {
		t.Fatalf("a discarded stage bought something: score %v", v.Score)
	}
	b := v.Unscored[result.StageBehavioural]
	if b["points"] != 40.0 || b["would_be_points"] != 40.0 || b["rate"] != 1.0 || b["complete"] != true || b["status"] != "ok" || b["counted"] != false {
		t.Errorf("unscored.behavioural = %v", b)
	}
	wantV := map[string]any{"points": 60.0, "models_total": 6, "models_survived": 6, "status": "ok", "counted": false}
	if !cmp.Equal(v.Unscored[result.StageVerification], wantV) {
		t.Errorf("unscored.verification = %v", v.Unscored[result.StageVerification])
	}
	wantStages := map[string]string{
		"behavioural":  "ran and completed: 1/1 module(s) ok, 10 check(s), 0 failed, 0 errored, pass rate 1.0000 over its scored checks",
		"verification": "ran and completed: 0/0 module(s) ok, 6 check(s), 0 failed, 0 errored, pass rate 1.0000 over its scored checks",
	}
	if !cmp.Equal(v.UnscoredStages, wantStages) {
		t.Errorf("unscored_stages = %v", v.UnscoredStages)
	}
	wantNotes := []string{
		"audit gate failed on 1 required check(s); score is 0 and no later stage can earn anything",
		"stage behavioural ran and measured a 1.0000 weighted pass rate, worth 40.00 points, but the ladder stopped below it (audit-gate); it is not counted",
		"stage verification ran and measured 60.00 of its points, but the ladder stopped below it (audit-gate); it is not counted",
	}
	if !cmp.Equal(v.Notes, wantNotes) {
		t.Errorf("notes:\n%s", strings.Join(v.Notes, "\n"))
	}
	u := v.Uncounted()
	if u[result.StageBehavioural]["ran"] != true || u[result.StageBehavioural]["points"] != 40.0 || u[result.StageBehavioural]["modules"] != 1 {
		t.Errorf("uncounted = %v", u)
	}
	// An absent stage stays absent.
	if v := grade(audit("shim=fail"), nil, nil); len(v.Unscored) != 0 || len(v.UnscoredStages) != 0 || len(v.Uncounted()) != 0 {
		t.Errorf("absent stages were recorded: %v %v", v.Unscored, v.UnscoredStages)
	}
}

// Bug 72: an uncredited stage 2 must not be appended to stages_run.
func TestBug72UncreditedStageIsNotInStagesRun(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 0.5}), nil)
	if !cmp.Equal(v.StagesRun, []string{"audit"}) {
		t.Errorf("stages_run = %v", v.StagesRun)
	}
	flat := result.Reward(v)
	if flat["stage2_ran"] != 1 || flat["stage2_scored"] != 0 || flat["stage2_points"] != 0 || flat["module_m_rate"] != 0.5 {
		t.Errorf("reward: ran %v scored %v points %v rate %v", flat["stage2_ran"], flat["stage2_scored"], flat["stage2_points"], flat["module_m_rate"])
	}
	if v.Metadata[MetaBehaviouralMeasuredNotCounted] != true || v.Metadata[MetaBehaviouralMeasuredPoints] != 0.0 || v.Metadata[MetaBehaviouralMeasuredRate] != 0.5 {
		t.Errorf("metadata = %v", v.Metadata)
	}
}

// Bug 73: all three writers run, so the module table and unscored entry
// are both present.
func TestBug73AllThreeWritersRun(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 0.8}), nil)
	if len(v.Modules) != 1 || v.Unscored[result.StageBehavioural] == nil || v.UnscoredStages[result.StageBehavioural] == "" {
		t.Errorf("modules %v unscored %v unscored_stages %v", v.Modules, v.Unscored, v.UnscoredStages)
	}
	if r := v.Unscored[result.StageBehavioural]["rate"]; r != 0.8 {
		t.Errorf("rate = %v", r)
	}
}

// Bug 74: a stage-2 reading that fails cannot turn a decided zero into a
// crash or an invalid run.
func TestBug74UnreadableShadowStageBecomesANote(t *testing.T) {
	saved := shadowBehavioural
	t.Cleanup(func() { shadowBehavioural = saved })
	shadowBehavioural = func(*result.Stage, *result.Verdict, Policy) { panic("a stage result the scorer cannot parse") }

	v := grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 1}), nil)
	if v.Score != 0 || v.AuditGate != result.GateFail || !v.Valid() {
		t.Fatalf("score %v gate %q valid %v", v.Score, v.AuditGate, v.Valid())
	}
	want := map[string]any{
		"error":   "panic: a stage result the scorer cannot parse",
		"note":    "the stage result could not be read: panic: a stage result the scorer cannot parse",
		"status":  "ok",
		"counted": false,
	}
	if !cmp.Equal(v.Unscored[result.StageBehavioural], want) {
		t.Errorf("unscored.behavioural = %v", v.Unscored[result.StageBehavioural])
	}
	if !hasNote(v, "stage 2 ran but its result could not be read (panic: a stage result the scorer cannot parse); it was not scored either way, the score is 0 by the audit gate") {
		t.Errorf("notes = %q", v.Notes)
	}
	if u := v.Uncounted()[result.StageBehavioural]; u["measured"] != false {
		t.Errorf("uncounted = %v", u)
	}
}

// Bug 75: shadow grading must not flip valid or rewrite blocked_by.
func TestBug75ShadowGradingLeavesTheVerdictAlone(t *testing.T) {
	empty := result.NewStage(result.StageBehavioural, "t", t0)
	v := grade(audit("shim=fail"), empty, nil)
	if !v.Valid() || v.HarnessError != "" || v.BlockedBy != BlockedAuditGate || v.Score != 0 {
		t.Errorf("valid %v harness_error %q blocked %q", v.Valid(), v.HarnessError, v.BlockedBy)
	}
	if !hasNote(v, "stage 2 ran but its result could not be read (the behavioural stage declared no modules)") {
		t.Errorf("notes = %q", v.Notes)
	}
	v = grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 0.1}), nil)
	if v.BlockedBy != BlockedAuditGate || v.Metadata[MetaBehaviouralWouldHaveBlocked] != BlockedBehaviouralIncomplete {
		t.Errorf("blocked %q metadata %v", v.BlockedBy, v.Metadata)
	}
	if v.Unscored[result.StageBehavioural]["blocked_by"] != BlockedBehaviouralIncomplete {
		t.Errorf("unscored = %v", v.Unscored[result.StageBehavioural])
	}
	// An undecided gate keeps the run invalid, and stage 2 is still shown.
	v = grade(audit("shim=error"), behavioural(10, mod{"m", 1, 1}), nil)
	if v.Valid() || v.BlockedBy != BlockedAuditUndecided || v.Metadata[MetaBehaviouralMeasuredPoints] != 40.0 {
		t.Errorf("valid %v blocked %q metadata %v", v.Valid(), v.BlockedBy, v.Metadata)
	}
}

// Bug 76: seeded unreached rows do not make an unmeasured stage measured.
func TestBug76UnreachedRowsAreNotMeasurements(t *testing.T) {
	b := result.NewStage(result.StageBehavioural, "t", t0)
	for _, id := range []string{"build", "walk"} {
		b.Units = append(b.Units, result.Unit{ID: id, Weight: 0.5, Status: result.UnitUnreached})
	}
	v := grade(audit("shim=fail"), b, nil)
	if u := v.Uncounted()[result.StageBehavioural]; u["ran"] != true || u["measured"] != false || u["modules"] != 2 {
		t.Errorf("uncounted = %v", u)
	}
	if !hasNote(v, "stage behavioural ran but measured nothing (status=ok); there is no rate to credit or withhold, and re-running the stage is what would produce one") {
		t.Errorf("notes = %q", v.Notes)
	}
	if got := result.ReportedModules([]result.ModuleScore{{Status: "ok"}, {Status: "unreached"}, {}}); got != 2 {
		t.Errorf("ReportedModules = %d, want 2", got)
	}
}

// Bug 77: the uncredited note names the rate as the measurement and the
// points as the award.
func TestBug77UncreditedNoteLabelsEachFigure(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(100, mod{"a", 0.5, 0.99}, mod{"b", 0.5, 1}), nil)
	want := "stage behavioural ran and measured a 0.9950 weighted pass rate, worth 0.00 points, but the ladder stopped below it (audit-gate); it is not counted"
	if got := noteWith(t, v, "stage behavioural ran"); got != want {
		t.Errorf("note %q", got)
	}
	if hasNote(v, "measured 0.00 of its points") {
		t.Error("the award was called a measurement")
	}
}

// Bug 79: uncounted is a derived projection with a module count, and every
// spelling reads back.
func TestBug79UncountedIsAProjectionWithACount(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(10, mod{"web", 18, 0}, mod{"node", 11, 1}, mod{"prep", 4, 1}), verification(6, 0, 0))
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, drop := range [][]string{nil, {"unscored"}, {"unscored", "uncredited"}} {
		doc := map[string]any{}
		for k, x := range raw {
			doc[k] = x
		}
		for _, k := range drop {
			delete(doc, k)
		}
		b, _ := json.Marshal(doc)
		var back result.Verdict
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		u := back.Uncounted()[result.StageBehavioural]
		if u["modules"] == nil || toInt(u["modules"]) != 3 || u["measured"] != true {
			t.Errorf("dropping %v: uncounted.behavioural = %v", drop, u)
		}
		if len(drop) == 2 {
			if toInt(back.Unscored[result.StageBehavioural]["module_count"]) != 3 {
				t.Errorf("module_count = %v", back.Unscored[result.StageBehavioural])
			}
			if _, isList := back.Unscored[result.StageBehavioural]["modules"]; isList {
				t.Error("the count was restored as module rows")
			}
		}
		if flat := result.Reward(&back); flat["stage2_uncounted_modules"] != 3 || flat["stage3_uncounted_points"] != 60 {
			t.Errorf("dropping %v: reward %v %v", drop, flat["stage2_uncounted_modules"], flat["stage3_uncounted_points"])
		}
	}
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case json.Number:
		i, _ := x.Int64()
		return int(i)
	case float64:
		return int(x)
	}
	return -1
}

// Bug 80: one carryNotes, ok path only; stage 3 carries before its status
// check.
func TestBug80NotesCarriedOnceOnTheOkPath(t *testing.T) {
	b := result.NewStage(result.StageBehavioural, "t", t0)
	b.Status = result.StatusError
	b.Note("the suite container died")
	v := grade(audit("g=pass"), b, nil)
	if hasNote(v, "stage 2:") || v.HarnessError != "the suite container died" {
		t.Errorf("notes %q harness_error %q", v.Notes, v.HarnessError)
	}
}

// Bug 81: a degraded but ok stage says so.
func TestBug81OkPathNotesArePrefixed(t *testing.T) {
	a := audit("g=pass")
	a.Note("one review sample was retried after a gateway timeout")
	b := behavioural(2, mod{"m", 1, 1})
	b.Note("the tls module reused a cached certificate")
	v := grade(a, b, nil)
	if !hasNote(v, "stage 1: one review sample was retried after a gateway timeout") || !hasNote(v, "stage 2: the tls module reused a cached certificate") || v.Score != 40 {
		t.Errorf("notes %q score %v", v.Notes, v.Score)
	}
}

// Bug 82: eleven modules at zero with one cause say the cause.
func TestBug82SharedCauseReachesTheModuleRow(t *testing.T) {
	b := result.NewStage(result.StageBehavioural, "t", t0)
	b.Units = append(b.Units, result.Unit{ID: "write", Weight: 1, Status: "ok"})
	for _, s := range []string{"session 1: launcher exited with 1 before becoming ready", "session 2: launcher exited with 1 before becoming ready", "session 3: launcher exited with 1 before becoming ready"} {
		b.Add(result.Check{ID: "c", Unit: "write", Verdict: "error", Weight: 1, Summary: s})
	}
	m := moduleByID(t, grade(audit("g=pass"), b, nil), "write")
	if m.Note != "3 of 3 failing checks end on the same cause: launcher exited with 1 before becoming ready" {
		t.Errorf("note %q", m.Note)
	}
}

// Bug 83: stage-2 notes say "the verification stage", never "stage 3".
func TestBug83NotesNeverSayStage3(t *testing.T) {
	for _, v := range []*result.Verdict{
		grade(audit("g=pass"), behavioural(10, mod{"m", 1, 0.5}), verification(6, 0, 0)),
		grade(audit("g=pass"), behavioural(10, mod{"m", 1, 0.5}), nil),
	} {
		for _, n := range v.Notes {
			if strings.Contains(n, "stage 3") {
				t.Errorf("note mentions stage 3: %q", n)
			}
		}
	}
}

// Bug 84: the gate-fail note does not claim later stages did not run.
func TestBug84GateNoteSaysWhatTheGateDecides(t *testing.T) {
	v := grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 1}), nil)
	if got := noteWith(t, v, "audit gate failed"); got != "audit gate failed on 1 required check(s); score is 0 and no later stage can earn anything" {
		t.Errorf("note %q", got)
	}
	if hasNote(v, "no further stage was run") {
		t.Error("the note claims no further stage ran")
	}
}
