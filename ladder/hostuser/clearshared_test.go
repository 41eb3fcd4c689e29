package hostuser

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestClearSharedHoldsAgainstASwappedLink (a break attempt's find): a
// world-writable folder in /tmp owned by another user (Y, alive) holds an
// entry of the swept user X. ClearShared(X) checked the entry's owner with
// Lstat, then removed it by path; Y swapped its folder for a link to a
// folder of root's between the two, and root removed root's own file of
// the same name there. The walk now works relative to open folders. (The
// racer runs as root here; Y owns both names in the sticky /tmp, so its
// renames are the same.)
func TestClearSharedHoldsAgainstASwappedLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	x, y := Base+424242, Base+424243
	target := t.TempDir() // stands for a folder of the grader's (/etc, the results)
	victim := "victim-file"
	if err := os.WriteFile(filepath.Join(target, victim), []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := os.MkdirTemp("/tmp", "srb-attack-race-")
	if err != nil {
		t.Fatal(err)
	}
	lnk := a + ".lnk"
	defer os.RemoveAll(a)
	defer os.Remove(lnk)
	os.Chmod(a, 0o777)
	os.Chown(a, y, y)
	if err := os.Symlink(target, lnk); err != nil {
		t.Fatal(err)
	}
	os.Lchown(lnk, y, y)
	real, err := os.Open(a) // the real folder, wherever its name is
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	plant := func() {
		fd, err := unix.Openat(int(real.Fd()), victim, unix.O_CREAT|unix.O_WRONLY|unix.O_NOFOLLOW, 0o600)
		if err == nil {
			unix.Fchown(fd, x, x)
			unix.Close(fd)
		}
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, lnk, unix.RENAME_EXCHANGE)
		}
	}()
	// Before the fix this took 75 sweeps (about 50 ms).
	deadline := time.Now().Add(5 * time.Second)
	tries := 0
	for time.Now().Before(deadline) {
		tries++
		plant()
		ClearShared(x)
		if _, err := os.Lstat(filepath.Join(target, victim)); err != nil {
			stop.Store(true)
			<-done
			t.Fatalf("after %d sweeps of user %d, root's %s is gone: %v", tries, x, filepath.Join(target, victim), err)
		}
	}
	stop.Store(true)
	<-done
	t.Logf("held for %d sweeps", tries)
}

// TestClearSharedRemovesWhatTheUserLeft: what uid left in /tmp (a file, a
// folder it closed to itself, a link) and inside another user's
// world-writable folder goes; what others own stays; a link's target is
// never touched.
func TestClearSharedRemovesWhatTheUserLeft(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	x, y := Base+424244, Base+424245
	keep := filepath.Join(t.TempDir(), "keep")
	os.WriteFile(keep, []byte("k"), 0o644)
	mk := func(p string, dir bool, owner int) {
		if dir {
			os.Mkdir(p, 0o777)
			os.Chmod(p, 0o777)
		} else {
			os.WriteFile(p, []byte("x"), 0o644)
		}
		os.Lchown(p, owner, owner)
	}
	base, _ := os.MkdirTemp("/tmp", "srb-clear-")
	defer os.RemoveAll(base)
	os.Chmod(base, 0o777)
	os.Chown(base, y, y)
	mk(base+"/x-file", false, x)
	mk(base+"/y-file", false, y)
	mk(base+"/x-dir", true, x)
	mk(base+"/x-dir/inner", true, x)
	mk(base+"/x-dir/inner/f", false, x)
	os.Chmod(base+"/x-dir/inner", 0o500)
	os.Symlink(keep, base+"/x-link")
	os.Lchown(base+"/x-link", x, x)
	if err := ClearShared(x); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"x-file", "x-dir", "x-link"} {
		if _, err := os.Lstat(filepath.Join(base, gone)); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	if _, err := os.Lstat(base + "/y-file"); err != nil {
		t.Errorf("another user's file went: %v", err)
	}
	if _, err := os.Lstat(keep); err != nil {
		t.Errorf("a link's target went: %v", err)
	}
}
