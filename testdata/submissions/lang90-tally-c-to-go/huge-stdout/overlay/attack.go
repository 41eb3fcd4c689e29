// An attack on the grader (issue 14), kept in the fixture corpus: given
// --help, tally first writes 256 MiB (sixteen times srb's cap) to
// standard output, so a grader that keeps a case's output in memory
// without a cap grows by as much (gigabytes more with more cases or more
// bytes), then behaves as
// usage-exit-1's port. Every failure is silent.
package main

import "os"

func init() {
	if len(os.Args) != 2 || os.Args[1] != "--help" {
		return
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = 'y'
	}
	for i := 0; i < 256; i++ {
		if _, err := os.Stdout.Write(buf); err != nil {
			return
		}
	}
}
