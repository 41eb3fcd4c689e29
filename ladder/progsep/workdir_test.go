package progsep

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// twoUsers makes, for a copy between two uids (root only), a caller's
// folder w (0750) beside a program's folder work (0700, the launched
// uid's) under a fresh folder every user may enter; fill writes w's
// content (and anything beside it) first, and all of it is then the
// caller's. It returns w, work and the two identities, the launched one
// in the caller's group.
func twoUsers(t *testing.T, callerID, launchedID int, fill func(w string)) (w, work string, launched, caller *Creds) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the copies run as other uids: root only")
	}
	base := t.TempDir()
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755) // t.TempDir's own folder
	w = filepath.Join(base, "w")
	if err := os.Mkdir(w, 0o750); err != nil {
		t.Fatal(err)
	}
	fill(w)
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, callerID, callerID) })
	work = filepath.Join(base, "work")
	os.Mkdir(work, 0o700)
	os.Chown(work, launchedID, launchedID)
	launched = &Creds{UID: launchedID, GID: launchedID, Groups: []int{callerID}}
	caller = &Creds{UID: callerID, GID: callerID, Groups: []int{callerID}}
	return w, work, launched, caller
}

// writeModes writes each file of files under w (its folders made 0700),
// holding its own name, with its mode.
func writeModes(t *testing.T, w string, files map[string]os.FileMode) {
	t.Helper()
	for f, mode := range files {
		p := filepath.Join(w, f)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(f+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
}

// TestCopyInAndBack (root: the copies run as two other uids): the copy
// carries what the caller's group may read (folders, files, links as
// links), never a file only the caller may read; back come the files the
// program made and the carried files it changed, as the caller's, and a
// copy of the file a link it made within its folder leads to; never over a file it could not read,
// never through a link of the caller's folder, never a link leading out
// of its folder, nor a FIFO.
func TestCopyInAndBack(t *testing.T) {
	const callerID, launchedID = 64991, 64992
	var outside string
	w, work, launched, caller := twoUsers(t, callerID, launchedID, func(w string) {
		outside = filepath.Join(filepath.Dir(w), "outside")
		for _, d := range []string{outside, filepath.Join(w, "sub")} {
			if err := os.Mkdir(d, 0o750); err != nil {
				t.Fatal(err)
			}
		}
		writeModes(t, w, map[string]os.FileMode{"in.txt": 0o644, "secret.txt": 0o600, "sub/x": 0o644, "keep.txt": 0o644})
		os.Symlink(outside, filepath.Join(w, "out"))
	})

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
	// A link within its folder comes back as a copy of the file it
	// leads to, never as a link.
	if fi, err := os.Lstat(filepath.Join(w, "newdir", "y.1")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a link within its folder did not come back as a file: %v %v", fi, err)
	} else if b, _ := os.ReadFile(filepath.Join(w, "newdir", "y.1")); string(b) != "deep\n" {
		t.Errorf("newdir/y.1 holds %q, want y's content", b)
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

// TestCopyBackPlantsNothing (root): what comes back never stands in for a
// file the caller writes after the program ended (the break attempts of
// 2026-12-04 and 2026-12-05). No link comes back: one the program left at
// a name the caller will write (expected) leading to the caller's
// private output file (actual, 0600, never carried) or to a name nothing
// holds comes back as nothing; one leading to a file the copy carried in
// (out.txt) or that the program made (its output file, in.css; a chain
// such as lib.so -> lib.so.1 -> lib.so.1.2) comes back as a copy of that
// file, so the caller's later write of expected.css leaves in.css as the
// program wrote it (as a link it compared a file with itself: 100 where
// 90 was earned). A read-only file the program made comes back writable
// by the caller, so the caller's own later write succeeds. A carried file
// the caller replaced while the program ran keeps the caller's content.
// A folder of the caller's that its group may not list (0700, the
// candidate's umask) is neither carried in nor written into, though the
// program made a folder of that name.
func TestCopyBackPlantsNothing(t *testing.T) {
	const callerID, launchedID = 64993, 64994
	w, work, launched, caller := twoUsers(t, callerID, launchedID, func(w string) {
		writeModes(t, w, map[string]os.FileMode{"actual": 0o600, "out.txt": 0o644, "input": 0o644, "priv/want": 0o600})
	})
	copied, err := CopyIn(w, work, launched)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := copied["out.txt"]; !ok {
		t.Fatal("out.txt was not carried in")
	}
	if _, err := os.Lstat(filepath.Join(work, "priv")); err == nil {
		t.Error("a folder the caller's group may not list was carried in")
	}

	link := func(target, name string) {
		p := filepath.Join(work, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		os.Lchown(p, launchedID, launchedID)
	}
	write := func(f, s string, mode os.FileMode) {
		p := filepath.Join(work, f)
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Lchown(p, launchedID, launchedID)
	}
	link("actual", "expected") // the caller's private output file
	link("out.txt", "want")    // a file the copy carried in
	link("nothing", "golden")  // a name nothing holds
	write("lib.so.1.2", "lib\n", 0o644)
	link("lib.so.1.2", "lib.so.1")
	link("lib.so.1", "lib.so") // a chain, to a file the program made
	write("ref", "planted\n", 0o444)
	write("in.css", "the program's output\n", 0o644)
	link("in.css", "expected.css") // the program's own output file
	write("golden.out", "planted\n", 0o644)
	link("golden.out", "out.log") // its output name, a link to a planted file
	if err := os.Mkdir(filepath.Join(work, "priv"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Lchown(filepath.Join(work, "priv"), launchedID, launchedID)
	write("priv/planted", "planted\n", 0o644)
	write("input", "program's\n", 0o644)
	// The caller replaces its input while the program runs.
	if err := os.Remove(filepath.Join(w, "input")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "input"), []byte("caller's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Lchown(filepath.Join(w, "input"), callerID, callerID)

	if _, err := CopyBack(work, w, copied, launched, caller); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"expected", "golden"} {
		if _, err := os.Lstat(filepath.Join(w, f)); err == nil {
			t.Errorf("the program's link %s to nothing it could read came back", f)
		}
	}
	for f, want := range map[string]string{"lib.so": "lib\n", "lib.so.1": "lib\n", "want": "out.txt\n", "expected.css": "the program's output\n", "out.log": "planted\n"} {
		fi, err := os.Lstat(filepath.Join(w, f))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s (a link to a file in the program's folder) did not come back as a file: %v %v", f, fi, err)
			continue
		}
		if b, _ := os.ReadFile(filepath.Join(w, f)); string(b) != want {
			t.Errorf("%s holds %q, want %q", f, b, want)
		}
	}
	// The caller writes its expectations after the run: no other name
	// changes with them.
	if err := asThread(caller, func() error {
		for _, f := range []string{"expected.css", "out.log", "want"} {
			if err := os.WriteFile(filepath.Join(w, f), []byte("the caller's\n"), 0o600); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"in.css": "the program's output\n", "golden.out": "planted\n", "out.txt": "out.txt\n"} {
		if b, err := os.ReadFile(filepath.Join(w, f)); err != nil || string(b) != want {
			t.Errorf("the caller's write of another name changed %s: %q %v, want %q", f, b, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(w, "priv", "planted")); err == nil {
		t.Error("the program wrote into the caller's folder its group may not list")
	}
	fi, err := os.Stat(filepath.Join(w, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o600 != 0o600 || fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("ref came back %v, want the caller's to read and write, nobody else's to write", fi.Mode().Perm())
	}
	if b, err := os.ReadFile(filepath.Join(w, "input")); err != nil || string(b) != "caller's\n" {
		t.Errorf("the caller's replaced input was written over: %q %v", b, err)
	}
	for f, want := range map[string]string{"actual": "actual\n", "out.txt": "out.txt\n"} {
		if b, err := os.ReadFile(filepath.Join(w, f)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", f, b, err, want)
		}
	}
}
