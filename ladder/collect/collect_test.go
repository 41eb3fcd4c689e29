package collect

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern string
		path    string
		want    bool
	}{
		{"*.o", "a.o", true},
		{"*.o", "src/deep/a.o", true},      // basename reading, any depth
		{"*.o", "src/a.o.txt", false},      //
		{"build", "build", true},           //
		{"build", "x/build/out.bin", true}, // an ancestor folder's basename
		{"build", "buildx/a", false},       //
		{"build-*", "build-release/lib/a.so", true},
		{"docs/*.md", "docs/a.md", true},     // path reading
		{"docs/*.md", "docs/sub/a.md", true}, // '*' crosses '/'
		{"docs/*.md", "other/docs/a.md", false},
		{"./target/", "target/debug/x", true}, // "./" and "/" are ignored
		{"*.tgz", "test/fixtures/data.tgz", true},
		{"?.c", "a.c", true},
		{"?.c", "ab.c", false},
		{"[ab].c", "b.c", true},
		{"[!ab].c", "b.c", false},
		{"[!ab].c", "c.c", true},
		{`\*.c`, "*.c", true},
		{`\*.c`, "a.c", false},
		{".git", "sub/.git/config", true},
		{"tally", "tally", true},
		{"tally", "tally.c", false},
	} {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Fatalf("Compile(%q): %v", c.pattern, err)
		}
		if got := p.Match(c.path); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, raw := range []string{"", "./", "[abc"} {
		if _, err := Compile(raw); err == nil {
			t.Errorf("Compile(%q): want an error", raw)
		}
	}
	if _, err := CompileAll([]string{"ok", "[x", "also[bad"}); err == nil || err.Error() != `exclusion pattern "[x": unterminated character class; exclusion pattern "also[bad": unterminated character class` {
		t.Errorf("CompileAll error = %v", err)
	}
}

func write(t *testing.T, root, rel, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

func TestCollect(t *testing.T) {
	src := t.TempDir()
	write(t, src, "main.go", "package main\n", 0o600)
	write(t, src, "build.sh", "#!/bin/sh\n", 0o700)
	write(t, src, "tally", "ELF", 0o755)
	write(t, src, "target/debug/x", "x", 0o644)
	write(t, src, "docs/a.md", "a", 0o644)
	write(t, src, ".git/config", "c", 0o644)
	outside := t.TempDir()
	write(t, outside, "secret", "s", 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	set, err := CompileAll([]string{"tally", "target", ".git"})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	sum, err := Collect(src, dst, set)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dst, p)
		info, _ := d.Info()
		got = append(got, rel+" "+info.Mode().String())
		return nil
	})
	sort.Strings(got)
	want := []string{
		". drwxr-xr-x",
		"build.sh -rwxr-xr-x",
		"docs drwxr-xr-x",
		"docs/a.md -rw-r--r--",
		"link Lrwxrwxrwx",
		"main.go -rw-r--r--",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("collected tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string][]string{"tally": {"tally"}, "target": {"target"}, ".git": {".git"}}, sum.Excluded); d != "" {
		t.Errorf("excluded (-want +got):\n%s", d)
	}
	if sum.Files != 3 || sum.Links != 1 {
		t.Errorf("files %d links %d", sum.Files, sum.Links)
	}
	// The link was copied as a link, not followed.
	if l, _ := os.Readlink(filepath.Join(dst, "link")); l != filepath.Join(outside, "secret") {
		t.Errorf("link target %q", l)
	}
}

// TestCollectBounded: a tree past each bound stops the collection with
// a *BoundError naming the bound (excluded paths never count); within
// them it is collected whole.
func TestCollectBounded(t *testing.T) {
	src := t.TempDir()
	for _, p := range []string{"a/b/c/f", "a/g", "big", "skip/x/y/z/w"} {
		if err := os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, p), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := CompileAll([]string{"skip/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		b           Bounds
		bound, path string
	}{
		{Bounds{}, "", ""},
		{Bounds{MaxBytes: 300, MaxEntries: 7, MaxPathBytes: 7, MaxDepth: 4}, "", ""},
		{Bounds{MaxBytes: 299}, "bytes", ""},
		{Bounds{MaxEntries: 6}, "entries", ""},
		{Bounds{MaxPathBytes: 6}, "path bytes", "a/b/c/f"},
		{Bounds{MaxDepth: 3}, "depth", "a/b/c/f"},
	} {
		sum, err := CollectBounded(src, filepath.Join(t.TempDir(), "repo"), set, tc.b)
		var be *BoundError
		switch {
		case tc.bound == "" && err != nil:
			t.Errorf("%+v: %v", tc.b, err)
		case tc.bound == "" && sum.Files != 3:
			t.Errorf("%+v: %d files collected, want 3", tc.b, sum.Files)
		case tc.bound != "" && !errors.As(err, &be):
			t.Errorf("%+v: err %v, want a *BoundError", tc.b, err)
		case tc.bound != "" && (be.Bound != tc.bound || be.Path != tc.path):
			t.Errorf("%+v: bound %q at %q, want %q at %q (%v)", tc.b, be.Bound, be.Path, tc.bound, tc.path, err)
		}
	}
}
