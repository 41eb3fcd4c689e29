package copytree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

var old = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// fixture makes a source tree: modes that a umask would narrow, a
// read-only folder, links inside and out, .git at two depths, a FIFO, and
// old mtimes.
func fixture(t *testing.T) (src, secret string) {
	t.Helper()
	root := t.TempDir()
	src = filepath.Join(root, "src")
	secret = filepath.Join(root, "secret")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(secret, []byte("grader's"), 0o600))
	for _, d := range []string{"a/b", ".git/objects", "sub/.git", "ro", "node"} {
		must(os.MkdirAll(filepath.Join(src, d), 0o755))
	}
	files := map[string]fs.FileMode{"a/b/run.sh": 0o777, "a/plain": 0o600, "a/group": 0o664, ".git/HEAD": 0o644,
		"sub/.git/config": 0o644, "ro/f": 0o444, "node/.git": 0o644}
	for f, m := range files {
		p := filepath.Join(src, f)
		must(os.WriteFile(p, []byte(f), m))
		must(os.Chmod(p, m))
		must(os.Chtimes(p, old, old))
	}
	must(os.Symlink(secret, filepath.Join(src, "a/out")))
	must(os.Symlink("../a/plain", filepath.Join(src, "node/in")))
	must(os.Symlink(filepath.Join(src, "a"), filepath.Join(src, "dirlink")))
	must(syscall.Mkfifo(filepath.Join(src, "a/fifo"), 0o644))
	must(os.Chmod(filepath.Join(src, "ro"), 0o555))
	must(os.Chmod(filepath.Join(src, "a"), 0o750))
	return src, secret
}

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

func TestKeepModesTimesAndLinks(t *testing.T) {
	src, secret := fixture(t)
	old := syscall.Umask(0o077) // a umask that would narrow every mode
	defer syscall.Umask(old)
	dst := filepath.Join(t.TempDir(), "dst")
	sum, err := Copy(src, dst, Options{Modes: Keep, Times: true})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]fs.FileMode{"a/b/run.sh": 0o777, "a/plain": 0o600, "a/group": 0o664, "ro/f": 0o444,
		"a": fs.ModeDir | 0o750, "ro": fs.ModeDir | 0o555, "a/b": fs.ModeDir | 0o755, ".": fs.ModeDir | 0o755} {
		if got := mode(t, filepath.Join(dst, f)); got != want {
			t.Errorf("%s: mode %v, want %v", f, got, want)
		}
	}
	st, _ := os.Stat(filepath.Join(dst, "a/plain"))
	if !st.ModTime().Equal(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Errorf("mtime %v not kept", st.ModTime())
	}
	// Links are links, with their text; nothing was read through them.
	for link, want := range map[string]string{"a/out": secret, "node/in": "../a/plain", "dirlink": filepath.Join(src, "a")} {
		got, err := os.Readlink(filepath.Join(dst, link))
		if err != nil || got != want {
			t.Errorf("%s: link %q (%v), want %q", link, got, err, want)
		}
	}
	// .git is copied by default; the FIFO is skipped and listed.
	if _, err := os.Stat(filepath.Join(dst, "sub/.git/config")); err != nil {
		t.Errorf("GitCopy left .git out: %v", err)
	}
	if !slices.Equal(sum.Skipped, []string{"a/fifo"}) || sum.Files != 7 || sum.Links != 3 {
		t.Errorf("summary %+v, want 7 files, 3 links, a/fifo skipped", sum)
	}
	// Bits added to kept modes.
	dst2 := filepath.Join(t.TempDir(), "dst")
	if _, err := Copy(src, dst2, Options{FileBits: 0o200, DirBits: 0o700}); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Join(dst2, "ro/f")); m != 0o644 {
		t.Errorf("ro/f with FileBits 0200: %v, want 0644", m)
	}
	if m := mode(t, filepath.Join(dst2, "ro")); m != fs.ModeDir|0o755 {
		t.Errorf("ro with DirBits 0700: %v", m)
	}
	if st, _ := os.Stat(filepath.Join(dst2, "a/plain")); st.ModTime().Equal(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Error("mtime kept without Times")
	}
	os.Chmod(filepath.Join(dst, "ro"), 0o755)
}

