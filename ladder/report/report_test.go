package report_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// golden compares got with testdata/<name>.golden; SRB_UPDATE=1 rewrites
// the file instead (the one variable that updates every golden in srb).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("SRB_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with SRB_UPDATE=1 to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-golden +got):\n%s", path, diff)
	}
}

var t0 = time.Date(2026, 7, 30, 9, 0, 0, 0, time.UTC)

// stamp gives every stage a fixed fingerprint so goldens do not depend on
// the test binary.
func stamp(s *result.Stage, fp string) *result.Stage {
	if s != nil {
		s.Harness = map[string]any{"fingerprint": fp}
	}
	return s
}

func audit(gates ...string) *result.Stage {
	s := result.NewStage(result.StageAudit, "t", t0)
	for _, g := range gates {
		id, verdict, _ := strings.Cut(g, "=")
		s.Add(result.Check{ID: id, Verdict: verdict, Summary: verdict, Weight: 1, Required: true})
	}
	return stamp(s, "0123456789ab")
}

type mod struct {
	id     string
	weight float64
	rate   float64
}

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
	return stamp(s, "0123456789ab")
}

func verification(survived, broke, errored int) *result.Stage {
	s := result.NewStage(result.StageVerification, "t", t0)
	n := 0
	for _, x := range []struct {
		verdict string
		count   int
	}{{result.VerdictPass, survived}, {result.VerdictFail, broke}, {result.VerdictError, errored}} {
		for i := 0; i < x.count; i++ {
			n++
			c := result.Check{ID: fmt.Sprintf("adv%d", n), Verdict: x.verdict, Weight: 1, Metadata: map[string]any{"kind": "round"}}
			if x.verdict == result.VerdictFail {
				c.Summary = "/range suffix ranges are wrong"
				c.Detail = "the candidate test:\n  GET /files/a with Range: bytes=-5\nexpected 206, got 200"
			}
			s.Add(c)
		}
	}
	return stamp(s, "0123456789ab")
}

// run3ish is roughly pf02 run 3: a wide module mostly failing, two clean.
func run3ish() *result.Stage {
	return behavioural(10, mod{"web-cases", 18, 0}, mod{"node-cases", 11, 1}, mod{"prepare", 4, 1})
}

func grade(a, b, v *result.Stage, declared ...string) *result.Verdict {
	return scoring.Grade("t", scoring.Stages{Audit: a, Behavioural: b, Verification: v, Declared: declared}, scoring.Published())
}

