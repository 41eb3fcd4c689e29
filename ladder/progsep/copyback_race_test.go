package progsep

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// privateSetup makes a caller's folder w (0750) holding priv/ (0700, the
// candidate's mkdir under umask 077) with priv/want (0600), and its copy
// made as the launched uid: it returns w, the program's folder, what was
// carried and the two identities.
func privateSetup(t *testing.T, callerID, launchedID int) (string, string, Copied, *Creds, *Creds) {
	t.Helper()
	w, work, launched, caller := twoUsers(t, callerID, launchedID, func(w string) {
		writeModes(t, w, map[string]os.FileMode{"priv/want": 0o600})
	})
	copied, err := CopyIn(w, work, launched)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(work, "priv")); err == nil {
		t.Fatal("priv carried in")
	}
	return w, work, copied, launched, caller
}

// TestCopyBackRaceIntoAnUnlistedFolder (root; the break attempt of
// 2026-12-05): the program (uid A) left its folder 0777 with a folder
// priv/ and real/ holding "planted". Another launched program still
// running (uid B, in the caller's group: a server the candidate started)
// watches the caller's folder; when the copy-back's first file shows up
// (the program's folder listed) it replaces priv with a link priv ->
// real. The walk went through the link (the listing said folder) and
// sent priv/planted with no item for priv, and the writer, which only
// dropped the children of folders it had refused, created priv/planted
// in the caller's 0700 folder. The writer now takes an item only in a
// folder it accepted (an allow-list), and the walk does not enter an
// entry that is no longer the folder its listing said.
func TestCopyBackRaceIntoAnUnlistedFolder(t *testing.T) {
	const callerID, launchedID, otherID = 64981, 64982, 64983
	w, work, copied, launched, caller := privateSetup(t, callerID, launchedID)
	other := &Creds{UID: otherID, GID: otherID, Groups: []int{callerID}}
	// The program's last state (as A).
	if err := asThread(launched, func() error {
		for i := 0; i < 2000; i++ {
			if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("a%04d", i)), []byte("x\n"), 0o644); err != nil {
				return err
			}
		}
		for _, d := range []string{"priv", "real"} {
			if err := os.Mkdir(filepath.Join(work, d), 0o777); err != nil {
				return err
			}
			os.Chmod(filepath.Join(work, d), 0o777)
		}
		if err := os.WriteFile(filepath.Join(work, "real", "planted"), []byte("planted\n"), 0o644); err != nil {
			return err
		}
		return os.Chmod(work, 0o777)
	}); err != nil {
		t.Fatal(err)
	}
	// B, still running.
	swapped := make(chan error, 1)
	go func() {
		swapped <- asThread(other, func() error {
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Lstat(filepath.Join(w, "a0000")); err == nil {
					if err := os.Rename(filepath.Join(work, "priv"), filepath.Join(work, "zz")); err != nil {
						return err
					}
					return os.Symlink("real", filepath.Join(work, "priv"))
				}
			}
			return fmt.Errorf("the copy-back never started")
		})
	}()
	if _, err := CopyBack(work, w, copied, launched, caller); err != nil {
		t.Fatal(err)
	}
	if err := <-swapped; err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(w, "priv", "planted")); err == nil {
		t.Errorf("planted in the caller's 0700 folder: priv/planted holds %q", b)
	}
}