func TestNormaliseAndGitSkip(t *testing.T) {
	src, _ := fixture(t)
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dst := filepath.Join(t.TempDir(), "dst")
	_, err := Copy(src, dst, Options{Modes: Normalise, Git: GitSkip,
		Exclude: func(rel string, d fs.DirEntry) bool { return rel == "a/group" }})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]fs.FileMode{"a/b/run.sh": 0o755, "a/plain": 0o644, "ro/f": 0o644,
		"a": fs.ModeDir | 0o755, "ro": fs.ModeDir | 0o755} {
		if got := mode(t, filepath.Join(dst, f)); got != want {
			t.Errorf("%s: mode %v, want %v", f, got, want)
		}
	}
	for _, gone := range []string{".git", "sub/.git", "node/.git", "a/group"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s copied (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "sub")); err != nil {
		t.Errorf("sub/ left out with its .git: %v", err)
	}
}

func TestRefuseSpecial(t *testing.T) {
	src, _ := fixture(t)
	_, err := Copy(src, filepath.Join(t.TempDir(), "dst"), Options{Special: RefuseSpecial})
	var se *SpecialError
	if !errors.As(err, &se) || se.Rel != "a/fifo" || se.Type != fs.ModeNamedPipe {
		t.Errorf("error %v, want a SpecialError for a/fifo", err)
	}
}

// A destination that already holds a link never has a write go through
// it, with or without Replace.
func TestNoWriteThroughDestinationLinks(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), []byte("new"), 0o644)
	os.MkdirAll(filepath.Join(src, "d"), 0o755)
	os.WriteFile(filepath.Join(src, "d/g"), []byte("new"), 0o644)
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("old"), 0o644)
	dst := t.TempDir()
	os.Symlink(outside, filepath.Join(dst, "f"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dst, "d"))
	if _, err := Copy(src, dst, Options{}); err == nil {
		t.Error("copied over existing links without Replace")
	}
	if _, err := Copy(src, dst, Options{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "old" {
		t.Errorf("a write went through a link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(outside), "g")); err == nil {
		t.Error("a file was made through a linked folder")
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "f")); string(b) != "new" {
		t.Errorf("Replace did not replace the link f: %q", b)
	}
}

func TestCopyOneFileAndOneLink(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "bin"), []byte("x"), 0o751)
	os.Chmod(filepath.Join(src, "bin"), 0o751)
	os.Symlink("bin", filepath.Join(src, "alias"))
	dst := t.TempDir()
	if _, err := Copy(filepath.Join(src, "bin"), filepath.Join(dst, "out/bin"), Options{}); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Join(dst, "out/bin")); m != 0o751 {
		t.Errorf("mode %v", m)
	}
	if _, err := Copy(filepath.Join(src, "alias"), filepath.Join(dst, "out/alias"), Options{}); err != nil {
		t.Fatal(err)
	}
	if l, _ := os.Readlink(filepath.Join(dst, "out/alias")); l != "bin" {
		t.Errorf("link %q", l)
	}
	// An existing destination folder keeps its own mode.
	os.Chmod(dst, 0o711)
	if _, err := Copy(src, dst, Options{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dst); m != fs.ModeDir|0o711 {
		t.Errorf("existing destination's mode changed to %v", m)
	}
}

// TestBounds: MaxBytes counts every hard link of a file in full and stops
// before writing the file that would pass it; MaxEntries stops at the first
// entry past it; without bounds the same tree copies whole.
func TestBounds(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a"), make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b", "c"} {
		if err := os.Link(filepath.Join(src, "a"), filepath.Join(src, n)); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "d")
	sum, err := Copy(src, dst, Options{MaxBytes: 2500})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("3000 bytes of links under a 2500 bound: %v", err)
	}
	if sum.Files != 2 {
		t.Errorf("copied %d files before the bound, want 2", sum.Files)
	}
	if _, err := os.Stat(filepath.Join(dst, "c")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file past the bound was written: %v", err)
	}
	if _, err := Copy(src, filepath.Join(t.TempDir(), "e"), Options{MaxEntries: 3}); !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("4 entries under a bound of 3: %v", err)
	}
	sum, err = Copy(src, filepath.Join(t.TempDir(), "f"), Options{MaxBytes: 3000, MaxEntries: 4})
	if err != nil || sum.Files != 3 {
		t.Errorf("at the bounds exactly: %+v %v", sum, err)
	}
}