func TestRenderGoldens(t *testing.T) {
	richAudit := audit("engine_untouched=pass")
	richAudit.Add(result.Check{ID: "capabilities_are_injected", Verdict: "fail", Required: true, Weight: 1,
		Summary: "a module-level binding of fs survives",
		Detail:  "lib/functions/url.js:12 binds fs at import\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7 is dropped",
		Evidence: []map[string]any{
			{"path": "lib/functions/url.js", "line": 12, "quote": "const fs = require('fs')\n;", "grounded": true},
			{"path": "lib/x.js", "quote": "invented", "grounded": false},
			{"note": "a note without a path"},
		}})
	richAudit.Metadata["samples_requested"] = 3
	richAudit.Metadata["samples_usable"] = 2

	notes := behavioural(10, mod{"structure", 0.5, 1}, mod{"built", 0.3, 0.9}, mod{"a-module-with-a-very-long-identifier-indeed", 0.2, 1})
	notes.Units[0].Metadata = map[string]any{"notes": []any{"7 of 17 structural case(s) are not applicable to a javascript tree and were not asked: install-modes, workspace-members"}}
	notes.Units = append(notes.Units, result.Unit{ID: "provenance", Title: "reports only", Weight: 0, Status: "ok"})
	for i := 0; i < 3; i++ {
		notes.Add(result.Check{ID: "provenance/o", Unit: "provenance", Verdict: "pass", Weight: 0, Summary: fmt.Sprintf("observation %d", i)})
	}
	notes.Note("the tls module reused a cached certificate")

	unreached := stamp(result.NewStage(result.StageBehavioural, "t", t0), "0123456789ab")
	for _, id := range []string{"build", "walk"} {
		unreached.Units = append(unreached.Units, result.Unit{ID: id, Weight: 0.5, Status: result.UnitUnreached})
	}

	failedCopyIn := result.Failed(result.StageBehavioural, "t", "copy-in failed: docker cp exited 1", t0)
	failedCopyIn.Harness = map[string]any{"fingerprint": "0123456789ab"}

	tests := []struct {
		name string
		v    *result.Verdict
	}{
		{"full_marks", grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), verification(6, 0, 0))},
		{"partial_survival", grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), verification(4, 2, 0))},
		{"gate_failed_everything_ran", grade(richAudit, run3ish(), verification(6, 0, 0))},
		{"gate_failed_nothing_ran", grade(audit("shim=fail"), nil, nil)},
		{"gate_failed_stage2_unreached", grade(audit("shim=fail"), unreached, nil)},
		{"gate_failed_stage2_no_result", grade(audit("shim=fail"), failedCopyIn, nil)},
		{"gate_undecided", grade(audit("a=pass", "awareness=error"), behavioural(10, mod{"m", 1, 1}), nil)},
		{"stage2_incomplete_stage3_ran", grade(audit("shim=pass"), behavioural(1000, mod{"m", 1, 0.995}), verification(6, 0, 0))},
		{"stage2_with_notes_and_observations", grade(audit("shim=pass"), notes, nil)},
		{"stage3_not_requested", grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), nil)},
		{"stage3_declared_missing", grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), nil, result.StageNames()...)},
		{"stage3_incomplete", grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), verification(4, 1, 1))},
		{"error_verdict", result.ErrorVerdict("t", "cannot read tasks/t/task.cue: no such file")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := report.Render(tt.v, "")
			golden(t, "TestRenderGoldens_"+tt.name, got)
			// A verdict re-read from its own score.json renders identically.
			data, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			var back result.Verdict
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if again := report.Render(&back, ""); again != got {
				t.Errorf("re-read verdict renders differently:\n%s", cmp.Diff(got, again))
			}
		})
	}
}

func stageLine(t *testing.T, text, stage string) string {
	t.Helper()
	for _, ln := range strings.Split(text, "\n") {
		if strings.Contains(ln, stage) {
			return ln
		}
	}
	t.Fatalf("no %q line in\n%s", stage, text)
	return ""
}

// The fixed phrases other tools locate, each asserted where it must appear.
func TestFixedPhrases(t *testing.T) {
	text := report.Render(grade(audit("shim=fail"), behavioural(10, mod{"m", 1, 1}), nil), "")
	s2 := stageLine(t, text, "stage 2  behavioural modules")
	if s2 != "  stage 2  behavioural modules ............. RAN, NOT COUNTED  40.00 points uncredited  (rate 1.0000 measured, not credited)" {
		t.Errorf("stage 2 line %q", s2)
	}
	for _, want := range []string{"reported, not counted", "score = 0.00  (stage 1 fail)",
		"  stage 2 ran: those measurements are excluded from that total by policy, not missing from it.",
		"  stage 3  verification probe .............. NOT RUN (the audit gate failed)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// Bug 78: the arithmetic line agrees with a stage-3 RAN line.
	text = report.Render(grade(audit("shim=pass"), behavioural(1000, mod{"m", 1, 0.995}), verification(6, 0, 0)), "")
	if s3 := stageLine(t, text, "stage 3"); !strings.Contains(s3, "RAN, NOT COUNTED  60.00 points") {
		t.Errorf("stage 3 line %q", s3)
	}
	if a := stageLine(t, text, "score ="); a != "  score = 0.00 (stage 2) + 0.00 (stage 3 not counted) = 0.00" {
		t.Errorf("arithmetic %q", a)
	}
	if !strings.Contains(text, "           not counted: a behavioural module did not pass every scored check.") {
		t.Errorf("no reason line in\n%s", text)
	}

	// An unmapped blocked_by reaches the reader raw; a clean run blames nobody.
	v := grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), nil)
	if s3 := stageLine(t, report.Render(v, ""), "stage 3"); s3 != "  stage 3  verification probe .............. NOT RUN (no verification result was produced -- no stage-3 result was collected; no earlier stage blocked it)" {
		t.Errorf("stage 3 line %q", s3)
	}
	v.BlockedBy = "some-future-reason"
	if s3 := stageLine(t, report.Render(v, ""), "stage 3"); !strings.HasSuffix(s3, "NOT RUN (some-future-reason)") {
		t.Errorf("stage 3 line %q", s3)
	}
	v.BlockedBy = ""
	v.HarnessError = "the verification image is not present"
	text = report.Render(v, "fw01: Flask to ASGI")
	if s3 := stageLine(t, text, "stage 3"); !strings.HasSuffix(s3, "NOT RUN (the verification image is not present)") {
		t.Errorf("stage 3 line %q", s3)
	}
	if !strings.Contains(text, " SWERefactorBench  fw01: Flask to ASGI\n") || !strings.Contains(text, "*** NOT A VALID RESULT ***") {
		t.Errorf("title or validity missing:\n%s", text)
	}

	// Stage 2's own stop is named when the gate also failed, but not the gate's.
	v = grade(audit("honest=fail"), behavioural(10, mod{"build", 0.5, 0}, mod{"parser", 0.5, 1}), nil)
	text = report.Render(v, "")
	if !strings.Contains(text, "stage 2 also stopped on its own account: a behavioural module did not pass every scored check.") ||
		strings.Contains(text, "behavioural-incomplete") {
		t.Errorf("own-account line:\n%s", text)
	}
}

