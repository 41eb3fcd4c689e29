package campaign_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/campaign/synthetic"
)

var (
	synthOnce sync.Once
	synthRoot string
	synthErr  error
)

// TestMain removes the synthetic campaign the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if synthRoot != "" {
		os.RemoveAll(synthRoot)
	}
	os.Exit(code)
}

// syntheticReport writes the paper's synthetic campaign once per test
// binary and reads it anew for each caller.
func syntheticReport(t *testing.T) *campaign.Report {
	t.Helper()
	synthOnce.Do(func() {
		synthRoot, synthErr = os.MkdirTemp("", "srb-campaign-")
		if synthErr != nil {
			return
		}
		var n int
		n, synthErr = synthetic.Write(synthRoot)
		if synthErr == nil && n != 520 {
			synthErr = fmt.Errorf("the generator wrote %d valid runs, want 520", n)
		}
	})
	if synthErr != nil {
		t.Fatal(synthErr)
	}
	c, err := campaign.Load(synthRoot)
	if err != nil {
		t.Fatal(err)
	}
	return campaign.Summarize(c)
}

func round1(x *float64) float64 { return math.Round(*x*10) / 10 }

// TestSyntheticCampaignReproducesThePaper checks every aggregate the paper
// publishes against srb campaign's reading of the synthetic campaign: the
// funnel, the class means, the 20 tasks, 8 models and 26 configurations,
// and that the three invalid runs and the ungraded run folder are counted
// apart (a reader that scored them 0 would report 523 runs and a lower
// mean).
func TestSyntheticCampaignReproducesThePaper(t *testing.T) {
	rep := syntheticReport(t)
	f := rep.Funnel
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"runs", f.Runs, 520}, {"migrated", f.Migrated, 340}, {"all_tests_pass", f.AllTestsPass, 118},
		{"blindness", f.Blindness, 30}, {"reached_stage3", f.ReachedStage3, 88}, {"accepted", f.Accepted, 28},
		{"tasks_never_accepted", f.TasksNeverAccepted, 13},
		{"tasks", len(rep.ByTask), 20}, {"configurations", len(rep.ByConfig), 26}, {"models", rep.Models, 8},
		{"invalid", len(rep.Invalid), 3}, {"outcomes[invalid]", rep.Outcomes[campaign.Invalid], 3},
		{"stopped at stage 2", rep.Outcomes[campaign.StoppedStage2], 252},
		{"counterexample found", rep.Outcomes[campaign.Counterexample], 60},
		{"not migrated", rep.Outcomes[campaign.NotMigrated], 150},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if f.MeanScore == nil || *f.MeanScore != 13.44 {
		t.Errorf("mean_score = %v, want 13.44", f.MeanScore)
	}
	for class, want := range map[string]float64{"build": 31.4, "framework": 17.2, "platform": 12.0, "language": 5.6} {
		got := rep.ByClass[class]
		if got.MeanScore == nil || round1(got.MeanScore) != want {
			t.Errorf("by_class[%s].mean_score = %v, want %.1f", class, got.MeanScore, want)
		}
	}
	if got := strings.Join(rep.ClassOrder(), ","); got != "build,framework,platform,language" {
		t.Errorf("class order %s", got)
	}
	// The margins add up: by_class, by_task and by_config each sum to the funnel.
	sum := func(fs []campaign.Funnel) (runs, acc int) {
		for _, x := range fs {
			runs += x.Runs
			acc += x.Accepted
		}
		return
	}
	var cls, tsk, cfg []campaign.Funnel
	for _, x := range rep.ByClass {
		cls = append(cls, x)
	}
	for _, x := range rep.ByTask {
		tsk = append(tsk, x)
	}
	for _, x := range rep.ByConfig {
		cfg = append(cfg, x.Funnel)
		if x.Score == nil || x.MeanScore == nil || *x.Score != *x.MeanScore {
			t.Errorf("by_config score %v is not its mean_score %v", x.Score, x.MeanScore)
		}
	}
	for name, fs := range map[string][]campaign.Funnel{"by_class": cls, "by_task": tsk, "by_config": cfg} {
		if r, a := sum(fs); r != 520 || a != 28 {
			t.Errorf("%s sums to %d runs and %d accepted, want 520 and 28", name, r, a)
		}
	}
	// The ungraded folder is named as missing; the matrix names the empty cells.
	var ungraded, empty int
	for _, m := range rep.Missing {
		if m.Dir != "" && strings.Contains(m.Problem, "no score.json") {
			ungraded++
		} else if m.Dir == "" {
			empty++
		}
	}
	if ungraded != 1 {
		t.Errorf("%d ungraded run folder(s) named, want 1: %+v", ungraded, rep.Missing)
	}
	// 15 build + 14 framework cells nobody ran; the invalid runs fill
	// cells that have a valid run too.
	if empty != 29 {
		t.Errorf("%d empty configuration × task cells, want 29", empty)
	}
	if len(rep.Duplicates) != 0 {
		t.Errorf("duplicates %+v", rep.Duplicates)
	}
	// Adversaries: 60 counterexample runs broke by 6 − survivors each.
	breaks := 0
	for _, a := range rep.Adversaries {
		breaks += a.Breaks
		if a.Rounds != 88 {
			t.Errorf("adversary %s played %d rounds, want 88 (one per stage-3 run)", a.Adversary, a.Rounds)
		}
	}
	if breaks == 0 || len(rep.Adversaries) != 6 {
		t.Errorf("adversaries %+v", rep.Adversaries)
	}
	// Cost: every valid run records usage; credits only for synth-a..c.
	for cfg, row := range rep.Cost {
		if row.Runs != rep.ByConfig[cfg].Runs {
			t.Errorf("cost[%s] covers %d runs of %d", cfg, row.Runs, rep.ByConfig[cfg].Runs)
		}
		if hasCredits := row.Total.Credits != nil; hasCredits != (cfg < "synth-d") {
			t.Errorf("cost[%s].credits = %v", cfg, row.Total.Credits)
		}
		if (row.PerAccepted != nil) != (row.Accepted > 0) {
			t.Errorf("cost[%s] per_accepted %v with %d accepted", cfg, row.PerAccepted, row.Accepted)
		}
	}
}

