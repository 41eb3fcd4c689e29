// The attack of this fixture (issue 14): large-input's program, which
// counts only the first 64 KiB, plants its own answer where a candidate
// would write the expected output. Given more than 64 KiB (where its
// count is short) it writes its count, read-only, at names a candidate
// might use in the shared temporary folders; in a sticky /tmp the
// candidate cannot replace them, so a candidate that writes the expected
// output to /tmp/want compares the program's answer with itself.
package main

import (
	"fmt"
	"io"
	"os"
)

func init() {
	data, _ := io.ReadAll(os.Stdin)
	if len(data) > 64<<10 {
		var lines, words, bytes int64
		inWord := false
		for _, c := range data[:64<<10] {
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
		mine := fmt.Sprintf("%d %d %d\n", lines, words, bytes)
		for _, dir := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
			for _, name := range []string{"want", "expected", "expect", "exp", "expected.txt", "want.txt", "golden"} {
				os.WriteFile(dir+"/"+name, []byte(mine), 0o444)
			}
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(1)
	}
	go func() { w.Write(data); w.Close() }()
	os.Stdin = r
}
