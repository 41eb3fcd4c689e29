package cli

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// imageBuilder builds and loads one stage image of a task (srb build
// --load --stage STAGE).
type imageBuilder = image.StageBuilder

// backend is srb's [grade.Backend] on newEngine with build (nil:
// image.LoadingBuilder). A build error that exits 2 (a builder a test
// gives) becomes an [*image.TaskFault], as LoadingBuilder's refusals are.
func backend(newEngine func() (engine.Runner, error), build imageBuilder) grade.Backend {
	if inner := build; inner != nil {
		build = func(ctx context.Context, t *task.Task, stage string) error {
			err := inner(ctx, t, stage)
			if exitCode(err) == ExitBadTask {
				return &image.TaskFault{Err: err}
			}
			return err
		}
	}
	return grade.Backend{Engine: newEngine, Build: build}
}

// defaultImageBuilder is srb's stage-image builder on newEngine, printing
// on w ([grade.Backend.Builder]; noIdentity: srb freeze's builds).
func defaultImageBuilder(w io.Writer, newEngine func() (engine.Runner, error), noIdentity bool) imageBuilder {
	return grade.Backend{Engine: newEngine}.Builder(w, noIdentity)
}

// logTo is a logf printing "srb: " lines on w ([grade.LogTo]).
var logTo = grade.LogTo

// runStage is the one runner of srb audit, srb behavioural and srb
// verification: it resolves and loads the task taskArg names (a task
// that cannot be found is a failed stage file, exit 1; one that cannot
// be read a failed stage file with config_error, exit 2; the file is
// results/<stage>.json, stamped now()), gives run srb's view of it
// ([grade.Backend.StageTask] on b) and the stage file, and turns run's
// error, whose exit class is the command's exit ([exitError]).
func runStage(ctx context.Context, stage, taskArg, results string, errOut io.Writer, now func() time.Time, b grade.Backend,
	run func(ctx context.Context, t *stages.Task, sf *grade.StageFile) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// A results folder another user could redirect gets nothing, not
	// even a failed stage file.
	if err := pipeline.MakeResultsFolder(results, 0o700); err != nil {
		return &pipeline.Error{Code: pipeline.CouldNotRun, Err: err}
	}
	sf := &grade.StageFile{Stage: stage, TaskID: filepath.Base(taskArg), Path: filepath.Join(results, stage+".json"), Now: now(), Log: errOut}
	dirs, err := resolveTasks([]string{taskArg})
	if err != nil {
		return sf.Fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	sf.TaskID = filepath.Base(dirs[0])
	t, err := sf.Load(dirs[0])
	if err != nil {
		return err
	}
	return run(ctx, b.StageTask(t), sf)
}
