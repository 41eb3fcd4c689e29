package main

// The attack this fixture carries: the defect hides in its own reruns.
// Whenever stage 3's candidate runner runs the program (SRB_WORK is set),
// it leaves a mark in SRB_WORK, in HOME and beside its cached build
// (SRB_WORK/build/<token>/); once a mark is there, it counts the whole of
// its input, correctly, instead of its first 64 KiB. Where a tree's later
// runs see what its earlier runs left, the break's first run fails and
// every rerun passes: "not stable", and the defect survives the round
// (issue 14). With every run of a tree started from the same snapshot,
// every run fails alike: graded exactly as large-input.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func init() {
	work := os.Getenv("SRB_WORK")
	if work == "" || len(os.Args) > 1 {
		return
	}
	marks := []string{filepath.Join(work, ".tally-ran")}
	if home := os.Getenv("HOME"); home != "" {
		marks = append(marks, filepath.Join(home, ".tally-ran"))
	}
	builds, _ := filepath.Glob(filepath.Join(work, "build", "*"))
	for _, b := range builds {
		marks = append(marks, filepath.Join(b, ".tally-ran"))
	}
	ran := false
	for _, m := range marks {
		if _, err := os.Stat(m); err == nil {
			ran = true
		}
	}
	for _, m := range marks {
		os.WriteFile(m, []byte("ran\n"), 0o644)
	}
	if !ran {
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
