package engine

import (
	"os"
	"syscall"
	"testing"
)

// TestLocalGraderFaultIsAnError (a break attempt's find, a regression of
// the move of stage 3 onto Local): when the grader itself cannot start
// the containment (here: no file descriptor left for proc's status
// channel; in the field a fork that fails while the PID space is full),
// Local.Exec reported the command as having run and exited 127, a status
// the stage grades (a fail). It is an error now, as on Docker: a harness
// fault, counted neither way.
func TestLocalGraderFaultIsAnError(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root")
	}
	s := startSession(t, &Local{}, Spec{})
	var old syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
	var held []*os.File
	func() {
		lim := syscall.Rlimit{Cur: 64, Max: old.Max}
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
		for {
			f, err := os.Open("/dev/null")
			if err != nil {
				break
			}
			held = append(held, f)
		}
		r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"/bin/true"}})
		for _, f := range held {
			f.Close()
		}
		t.Logf("exec with no descriptor left: %+v err=%v stderr=%q", r, err, func() []byte {
			if r != nil {
				return r.Stderr
			}
			return nil
		}())
		if err == nil && r != nil && r.ExitCode != 0 {
			t.Errorf("a grader fault came back as exit %d with no error: the stage grades it", r.ExitCode)
		}
	}()
}
