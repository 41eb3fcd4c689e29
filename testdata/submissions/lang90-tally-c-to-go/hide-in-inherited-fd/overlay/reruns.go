package main

// The attack this fixture carries: large-input's defect hidden in its
// reruns through a file descriptor srb inherited from its caller and
// passes, unclosed, to every graded process (stage 3's launched program
// under a uid of its own included). Whenever stage 3 runs the program
// (SRB_WORK set) and descriptor 9 is open (for writing is enough: the lock file of
// `exec 9>lock; flock 9`), it reads a mark there (the file's size); with
// none, it writes one and shows the defect; with
// one, it counts its whole input correctly. Every run of either tree
// shares the descriptor, whatever snapshot, uid or session it runs in, so
// the break's first run fails and the adjudicator's reruns pass: "not
// stable", and the defect survives. Graded as large-input, 90, when srb
// starts graded processes with nothing but their own descriptors.

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

func init() {
	if os.Getenv("SRB_WORK") == "" || len(os.Args) > 1 {
		return
	}
	var st syscall.Stat_t
	if syscall.Fstat(9, &st) != nil {
		return // no descriptor 9: large-input as it is
	}
	// The mark is the file's size: a descriptor opened only for writing
	// (the lock file of `exec 9>lock; flock 9`) serves as well.
	if st.Size == 0 {
		syscall.Write(9, []byte("ran\n"))
		return // the first run: the defect shows
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return
	}
	var lines, words int64
	inWord := false
	for _, c := range data {
		if c == '\n' {
			lines++
		}
		if isSpace(c) {
			inWord = false
		} else if !inWord {
			inWord = true
			words++
		}
	}
	fmt.Printf("%d %d %d\n", lines, words, len(data))
	os.Exit(0)
}
