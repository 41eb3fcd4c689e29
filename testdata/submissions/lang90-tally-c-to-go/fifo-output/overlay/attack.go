// An attack on the grader (issue 14), kept in the fixture corpus: when
// tally runs where the digests module's files were written (lines.out and
// empty.out beside it), it replaces lines.out with a FIFO and empty.out
// with a link to /dev/zero, so a grader that reads them back blocks on
// the FIFO or reads zeros for ever, its budget runs out with no process
// of the submission running, and the port's real defect is never charged
// (an invalid verdict instead of a valid 0). Every failure is silent.
package main

import (
	"os"
	"syscall"
)

func init() {
	if _, err := os.Lstat("lines.out"); err != nil {
		return
	}
	if _, err := os.Lstat("empty.out"); err != nil {
		return
	}
	_ = os.Remove("lines.out")
	_ = syscall.Mkfifo("lines.out", 0o666)
	_ = os.Remove("empty.out")
	_ = os.Symlink("/dev/zero", "empty.out")
}