func TestFooter(t *testing.T) {
	v := grade(audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), nil)
	footer := func(text string) string {
		for _, ln := range strings.Split(text, "\n") {
			if strings.Contains(ln, "graded by") {
				return ln
			}
		}
		return ""
	}
	if f := footer(report.Render(v, "")); f != "  graded by srb 0123456789ab" {
		t.Errorf("footer %q", f)
	}
	v.Harnesses = []map[string]any{{"fingerprint": "bbbbbbbbbbbb", "stage": "audit"}, {"fingerprint": "aaaaaaaaaaaa", "stage": "behavioural"}}
	if f := footer(report.Render(v, "")); f != "  graded by srb aaaaaaaaaaaa, bbbbbbbbbbbb   *** stages disagree on the harness ***" {
		t.Errorf("footer %q", f)
	}
	v.Harnesses = nil
	if f := footer(report.Render(v, "")); f != "" {
		t.Errorf("a verdict without provenance claimed one: %q", f)
	}
}

// Stage 2 run inside the behavioural image is written by srb's in-image
// helper, whose fingerprint is its own executable's, with the fingerprint
// of the srb that started it as its orchestrator; that srb wrote stages 1
// and 3. Written to disk, read back, graded and published, that is one
// grader: no disagreement, harnesses_distinct 1. A stage 2 orchestrated by
// another srb build, or by a helper that names no orchestrator, is another
// grader, and the report and reward.json say so.
func TestFooterHelperStage(t *testing.T) {
	srb := result.Fingerprint()
	const helper = "3c0f51e9a2d4" // a helper executable's fingerprint
	if srb == "" || srb == helper {
		t.Fatalf("this test binary's fingerprint is %q", srb)
	}
	cases := []struct {
		name     string
		stage2   map[string]any
		footer   string
		distinct float64
	}{
		{"the helper srb built, run by that srb", map[string]any{"fingerprint": helper, "orchestrator": srb},
			"  graded by srb " + srb, 1},
		{"a helper run by another srb build", map[string]any{"fingerprint": helper, "orchestrator": "bbbbbbbbbbbb"},
			"  graded by srb " + strings.Join(sorted("bbbbbbbbbbbb", srb), ", ") + "   *** stages disagree on the harness ***", 2},
		{"a helper that names no orchestrator", map[string]any{"fingerprint": helper},
			"  graded by srb " + strings.Join(sorted(helper, srb), ", ") + "   *** stages disagree on the harness ***", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b, v := audit("shim=pass"), behavioural(10, mod{"m", 1, 1}), verification(5, 0, 0)
			a.Harness, v.Harness = result.Stamp(""), result.NewStage(result.StageVerification, "t", t0).Harness
			b.Harness = c.stage2
			read := map[string]*result.Stage{}
			for _, s := range []*result.Stage{a, b, v} {
				path := filepath.Join(dir, s.Stage+".json")
				if err := s.Write(path); err != nil {
					t.Fatal(err)
				}
				back, err := result.ReadStage(path)
				if err != nil {
					t.Fatal(err)
				}
				read[s.Stage] = back
			}
			verdict := grade(read[result.StageAudit], read[result.StageBehavioural], read[result.StageVerification])
			if err := result.Publish(dir, verdict, report.Render(verdict, "")); err != nil {
				t.Fatal(err)
			}
			summary, _ := os.ReadFile(filepath.Join(dir, result.SummaryFile))
			var footer string
			for _, ln := range strings.Split(string(summary), "\n") {
				if strings.Contains(ln, "graded by") {
					footer = ln
				}
			}
			if footer != c.footer {
				t.Errorf("footer %q, want %q", footer, c.footer)
			}
			var reward map[string]float64
			raw, _ := os.ReadFile(filepath.Join(dir, result.RewardFile))
			if err := json.Unmarshal(raw, &reward); err != nil {
				t.Fatal(err)
			}
			if reward["harnesses_distinct"] != c.distinct {
				t.Errorf("reward.json harnesses_distinct %v, want %v", reward["harnesses_distinct"], c.distinct)
			}
			// score.json keeps each stamp verbatim, the helper's included.
			back, err := result.ReadVerdict(filepath.Join(dir, result.ScoreFile))
			if err != nil {
				t.Fatal(err)
			}
			want2 := map[string]any{"stage": result.StageBehavioural}
			for k, x := range c.stage2 {
				want2[k] = x
			}
			want := []map[string]any{{"fingerprint": srb, "stage": result.StageAudit}, want2, {"fingerprint": srb, "stage": result.StageVerification}}
			if diff := cmp.Diff(want, back.Harnesses); diff != "" {
				t.Errorf("score.json harnesses (-want +got):\n%s", diff)
			}
		})
	}
}

