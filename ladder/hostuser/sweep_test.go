package hostuser

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startAs starts `sleep 60` as uid (root only) and returns it; it is
// killed when the test ends.
func startAs(t *testing.T, uid int) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "60")
	if uid >= 0 {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

// exited reports whether c ends within d.
func exited(c *exec.Cmd, d time.Duration) bool {
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// Sweep kills the user's processes and only those: another sandbox
// user's process and the grader's own (root's) are left running, and a
// process number that is not the user's is never signalled (killAs reads
// the uids again after pinning the process).
func TestSweepKillsOnlyTheUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	x, y := Base+525252, Base+525253
	mine := startAs(t, x)
	other := startAs(t, y)
	grader := startAs(t, -1)
	killAs(grader.Process.Pid, x) // a number that is not x's
	killAs(other.Process.Pid, x)
	if !Sweep(x) {
		t.Fatal("Sweep found no process of the user")
	}
	if !exited(mine, 5*time.Second) {
		t.Fatal("the user's process outlived Sweep")
	}
	for name, c := range map[string]*exec.Cmd{"another user's": other, "the grader's": grader} {
		if err := c.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("%s process was killed: %v", name, err)
		}
	}
	if Sweep(x) {
		t.Error("a second Sweep found a process")
	}
}

// TestNoGoroutineOnTheMainThread: the package's init keeps the main
// thread for the main goroutine, so a goroutine that locks its thread and
// changes its identity (asEffectiveUID, ladder/progsep's copies) never
// runs on the main thread, whose uids /proc/PID/status shows and which the
// runtime cannot end: a copy there once made Sweep kill the process.
func TestNoGoroutineOnTheMainThread(t *testing.T) {
	const n = 200
	onMain := make(chan bool, n)
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			onMain <- unix.Gettid() == unix.Getpid()
		}()
	}
	for i := 0; i < n; i++ {
		if <-onMain {
			t.Fatal("a goroutine ran on the main thread")
		}
	}
}
