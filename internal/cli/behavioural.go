package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// BehaviouralOptions are the inputs of srb behavioural: the task (a
// folder or an id under ./tasks) and the stage's own options, which it
// runs [stages.Behavioural] with (Out and Log are IO's; the helper of a
// --host run is Helper's, [image.HostHelper]).
type BehaviouralOptions struct {
	IO   IOStreams
	Task string
	stages.BehaviouralOptions
	// Helper is the helper of a host run (--helper); "" is srb itself.
	Helper string
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE.
	BuildImage imageBuilder
}

// NewCmdBehavioural builds `srb behavioural`.
func NewCmdBehavioural(f *Factory, runF func(*BehaviouralOptions) error) *cobra.Command {
	opts := &BehaviouralOptions{IO: f.IO, BehaviouralOptions: stages.BehaviouralOptions{Now: f.Now}}
	cmd := &cobra.Command{
		Use:   "behavioural TASK --submission DIR --results DIR",
		Short: "Run stage 2: build the submission and check it against State A's truth",
		Long:  help("behavioural"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if opts.Submission == "" || opts.Results == "" {
				return &usageError{err: errors.New("behavioural: --submission and --results are required")}
			}
			if opts.Host && opts.Image != "" {
				return &usageError{err: errors.New("behavioural: --image names the container to run in; --host runs on this machine: give one")}
			}
			if !opts.Host && opts.Helper != "" {
				return &usageError{err: errors.New("behavioural: --helper is for --host runs (an image run uses the image's own helper)")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runBehavioural(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Submission, "submission", "", "the collected submission's tree")
	fl.StringVar(&opts.Results, "results", "", "the results folder; behavioural.json is written there")
	fl.StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	fl.BoolVar(&opts.Host, "host", false, "run on this machine with its toolchains instead of in the behavioural image")
	fl.StringVar(&opts.Image, "image", "", "run in this image instead of the task's behavioural image")
	addHelperFlags(cmd, &opts.Helper, &opts.KeepWork)
	return cmd
}

func addHelperFlags(cmd *cobra.Command, helper, keep *string) {
	cmd.Flags().StringVar(helper, "helper", "", "a static srb-helper to run declarative modules with (default: srb itself)")
	cmd.Flags().StringVar(keep, "keep-work", "", "run in this work folder and keep it (default: a temporary folder, removed)")
}

func runBehavioural(ctx context.Context, opts *BehaviouralOptions) error {
	return runStage(ctx, result.StageBehavioural, opts.Task, opts.Results, opts.IO.ErrOut, opts.Now, backend(opts.Engine, opts.BuildImage),
		func(ctx context.Context, t *stages.Task, sf *grade.StageFile) error {
			bo := opts.BehaviouralOptions
			bo.Out, bo.Log = opts.IO.Out, opts.IO.ErrOut
			if opts.Host {
				var err error
				if bo.Helper, err = image.HostHelper(opts.Helper); err != nil {
					return sf.Fail(pipeline.CouldNotRun, err.Error(), nil)
				}
			}
			return stages.Behavioural(ctx, t, bo)
		})
}

// NewCmdHelper builds the hidden `srb helper`, srb's own copy of
// cmd/srb-helper for host runs.
func NewCmdHelper(f *Factory, _ func([]string) error) *cobra.Command {
	return &cobra.Command{
		Use:                "helper run PLAN | wrap ...",
		Short:              "srb's in-image helper (used by the suite runner)",
		Long:               help("helper"),
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := kinds.Main(args, f.IO.Out, f.IO.ErrOut); code != 0 {
				return silent(code, fmt.Errorf("helper: exit %d", code))
			}
			return nil
		},
	}
}