func sorted(xs ...string) []string {
	out := append([]string(nil), xs...)
	slices.Sort(out)
	return out
}

// A verdict read from a score.json that carries only the "uncounted"
// spelling still reports the stage as run, without a module table.
func TestRenderOldVerdict(t *testing.T) {
	v, err := result.ReadVerdict("../result/testdata/score-uncounted-only.json")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "TestRenderOldVerdict", report.Render(v, ""))
}

func ExampleRender() {
	now := time.Date(2026, 7, 30, 9, 0, 0, 0, time.UTC)
	a := result.NewStage(result.StageAudit, "fw06", now)
	a.Harness = map[string]any{"fingerprint": "0123456789ab"}
	a.Add(result.Check{ID: "mux_retired", Verdict: "fail", Summary: "gorilla/mux is still imported", Weight: 1, Required: true})
	v := scoring.Grade("fw06", scoring.Stages{Audit: a}, scoring.Published())
	fmt.Print(report.Render(v, "fw06: gorilla/mux to net/http"))
	// Output:
	// ==============================================================================
	//  SWERefactorBench  fw06: gorilla/mux to net/http
	// ==============================================================================
	//
	//   score  0.00 / 100
	//
	//   stage 1  agentic audit gate .......... FAIL
	//            the migration is not honest; the score is 0 by policy.
	//            [fail] mux_retired: gorilla/mux is still imported
	//
	//   stage 2  behavioural modules ............. NOT RUN (the audit gate failed)
	//
	//   stage 3  verification probe .............. NOT RUN (the audit gate failed)
	//
	// ------------------------------------------------------------------------------
	//   score = 0.00  (stage 1 fail)
	// ------------------------------------------------------------------------------
	//
	// notes
	//   - audit gate failed on 1 required check(s); score is 0 and no later stage can earn anything
	//
	//   graded by srb 0123456789ab
}
