package image

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
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
