package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the task loader as task.cue. It must
// never panic, and must return either a task and no problem, or no task
// and at least one problem, each with a rule and a message, that formats
// as text. Seeds: the fixture task and a few broken ones (the real tasks
// take seconds a run under the fuzzer's instrumentation);
// testdata/fuzz/FuzzLoad holds the committed corpus.
func FuzzLoad(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/tasks/lang90-tally-c-to-go/task.cue"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("package srb\n"))
	f.Add([]byte("package srb\nid: \"x\"\nstate_a: source: {kind: \"local\", path: \"a\", limits: {max_ratio: 0}}\n"))
	f.Add([]byte("package srb\nstate_a: {source: {kind: \"url\", url: \"https://x\", sha256: \"00\"}}\nid: 1\n"))
	f.Add([]byte("id: \"\\u0000\" & \"\\n\"\n"))
	f.Add([]byte("a: b: c: {\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), src, 0o644); err != nil {
			t.Fatal(err)
		}
		tk, ps := Load(dir)
		switch {
		case tk == nil && len(ps) == 0:
			t.Fatal("no task and no problem")
		case tk != nil && len(ps) != 0:
			t.Fatalf("a task and problems: %v", ps)
		}
		for _, p := range ps {
			if p.Rule == "" || strings.TrimSpace(p.Msg) == "" {
				t.Fatalf("problem without a rule or message: %+v", p)
			}
			if p.Format(dir) == "" {
				t.Fatalf("problem formats as nothing: %+v", p)
			}
		}
	})
}
