// Command tally counts the lines, words and bytes of standard input: a
// port of tally.c (testdata/statea/tally-1.0) to Go, written as the
// fixture submission srb's stage-2 tests grade. Whitespace is C's isspace
// in the "C" locale: space, \t, \n, \v, \f, \r; every other byte,
// including NUL and bytes of multi-byte UTF-8, is part of a word.
package main

import (
	"bufio"
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
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			// getchar() returns EOF on a read error too.
			break
		}
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
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "%d %d %d\n", lines, words, bytes)
	w.Flush()
}
