package schema_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelperDoesNotLinkSchema holds the split: srb's in-image helper links
// schema/contract but not this package (task.cue, images-lock.json), so a
// task-schema or lockfile change moves no stage image's digest.
func TestHelperDoesNotLinkSchema(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "../cmd/srb-helper").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	var sawContract bool
	for _, d := range deps {
		switch d {
		case "github.com/swe-refactor-bench/srb/schema":
			t.Errorf("cmd/srb-helper links package schema (task.cue, images-lock.json): %s", strings.Join(deps, " "))
		case "github.com/swe-refactor-bench/srb/schema/contract":
			sawContract = true
		}
	}
	if !sawContract {
		t.Errorf("cmd/srb-helper no longer links schema/contract; update this test and docs/ARCHITECTURE.md's list")
	}
}
