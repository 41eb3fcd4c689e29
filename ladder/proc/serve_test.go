package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// servers runs f with a fresh server in each containment this machine
// gives (its default, then a subreaper), closing it afterwards.
func servers(t *testing.T, f func(t *testing.T, sv *Server)) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			sv, err := NewServer()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sv.Close() })
			if sub && sv.Mode() != Subreaper {
				t.Fatalf("mode %s, want subreaper", sv.Mode())
			}
			f(t, sv)
		})
	}
}

func serveRun(t *testing.T, sv *Server, s Spec) Exit {
	t.Helper()
	p, err := sv.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	return p.Wait()
}

// A server runs one command after another, each as Start would: its
// streams, status and signal; what a command leaves running (setsid'd,
// double-forked) is counted and gone before its Wait returns, and the
// next command runs in the same server.
func TestServerRunsCommandsInTurn(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		for i := range 3 {
			m := marker(t)
			var out bytes.Buffer
			e := serveRun(t, sv, Spec{Argv: []string{"sh", "-c", escapes},
				Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}, Stdout: &out, Stderr: &out})
			if e.Code != 7 || e.Err != nil || e.Stopped || e.Containment != sv.Mode() {
				t.Fatalf("command %d: exit %+v, want code 7 (output %q)", i, e, out.String())
			}
			if want := map[bool]int{true: 5, false: 1}[e.PrivateProc || e.Containment == Subreaper]; e.Leftovers < want {
				t.Errorf("command %d: leftovers %d, want at least %d", i, e.Leftovers, want)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("command %d: processes %v outlived it", i, s)
			}
			var o, eb bytes.Buffer
			e = serveRun(t, sv, Spec{Argv: []string{"sh", "-c", "cat; echo oops >&2; echo $A; pwd; exit 3"},
				Stdin: strings.NewReader("hello\n"), Stdout: &o, Stderr: &eb, Env: []string{"A=b", initEnv + "=1"}, Dir: "/tmp"})
			if e.Code != 3 || e.Leftovers != 0 || !e.Exited() || o.String() != "hello\nb\n/tmp\n" || eb.String() != "oops\n" {
				t.Errorf("command %d: exit %+v, stdout %q, stderr %q", i, e, o.String(), eb.String())
			}
			e = serveRun(t, sv, Spec{Argv: []string{"sh", "-c", "kill -KILL $$"}})
			if e.Signal != syscall.SIGKILL || e.Code != -1 {
				t.Errorf("self-killed: exit %+v", e)
			}
		}
		if sv.Dead() {
			t.Error("the server is gone after its commands")
		}
	})
}

// A server's command as another user, with namespaces of its own; the
// program is found on Dir as Start finds it; a program that cannot run is
// Start's error and leaves the server usable.
func TestServerCredentialAndErrors(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		if os.Geteuid() == 0 {
			var out bytes.Buffer
			e := serveRun(t, sv, Spec{Argv: []string{"sh", "-c", "id -u; id -g; id -G; readlink /proc/self/ns/ipc; grep NoNewPrivs /proc/self/status | tr -d ' \t'"},
				Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &out,
				Credential: &syscall.Credential{Uid: 65534, Gid: 65533, Groups: []uint32{}}, Cloneflags: syscall.CLONE_NEWIPC})
			own, _ := os.Readlink("/proc/self/ns/ipc")
			got := strings.Split(strings.TrimSpace(out.String()), "\n")
			if e.Code != 0 || len(got) != 5 || got[0] != "65534" || got[1] != "65533" || got[2] != "65533" || got[3] == own || got[4] != "NoNewPrivs:1" {
				t.Errorf("exit %+v, output %q: want uid 65534, gid 65533, no other group, its own IPC namespace, no_new_privs", e, out.String())
			}
		}
		dir := t.TempDir()
		os.WriteFile(dir+"/plain", []byte("x"), 0o644)
		os.WriteFile(dir+"/run.sh", []byte("#!/bin/sh\nexit 5\n"), 0o755)
		if _, err := sv.Start(Spec{Argv: []string{"srb-no-such-program"}}); err == nil {
			t.Error("a missing program started")
		}
		if _, err := sv.Start(Spec{Argv: []string{dir + "/plain"}}); err == nil {
			t.Error("a file without an exec bit started")
		}
		if _, err := sv.Start(Spec{Argv: []string{"./nothing-here"}, Dir: dir}); err == nil || !strings.Contains(err.Error(), "fork/exec") {
			t.Errorf("a missing relative program: %v, want fork/exec's error", err)
		}
		if e := serveRun(t, sv, Spec{Argv: []string{"./run.sh"}, Dir: dir}); e.Code != 5 {
			t.Errorf("./run.sh in Dir: exit %+v; want code 5", e)
		}
		for _, s := range []Spec{{Argv: []string{"true"}, TraceExecs: true}, {Argv: []string{"true"}, Cgroups: []string{"/x"}}} {
			if _, err := sv.Start(s); !errors.Is(err, ErrNotServed) {
				t.Errorf("%+v: %v, want ErrNotServed", s, err)
			}
		}
		if e := serveRun(t, sv, Spec{Argv: []string{"true"}}); e.Code != 0 || e.Err != nil {
			t.Errorf("after the errors: exit %+v", e)
		}
	})
}

