package campaign_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
)

// TestLoadCampaignNoRun: a folder with no run at all (here one level too
// deep, so every run folder stands where a configuration belongs) is an
// error naming the layout problems, never an empty report.
func TestLoadCampaignNoRun(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"cfg/run-1/score.json", "cfg/run-2/score.json"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := campaign.LoadReport(root)
	if err == nil {
		t.Fatalf("no error; report %+v", rep)
	}
	want := "campaign: no run under " + root + " (runs are <task>/<configuration>/<run>/score.json)\n" +
		"  cfg/run-1/score.json: a file where a <run> folder belongs (runs are <task>/<configuration>/<run>/score.json); ignored\n" +
		"  cfg/run-2/score.json: a file where a <run> folder belongs (runs are <task>/<configuration>/<run>/score.json); ignored"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
}