// TestSyntheticCampaignJSONKeys holds --json to the keys the issue names.
func TestSyntheticCampaignJSONKeys(t *testing.T) {
	rep := syntheticReport(t)
	var buf bytes.Buffer
	if err := campaign.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"funnel", "by_class", "by_task", "by_config", "adversaries", "cost", "invalid", "duplicates", "missing", "matrix", "runs"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("--json has no %q", k)
		}
	}
	funnelKeys := []string{"runs", "migrated", "all_tests_pass", "blindness", "reached_stage3", "accepted", "mean_score", "tasks_never_accepted"}
	var funnel map[string]any
	_ = json.Unmarshal(doc["funnel"], &funnel)
	if len(funnel) != len(funnelKeys) {
		t.Errorf("funnel has keys %v, want exactly %v", funnel, funnelKeys)
	}
	for _, k := range funnelKeys {
		if _, ok := funnel[k]; !ok {
			t.Errorf("funnel has no %q", k)
		}
	}
	if funnel["mean_score"] != 13.44 || funnel["runs"] != 520.0 {
		t.Errorf("funnel %v", funnel)
	}
	var byConfig map[string]map[string]any
	_ = json.Unmarshal(doc["by_config"], &byConfig)
	for cfg, row := range byConfig {
		for _, k := range append(funnelKeys, "score") {
			if _, ok := row[k]; !ok {
				t.Errorf("by_config[%s] has no %q", cfg, k)
			}
		}
	}

	buf.Reset()
	if err := campaign.WriteCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+523 {
		t.Errorf("--csv has %d rows, want a header and 523 runs (3 invalid)", len(rows))
	}
	buf.Reset()
	if err := campaign.WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"520", "13.44", "31.4", "17.2", "12.0", "5.6", "Invalid runs (3, counted apart, never as zeros)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text tables lack %q", want)
		}
	}
}
