package proc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// marker returns a fresh string to plant in a test's processes.
func marker(t *testing.T) string {
	t.Helper()
	var b [8]byte
	rand.Read(b[:])
	return "srbproctest" + hex.EncodeToString(b[:])
}

// survivors returns the live processes on this machine whose command line
// or environment holds m.
func survivors(m string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			s := string(st)
			if i := strings.LastIndexByte(s, ')'); i > 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z") {
				continue
			}
		}
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile("/proc/" + e.Name() + "/" + f)
			if bytes.Contains(b, []byte(m)) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// forceSubreaper makes Start skip the namespaces for the test's duration.
func forceSubreaper(t *testing.T) {
	t.Helper()
	a, b := failed[modeRootNS].Load(), failed[modeUserNS].Load()
	failed[modeRootNS].Store(true)
	failed[modeUserNS].Store(true)
	t.Cleanup(func() { failed[modeRootNS].Store(a); failed[modeUserNS].Store(b) })
}

// escapes is a shell script whose main process exits at once, leaving
// behind a setsid'd double fork, a plain background child and a small
// fork loop, all carrying the marker in their environment.
const escapes = `
setsid sh -c 'sh -c "sleep 300" & sleep 300' &
( sleep 300 & ) &
sh -c 'i=0; while [ $i -lt 5 ]; do setsid sleep 300 & i=$((i+1)); done; sleep 300' &
sleep 0.3
exit 7
`

func runEscapes(t *testing.T) Exit {
	t.Helper()
	m := marker(t)
	var out bytes.Buffer
	e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", escapes},
		Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if e.Code != 7 || e.Err != nil || e.Stopped {
		t.Fatalf("exit = %+v, want code 7, no error, not stopped (output %q)", e, out.String())
	}
	// Without a /proc of its own (a user namespace, not root) the init
	// knows only that something was left.
	if want := map[bool]int{true: 5, false: 1}[e.PrivateProc || e.Containment == Subreaper]; e.Leftovers < want {
		t.Errorf("leftovers = %d, want at least %d (the setsid'd and background sleeps)", e.Leftovers, want)
	}
	// Wait returned: nothing of the command may be running any more.
	if s := survivors(m); len(s) > 0 {
		t.Fatalf("processes %v outlived the command (containment %s)", s, e.Containment)
	}
	return e
}

func TestSetsidDoubleForkIsGone(t *testing.T) {
	e := runEscapes(t)
	t.Logf("containment %s, private /proc %t, leftovers %d", e.Containment, e.PrivateProc, e.Leftovers)
	// As root the namespaces are made, unless the kernel refused them (a
	// container without CAP_SYS_ADMIN): the test then checks the
	// subreaper that held the command instead.
	if os.Geteuid() == 0 && !failed[modeRootNS].Load() && (e.Containment != PIDNamespace || !e.PrivateProc) {
		t.Errorf("as root: containment %s, private /proc %t; want a PID namespace with its own /proc", e.Containment, e.PrivateProc)
	}
}

func TestSetsidDoubleForkIsGoneSubreaper(t *testing.T) {
	forceSubreaper(t)
	e := runEscapes(t)
	if e.Containment != Subreaper || e.PrivateProc {
		t.Errorf("containment %s, private /proc %t; want subreaper, host /proc", e.Containment, e.PrivateProc)
	}
}

func TestPrivateProcShowsOnlyTheCommand(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a PID namespace with its own /proc")
	}
	var out bytes.Buffer
	e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo $$; ls /proc"}, Stdout: &out})
	if err != nil || e.Code != 0 {
		t.Fatalf("exit %+v, err %v", e, err)
	}
	// The shell has a small pid of the namespace (the init is 1, its
	// threads took a few); /proc lists the init, the shell and ls, and
	// none of this machine's other processes.
	got := strings.Fields(out.String())
	var pids []int
	for _, f := range got[1:] {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	if n, _ := strconv.Atoi(got[0]); n < 2 || n > 64 || len(pids) < 2 || len(pids) > 3 || pids[0] != 1 {
		t.Errorf("shell pid %s, /proc pids %v: want a small pid, the init (1) and at most two more", got[0], pids)
	}
}

func TestExitStatusAndStreams(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			var out, errb bytes.Buffer
			e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "cat; echo oops >&2; exit 3"},
				Stdin: strings.NewReader("hello\n"), Stdout: &out, Stderr: &errb, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if e.Code != 3 || e.Signal != 0 || e.Leftovers != 0 || !e.Exited() {
				t.Errorf("exit %+v, want code 3, no signal, no leftovers", e)
			}
			if out.String() != "hello\n" || errb.String() != "oops\n" {
				t.Errorf("stdout %q stderr %q", out.String(), errb.String())
			}
			e, _ = Run(context.Background(), Spec{Argv: []string{"sh", "-c", "kill -KILL $$"}})
			if e.Signal != syscall.SIGKILL || e.Code != -1 || e.Exited() {
				t.Errorf("self-killed: exit %+v, want SIGKILL and code -1", e)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Spec{Argv: []string{"srb-no-such-program"}}); err == nil {
		t.Error("a missing program started")
	}
	dir := t.TempDir()
	os.WriteFile(dir+"/plain", []byte("x"), 0o644)
	if _, err := Start(Spec{Argv: []string{dir + "/plain"}}); err == nil {
		t.Error("a file without an exec bit started")
	}
	if _, err := Start(Spec{}); err == nil {
		t.Error("an empty argv started")
	}
	// A relative path is relative to Dir.
	os.WriteFile(dir+"/run.sh", []byte("#!/bin/sh\nexit 5\n"), 0o755)
	e, err := Run(context.Background(), Spec{Argv: []string{"./run.sh"}, Dir: dir})
	if err != nil || e.Code != 5 {
		t.Errorf("./run.sh in Dir: exit %+v, err %v; want code 5", e, err)
	}
}

