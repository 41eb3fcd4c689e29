//go:build ignore

// generate writes the synthetic campaign whose aggregates are the paper's
// (package ladder/campaign/synthetic says how the runs are drawn) into
// DIR, then `srb campaign DIR` prints the paper's funnel:
//
//	go run testdata/campaign/generate.go /tmp/paper-campaign
//	srb campaign /tmp/paper-campaign
package main

import (
	"fmt"
	"os"

	"github.com/swe-refactor-bench/srb/ladder/campaign/synthetic"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run testdata/campaign/generate.go DIR")
		os.Exit(2)
	}
	n, err := synthetic.Write(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d valid runs (and 3 invalid, 1 ungraded) under %s\n", n, os.Args[1])
}
