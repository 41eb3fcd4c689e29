package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// VersionOptions are the inputs of srb version.
type VersionOptions struct {
	IO   IOStreams
	JSON bool
}

// NewCmdVersion builds `srb version`.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print srb's version and fingerprint",
		Long:  help("version"),
		Args:  argsValidator(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// Version returns srb's module version: the tagged version when built from
// a module, "devel" otherwise.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func runVersion(opts *VersionOptions) error {
	fp := result.Fingerprint()
	if opts.JSON {
		return writeJSON(opts.IO.Out, map[string]string{
			"version":     Version(),
			"fingerprint": fp,
			"go":          runtime.Version(),
		})
	}
	if fp == "" {
		fp = "unknown"
	}
	_, err := fmt.Fprintf(opts.IO.Out, "srb %s (fingerprint %s, %s %s/%s)\n", Version(), fp, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