func TestTerminateAndKill(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			m := marker(t)
			env := []string{"PATH=/usr/bin:/bin", "MARK=" + m}
			// SIGTERM reaches the setsid'd child too, not only the main
			// process.
			p, err := Start(Spec{Argv: []string{"sh", "-c", "setsid sleep 300 & wait"}, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			if got := p.Terminate(5 * time.Second); strings.Join(got, ",") != "SIGTERM" {
				t.Errorf("Terminate sent %v, want SIGTERM alone", got)
			}
			if e := p.Wait(); !e.Stopped || e.Err != nil {
				t.Errorf("exit %+v, want stopped", e)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v survived Terminate", s)
			}
			// A command that ignores SIGTERM is killed after the grace.
			p, err = Start(Spec{Argv: []string{"sh", "-c", "trap '' TERM; setsid sleep 300 & sleep 300"}, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			if got := p.Terminate(300 * time.Millisecond); strings.Join(got, ",") != "SIGTERM,SIGKILL" {
				t.Errorf("Terminate sent %v, want SIGTERM,SIGKILL", got)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Terminate took %s", d)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v survived Terminate's SIGKILL", s)
			}
			// Run's context ends the command.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			e, err := Run(ctx, Spec{Argv: []string{"sh", "-c", "setsid sh -c 'sleep 300' & sleep 300"}, Env: env})
			if err != nil || !e.Stopped || e.Signal != syscall.SIGKILL {
				t.Errorf("Run past its context: exit %+v, err %v; want stopped by SIGKILL", e, err)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v survived the end of Run's context", s)
			}
		})
	}
}

func TestInitEnvIsNotPassedOn(t *testing.T) {
	var out bytes.Buffer
	_, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "env"}, Env: []string{"A=1", initEnv + "=1"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), initEnv) || !strings.Contains(out.String(), "A=1") {
		t.Errorf("environment %q: want A=1 and no %s", out.String(), initEnv)
	}
}

func TestCredentialAndCloneflags(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as another user")
	}
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			m := marker(t)
			var out bytes.Buffer
			e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "id -u; id -g; id -G; readlink /proc/self/ns/ipc; grep NoNewPrivs /proc/self/status | tr -d ' \t'; setsid sleep 300 &"},
				Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}, Stdout: &out, Stderr: &out,
				Credential: &syscall.Credential{Uid: 65534, Gid: 65533, Groups: []uint32{}}, Cloneflags: syscall.CLONE_NEWIPC})
			if err != nil || e.Code != 0 {
				t.Fatalf("exit %+v, err %v, output %q", e, err, out.String())
			}
			own, _ := os.Readlink("/proc/self/ns/ipc")
			got := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(got) != 5 || got[0] != "65534" || got[1] != "65533" || got[2] != "65533" || got[3] == own || got[4] != "NoNewPrivs:1" {
				t.Errorf("output %q: want uid 65534, gid 65533, no other group, an IPC namespace other than %s, no_new_privs", out.String(), own)
			}
			if e.Leftovers < 1 {
				t.Errorf("leftovers %d, want the setsid'd sleep", e.Leftovers)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v outlived a command run as another user", s)
			}
		})
	}
}

func TestStartCmd(t *testing.T) {
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "echo $A; pwd")
	cmd.Dir, cmd.Env, cmd.Stdout = "/tmp", []string{"A=b"}, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p, err := StartCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Wait(); e.Code != 0 || out.String() != "b\n/tmp\n" {
		t.Errorf("exit %+v, output %q", e, out.String())
	}
	cmd = exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: "/"}
	if _, err := StartCmd(cmd); err == nil {
		t.Error("a Chroot was silently dropped")
	}
	if _, err := StartCmd(exec.Command("srb-no-such-program")); err == nil {
		t.Error("a missing program started")
	}
}

// A descriptor the caller inherited without close-on-exec (a lock
// wrapper's 9>lock) does not reach the command: the init marks every
// descriptor from 3 up before it starts it (fixture hide-in-inherited-fd,
// for a program that embeds the ladder rather than srb's command line).
func TestInheritedDescriptorDoesNotReachTheCommand(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	leaked, err := syscall.Dup(int(f.Fd())) // dup(2): no close-on-exec
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leaked)
	if flags, _ := unix.FcntlInt(uintptr(leaked), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatal("the descriptor is close-on-exec already")
	}
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			var out bytes.Buffer
			e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", fmt.Sprintf("if [ -e /proc/self/fd/%d ]; then echo inherited; else echo closed; fi", leaked)},
				Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &out})
			if err != nil || e.Code != 0 || out.String() != "closed\n" {
				t.Errorf("exit %+v, err %v, output %q: want descriptor %d closed in the command", e, err, out.String(), leaked)
			}
		})
	}
}