// TestCopyBackLinksThroughDotDot (root): a relative link the program
// left whose target climbs with ".." but stays in its folder
// (node_modules/.bin/tool -> ../pkg/tool, an install tree's bin/x ->
// ../libexec/x), and a chain through one, come back as copies of the file
// they lead to (f316ebc dropped the first and kept the second).
func TestCopyBackLinksThroughDotDot(t *testing.T) {
	const callerID, launchedID = 64986, 64987
	w, work, copied, launched, caller := privateSetup(t, callerID, launchedID)
	if err := asThread(launched, func() error {
		for _, d := range []string{"pkg", "bin", "lib"} {
			os.Mkdir(filepath.Join(work, d), 0o755)
		}
		os.WriteFile(filepath.Join(work, "pkg", "tool"), []byte("#!/bin/sh\necho tool\n"), 0o755)
		os.Symlink("../pkg/tool", filepath.Join(work, "bin", "tool"))
		os.Symlink("../pkg/tool", filepath.Join(work, "lib", "hop2"))
		return os.Symlink("hop2", filepath.Join(work, "lib", "hop1"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := CopyBack(work, w, copied, launched, caller); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bin/tool", "lib/hop1", "lib/hop2"} {
		fi, err := os.Lstat(filepath.Join(w, f))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s (a link within the program's folder) did not come back as a file: %v %v", f, fi, err)
			continue
		}
		if b, _ := os.ReadFile(filepath.Join(w, f)); string(b) != "#!/bin/sh\necho tool\n" {
			t.Errorf("%s holds %q", f, b)
		}
	}
}

// TestCopyBackIntoWhatTheProgramCouldNotReach (root): nothing comes back
// into a caller folder the program's group could list but not enter
// (0740) or enter but not list (0710), though the program made a folder
// of that name; a link to a FIFO, to a folder or through the caller's own
// link does not come back; a hard link and a name with a newline do, as
// files of their own.
func TestCopyBackIntoWhatTheProgramCouldNotReach(t *testing.T) {
	const callerID, launchedID = 64988, 64989
	w, work, launched, caller := twoUsers(t, callerID, launchedID, func(w string) {
		os.Mkdir(filepath.Join(w, "rnox"), 0o740)
		os.Mkdir(filepath.Join(w, "xnor"), 0o710)
		os.WriteFile(filepath.Join(w, "rnox", "want"), []byte("c\n"), 0o640)
		os.WriteFile(filepath.Join(w, "xnor", "want"), []byte("c\n"), 0o640)
		os.WriteFile(filepath.Join(w, "in.txt"), []byte("in\n"), 0o644)
		os.Symlink("xnor", filepath.Join(w, "lx"))
	})
	copied, err := CopyIn(w, work, launched)
	if err != nil {
		t.Fatal(err)
	}
	if err := asThread(launched, func() error {
		os.WriteFile(filepath.Join(work, "rnox", "new"), []byte("planted\n"), 0o644)
		os.WriteFile(filepath.Join(work, "rnox", "want"), []byte("planted\n"), 0o644)
		os.MkdirAll(filepath.Join(work, "xnor"), 0o755)
		os.WriteFile(filepath.Join(work, "xnor", "new"), []byte("planted\n"), 0o644)
		os.Link(filepath.Join(work, "in.txt"), filepath.Join(work, "hard"))
		os.WriteFile(filepath.Join(work, "a\nb"), []byte("nl\n"), 0o644)
		syscall.Mkfifo(filepath.Join(work, "fifo"), 0o644)
		os.Symlink("fifo", filepath.Join(work, "tofifo"))
		os.Mkdir(filepath.Join(work, "d"), 0o755)
		os.Symlink("d", filepath.Join(work, "todir"))
		os.Symlink("lx/want", filepath.Join(work, "via")) // through the caller's link
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := CopyBack(work, w, copied, launched, caller); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"xnor/new", "rnox/new", "tofifo", "todir", "via"} {
		if _, err := os.Lstat(filepath.Join(w, f)); err == nil {
			t.Errorf("%s came back", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w, "rnox", "want")); string(b) != "c\n" {
		t.Errorf("rnox/want rewritten: %q", b)
	}
	for f, want := range map[string]string{"hard": "in\n", "a\nb": "nl\n"} {
		if b, err := os.ReadFile(filepath.Join(w, f)); err != nil || string(b) != want {
			t.Errorf("%q: %q %v, want %q", f, b, err, want)
		}
	}
}
