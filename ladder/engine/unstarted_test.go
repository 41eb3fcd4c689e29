package engine

import (
	"testing"
)

// A command run as root in a container can replace the image's /bin/sh,
// which the exec wrapper and Reap run (stage 3's run tool runs the
// adversary's commands, the submission's Makefile among them, as root in a
// view's container): a later exec that never started says so (Unstarted)
// whatever its exit code, and a reap that could not run is an error, never
// a silent "nothing to reap".
func TestSessionShReplaced(t *testing.T) {
	_, s := startTools(t, Spec{})
	if r := sh(t, s, "echo hi"); r.Unstarted || string(r.Stdout) != "hi\n" {
		t.Fatalf("before: %+v", r)
	}
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"ln", "-sf", "/bin/sleep", "/bin/sh"}})
	if err != nil || r.ExitCode != 0 || r.Unstarted {
		t.Fatalf("replacing /bin/sh: %v %+v", err, r)
	}
	r, err = s.Exec(t.Context(), ExecSpec{Argv: []string{"cat", "/dev/null"}})
	if err != nil || !r.Unstarted {
		t.Errorf("an exec after /bin/sh was replaced: %v, %+v (want Unstarted)", err, r)
	}
	if _, err := s.Reap(t.Context(), ""); err == nil {
		t.Error("a reap after /bin/sh was replaced reported no error")
	}
}
