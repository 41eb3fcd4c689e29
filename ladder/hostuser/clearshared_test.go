package hostuser

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
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

// TestClearSharedRemovesSysVIPC (fixture stage2-sysv-ipc): a program run
// as the swept uid X creates a shared-memory segment, a message queue and
// a semaphore set, and a second segment whose owner it sets to root;
// ClearShared(X) removes all four, and leaves those of another uid Y. Without the IPC sweep X's objects outlived the ladder.
func TestClearSharedRemovesSysVIPC(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	ipcmk, err := exec.LookPath("ipcmk")
	if err != nil {
		t.Skip("no ipcmk (util-linux)")
	}
	x, y := Base+424252, Base+424253
	mk := func(uid int, args ...string) {
		t.Helper()
		cmd := exec.Command(ipcmk, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ipcmk %v as %d: %v: %s", args, uid, err, out)
		}
	}
	owned := func(uid int) (n int) {
		t.Helper()
		for _, k := range sysvIPC {
			ids, err := ipcOwnedBy("/proc/sysvipc/"+k.table, k.idColumn, uid)
			if err != nil {
				t.Fatal(err)
			}
			n += len(ids)
		}
		return n
	}
	t.Cleanup(func() { ClearIPC(x); ClearIPC(y) })
	for _, uid := range []int{x, y} {
		mk(uid, "-M", "65536", "-p", "0666")
		mk(uid, "-Q", "-p", "0666")
		mk(uid, "-S", "1", "-p", "0666")
	}
	// A fourth, a segment X gave away: its owner may set its uid to any
	// other (IPC_SET; done here as root), but not its creator (cuid).
	mk(x, "-M", "4096", "-p", "0666")
	shm, err := ipcOwnedBy("/proc/sysvipc/shm", "shmid", x)
	if err != nil || len(shm) != 2 {
		t.Fatalf("uid %d's segments: %v %v, want 2", x, shm, err)
	}
	var ds unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(shm[1], unix.IPC_STAT, &ds); err != nil {
		t.Fatal(err)
	}
	ds.Perm.Uid = 0
	if _, err := unix.SysvShmCtl(shm[1], unix.IPC_SET, &ds); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.SysvShmCtl(shm[1], unix.IPC_STAT, &ds); err != nil || ds.Perm.Uid != 0 || ds.Perm.Cuid != uint32(x) {
		t.Fatalf("the given-away segment: uid %d cuid %d (%v), want 0 and %d", ds.Perm.Uid, ds.Perm.Cuid, err, x)
	}
	if got := owned(x); got != 4 {
		t.Fatalf("before: %d System V objects of uid %d, want 4", got, x)
	}
	if err := ClearShared(x); err != nil {
		t.Fatal(err)
	}
	if got := owned(x); got != 0 {
		t.Errorf("after ClearShared: %d System V objects of uid %d left, want 0", got, x)
	}
	if _, err := unix.SysvShmCtl(shm[1], unix.IPC_STAT, &ds); err == nil {
		t.Errorf("the segment uid %d gave root is still there after ClearShared(%d)", x, x)
	}
	if got := owned(y); got != 3 {
		t.Errorf("after ClearShared(%d): %d System V objects of uid %d, want its 3 untouched", x, got, y)
	}
}
