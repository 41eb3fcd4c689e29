package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// FreezeOptions are the inputs of srb freeze.
type FreezeOptions struct {
	IO  IOStreams
	Now func() time.Time

	// Task is a task folder or an id under ./tasks.
	Task string
	// Original is State A's tree; "" materialises it from the cache.
	Original string
	// Helper is the helper of a host run (--host); "" is srb itself.
	Helper string
	// KeepWork keeps the work folder (record/, identity-1/, identity-2/,
	// truth/) there.
	KeepWork string
	// Host freezes on this machine with its toolchains instead of in the
	// task's verification and behavioural images.
	Host bool
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE.
	BuildImage func(ctx context.Context, t *task.Task, stage string) error
}

// NewCmdFreeze builds `srb freeze`.
func NewCmdFreeze(f *Factory, runF func(*FreezeOptions) error) *cobra.Command {
	opts := &FreezeOptions{IO: f.IO, Now: f.Now}
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
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	t, problems := task.Load(dirs[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
		}
		return badTask(fmt.Errorf("freeze: the task %s cannot be read (%d problem(s)); run srb validate", dirs[0], len(problems)))
	}
	fo := stages.FreezeOptions{Original: opts.Original, KeepWork: opts.KeepWork, Host: opts.Host, Now: opts.Now,
		Out: opts.IO.Out, Log: opts.IO.ErrOut}
	if opts.Host {
		if fo.Helper, err = helperArgv(opts.Helper); err != nil {
			return couldNotRun(fmt.Errorf("freeze: %w", err))
		}
	}
	fo.Images = func(ctx context.Context) (engine.Runner, map[string]*suite.Image, error) {
		return freezeImages(ctx, opts, t)
	}
	return fromStage(stages.Freeze(ctx, stageTask(t, opts.Engine, opts.BuildImage, ""), fo))
}

// freezeImages are the engine and t's verification and behavioural
// images a freeze in the images runs in (image.FindStage: built and
// loaded when missing or stale, without srb build's identity run: srb
// freeze runs its own, against the truth it is about to record).
func freezeImages(ctx context.Context, opts *FreezeOptions, t *task.Task) (engine.Runner, map[string]*suite.Image, error) {
	logf := logTo(opts.IO.ErrOut)
	newEngine := opts.Engine
	if newEngine == nil {
		newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
	}
	eng, err := newEngine()
	if err != nil {
		return nil, nil, err
	}
	build := opts.BuildImage
	if build == nil {
		build = defaultImageBuilder(opts.IO.ErrOut, newEngine, true)
	}
	images := map[string]*suite.Image{}
	for _, stage := range []string{result.StageVerification, result.StageBehavioural} {
		if images[stage], err = image.FindStage(ctx, t, stage, eng, build, logf); err != nil {
			return nil, nil, fmt.Errorf("the %s image: %w", stage, err)
		}
	}
	return eng, images, nil
}
