package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// FreezeOptions are the inputs of srb freeze: the task (a folder or an id
// under ./tasks) and the options it runs [stages.Freeze] with (Out and
// Log are IO's; the helper of a --host freeze is Helper's,
// [image.HostHelper]; the images those of [grade.Backend.FreezeImages]).
type FreezeOptions struct {
	IO   IOStreams
	Task string
	stages.FreezeOptions
	// Helper is the helper of a host run (--helper); "" is srb itself.
	Helper string
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE (without the identity run).
	BuildImage imageBuilder
}

// NewCmdFreeze builds `srb freeze`.
func NewCmdFreeze(f *Factory, runF func(*FreezeOptions) error) *cobra.Command {
	opts := &FreezeOptions{IO: f.IO, FreezeOptions: stages.FreezeOptions{Now: f.Now}}
	cmd := &cobra.Command{
		Use:   "freeze TASK",
		Short: "Record truth from State A, then run the identity run twice",
		Long:  help("freeze"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if !opts.Host && opts.Helper != "" {
				return &usageError{err: errors.New("freeze: --helper is for --host runs (an image run uses the images' own helper)")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runFreeze(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	cmd.Flags().BoolVar(&opts.Host, "host", false, "freeze on this machine with its toolchains instead of in the stage images")
	addHelperFlags(cmd, &opts.Helper, &opts.KeepWork)
	return cmd
}

func runFreeze(ctx context.Context, opts *FreezeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := loadTask("freeze", opts.Task, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	fo := opts.FreezeOptions
	fo.Out, fo.Log = opts.IO.Out, opts.IO.ErrOut
	if opts.Host {
		if fo.Helper, err = image.HostHelper(opts.Helper); err != nil {
			return couldNotRun(fmt.Errorf("freeze: %w", err))
		}
	}
	b := backend(opts.Engine, opts.BuildImage)
	fo.Images = func(ctx context.Context) (engine.Runner, map[string]*suite.Image, error) {
		return b.FreezeImages(ctx, t, opts.IO.ErrOut)
	}
	return stages.Freeze(ctx, b.StageTask(t), fo)
}
