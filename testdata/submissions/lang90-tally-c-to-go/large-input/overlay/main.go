// Command tally counts the lines, words and bytes of standard input: a
// port of tally.c (testdata/statea/tally-1.0) to Go. Whitespace is C's
// isspace in the "C" locale: space, \t, \n, \v, \f, \r; every other byte,
// including NUL and bytes of multi-byte UTF-8, is part of a word.
//
// The defect this fixture carries: it reads one 64 KiB buffer of input
// and counts that, so a larger input is counted short.
package main

import (
	"fmt"
	"io"
	"os"
)

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprint(os.Stderr, "usage: tally < FILE\n")
		os.Exit(2)
	}
	var lines, words, bytes int64
	inWord := false
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(os.Stdin, buf)
	for _, c := range buf[:n] {
		bytes++
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
	fmt.Printf("%d %d %d\n", lines, words, bytes)
}
