package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv gives a re-executed test binary its role: the grader-like
// process of a test, or the command it runs contained.
const helperEnv = "SRB_PROC_TEST_HELPER"

// reexec is a command running this test binary in role, through the test
// named test (which plays the role and exits).
func reexec(test, role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.timeout=2m")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+role), env...)
	return cmd
}

// A contained command gets a session keyring of its own: a key in the
// session keyring the grader runs under (here one the test joins and
// passes on to a grader-like process) can be neither found, nor read,
// nor added to from the command, and the command's keyring is not the
// grader's.
func TestSessionKeyringIsFresh(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "keyring-grader":
		keyringGrader()
	case "keyring-probe":
		keyringProbe()
	}
	// A session keyring is a thread's: this one joins a fresh one, which
	// the grader-like process it starts inherits on all its threads. The
	// thread ends with the test (it stays locked).
	runtime.LockOSThread()
	ring, err := unix.KeyctlInt(unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0)
	if err == unix.ENOSYS || err == unix.EPERM {
		t.Skipf("no keyrings here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	desc := marker(t)
	key, err := unix.AddKey("user", desc, []byte("grader-secret"), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Fatal(err)
	}
	cmd := reexec("TestSessionKeyringIsFresh", "keyring-grader", "SRB_TEST_KEY="+strconv.Itoa(key), "SRB_TEST_DESC="+desc)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("grader: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			got[k] = v
		}
	}
	t.Logf("test's ring %d, key %d; grader said:\n%s", ring, key, out)
	if got["grader-ring"] != strconv.Itoa(ring) || got["grader-read"] != "grader-secret" {
		t.Fatalf("the grader-like process does not run under the test's session keyring:\n%s", out)
	}
	if got["nokeyring"] != "" {
		t.Errorf("the init found no keyring to join: %s", got["nokeyring"])
	}
	if r := got["ring"]; r == "" || r == strconv.Itoa(ring) || strings.HasPrefix(r, "error") {
		t.Errorf("the command's session keyring is %q, the grader's is %d", r, ring)
	}
	if !strings.HasPrefix(got["search"], "error") {
		t.Errorf("the command found the grader's key in its session keyring: %s", got["search"])
	}
	if !strings.HasPrefix(got["read"], "error") {
		t.Errorf("the command read the grader's key: %s", got["read"])
	}
	if _, err := unix.KeyctlSearch(ring, "user", desc+"-added", 0); err == nil {
		t.Errorf("the command added a key to the grader's session keyring")
	}
}

// keyringGrader is a grader-like process: it runs keyringProbe
// contained and prints what the probe printed.
func keyringGrader() {
	key, _ := strconv.Atoi(os.Getenv("SRB_TEST_KEY"))
	ring, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false)
	if err != nil {
		fmt.Printf("grader-ring error %v\n", err)
	} else {
		fmt.Printf("grader-ring %d\n", ring)
	}
	if b, err := readKey(key); err == nil {
		fmt.Printf("grader-read %s\n", b)
	}
	cmd := reexec("TestSessionKeyringIsFresh", "keyring-probe")
	var out strings.Builder
	e, err := Run(context.Background(), Spec{Argv: cmd.Args, Env: cmd.Env, Stdout: &out, Stderr: &out})
	if err != nil || e.Err != nil || e.Code != 0 {
		fmt.Printf("probe failed: %v %+v\n%s", err, e, out.String())
		os.Exit(1)
	}
	fmt.Print(out.String())
	fmt.Printf("nokeyring %s\n", e.NoKeyring)
	os.Exit(0)
}

// keyringProbe is the contained command: it looks for the grader's key
// through its own session keyring and by id, and adds one of its own.
func keyringProbe() {
	desc := os.Getenv("SRB_TEST_DESC")
	key, _ := strconv.Atoi(os.Getenv("SRB_TEST_KEY"))
	ring, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false)
	if err != nil {
		fmt.Printf("ring error %v\n", err)
	} else {
		fmt.Printf("ring %d\n", ring)
	}
	if id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc, 0); err != nil {
		fmt.Printf("search error %v\n", err)
	} else {
		fmt.Printf("search found %d\n", id)
	}
	if b, err := readKey(key); err != nil {
		fmt.Printf("read error %v\n", err)
	} else {
		fmt.Printf("read %s\n", b)
	}
	_, err = unix.AddKey("user", desc+"-added", []byte("x"), unix.KEY_SPEC_SESSION_KEYRING)
	fmt.Printf("add %v\n", errText(err))
	os.Exit(0)
}

func readKey(id int) (string, error) {
	buf := make([]byte, 256)
	n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
	if err != nil {
		return "", err
	}
	return string(buf[:min(n, len(buf))]), nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return "error " + err.Error()
}

// When the grader dies (SIGKILL, no chance to clean up), the contained
// init dies with it and so does everything it holds: a grader-like process
// starts a contained sleep and is killed; the sleep is gone within
// seconds.
func TestGraderDeathEndsTheContainment(t *testing.T) {
	if os.Getenv(helperEnv) == "pdeathsig-grader" {
		p, err := Start(Spec{Argv: []string{"sh", "-c", "sleep 300 & sleep 300"},
			Env: []string{"PATH=/usr/bin:/bin", "MARK=" + os.Getenv("SRB_TEST_MARK")}})
		if err != nil {
			fmt.Printf("error %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("init %d %s\n", p.Pid(), p.Containment())
		select {}
	}
	m := marker(t)
	cmd := reexec("TestGraderDeathEndsTheContainment", "pdeathsig-grader", "SRB_TEST_MARK="+m)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range survivors(m) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "init ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("grader: %q", line)
	}
	t.Logf("grader %d: %s", cmd.Process.Pid, strings.TrimSpace(line))
	// The sleeps (and the init, whose environment holds the marker) run.
	deadline := time.Now().Add(5 * time.Second)
	for len(survivors(m)) < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(survivors(m)); n < 3 {
		t.Fatalf("%d marked processes run, want the init and two sleeps", n)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for len(survivors(m)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := survivors(m); len(left) > 0 {
		t.Errorf("processes %v still run 5s after the grader was killed", left)
	}
}

// The parent-death signal is tied to the thread that forked the init, and
// Go ends a thread whose locked goroutine returns: a Start from such a
// goroutine must not have its command killed when that goroutine ends.
func TestStartFromAThreadThatEnds(t *testing.T) {
	started := make(chan *Process)
	var start func()
	start = func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if syscall.Gettid() == os.Getpid() {
			// The main thread is never ended (Go parks it instead): hold
			// it, and start from another.
			done := make(chan bool)
			go func() { start(); done <- true }()
			<-done
			runtime.UnlockOSThread()
			return
		}
		p, err := Start(Spec{Argv: []string{"sh", "-c", "sleep 1; exit 3"}})
		if err != nil {
			t.Error(err)
		}
		started <- p
	}
	go start()
	p := <-started
	if p == nil {
		return
	}
	if e := p.Wait(); e.Err != nil || e.Code != 3 || e.Signal != 0 {
		t.Errorf("the command ended with %+v, want exit 3", e)
	}
}
