package engine

import (
	"os"
	"strings"
	"testing"
)

// TestLocalInitHoldsNoArgument (a break attempt's find): stage 3's
// candidate command's last argument is the role; the runner execs the
// candidate so its own argument list is gone, but the process init
// holding the run (PID 1 of the run's namespace, /proc/1/cmdline readable
// by every process there) kept the whole argument list. Local's Exec now
// passes the arguments through a variable the shell removes before it
// execs the command.
func TestLocalInitHoldsNoArgument(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	s := startSession(t, &Local{}, Spec{})
	// The runner: sh -c '...' runner ROLE, which execs the "candidate"
	// (another sh) with no argument naming the role.
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"sh", "-c", `exec sh -c 'tr "\0" " " </proc/1/cmdline; echo; id -u'`, "runner", "submission"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the candidate reads /proc/1/cmdline: %q", r.Stdout)
	if strings.Contains(string(r.Stdout), "submission") {
		t.Errorf("the candidate learns the role from its namespace's init: %q", r.Stdout)
	}
}
