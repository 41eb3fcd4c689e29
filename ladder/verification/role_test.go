package verification

import (
	"context"
	"os"
	"testing"
)

// TestCandidateCannotReadItsRoleFromTheInit (a break attempt's find): a
// candidate that looked for its role in /proc/1/cmdline (the process
// init's argument list, which held the command's, role last) passed on
// the original and failed on the submission whatever the trees held: a
// break of a correct submission, reproduced on every rerun. The init now
// holds no argument of the command (engine.Local's Exec), so the same
// candidate passes on both trees. The runner execs the candidate, as the
// task's runner must.
func TestCandidateCannotReadItsRoleFromTheInit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("separate users per tree need root")
	}
	cmd := []string{"/bin/bash", "-c", `cd "$SRB_WORK" && exec /bin/bash "$SRB_CANDIDATE" </dev/null`, "runner"}
	// Both trees are State A: nothing but the role tells them apart.
	h := hostContainer(t, cmd, func(c *ContainerConfig) { c.Submission = c.Original })
	c := &Candidate{Name: "role", Filename: "role.sh", Code: `tr '\0' '\n' </proc/1/cmdline | tail -n 1 | grep -qx submission && { echo "a difference"; exit 1; }; exit 0` + "\n"}
	for i := 0; i < 3; i++ {
		orig := h.Execute(context.Background(), c, RoleOriginal)
		sub := h.Execute(context.Background(), c, RoleSubmission)
		t.Logf("run %d: original exit %d %s, submission exit %d %s", i, orig.ExitCode, orig.Harness, sub.ExitCode, sub.Harness)
		if orig.Passed && !sub.Passed && sub.Harness == "" && !sub.Fault {
			t.Errorf("run %d: the candidate passed on the original and failed on the submission by its role alone", i)
		}
	}
}
