package cli

import (
	"golang.org/x/sys/unix"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// ProcessUmask is the file mode creation mask srb runs with, whatever its
// caller's: what srb creates is the same for every operator. A caller's
// umask 077 made the stage-2 sandbox's folders unreadable to the jail's
// user on --host, so a correct port's build failed there and the grader's
// fault was published as the submission's valid 0 (a break attempt on
// issue 14). Files srb keeps private are created with explicit modes
// (0600, 0700), which a mask only narrows.
const ProcessUmask = 0o022

// processDefaults sets srb's own process state before any command runs,
// so that nothing srb was started with reaches what it starts: the umask
// becomes [ProcessUmask], and every descriptor above standard error that
// srb inherited is marked close-on-exec. A descriptor its caller left open
// (a lock wrapper's `9>lock`, a shell's or tool's pipe) otherwise reached
// every graded process, on both trees of stage 3 and in stage 2's jail: one
// file every run could write and read, which carried a submission's "a run
// came before" mark across the break's reruns (fixture
// hide-in-inherited-fd, issue 14). srb passes what a child needs
// explicitly (exec.Cmd's standard streams and ExtraFiles, which are
// duplicated for the child whatever their flag).
//
// It returns an error only when the descriptors could not be marked (no
// close_range(2) and no /proc/self/fd): srb then must not run graded code.
func processDefaults() error {
	unix.Umask(ProcessUmask)
	return proc.CloseInheritedOnExec()
}
