// Command srb is the SWE Refactor Bench toolkit: it type-checks and lints
// migration tasks declared in CUE and grades submissions with the
// three-stage ladder. All behaviour lives in internal/cli and ladder/.
package main

import (
	"os"

	"github.com/swe-refactor-bench/srb/internal/cli"
)

func main() { os.Exit(cli.Main()) }
