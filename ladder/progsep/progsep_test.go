package progsep

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// client returns srb-launch: this test binary under the client's name.
func client(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), ClientName)
	if err := os.Symlink(exe, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// serve starts a broker whose launches run the program as this process's
// user (the protocol under test, not the separation: engine.Local's test
// has that).
func serve(t *testing.T, clientUID int) string {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	b := Serve(ln, clientUID, func(ctx context.Context, req Request, stdio [3]*os.File, stop <-chan struct{}) Reply {
		cmd := exec.Command(req.Path)
		cmd.Args, cmd.Env, cmd.Dir = req.Argv, req.Env, req.Dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
		if err := cmd.Start(); err != nil {
			return Reply{Code: -1, Error: err.Error()}
		}
		done := make(chan struct{})
		go func() {
			select {
			case <-stop:
				cmd.Process.Signal(syscall.SIGTERM)
			case <-done:
			}
		}()
		err := cmd.Wait()
		close(done)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return Reply{Code: -1, Signal: int(ws.Signal())}
		}
		if err != nil && cmd.ProcessState == nil {
			return Reply{Code: -1, Error: err.Error()}
		}
		return Reply{Code: cmd.ProcessState.ExitCode()}
	})
	t.Cleanup(b.Close)
	return sock
}

// TestClientAndBroker: the program gets the caller's streams (the
// descriptors), arguments, environment and working folder; its status,
// a signal's 128+N, a refused caller's and a missing broker's 125 come
// back as the client's exit status; SIGTERM to the client ends the
// program.
func TestClientAndBroker(t *testing.T) {
	cl := client(t)
	sock := serve(t, os.Getuid())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in"), []byte("from a file\n"), 0o644)
	run := func(stdin string, args ...string) (string, string, int) {
		cmd := exec.Command(cl, append([]string{"--socket", sock, "--"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SRB_TEST_VAR=seen")
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	if out, errs, code := run("x y z\n", "sh", "-c", `wc -w; cat in; echo "$SRB_TEST_VAR $0" >&2; exit 3`, "arg0"); code != 3 ||
		strings.Fields(out)[0] != "3" || !strings.Contains(out, "from a file") || errs != "seen arg0\n" {
		t.Errorf("got %q %q exit %d", out, errs, code)
	}
	if _, _, code := run("", "sh", "-c", `kill -KILL $$`); code != 128+9 {
		t.Errorf("a program killed by SIGKILL: exit %d, want 137", code)
	}
	if _, errs, code := run("", "./no-such-program"); code != LaunchFault {
		t.Errorf("a program that cannot start: exit %d (%s), want %d", code, errs, LaunchFault)
	}
	if _, _, code := run("", "no-such-program-on-path"); code != 127 {
		t.Errorf("a program not on PATH: exit %d, want 127", code)
	}
	// SIGTERM to the client reaches the program.
	cmd := exec.Command(cl, "--socket", sock, "--", "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+15 || time.Since(start) > 10*time.Second {
		t.Errorf("SIGTERM to the client: exit %d after %v, want 143 at once", code, time.Since(start))
	}
	// Another uid's broker refuses this one.
	other := serve(t, os.Getuid()+1)
	c2 := exec.Command(cl, "--socket", other, "--", "true")
	var errb bytes.Buffer
	c2.Stderr = &errb
	c2.Run()
	if c2.ProcessState.ExitCode() != LaunchFault || !strings.Contains(errb.String(), "may not launch") {
		t.Errorf("a broker for another uid: exit %d %q", c2.ProcessState.ExitCode(), errb.String())
	}
	c3 := exec.Command(cl, "--socket", filepath.Join(dir, "none"), "--", "true")
	c3.Run()
	if c3.ProcessState.ExitCode() != LaunchFault {
		t.Errorf("no broker: exit %d, want %d", c3.ProcessState.ExitCode(), LaunchFault)
	}
}
