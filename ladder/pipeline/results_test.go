package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
