package campaign_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// write puts v (or raw bytes) at root/<dir>/score.json.
func write(t *testing.T, root, dir string, v any) {
	t.Helper()
	p := filepath.Join(root, dir, "score.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = x
	case *result.Verdict:
		var err error
		if b, err = json.Marshal(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// passing is a verdict that passed the gate and stage 2 and survived
// survivors of six rounds.
func passing(task string, survivors int) *result.Verdict {
	v := result.NewVerdict(task, 100)
	v.AuditGate = result.GatePass
	v.StagesRun = []string{"audit", "behavioural", "verification"}
	v.Modules = []result.ModuleScore{{ID: "m", Weight: 1, Rate: 1, Complete: true, Status: "ok", ScoredWeight: 4, Passed: 4}}
	v.BehaviouralRate, v.BehaviouralPoints = 1, 40
	v.AdversariesTotal, v.AdversariesSurvived = 6, survivors
	for i := survivors; i < 6; i++ {
		v.VerificationBreaks = append(v.VerificationBreaks, map[string]any{"adversary": "a0" + string(rune('1'+i)), "summary": "s", "detail": "", "evidence": []any{}})
	}
	v.VerificationPoints = float64(10 * survivors)
	v.Score = 40 + v.VerificationPoints
	return v
}

// TestLoadClassifiesAndCountsApart: the earlier harness's verdict whose
// discarded stage 2 is only under "uncounted" reads as not migrated; a
// forged verdict (a 100 its stages do not add up to), one on another
// scale, one filed under another task and one the grader could not finish
// are invalid with their reasons and in no aggregate; the folder with no
// score.json and the cells nobody ran are named; two folders claiming one
// attempt are duplicates; the configuration comes from metadata.run.
func TestLoadClassifiesAndCountsApart(t *testing.T) {
	root := t.TempDir()
	old, err := os.ReadFile(filepath.Join("..", "result", "testdata", "score-uncounted-only.json"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "pf02-stylus-web-platform-port/m1/run-1", old)
	write(t, root, "pf02-stylus-web-platform-port/m1/run-2", passing("pf02-stylus-web-platform-port", 6))
	write(t, root, "pf02-stylus-web-platform-port/m1/run-3", passing("pf02-stylus-web-platform-port", 4))

	forged := passing("pf02-stylus-web-platform-port", 6)
	forged.AuditGate = result.GateFail
	forged.BlockedBy = "audit-gate"
	forged.StagesRun = []string{"audit"}
	write(t, root, "pf02-stylus-web-platform-port/m2/forged", forged)
	scale := passing("pf02-stylus-web-platform-port", 6)
	scale.MaxScore = 200
	write(t, root, "pf02-stylus-web-platform-port/m2/scale", scale)
	write(t, root, "lang01-cmark-c-to-rust/m2/elsewhere", passing("pf02-stylus-web-platform-port", 6))
	write(t, root, "lang01-cmark-c-to-rust/m2/fault", result.ErrorVerdict("lang01-cmark-c-to-rust", "engine: the daemon went away"))
	if err := os.MkdirAll(filepath.Join(root, "lang01-cmark-c-to-rust", "m2", "ungraded"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Two folders that metadata.run says are m3-high's first attempt.
	for _, d := range []string{"lang01-cmark-c-to-rust/x/a", "lang01-cmark-c-to-rust/y/b"} {
		v := passing("lang01-cmark-c-to-rust", 5)
		v.Metadata["run"] = map[string]any{"model": "m3", "effort": "high", "attempt": 1}
		write(t, root, d, v)
	}

	c, err := campaign.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rep := campaign.Summarize(c)
	outcome := map[string]campaign.Outcome{}
	reason := map[string]string{}
	for _, r := range rep.Runs {
		outcome[r.Dir], reason[r.Dir] = r.Outcome, r.Reason
	}
	for dir, want := range map[string]campaign.Outcome{
		"pf02-stylus-web-platform-port/m1/run-1":  campaign.NotMigrated,
		"pf02-stylus-web-platform-port/m1/run-2":  campaign.Accepted,
		"pf02-stylus-web-platform-port/m1/run-3":  campaign.Counterexample,
		"pf02-stylus-web-platform-port/m2/forged": campaign.Invalid,
		"pf02-stylus-web-platform-port/m2/scale":  campaign.Invalid,
		"lang01-cmark-c-to-rust/m2/elsewhere":     campaign.Invalid,
		"lang01-cmark-c-to-rust/m2/fault":         campaign.Invalid,
		"lang01-cmark-c-to-rust/x/a":              campaign.Counterexample,
	} {
		if outcome[dir] != want {
			t.Errorf("%s: %s (%s), want %s", dir, outcome[dir], reason[dir], want)
		}
	}
	for dir, want := range map[string]string{
		"pf02-stylus-web-platform-port/m2/forged": "formula (4)",
		"pf02-stylus-web-platform-port/m2/scale":  "scale of 200 points",
		"lang01-cmark-c-to-rust/m2/elsewhere":     `grades task "pf02-stylus-web-platform-port" but lies under lang01-cmark-c-to-rust/`,
		"lang01-cmark-c-to-rust/m2/fault":         "the daemon went away",
	} {
		if !strings.Contains(reason[dir], want) {
			t.Errorf("%s: reason %q lacks %q", dir, reason[dir], want)
		}
	}
	f := rep.Funnel
	if f.Runs != 5 || f.Accepted != 1 || f.ReachedStage3 != 4 || f.Migrated != 4 || *f.MeanScore != 72 || len(rep.Invalid) != 4 {
		t.Errorf("funnel %+v (mean %v), %d invalid", f, *f.MeanScore, len(rep.Invalid))
	}
	if _, ok := rep.ByConfig["m3-high"]; !ok || rep.ByConfig["m3-high"].Runs != 2 {
		t.Errorf("by_config %v: want m3-high from metadata.run with 2 runs", rep.ByConfig)
	}
	if len(rep.Duplicates) != 1 || rep.Duplicates[0].Key != "lang01-cmark-c-to-rust / m3-high / attempt 1" || len(rep.Duplicates[0].Dirs) != 2 {
		t.Errorf("duplicates %+v", rep.Duplicates)
	}
	var named []string
	for _, m := range rep.Missing {
		if m.Dir != "" {
			named = append(named, m.Dir)
		} else {
			named = append(named, m.Config+"×"+m.Task)
		}
	}
	got := strings.Join(named, " ")
	for _, want := range []string{"m1×lang01-cmark-c-to-rust", "m3-high×pf02-stylus-web-platform-port", "lang01-cmark-c-to-rust/m2/ungraded"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q not named in %s", want, got)
		}
	}
	// m2 ran both tasks, but only invalid runs: its cells are not missing,
	// and its configuration has no funnel row (nothing valid to average).
	if strings.Contains(got, "m2×") {
		t.Errorf("m2's cells hold invalid runs, not missing ones: %s", got)
	}
	if _, ok := rep.ByConfig["m2"]; ok {
		t.Error("m2 has only invalid runs but a by_config row")
	}

	// --compare: run-3 moves from counterexample to accepted.
	write(t, root, "pf02-stylus-web-platform-port/m1/run-3", passing("pf02-stylus-web-platform-port", 6))
	c2, _ := campaign.Load(root)
	d := campaign.Compare(rep, campaign.Summarize(c2))
	if len(d.Moved) != 1 || d.Moved[0].Dir != "pf02-stylus-web-platform-port/m1/run-3" || d.Moved[0].From != campaign.Counterexample || d.Moved[0].To != campaign.Accepted {
		t.Errorf("moved %+v", d.Moved)
	}
	if x, ok := d.ByTask["pf02-stylus-web-platform-port"]; !ok || x.Before.Accepted != 1 || x.After.Accepted != 2 {
		t.Errorf("by_task delta %+v", d.ByTask)
	}
	var buf bytes.Buffer
	_ = campaign.WriteDiffText(&buf, d)
	if !strings.Contains(buf.String(), "pf02-stylus-web-platform-port/m1/run-3: counterexample (80) → accepted (100)") {
		t.Errorf("diff text:\n%s", buf.String())
	}
}

// TestClassOf: the class from the task id's prefix.
func TestClassOf(t *testing.T) {
	for id, want := range map[string]string{"lang01-cmark-c-to-rust": "language", "fw07-graphhopper": "framework",
		"pf03-quickjs": "platform", "build02-gson": "build", "lang90-tally-c-to-go": "language", "x1-y": "unknown"} {
		if got := campaign.ClassOf(id); got != want {
			t.Errorf("ClassOf(%s) = %s, want %s", id, got, want)
		}
	}
}

// An invalid run's score is null in JSON, never a zero; a valid run keeps
// its score, zero included.
func TestRunJSONScore(t *testing.T) {
	for _, tc := range []struct {
		run  campaign.Run
		want string
	}{
		{campaign.Run{Outcome: campaign.Invalid, Score: 0}, `"score":null`},
		{campaign.Run{Outcome: campaign.Accepted, Score: 100}, `"score":100`},
		{campaign.Run{Outcome: campaign.NotMigrated, Score: 0}, `"score":0`},
	} {
		b, err := json.Marshal(tc.run)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) || strings.Count(string(b), `"score"`) != 1 {
			t.Errorf("%s: %s, want one %s", tc.run.Outcome, b, tc.want)
		}
	}
}
