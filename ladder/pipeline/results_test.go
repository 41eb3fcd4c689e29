package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// TestRunsInside: a results folder is a run; a parent of runs lists them
// (three at most, then "…"); the task id comes from a stage file, else
// the folder's name.
func TestRunsInside(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{"a/1", "a/2", "b/1", "b/2"} {
		write(filepath.Join(r, "audit.json"), `{"task": "lang90-x"}`)
	}
	want := []string{filepath.Join(root, "a/1"), filepath.Join(root, "a/2"), filepath.Join(root, "b/1"), "…"}
	if got := RunsInside(root); !reflect.DeepEqual(got, want) {
		t.Errorf("RunsInside(root) = %v, want %v", got, want)
	}
	if got := RunsInside(filepath.Join(root, "a/1")); got != nil {
		t.Errorf("a run lists %v inside it", got)
	}
	if got := TaskOfResults(filepath.Join(root, "a/1")); got != "lang90-x" {
		t.Errorf("TaskOfResults = %q, want the stage file's task", got)
	}
	if got := TaskOfResults(filepath.Join(root, "b")); got != "b" {
		t.Errorf("TaskOfResults with no stage file = %q, want the folder's name", got)
	}
}

// TestRunsInsideDeepAndPublishedOnly: a run four levels down, and a run
// that holds only what the ladder published (reward.json), are runs: srb
// score refuses their parent instead of writing an invalid verdict into it
// (issue 16's audit).
func TestRunsInsideDeepAndPublishedOnly(t *testing.T) {
	root := t.TempDir()
	for rel, file := range map[string]string{"deep/x/y/z/run-1": "audit.json", "pub/m/run-1": "reward.json", "meta/m/run-2": "run.json"} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, file), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{"deep": "deep/x/y/z/run-1", "pub": "pub/m/run-1", "meta": "meta/m/run-2"} {
		if got := RunsInside(filepath.Join(root, dir)); !reflect.DeepEqual(got, []string{filepath.Join(root, want)}) {
			t.Errorf("RunsInside(%s) = %v, want [%s]", dir, got, want)
		}
	}
}

// A results folder another user could redirect or replace is refused
// before anything is written (an earlier --host run's graded program can
// plant /tmp/out -> a folder of its own); the operator's own folders,
// another user's who is not a graded process (a Harbor trial's mounted
// folder), a link root made, and /tmp's sticky 1777 are fine.
func TestCheckResultsFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files of another user")
	}
	const other = hostuser.Base + 54321 // a graded process's uid
	const operator = 4321               // another user's, not graded
	root := t.TempDir()
	mk := func(p string, mode os.FileMode) string {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine := mk("mine", 0o755)
	theirs := mk("theirs", 0o777)
	if err := os.Chown(theirs, other, other); err != nil {
		t.Fatal(err)
	}
	open := mk("open", 0o777)
	operators := mk("operators", 0o755)
	if err := os.Chown(operators, operator, operator); err != nil {
		t.Fatal(err)
	}
	sticky := mk("sticky", 0o777|os.ModeSticky)
	// link makes a link at p to target, owned by uid.
	link := func(target, p string, uid int) string {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	planted := link(theirs, filepath.Join(sticky, "out"), other)
	rootLink := link(mine, filepath.Join(mine, "link"), 0)
	for _, c := range []struct {
		dir  string
		want string // "" when accepted
	}{
		{filepath.Join(mine, "out"), ""},
		{mine, ""},
		{filepath.Join(sticky, "new", "out"), ""},
		{filepath.Join(rootLink, "out"), ""},
		{filepath.Join(operators, "out"), ""},
		{planted, "is a link made by uid 1000054321"},
		{filepath.Join(planted, "run1"), "is a link made by uid 1000054321"},
		{filepath.Join(theirs, "out"), "belongs to uid 1000054321"},
		{filepath.Join(open, "out"), "anyone may write in"},
	} {
		err := CheckResultsFolder(c.dir)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.dir, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error saying %q", c.dir, err, c.want)
		}
	}
	// Resolved as the kernel does: a graded link before a "..", one in a
	// chain of links root made, one the working folder leads through.
	sub := mk("theirs/sub", 0o777)
	if err := os.Chown(sub, other, other); err != nil {
		t.Fatal(err)
	}
	gradedLink := link(sub, filepath.Join(sticky, "glink"), other)
	chain := link(gradedLink, filepath.Join(mine, "chain"), 0)
	for _, dir := range []string{gradedLink + "/../out", chain + "/out", mine + "/../sticky/glink/x"} {
		if err := CheckResultsFolder(dir); err == nil || !strings.Contains(err.Error(), "glink is a link made by uid 1000054321") {
			t.Errorf("%s: %v, want the graded link refused", dir, err)
		}
	}
	if err := CheckResultsFolder(mine + "/new/../out"); err == nil || !strings.Contains(err.Error(), "which is not there yet") {
		t.Errorf("a .. after a folder not made: %v, want refused", err)
	}
	t.Chdir(gradedLink)
	if err := CheckResultsFolder("../out"); err == nil || !strings.Contains(err.Error(), "theirs belongs to uid 1000054321") {
		t.Errorf("../out from a working folder reached through a graded link: %v, want refused", err)
	}
	t.Chdir(mine)
	if err := CheckResultsFolder("out"); err != nil {
		t.Errorf("out in the operator's folder: %v", err)
	}
	// Nothing is published there on an error or a refusal either.
	if _, err := PublishError(planted, "t1", "the task cannot be read", false); err == nil {
		t.Error("PublishError into the planted link: no error")
	}
	if _, err := PublishRefused(filepath.Join(planted, "r"), "t1", scoring.Published(), "too large"); err == nil {
		t.Error("PublishRefused into the planted link: no error")
	}
	// Grade refuses it and writes nothing there.
	g := &Grader{Task: Task{ID: "t1"}, Original: root}
	o := g.Grade(context.Background(), Submission{Name: "sub", Tree: mine, Results: planted})
	if o.Err == nil || !strings.Contains(o.Err.Error(), "is a link made by uid 1000054321") {
		t.Errorf("Grade: %v, want the planted link refused", o.Err)
	}
	if ents, _ := os.ReadDir(theirs); len(ents) != 1 || ents[0].Name() != "sub" {
		t.Errorf("the planted folder holds %v, want only the test's sub", ents)
	}
	if ents, _ := os.ReadDir(sub); len(ents) > 0 {
		t.Errorf("the planted folder's sub holds %v, want nothing", ents)
	}
}
