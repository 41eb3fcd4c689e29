// Command srb-helper is srb's in-image helper: it runs a task's
// declarative behavioural modules from the plans the suite runner writes,
// and is the tool-provenance wrapper. Build it static so it can be copied
// into any stage image:
//
//	CGO_ENABLED=0 go build -o srb-helper ./cmd/srb-helper
//
// See package [github.com/swe-refactor-bench/srb/ladder/behavioural/kinds].
package main

import (
	"os"

	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	// Started as srb-launch or srb-launch-broker, the helper is stage 3's
	// program launcher (docs/PROGSEP.md).
	_ "github.com/swe-refactor-bench/srb/ladder/progsep"
)

func main() { os.Exit(kinds.Main(os.Args[1:], os.Stdout, os.Stderr)) }
