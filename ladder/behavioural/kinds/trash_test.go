package kinds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// countFiles counts the entries under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(string, os.DirEntry, error) error { n++; return nil })
	return n
}

// A case that fills its folder with 200,000 empty files is no hang of the
// grader: run twice in one sandbox (the second run's case folders replace
// the first's, as a rerun does), each run ends ok with no harness fault,
// the first run's folder is discarded by a rename into the sandbox's
// trash, and emptying the trash afterwards, outside the stage, removes it.
func TestCaseWithManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 200,000 files per run")
	}
	if os.Geteuid() != 0 {
		t.Skip("the sandbox needs root")
	}
	root := searchableTempDir(t)
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	tree(t, original, map[string]string{"prog.sh": "#!/bin/sh\nmkdir many && cd many && seq 1 200000 | xargs touch && echo made\n"})
	tree(t, taskDir, map[string]string{"data/.keep": ""})
	build := [][]string{{"cp", "prog.sh", "prog"}, {"chmod", "+x", "prog"}}
	d := behavioural.Declaration{
		Task: "t", TaskDir: taskDir,
		Configurations: map[string]behavioural.Configuration{"default": {Original: build, Outputs: []string{"prog"}}},
		StateB:         build,
		Modules: []behavioural.DeclaredModule{
			{ID: "build", Kind: "build", About: "b", Weight: 1, Timeout: time.Minute, Params: raw(BuildParams{})},
			{ID: "many", Kind: "command", About: "m", Weight: 1, Timeout: 10 * time.Minute, Params: raw(map[string]any{
				"cases": []any{map[string]any{"id": "fill", "argv": []string{"${BUILD}/prog"}, "timeout_sec": 300}},
			})},
		},
	}
	helper := []string{os.Args[0]}
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), taskDir, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err == nil {
		err = j.InstallHelper(helper)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.Jail = j
	for run := range 2 {
		work := filepath.Join(root, fmt.Sprintf("run%d", run))
		s, err := d.Suite(behavioural.ModeRecord, work, "", helper)
		if err != nil {
			t.Fatal(err)
		}
		st, err := (&behavioural.Runner{Repo: original, Original: original, Work: work, Jail: j}).Run(context.Background(), s)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if st.Status != "ok" || st.Metadata["harness_fault"] != nil {
			t.Fatalf("run %d: status %s, metadata %v", run, st.Status, st.Metadata)
		}
		for _, u := range st.Units {
			if u.Status != "ok" {
				t.Errorf("run %d: module %s %s: %s", run, u.ID, u.Status, u.Summary)
			}
		}
	}
	trash := j.Trash()
	if n := countFiles(t, trash.Dir); n < 200000 {
		t.Fatalf("the sandbox's trash holds %d entries: the first run's case folder was not discarded into it", n)
	}
	if err := trash.Empty(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trash.Dir); !os.IsNotExist(err) {
		t.Fatalf("the trash is still there after Empty: %v", err)
	}
}

// Discarding a folder of 200,000 files is a rename: it takes well under a
// second however much the folder holds, and the trash is root's alone.
func TestTrashDiscardIsORename(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 200,000 files")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "case")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 200000 {
		f, err := os.Create(filepath.Join(dir, "f"+itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tr := behavioural.Trash{Dir: filepath.Join(root, behavioural.TrashName)}
	start := time.Now()
	if err := tr.Discard(dir); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("Discard took %v: not O(1)", took)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s is still there", dir)
	}
	if info, err := os.Stat(tr.Dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("trash %v %v: want mode 0700", info, err)
	}
	if err := tr.Discard(dir); err != nil {
		t.Errorf("discarding what is gone: %v", err)
	}
	if err := tr.Empty(); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}
