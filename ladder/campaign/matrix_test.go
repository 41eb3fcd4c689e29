package campaign_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// notMigrated is a verdict whose audit gate failed and whose uncounted
// stage 2 is the record u.
func notMigrated(task string, u map[string]any) *result.Verdict {
	v := result.NewVerdict(task, 100)
	v.AuditGate = result.GateFail
	v.BlockedBy = "audit-gate"
	v.StagesRun = []string{"audit", "behavioural"}
	v.AuditFailures = []map[string]any{{"id": "old-stack-retired", "verdict": "fail", "summary": "s", "detail": "", "evidence": []any{}}}
	v.Unscored[result.StageBehavioural] = u
	return v
}

// TestInterruptedStage2UnderFailedGateIsInvalid: under a failed audit
// gate, a stage 2 that finished short of 100 % is not-migrated, one that
// finished at 100 % is blindness, and one that did not finish (a harness
// fault, an interrupt, a reading that failed) is invalid with its reason:
// it could have been either.
func TestInterruptedStage2UnderFailedGateIsInvalid(t *testing.T) {
	root := t.TempDir()
	const task = "pf02-stylus-web-platform-port"
	finished := func(rate float64) map[string]any {
		return map[string]any{"points": 0.0, "would_be_points": 40 * rate, "rate": rate, "complete": rate == 1,
			"harness_error": "", "notes": []string{}, "modules": []result.ModuleScore{{ID: "m", Weight: 1, Rate: rate, Status: "ok", ScoredWeight: 2, Passed: int(2 * rate)}},
			"status": "ok", "counted": false}
	}
	write(t, root, task+"/m1/short", notMigrated(task, finished(0.5)))
	write(t, root, task+"/m1/blind", notMigrated(task, finished(1)))
	cut := finished(0.5)
	cut["harness_error"], cut["status"] = "interrupted (SIGTERM)", "error"
	write(t, root, task+"/m1/cut", notMigrated(task, cut))
	write(t, root, task+"/m1/unread", notMigrated(task, map[string]any{"error": "no stage result", "note": "n", "status": "error", "counted": false}))

	c, err := campaign.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rep := campaign.Summarize(c)
	got := map[string]*campaign.Run{}
	for _, r := range rep.Runs {
		got[r.Dir] = r
	}
	for dir, want := range map[string]struct {
		outcome campaign.Outcome
		reason  string
	}{
		"short":  {campaign.NotMigrated, ""},
		"blind":  {campaign.Blindness, ""},
		"cut":    {campaign.Invalid, "stage 2 did not finish under the failed audit gate (interrupted (SIGTERM)): whether the run was blindness or not-migrated cannot be known"},
		"unread": {campaign.Invalid, "stage 2 did not finish under the failed audit gate (no stage result): whether the run was blindness or not-migrated cannot be known"},
	} {
		r := got[task+"/m1/"+dir]
		if r == nil {
			t.Fatalf("%s: not read", dir)
		}
		if r.Outcome != want.outcome || r.Reason != want.reason {
			t.Errorf("%s: %s (%q), want %s (%q)", dir, r.Outcome, r.Reason, want.outcome, want.reason)
		}
	}
	if f := rep.Funnel; f.Runs != 2 || f.Blindness != 1 || len(rep.Invalid) != 2 {
		t.Errorf("funnel %+v, %d invalid: want 2 valid runs (one blindness) and 2 invalid", f, len(rep.Invalid))
	}
}

// TestMatrixShowsEveryInvalidRun: the text matrix's legend names every
// cell kind, and a cell holding valid and invalid runs shows both; so does
// the HTML heatmap's cell.
func TestMatrixShowsEveryInvalidRun(t *testing.T) {
	root := t.TempDir()
	const a, b = "pf02-stylus-web-platform-port", "lang01-cmark-c-to-rust"
	zero := notMigrated(a, map[string]any{"rate": 0.5, "complete": false, "status": "ok", "counted": false})
	write(t, root, a+"/m1/run-1", zero)
	write(t, root, a+"/m1/run-2", zero)
	write(t, root, a+"/m1/run-3", result.ErrorVerdict(a, "engine: the daemon went away"))
	write(t, root, b+"/m1/run-1", passing(b, 6))
	write(t, root, b+"/m2/run-1", result.ErrorVerdict(b, "engine: the daemon went away"))
	write(t, root, b+"/m2/run-2", result.ErrorVerdict(b, "engine: the daemon went away"))
	write(t, root, a+"/m2/run-1", passing(a, 4))

	c, err := campaign.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rep := campaign.Summarize(c)
	var buf bytes.Buffer
	if err := campaign.WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	i := strings.Index(text, "Configuration × task")
	if i < 0 {
		t.Fatalf("no matrix in:\n%s", text)
	}
	matrix := text[i:]
	legend, _, _ := strings.Cut(matrix, "\n")
	for _, kind := range []string{"*", "+N", "0+1", "!N", "·"} {
		if !strings.Contains(legend, kind) {
			t.Errorf("legend %q does not explain %q", legend, kind)
		}
	}
	// Tasks by class (platform, then language): 1 is a, 2 is b.
	for _, row := range []string{`(?m)^ *m1 +0\+1!1 +100\* *$`, `(?m)^ *m2 +80 +!2 *$`} {
		if !regexp.MustCompile(row).MatchString(matrix) {
			t.Errorf("no row %s in:\n%s", row, matrix)
		}
	}

	buf.Reset()
	if err := campaign.WriteHTML(&buf, rep, "t"); err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile(`<rect class="cell" data-config="m1" data-task="` + a + `"[^>]*>`).FindString(buf.String())
	if !strings.Contains(cell, `data-runs="2" data-invalid="1"`) || !strings.Contains(cell, `stroke="#b55a4a"`) {
		t.Errorf("the mixed cell does not show its invalid run: %s", cell)
	}
}
