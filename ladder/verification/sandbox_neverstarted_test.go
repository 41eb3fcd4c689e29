package verification

import "testing"

// TestNeverStartedNeedsAnUnstartedStatus: a run is "never started" only
// when srb could not carry it out or its status is a shell's could-not-run
// one; a candidate whose own command failed with "permission denied" and
// exit 1 (build03's meson-port fixture: a folder of mktemp -d the launched
// program could not read) ran, and its round is no error for it.
func TestNeverStartedNeedsAnUnstartedStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		run  CandidateRun
		want bool
	}{
		{"harness", CandidateRun{Harness: "the engine failed", ExitCode: -1}, true},
		{"not found", CandidateRun{ExitCode: 127, Stderr: "bash: /opt/runner: No such file or directory"}, true},
		{"cannot execute", CandidateRun{ExitCode: 126, Stderr: "bash: /opt/runner: Permission denied"}, true},
		{"never ran", CandidateRun{ExitCode: -1, Stderr: "cannot run candidate command"}, true},
		{"its own permission denied", CandidateRun{ExitCode: 1, Stderr: "srb-launch: copy the working folder: open /srb/tmp/tmp.1L: permission denied"}, false},
		{"its own not found", CandidateRun{ExitCode: 2, Stderr: "grep: want.txt: No such file or directory"}, false},
		{"127 but printed", CandidateRun{ExitCode: 127, Stdout: "3\n", Stderr: "x: not found"}, false},
		{"127, another reason", CandidateRun{ExitCode: 127, Stderr: "assertion failed"}, false},
	} {
		if got := c.run.neverStarted(); got != c.want {
			t.Errorf("%s: neverStarted() = %v, want %v", c.name, got, c.want)
		}
	}
}