// Kill and Terminate end every process of the running command, and only
// of it: a kill meant for a command that is over never reaches the next
// one; a server runs one command at a time.
func TestServerKillTerminate(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		m := marker(t)
		env := []string{"PATH=/usr/bin:/bin", "MARK=" + m}
		p, err := sv.Start(Spec{Argv: []string{"sh", "-c", "setsid sleep 300 & wait"}, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sv.Start(Spec{Argv: []string{"true"}}); !errors.Is(err, ErrServerGone) {
			t.Errorf("a second command while one runs: %v, want ErrServerGone", err)
		}
		time.Sleep(200 * time.Millisecond)
		if got := p.Terminate(5 * time.Second); strings.Join(got, ",") != "SIGTERM" {
			t.Errorf("Terminate sent %v", got)
		}
		if e := p.Wait(); !e.Stopped || e.Err != nil {
			t.Errorf("exit %+v, want stopped", e)
		}
		if s := survivors(m); len(s) > 0 {
			t.Fatalf("%v survived Terminate", s)
		}
		p, err = sv.Start(Spec{Argv: []string{"sh", "-c", "trap '' TERM; setsid sleep 300 & sleep 300"}, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		if got := p.Terminate(300 * time.Millisecond); strings.Join(got, ",") != "SIGTERM,SIGKILL" {
			t.Errorf("Terminate sent %v, want SIGTERM,SIGKILL", got)
		}
		if e := p.Wait(); !e.Stopped || e.Signal != syscall.SIGKILL {
			t.Errorf("exit %+v, want stopped by SIGKILL", e)
		}
		if s := survivors(m); len(s) > 0 {
			t.Fatalf("%v survived Kill", s)
		}
		// Stale requests for the commands above reach nothing.
		old := p.seq
		var out bytes.Buffer
		p, err = sv.Start(Spec{Argv: []string{"sh", "-c", "sleep 0.5; echo alive"}, Env: env, Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		sv.control("kill", old)
		sv.control("term", old-1)
		if e := p.Wait(); e.Code != 0 || e.Stopped || out.String() != "alive\n" {
			t.Errorf("a kill meant for an earlier command: exit %+v, output %q", e, out.String())
		}
		if sv.Dead() {
			t.Error("the server is gone")
		}
	})
}

// Every command of a server gets a session keyring of its own.
func TestServerFreshKeyringPerCommand(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		ring := func() string {
			var out bytes.Buffer
			e := serveRun(t, sv, Spec{Argv: []string{"sh", "-c", "grep _ses /proc/keys || true"}, Stdout: &out})
			if e.NoKeyring != "" {
				t.Skipf("no keyrings: %s", e.NoKeyring)
			}
			return strings.TrimSpace(out.String())
		}
		a, b := ring(), ring()
		if a == "" || a == b {
			t.Errorf("session keyrings %q and %q: want two, not the same", a, b)
		}
	})
}

// A server's init killed by someone other than srb is the command's
// ErrInitKilled, never a report, and the server is gone; Close ends a
// command still running.
func TestServerInitKilled(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		m := marker(t)
		p, err := sv.Start(Spec{Argv: []string{"sh", "-c", "sleep 300"}, Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		syscall.Kill(sv.cmd.Process.Pid, syscall.SIGKILL)
		e := p.Wait()
		if !errors.Is(e.Err, ErrInitKilled) || e.Signal != syscall.SIGKILL {
			t.Errorf("exit %+v, want ErrInitKilled by SIGKILL", e)
		}
		if !sv.Dead() {
			t.Error("the server is not gone")
		}
		if _, err := sv.Start(Spec{Argv: []string{"true"}}); !errors.Is(err, ErrServerGone) {
			t.Errorf("start on a dead server: %v", err)
		}
		if sv.Mode() == PIDNamespace {
			if s := survivors(m); len(s) > 0 {
				t.Errorf("%v outlived the namespace's init", s)
			}
		}
		for _, pid := range survivors(m) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		sv2, err := NewServer()
		if err != nil {
			t.Fatal(err)
		}
		p, err = sv2.Start(Spec{Argv: []string{"sh", "-c", "setsid sleep 300 & sleep 300"}, Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		done := make(chan struct{})
		go func() { sv2.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("Close hung")
		}
		p.Wait()
		if s := survivors(m); len(s) > 0 {
			t.Errorf("%v outlived Close", s)
		}
	})
}

// The request's encoding keeps every field.
func TestServeRequestEncoding(t *testing.T) {
	for _, r := range []serveRequest{
		{Seq: 7, Path: "/bin/sh", Argv: []string{"sh", "-c", "a b", ""}, Env: []string{"A=1", "B="}, Dir: "/x y",
			Sys: childSys{Credential: &syscall.Credential{Uid: 1, Gid: 2, Groups: []uint32{3, 4}}, Cloneflags: 5, Unshareflags: 6}},
		{Seq: 1, Path: "p", Argv: []string{"p"}},
		{Seq: 2, Path: "p", Argv: []string{"p"}, Env: []string{"A=1"}, Sys: childSys{Credential: &syscall.Credential{NoSetGroups: true}}},
	} {
		b, err := r.encode()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeServeRequest(b)
		if !ok || got.Seq != r.Seq || got.Path != r.Path || got.Dir != r.Dir || strings.Join(got.Argv, "|") != strings.Join(r.Argv, "|") ||
			strings.Join(got.Env, "|") != strings.Join(r.Env, "|") || got.Sys.Cloneflags != r.Sys.Cloneflags || got.Sys.Unshareflags != r.Sys.Unshareflags ||
			(got.Sys.Credential == nil) != (r.Sys.Credential == nil) {
			t.Errorf("%+v read back as %+v (%t)", r, got, ok)
			continue
		}
		if c := r.Sys.Credential; c != nil {
			g := got.Sys.Credential
			if g.Uid != c.Uid || g.Gid != c.Gid || g.NoSetGroups != c.NoSetGroups || strconv.Itoa(len(g.Groups)) != strconv.Itoa(len(c.Groups)) || (g.Groups == nil) != (c.Groups == nil) {
				t.Errorf("credential %+v read back as %+v", c, g)
			}
		}
	}
	if _, err := (serveRequest{Path: "p", Argv: []string{"a\x00b"}}).encode(); !errors.Is(err, ErrNotServed) {
		t.Errorf("a NUL in an argument: %v", err)
	}
}

// Every command a server runs has no_new_privs, root's before and after
// one run as another user alike: the flag is the forking thread's, set
// once when the server starts, so it never depends on which command ran
// before (a review found a root command after a user's inheriting it).
func TestServerNoNewPrivsForEveryCommand(t *testing.T) {
	servers(t, func(t *testing.T, sv *Server) {
		specs := []Spec{{}, {Credential: &syscall.Credential{Uid: 65534, Gid: 65533, Groups: []uint32{}}}, {}}
		if os.Geteuid() != 0 {
			specs = specs[:1]
		}
		for i, spec := range specs {
			var out bytes.Buffer
			spec.Argv = []string{"sh", "-c", "grep NoNewPrivs /proc/self/status | tr -d ' \\t'"}
			spec.Env, spec.Stdout, spec.Stderr = []string{"PATH=/usr/bin:/bin"}, &out, &out
			if e := serveRun(t, sv, spec); e.Code != 0 || out.String() != "NoNewPrivs:1\n" {
				t.Errorf("command %d (%+v): exit %+v, output %q, want NoNewPrivs:1", i, spec.Credential, e, out.String())
			}
		}
	})
}
