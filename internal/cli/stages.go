package cli

import (
	"context"
	"errors"
	"io"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// LadderStages are srb's three stages behind [pipeline.Stages] for a
// ladder run of t with opts (its Now, Lookup, Host, Helper, Engine and
// BuildImage are read; Now and Lookup must be set): [stages.Ladder] over
// t's view ([stageTask]). Each writes its stage file and prints its lines
// on the submission's log.
func LadderStages(opts *LadderOptions, t *task.Task) pipeline.Stages {
	lo := stages.LadderOptions{Host: opts.Host, HomeSeed: opts.HomeSeed, Lookup: opts.Lookup, Now: opts.Now}
	if opts.Host {
		// A helper that cannot be found leaves Helper empty: stage 2
		// then fails, naming it, as the stage that could not run.
		lo.Helper, _ = helperArgv(opts.Helper)
	}
	return stages.Ladder(stageTask(t, opts.Engine, opts.BuildImage, ""), lo)
}

// stageTask is t as the stages read it ([grade.StageTask]) with srb's
// providers: State A from the cache cacheFlag names, and the stage
// images readied by [readyStageImage] on newEngine (build nil: srb build
// --load), their task-configuration faults as [pipeline.BadTask].
func stageTask(t *task.Task, newEngine func() (engine.Runner, error), build imageBuilder, cacheFlag string) *stages.Task {
	return grade.StageTask(t, grade.Providers{
		StateA: func(ctx context.Context) (string, func(), error) {
			dir, cleanup, err := stateATreeIn(ctx, t, cacheFlag)
			// An archive that is not the pinned State A is the task's
			// configuration (srb freeze refuses it, exit 2).
			if mm := (*source.MismatchError)(nil); errors.As(err, &mm) {
				err = &pipeline.Error{Code: pipeline.BadTask, Err: err}
			}
			return dir, cleanup, err
		},
		Images: func(ctx context.Context, stage, ref string, w io.Writer) (engine.Runner, *suite.Image, error) {
			eng, img, err := readyStageImage(ctx, t, stage, ref, newEngine, build, w)
			if err != nil && exitCode(err) == ExitBadTask {
				err = &pipeline.Error{Code: pipeline.BadTask, Err: err}
			}
			return eng, img, err
		},
	})
}

// fromStage is a stage's error as a command's: a [pipeline.Error]'s exit
// class becomes its exit code.
func fromStage(err error) error {
	var se *pipeline.Error
	if errors.As(err, &se) {
		return &exitError{code: se.Code, err: se.Err, printed: se.Printed}
	}
	return err
}
