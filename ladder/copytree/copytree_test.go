package copytree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// allocated is the bytes path takes on its file system.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// A sparse file is copied sparse (helper-72's stage-2 attack: a 20 KiB
// tree holding a 1 GiB file of holes cost 2.1 GiB of disk in two copies):
// its data where it was, its holes holes, its size kept; and a file with
// no holes, or an empty one, is copied as before.
func TestSparseFileStaysSparse(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	const size = 1 << 30
	f, err := os.Create(filepath.Join(src, "holes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 300 << 20, size - 5} {
		if _, err := f.WriteAt([]byte("data!"), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// A file ending in a hole, and one that is all hole.
	if err := os.WriteFile(filepath.Join(src, "tail"), []byte("head"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(src, "tail"), 64<<20); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "empty-sparse"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(src, "empty-sparse"), 8<<20); err != nil {
		t.Fatal(err)
	}
	dense := make([]byte, 3<<20+7)
	for i := range dense {
		dense[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(src, "dense"), dense, 0o644); err != nil {
		t.Fatal(err)
	}
	if a := allocated(t, filepath.Join(src, "holes")); a > 16<<20 {
		t.Skipf("this file system does not keep holes (%d bytes allocated)", a)
	}
	if _, err := Copy(src, dst, Options{Times: true, MaxBytes: 2 << 30}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"holes": size, "tail": 64 << 20, "empty-sparse": 8 << 20, "dense": int64(len(dense))} {
		fi, err := os.Stat(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != want {
			t.Errorf("%s: size %d, want %d", name, fi.Size(), want)
		}
		if name != "dense" {
			if a := allocated(t, filepath.Join(dst, name)); a > 1<<20 {
				t.Errorf("%s: the copy takes %d bytes of disk, want its few blocks of data", name, a)
			}
		}
	}
	g, err := os.Open(filepath.Join(dst, "holes"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for off, want := range map[int64]string{0: "data!", 300 << 20: "data!", size - 5: "data!", 1 << 20: "\x00\x00\x00\x00\x00", 600 << 20: "\x00\x00\x00\x00\x00"} {
		b := make([]byte, 5)
		if _, err := g.ReadAt(b, off); err != nil || string(b) != want {
			t.Errorf("holes at %d: %q (%v), want %q", off, b, err, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dst, "tail")); err != nil || !strings.HasPrefix(string(b), "head\x00") {
		t.Errorf("tail: the copy does not start with its data (%v)", err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "dense")); err != nil || !slices.Equal(got, dense) {
		t.Errorf("dense: the copy differs (%v)", err)
	}
}

// A file that is not the size the walk measured when it is read (it grew
// or shrank since) is ErrChanged, with or without holes, and nothing past
// the measured size is copied.
func TestCopyDataRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		sparse bool
		change int64 // bytes added (above 0) or cut (below 0) after the walk
	}{
		{"dense grew", false, 1 << 20},
		{"dense shrank", false, -1},
		{"sparse grew", true, 1 << 20},
		{"sparse shrank", true, -(4 << 20)},
	} {
		src := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		body := make([]byte, 64<<10)
		for i := range body {
			body[i] = 'x'
		}
		if err := os.WriteFile(src, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.sparse {
			if err := os.Truncate(src, 16<<20); err != nil {
				t.Fatal(err)
			}
		}
		info, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Sys().(*syscall.Stat_t).Blocks*512 < info.Size(); got != c.sparse {
			t.Skipf("%s: this file system shows holes as %v, want %v", c.name, got, c.sparse)
		}
		if c.change > 0 {
			f, err := os.OpenFile(src, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(make([]byte, c.change)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Truncate(src, info.Size()+c.change); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(src + ".copy")
		if err != nil {
			t.Fatal(err)
		}
		err = copyData(out, in, info)
		in.Close()
		st, serr := out.Stat()
		out.Close()
		if serr != nil {
			t.Fatal(serr)
		}
		if !errors.Is(err, ErrChanged) {
			t.Errorf("%s: %v, want ErrChanged", c.name, err)
		}
		if st.Size() > info.Size() {
			t.Errorf("%s: %d bytes copied, past the %d the walk measured", c.name, st.Size(), info.Size())
		}
	}
}
