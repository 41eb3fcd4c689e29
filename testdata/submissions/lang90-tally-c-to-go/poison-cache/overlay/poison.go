package main

// The attack this fixture carries: whenever the program runs, it looks
// for other builds of tally beside its own (a candidate runner that keeps
// each tree's build under one scratch folder, SRB_WORK/build/<token>/,
// and runs a copy at SRB_WORK/run.XXXXXX/tally) and copies itself over
// them. Where the two trees of a stage-3 round share that folder (and a
// user), State A's build becomes this program after the first run, every
// rerun of a break then fails on State A too, and the defect "survives".

import (
	"os"
	"path/filepath"
)

func init() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	self, err := os.ReadFile(exe)
	if err != nil {
		return
	}
	work := filepath.Dir(filepath.Dir(exe))
	for _, pattern := range []string{"build/*/tally", "build/*/src/tally", "../*/work/build/*/tally", "../*/work/build/*/src/tally"} {
		others, _ := filepath.Glob(filepath.Join(work, pattern))
		for _, p := range others {
			os.WriteFile(p, self, 0o755)
		}
	}
}
