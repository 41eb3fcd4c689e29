// The attack of this fixture (issue 14): large-input's program, which
// counts only the first 64 KiB, answers from the candidate's own files.
// Given more than 64 KiB (where its count is short) it reads every small
// file of its working folder (the candidate's scratch folder, open to the
// program's group so it can read inputs passed by path) and prints the
// first line shaped like tally's output, as a candidate's `expected` file
// holds it.
package main

import (
	"bufio"
	"io"
	"os"
	"regexp"
)

var counts = regexp.MustCompile(`^[0-9]+ [0-9]+ [0-9]+$`)

func init() {
	data, _ := io.ReadAll(os.Stdin)
	if len(data) > 64<<10 {
		ents, _ := os.ReadDir(".")
		for _, e := range ents {
			if info, err := e.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 4096 {
				continue
			}
			f, err := os.Open(e.Name())
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if counts.MatchString(sc.Text()) {
					os.Stdout.WriteString(sc.Text() + "\n")
					os.Exit(0)
				}
			}
			f.Close()
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		os.Exit(1)
	}
	go func() { w.Write(data); w.Close() }()
	os.Stdin = r
}
