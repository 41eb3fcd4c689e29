package progsep

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCopyInAndBack (root: the copies run as two other uids): the copy
// carries what the caller's group may read (folders, files, links as
// links), never a file only the caller may read; back come the files the
// program made and the carried files it changed, as the caller's, and a
// link it made within its folder; never over a file it could not read,
// never through a link of the caller's folder, never a link leading out
// of its folder, nor a FIFO.
func TestCopyInAndBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the copies run as other uids: root only")
	}
	const callerID, launchedID = 64991, 64992
	base := t.TempDir()
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755) // t.TempDir's own folder
	w := filepath.Join(base, "w")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{w, outside, filepath.Join(w, "sub")} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{"in.txt": 0o644, "secret.txt": 0o600, "sub/x": 0o644, "keep.txt": 0o644}
	for f, mode := range files {
		p := filepath.Join(w, f)
		if err := os.WriteFile(p, []byte(f+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	os.Symlink(outside, filepath.Join(w, "out"))
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, callerID, callerID) })
	work := filepath.Join(base, "work")
	os.Mkdir(work, 0o700)
	os.Chown(work, launchedID, launchedID)
	launched := &Creds{UID: launchedID, GID: launchedID, Groups: []int{callerID}}
	caller := &Creds{UID: callerID, GID: callerID, Groups: []int{callerID}}

	copied, err := CopyIn(w, work, launched)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"in.txt", "sub/x", "keep.txt"} {
		if b, err := os.ReadFile(filepath.Join(work, f)); err != nil || string(b) != f+"\n" {
			t.Errorf("%s not carried in: %q %v", f, b, err)
		}
		if _, ok := copied[f]; !ok {
			t.Errorf("%s not recorded as carried", f)
		}
	}
	if _, err := os.Lstat(filepath.Join(work, "secret.txt")); err == nil {
		t.Error("a file only the caller may read was carried in")
	}
	if l, err := os.Readlink(filepath.Join(work, "out")); err != nil || l != outside {
		t.Errorf("the link was not carried as a link: %q %v", l, err)
	}
	if fi, err := os.Lstat(filepath.Join(work, "in.txt")); err != nil || fi.Sys().(*syscall.Stat_t).Uid != launchedID {
		t.Errorf("the copy is not the launched uid's: %v", err)
	}

	// The program: it changes a carried file, makes files and a folder,
	// "writes" the file it could not read, writes through the place of the
	// caller's link and leaves a link and a FIFO.
	as := func(p string) { os.Lchown(p, launchedID, launchedID) }
	write := func(f, s string) {
		p := filepath.Join(work, f)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		as(p)
	}
	write("in.txt", "changed\n")
	write("made.txt", "made\n")
	os.Mkdir(filepath.Join(work, "newdir"), 0o755)
	as(filepath.Join(work, "newdir"))
	write("newdir/y", "deep\n")
	write("secret.txt", "forged\n")
	os.Remove(filepath.Join(work, "out"))
	os.Mkdir(filepath.Join(work, "out"), 0o755)
	as(filepath.Join(work, "out"))
	write("out/escaped", "escaped\n")
	os.Symlink("/etc/passwd", filepath.Join(work, "link"))
	os.Symlink("../w/in.txt", filepath.Join(work, "uplink"))
	os.Symlink("y", filepath.Join(work, "newdir", "y.1"))
	os.Lchown(filepath.Join(work, "newdir", "y.1"), launchedID, launchedID)
	syscall.Mkfifo(filepath.Join(work, "fifo"), 0o644)

	n, err := CopyBack(work, w, copied, launched, caller)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"in.txt": "changed\n", "made.txt": "made\n", "newdir/y": "deep\n", "secret.txt": "secret.txt\n", "keep.txt": "keep.txt\n", "sub/x": "sub/x\n"}
	for f, s := range want {
		b, err := os.ReadFile(filepath.Join(w, f))
		if err != nil || string(b) != s {
			t.Errorf("%s: %q %v, want %q", f, b, err, s)
		}
	}
	if n != 4 {
		t.Errorf("%d entries brought back, want 4", n)
	}
	if l, err := os.Readlink(filepath.Join(w, "newdir", "y.1")); err != nil || l != "y" {
		t.Errorf("a link within its folder did not come back: %q %v", l, err)
	}
	for _, f := range []string{"made.txt", "newdir", "newdir/y"} {
		fi, err := os.Lstat(filepath.Join(w, f))
		if err != nil || fi.Sys().(*syscall.Stat_t).Uid != callerID {
			t.Errorf("%s is not the caller's: %v", f, err)
		} else if fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s is writable by others: %v", f, fi.Mode())
		}
	}
	if _, err := os.Lstat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a file came back through the caller's link")
	}
	for _, f := range []string{"link", "uplink", "fifo"} {
		if _, err := os.Lstat(filepath.Join(w, f)); err == nil {
			t.Errorf("the program's %s came back", f)
		}
	}
}
