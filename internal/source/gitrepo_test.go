package source

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tallyCommit is the commit id of the fixture's starting tree: State A
// (testdata/statea/tally-1.0) as one commit by the fixed identity at the
// fixed date.
const tallyCommit = "28cc936b4fa5dc27bb44395f1ea14be5f91130f5"

func TestStartingTreeIsReproducible(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	c := &Cache{Dir: t.TempDir()}
	e, err := c.Materialise(context.Background(), tallyStateA(), ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "repo")
		id, err := StartingTree(context.Background(), e.Archive, dir, "", e.Limits)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		ids = append(ids, id)
		out, err := exec.Command("git", "-C", dir, "log", "--format=%an <%ae> %aI|%cn %cI|%s").CombinedOutput()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != "State A <state-a@srb.invalid> 2000-01-01T00:00:00+00:00|State A 2000-01-01T00:00:00+00:00|State A" {
			t.Errorf("log: %q", got)
		}
		files, _ := exec.Command("git", "-C", dir, "ls-files").Output()
		if strings.Join(strings.Fields(string(files)), " ") != "LICENSE Makefile README tally.c" {
			t.Errorf("tracked: %q", files)
		}
	}
	if ids[0] != ids[1] || ids[0] != tallyCommit {
		t.Errorf("commit ids %v, want %s twice", ids, tallyCommit)
	}
}

func TestStartCommitIsRecorded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	c := &Cache{Dir: t.TempDir()}
	e, err := c.Materialise(context.Background(), tallyStateA(), ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.StartCommit(context.Background(), e, "")
	if err != nil || id != tallyCommit {
		t.Fatalf("%s %v", id, err)
	}
	// Recorded: a second call needs no git.
	again, err := c.StartCommit(context.Background(), e, "/nonexistent/git")
	if err != nil || again != tallyCommit {
		t.Fatalf("from the record: %s %v", again, err)
	}
}
