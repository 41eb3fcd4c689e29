package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestLocalRepackOnlyWhenChanged (issue 17): a local State A is repacked
// only when what it is made of changed. An unchanged folder is served
// from the cache without rewriting the archive or the record; a file
// rewritten with the same size and mtime is noticed (its ctime moved); a
// folder changed back gives the first digest again without rewriting
// the first archive; a tampered archive is repacked.
func TestLocalRepackOnlyWhenChanged(t *testing.T) {
	src := filepath.Join(t.TempDir(), "rel-1.0")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(src, "sub", "b.txt"), []byte("beta\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(src, "link"))
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "local", Path: src}}
	c := &Cache{Dir: t.TempDir()}
	ctx := context.Background()
	stamp := func(p string) string { return fileStamp(p) }

	e1, err := c.Materialise(ctx, a, ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(c.Dir, "sources", Key(task.Source{Kind: "local", Path: src}, Top(a))+".json")
	arch1, rec1 := stamp(e1.Archive), stamp(rec)
	if arch1 == "" || rec1 == "" {
		t.Fatal("no archive or record")
	}
	e2, err := c.Materialise(ctx, a, ".", nil)
	if err != nil || !e2.FromCache || e2.Digest != e1.Digest {
		t.Fatalf("unchanged folder: %+v %v, want the cached digest", e2, err)
	}
	if stamp(e1.Archive) != arch1 || stamp(rec) != rec1 {
		t.Error("an unchanged folder rewrote the archive or the record")
	}

	// Same size, same mtime, other bytes.
	f := filepath.Join(src, "sub", "b.txt")
	st, _ := os.Stat(f)
	time.Sleep(5 * time.Millisecond)
	os.WriteFile(f, []byte("BETA\n"), 0o644)
	os.Chtimes(f, st.ModTime(), st.ModTime())
	e3, err := c.Materialise(ctx, a, ".", nil)
	if err != nil || e3.FromCache || e3.Digest == e1.Digest {
		t.Fatalf("changed file: %+v %v, want a new digest", e3, err)
	}

	// Changed back: the first digest, and its archive file untouched.
	os.WriteFile(f, []byte("beta\n"), 0o644)
	e4, err := c.Materialise(ctx, a, ".", nil)
	if err != nil || e4.Digest != e1.Digest {
		t.Fatalf("changed back: %+v %v, want %s", e4, err, e1.Digest)
	}
	if stamp(e1.Archive) != arch1 {
		t.Error("a repack with the same bytes rewrote the cached archive")
	}
	if e5, err := c.Materialise(ctx, a, ".", nil); err != nil || !e5.FromCache {
		t.Fatalf("after changing back: %+v %v, want served from the cache", e5, err)
	}

	// A tampered archive is not served.
	b, _ := os.ReadFile(e1.Archive)
	os.WriteFile(e1.Archive, append(b[:len(b)-1:len(b)-1], b[len(b)-1]^1), 0o600)
	e6, err := c.Materialise(ctx, a, ".", nil)
	if err != nil || e6.FromCache || e6.Digest != e1.Digest {
		t.Fatalf("tampered archive: %+v %v, want a repack", e6, err)
	}
	if got, _ := os.ReadFile(e1.Archive); string(got) != string(b) {
		t.Error("the tampered archive was not replaced by the repack")
	}
}

// TestLocalManifest: the manifest moves with a new entry, a mode and a
// link target, not with .git.
func TestLocalManifest(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "a"), []byte("x"), 0o644)
	os.Symlink("a", filepath.Join(src, "l"))
	m := func() string {
		d, err := localManifest(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	m0 := m()
	os.MkdirAll(filepath.Join(src, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("ref"), 0o644)
	if m() != m0 {
		t.Error(".git moved the manifest")
	}
	os.Chmod(filepath.Join(src, "a"), 0o755)
	m1 := m()
	if m1 == m0 {
		t.Error("a mode change kept the manifest")
	}
	os.Remove(filepath.Join(src, "l"))
	os.Symlink("b", filepath.Join(src, "l"))
	m2 := m()
	if m2 == m1 {
		t.Error("a new link target kept the manifest")
	}
	os.WriteFile(filepath.Join(src, "c"), nil, 0o644)
	if m() == m2 {
		t.Error("a new file kept the manifest")
	}
	if _, err := localManifest(src, 2); err == nil {
		t.Error("3 entries within a limit of 2")
	}
}
