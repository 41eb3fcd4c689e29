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

const freezeDoc = `Record the ground truth of a task's behavioural modules from State A,
then prove it reproduces.

State A is built in every configuration with the configuration's original
commands (the old toolchain), and every declarative module observes it;
what it observes becomes truth/<module>.json, with its provenance: the task
folder's commit, State A's digest, image digests (none for a host run),
the versions of the watched tools, srb's fingerprint, and the fingerprint
of the module's cases (its params and every file under data/), so a case
edited without re-recording is refused by srb behavioural.

Then the identity run: State A checked against its own truth, twice. The
truth is written into the task folder only if every module reaches 1.0 in
both runs; otherwise nothing is written, the checks that failed are listed
per run, and a check whose verdict differed between the two runs is named
as flaky. A non-deterministic case cannot be frozen.

The record run happens in a container of the task's verification image
(the old toolchain; the versions in the provenance are the ones seen
there), and the identity runs in containers of the behavioural image,
with State A's build imported from the record run's ledger, since the
behavioural image may lack the old toolchain. The provenance names both
images' digests from images.lock. Images missing or stale are built and
loaded first (srb build --load). --host freezes on this machine instead,
with the host's toolchains and srb itself as the helper (or --helper).
Rebuild the images after a freeze: truth/ is part of their assets.

A fault is never ground truth: when the record run observes a case that
timed out, was killed by a signal, could not start or got no response, a
library that cannot be read, State A not building, or a module that did
not finish, nothing is written and every such module and check is named.

Exit status: 0 when the truth was written, 1 when freezing could not run
(the harness faulted: a module killed by a signal or leaving a result
that does not read, a case folder that could not be prepared), 2 when it
was refused (the task's modules fault or do not reproduce on State A) or
the task's configuration is wrong.

Examples:
  srb freeze lang90-tally-c-to-go
  srb freeze tasks/lang90-tally-c-to-go --keep-work /tmp/freeze
  srb freeze lang90-tally-c-to-go --host`

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
		Long:  freezeDoc,
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
