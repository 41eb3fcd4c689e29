package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
)

// LadderOptions are the inputs of srb ladder: the task and the batch
// ([grade.Ladder], its TaskDir the task's folder once resolved, its
// Backend made of Engine and BuildImage, its RunMeta Run's).
type LadderOptions struct {
	IO IOStreams
	// Task is a task folder or an id under ./tasks.
	Task string
	grade.Ladder
	// Engine returns the Docker engine the stage containers run on
	// (Factory.Engine); called only when a container is needed.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine
	// lacks it (nil: srb build --load --stage STAGE); tests replace it.
	BuildImage imageBuilder
	// Run says who made the submissions (--run-* flags, see runmeta.go).
	Run RunMetaFlags
}

// NewCmdLadder builds `srb ladder`.
func NewCmdLadder(f *Factory, runF func(*LadderOptions) error) *cobra.Command {
	opts := &LadderOptions{IO: f.IO, Ladder: grade.Ladder{Now: f.Now, Lookup: os.LookupEnv}, Engine: f.Engine}
	cmd := &cobra.Command{
		Use:   "ladder TASK --submission DIR --results DIR",
		Short: "Grade submissions with the whole ladder: collect, three stages, score",
		Long:  help("ladder"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if len(opts.Submissions)+len(opts.Fixtures) == 0 {
				return &usageError{err: errors.New("--submission DIR or --submission-fixture DIR is required")}
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if !opts.Host && opts.Helper != "" {
				return &usageError{err: errors.New("--helper is for --host runs (an image run uses the image's own helper)")}
			}
			if !opts.Host && opts.HomeSeed != "" {
				return &usageError{err: errors.New("--home-seed is for --host runs (a round's container starts from its image)")}
			}
			if opts.Jobs < 1 {
				return &usageError{err: fmt.Errorf("--jobs %d: at least 1", opts.Jobs)}
			}
			if err := checkDriverFlags(opts.DriverFlags); err != nil {
				return err
			}
			if err := opts.Run.Check(); err != nil {
				return &usageError{err: err}
			}
			if runF != nil {
				return runF(opts)
			}
			return runLadder(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Submissions, "submission", nil, "a submitted tree to grade (repeatable)")
	fl.StringArrayVar(&opts.Fixtures, "submission-fixture", nil, "a submission fixture to apply on State A and grade (repeatable)")
	fl.StringVar(&opts.Results, "results", "", "the results folder (required); DIR/<name>/ per submission when there are several")
	fl.IntVar(&opts.Jobs, "jobs", 1, "how many submissions are graded at once")
	fl.StringVar(&opts.KeepWork, "keep-work", "", "keep each submission's collected tree and work under this folder")
	fl.BoolVar(&opts.Resume, "resume", false, "keep an earlier run's finished reviews and rounds in the results folder (when their inputs' digests match) and redo only what did not finish")
	addCacheFlag(cmd, &opts.Cache)
	fl.StringVar(&opts.HomeSeed, "home-seed", "", "with --host: a folder (a warm build cache, say) copied into each tree's HOME for its warm-up in every stage-3 round; it must hold nothing a graded party made")
	fl.BoolVar(&opts.Host, "host", false, "run stage 2, the audit's commands and stage 3's rounds on this machine instead of in the task's stage images")
	fl.StringVar(&opts.Helper, "helper", "", "with --host: a static srb-helper for stage 2's declarative modules (default: srb itself)")
	addDriverFlags(fl, &opts.DriverFlags, driverFlag{"driver", "", "the driver of every model position: " + strings.Join(models.DriverNames(), ", ")},
		driverFlag{"audit-driver", "", "stage 1's driver"},
		driverFlag{"audit-model", "", "stage 1's model"},
		driverFlag{"audit-script", "", "a scripted review's turns; repeat for review 2, 3, …"},
		driverFlag{"adversary-driver", "", "every stage-3 adversary's driver"},
		driverFlag{"adversary-model", "", "every stage-3 adversary's model"},
		driverFlag{"adversary-script", "", "ID=FILE: the scripted turns of adversary ID (repeatable)"},
		driverFlag{"adjudicator-driver", "", "stage 3's adjudicator driver"},
		driverFlag{"adjudicator-model", "", "stage 3's adjudicator model"},
		driverFlag{"adjudicator-script", "", "the adjudicator's scripted turns"})
	addRunMetaFlags(fl, &opts.Run)
	return cmd
}

// StageDriver is one model position's override in a ladder run
// ([pipeline.Driver]): the driver, the model and, for the scripted
// driver, the scripts. Zero fields keep the task's.
type StageDriver = pipeline.Driver

func runLadder(ctx context.Context, opts *LadderOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(fmt.Errorf("ladder: %w", err))
	}
	l := opts.Ladder
	l.TaskDir, l.Backend, l.RunMeta, l.Log = dirs[0], backend(opts.Engine, opts.BuildImage), opts.Run, opts.IO.ErrOut
	runs, err := l.Run(ctx)
	return printLadder(opts.IO, runs, err, start)
}

// printLadder prints what a ladder run returned (runs graded, or err:
// what stopped it before grading; [grade.WriteRuns]) and returns srb
// ladder's exit: the worst of the runs' (an expectation not met is 1).
func printLadder(streams IOStreams, runs []*grade.Run, err error, start time.Time) error {
	if clash := (*grade.NameClashError)(nil); errors.As(err, &clash) {
		return &usageError{err: err}
	} else if err != nil {
		return err
	}
	if code := grade.WriteRuns(streams.Out, streams.ErrOut, runs, time.Since(start)); code != ExitRan {
		return silent(code, fmt.Errorf("ladder: exit %d", code))
	}
	return nil
}
