package image

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestStageContentConcurrent stages two contents under one parent from
// many goroutines at once, as two srb builds sharing a cache do: every
// caller gets the folder of its own content, that folder still holds it
// after all the others have finished, and equal contents share a folder.
func TestStageContentConcurrent(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "staged", "helper")
	type got struct{ dir, digest, body string }
	var mu sync.Mutex
	var results []got
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf("content %d\n", i%2)
			dir, d, err := stageContent(parent, func(tmp string) error {
				tree := filepath.Join(tmp, "tree")
				if err := os.MkdirAll(tree, 0o700); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(tree, "srb-helper"), []byte(body), 0o755)
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			results = append(results, got{dir, d, body})
			mu.Unlock()
		}()
	}
	wg.Wait()
	dirs := map[string]string{}
	for _, r := range results {
		b, err := os.ReadFile(filepath.Join(r.dir, "srb-helper"))
		if err != nil || string(b) != r.body {
			t.Errorf("%s: read %q, %v; want %q", r.dir, b, err, r.body)
		}
		if want := filepath.Join(parent, r.digest[len("sha256:"):]); r.dir != want {
			t.Errorf("staged at %s, want %s", r.dir, want)
		}
		if d, err := TreeDigest(r.dir); err != nil || d != r.digest {
			t.Errorf("%s: tree digest %s, %v; returned %s", r.dir, d, err, r.digest)
		}
		if prev, ok := dirs[r.body]; ok && prev != r.dir {
			t.Errorf("one content staged twice: %s and %s", prev, r.dir)
		}
		dirs[r.body] = r.dir
	}
	if len(dirs) != 2 {
		t.Fatalf("%d staged folders for 2 contents: %v", len(dirs), dirs)
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("parent holds %v, want the two staged folders and no temporary ones", names)
	}
}

// TestStageContentUmask: a folder's mode is part of its digest, so the
// same content staged under another umask gets the same digest.
func TestStageContentUmask(t *testing.T) {
	fill := func(tmp string) error {
		tree := filepath.Join(tmp, "tree")
		if err := os.MkdirAll(tree, 0o777); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tree, "NOTICE"), []byte("n\n"), 0o644)
	}
	_, d1, err := stageContent(filepath.Join(t.TempDir(), "a"), fill)
	if err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	_, d2, err := stageContent(filepath.Join(t.TempDir(), "b"), fill)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Errorf("umask 077 staged %s, umask %03o staged %s", d2, old, d1)
	}
}

// TestStageContentFillError: a failed fill stages nothing and leaves no
// temporary folder behind.
func TestStageContentFillError(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "staged")
	_, _, err := stageContent(parent, func(tmp string) error { return fmt.Errorf("boom") })
	if err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v, want boom", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("parent holds %d entries after a failed fill", len(ents))
	}
}

// TestStageContentSweepsStaleTemps: a temporary folder a crashed srb left
// behind is removed by the next staging once it is old, never one that is
// still locked (another srb filling it) or was made a moment ago.
func TestStageContentSweepsStaleTemps(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "staged", "assets-x")
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, at time.Time) string {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "tree", "modules"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "tree", "modules", "half"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crashed := mk(".tmp-crashed", old)
	busy := mk(".tmp-busy", old)
	fresh := mk(".tmp-fresh", time.Now())
	notOurs := mk("tmp-not-a-temporary", old)
	f, err := os.Open(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	dir, _, err := stageContent(parent, func(tmp string) error {
		return os.MkdirAll(filepath.Join(tmp, "tree"), 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{crashed: false, busy: true, fresh: true, notOurs: true, dir: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestPrepareAssetsLinks: a link in modules/, data/ or truth/ that leads
// out of its folder (absolute, relative, or through another link), or an
// asset folder that is itself a link, is the task's fault, named; links
// that stay inside (even to nothing, or in a loop) are kept as links, and
// special files are left out.
func TestPrepareAssetsLinks(t *testing.T) {
	setup := func(t *testing.T, links map[string]string) *task.Task {
		dir := t.TempDir()
		for _, d := range []string{"modules/m/x/y", "data"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for p, c := range map[string]string{"README.md": "r\n", "modules/m/run.sh": "#!/bin/sh\n", "data/in.txt": "d\n"} {
			if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for p, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
		return &task.Task{ID: "links", Dir: dir}
	}
	for _, c := range []struct {
		name  string
		links map[string]string
		bad   string // the file named, "" when staged
	}{
		{"inside", map[string]string{"modules/m/x/run": "../run.sh", "modules/m/x/y/nothing": "gone", "modules/m/loop": "loop", "data/in": "./in.txt"}, ""},
		{"absolute", map[string]string{"data/passwd": "/etc/passwd"}, "data/passwd"},
		{"up and out", map[string]string{"modules/m/readme": "../../README.md"}, "modules/m/readme"},
		{"out to nothing", map[string]string{"modules/m/x/gone": "../../../../nothing"}, "modules/m/x/gone"},
		// Lexically inside (x/y + s/../../.. is x/..), but s is modules/
		// itself, so the kernel resolves it above modules/.
		{"through a link", map[string]string{"modules/m/x/y/s": "../..", "modules/m/x/y/l": "s/../../.."}, "modules/m/x/y/l"},
		{"folder is a link", map[string]string{"truth": "data"}, "truth"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := setup(t, c.links)
			in, err := prepareAssets(tk, filepath.Join(t.TempDir(), "root"))
			if c.bad == "" {
				if err != nil {
					t.Fatal(err)
				}
				for p, target := range c.links {
					if got, err := os.Readlink(filepath.Join(in.Dir, p)); err != nil || got != target {
						t.Errorf("%s staged as %q, %v; want the link to %q", p, got, err, target)
					}
				}
				return
			}
			var tfe *TaskFolderError
			if !errors.As(err, &tfe) || tfe.Path != filepath.Join(tk.Dir, c.bad) {
				t.Fatalf("err = %v, want a TaskFolderError naming %s", err, c.bad)
			}
			if !strings.Contains(err.Error(), c.links[c.bad]) {
				t.Errorf("%v does not say where the link leads (%s)", err, c.links[c.bad])
			}
		})
	}
	t.Run("special and unreadable files", func(t *testing.T) {
		tk := setup(t, nil)
		if err := syscall.Mkfifo(filepath.Join(tk.Dir, "data", "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := prepareAssets(tk, filepath.Join(t.TempDir(), "root"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(in.Dir, "data", "fifo")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the FIFO was staged: %v", err)
		}
		if os.Geteuid() == 0 {
			t.Skip("root reads unreadable files")
		}
		secret := filepath.Join(tk.Dir, "data", "secret")
		if err := os.WriteFile(secret, []byte("s"), 0o000); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(t.TempDir(), "root")
		if _, err := prepareAssets(tk, root); err == nil || !strings.Contains(err.Error(), secret) {
			t.Errorf("err = %v, want one naming %s", err, secret)
		}
		if ents, _ := os.ReadDir(filepath.Join(root, "staged", "assets-links")); len(ents) != 0 {
			t.Errorf("a failed staging left %d entries", len(ents))
		}
	})
}
