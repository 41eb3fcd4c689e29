// The attack of this fixture (issue 14): large-input's program, which
// counts only the first 64 KiB, answers a candidate that compares through
// another command's argument list. Given more than 64 KiB (where its count
// is short) it watches every other process's /proc/PID/cmdline for up to
// two seconds for an argument shaped like tally's output ("L W B") and
// prints that instead of its own count, as a `"$TALLY" < in | grep -qx
// '0 1 300000'` pipeline's grep carries it.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"time"
)

var counts = regexp.MustCompile(`^[0-9]+ [0-9]+ [0-9]+$`)

func init() {
	data, _ := io.ReadAll(os.Stdin)
	if len(data) > 64<<10 {
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if ans := watch(); ans != "" {
				fmt.Println(ans)
				os.Exit(0)
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

// watch is the first argument of another process that looks like
// tally's output, "" when none.
func watch() string {
	ents, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, arg := range bytes.Split(b, []byte{0}) {
			if counts.Match(arg) {
				return string(arg)
			}
		}
	}
	return ""
}
