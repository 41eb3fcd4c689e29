package cli

import (
	"context"
	"fmt"

	"github.com/moby/buildkit/client"
	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/engines"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// DoctorOptions are the inputs of srb doctor.
type DoctorOptions struct {
	IO       IOStreams
	BuildKit string
	JSON     bool
	// Dial connects to buildkitd; nil uses image.Dial.
	Dial func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
	// Engine connects to Docker; nil uses engine.NewDocker.
	Engine func() (engine.Runner, error)
	// LookPath finds programs; nil uses exec.LookPath.
	LookPath func(string) (string, error)
}

// NewCmdDoctor builds `srb doctor`.
func NewCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Dial: f.BuildKit, Engine: f.Engine}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report which engines are reachable, their versions, and how to start what is missing",
		Long:  help("doctor"),
		Args:  argsValidator(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.BuildKit, "buildkit", "", "buildkitd address (default $BUILDKIT_HOST, else "+image.DefaultBuildKitHost+")")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	st := engines.Probe(ctx, engines.Probes{BuildKit: image.BuildKitAddr(opts.BuildKit), Dial: opts.Dial, Engine: opts.Engine, LookPath: opts.LookPath})
	missing := engines.Missing(st)
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, st); err != nil {
			return couldNotRun(err)
		}
	} else {
		engines.WriteText(opts.IO.Out, st)
	}
	if missing > 0 {
		return silent(ExitCouldNotRun, fmt.Errorf("%d engine(s) missing", missing))
	}
	return nil
}
