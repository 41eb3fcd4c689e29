package proc

import (
	"context"
	"strings"
	"syscall"
	"testing"
)

// forgeReport is a command that writes a forged exit report into its
// init's status channel through /proc/<init>/fd/3 (the init is its
// parent: pid 1 in a PID namespace, the subreaper otherwise), leaves a
// child behind and exits 3.
const forgeReport = `
printf 'code 0\nsignal 0\nleft 0\nproc true\nerror forged by the command\n' > /proc/$PPID/fd/3 2>/dev/null && echo wrote
sleep 300 &
exit 3
`

// TestForgedReport: the init's status channel is out of a command's
// reach, and bytes on it the init did not write are never read as its
// report. A command that could write "code 0" or "error ..." there would
// turn its own failure into a pass or into a harness fault.
func TestForgedReport(t *testing.T) {
	for _, tc := range []struct {
		name string
		sub  bool
	}{{"namespace", false}, {"subreaper", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sub {
				forceSubreaper(t)
			}
			var out strings.Builder
			e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", forgeReport},
				Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &out})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "wrote") {
				t.Errorf("the command could write into its init's status channel (output %q)", out.String())
			}
			if e.Err != nil && strings.Contains(e.Err.Error(), "forged") {
				t.Fatalf("the command's forged error was read as the init's: %v", e.Err)
			}
			if e.Code == 0 || e.Leftovers == 0 {
				if e.Err == nil {
					t.Fatalf("a forged report was believed: %+v (output %q)", e, out.String())
				}
			}
			if strings.Contains(out.String(), "wrote") && e.Err == nil {
				t.Errorf("the command wrote into the status channel and the exit says nothing of it: %+v", e)
			}
			if e.Err == nil && (e.Code != 3 || e.Leftovers != 1 || e.Signal != syscall.Signal(0)) {
				t.Errorf("exit %+v, want code 3 and 1 leftover", e)
			}
		})
	}
}

// TestReportStrict: only "ready <pid>" and one report in the init's own
// encoding are read; a channel holding anything more is not a report.
func TestReportStrict(t *testing.T) {
	for line, ok := range map[string]bool{"ready 12\n": true, "ready 12": false, "ready 012\n": false, "ready -1\n": false, "ready 12 \n": false, "code 0\n": false} {
		if _, got := readyPid(line); got != ok {
			t.Errorf("readyPid(%q) = %v, want %v", line, got, ok)
		}
	}
	real := report{code: 3, left: 1, privateProc: true}
	for data, ok := range map[string]bool{
		string(real.encode()):                      true,
		"code 0\nleft 0\n" + string(real.encode()): false,
		"code 0\nsignal 0\nleft 0\nproc true\nerror forged\n" + string(real.encode()): false,
	} {
		rep, seen := parseReport([]byte(data))
		if got := seen && string(rep.encode()) == data; got != ok {
			t.Errorf("%q read as one report: %v, want %v", data, got, ok)
		}
	}
}

// TestInitKilledByItsCommand: a subreaper's init runs as the command's
// user, so the command can SIGKILL it; its setsid'd processes then leave
// the containment. That is a containment srb lost, never a clean exit:
// the Exit carries an error, and the Leftovers are unknown.
func TestInitKilledByItsCommand(t *testing.T) {
	forceSubreaper(t)
	m := marker(t)
	e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "setsid sleep 300 & sleep 0.2; kill -9 $PPID; sleep 300"},
		Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range survivors(m) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if e.Err == nil || !strings.Contains(e.Err.Error(), "containment") {
		t.Errorf("an init its own command killed reads as %+v", e)
	}
	if e.Leftovers != -1 {
		t.Errorf("leftovers %d, want -1 (unknown)", e.Leftovers)
	}
}
