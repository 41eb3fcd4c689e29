package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// imageBuilder builds and loads one stage image of a task (srb build
// --load --stage STAGE).
type imageBuilder = image.StageBuilder

// defaultImageBuilder builds and loads t's stage image the way srb build
// --load --stage STAGE TASK does ([buildTasks] over [image.TaskBuild]),
// its output on w, on the engine newEngine returns; with noIdentity, --no-identity
// (srb freeze, which runs its own identity runs against a new truth).
// The behavioural image's identity run needs the verification image too
// (State A is built there), so that one is built and loaded in the same
// build rather than built again for the identity run.
func defaultImageBuilder(w io.Writer, newEngine func() (engine.Runner, error), noIdentity bool) imageBuilder {
	return func(ctx context.Context, t *task.Task, stage string) error {
		stages := []string{stage}
		if stage == result.StageBehavioural && !noIdentity {
			stages = []string{result.StageVerification, result.StageBehavioural}
		}
		cacheDir, err := resolveCache("")
		if err != nil {
			return err
		}
		return buildTasks(ctx, &BuildOptions{IO: IOStreams{Out: w, ErrOut: w}, Stages: stages, Load: true, Progress: "quiet",
			Engine: newEngine, NoIdentity: noIdentity, NoIdentityWhy: noIdentityWhy(noIdentity)}, cacheDir, []*task.Task{t}, nil)
	}
}

// readyStageImage is [image.ReadyStage] with srb's defaults: build nil
// is [defaultImageBuilder], and what it does is logged on w. It is what
// srb audit, srb behavioural and srb verification run before their
// containers start. Its errors are harness faults (exit 1) for the
// caller, except a build srb build refused on the task's own
// configuration (see [stageImageFailure]).
func readyStageImage(ctx context.Context, t *task.Task, stage, ref string, newEngine func() (engine.Runner, error),
	build imageBuilder, w io.Writer) (engine.Runner, *suite.Image, error) {
	if build == nil {
		build = defaultImageBuilder(w, newEngine, false)
	}
	return image.ReadyStage(ctx, t, stage, ref, newEngine, build, logTo(w))
}

// logTo is a logf printing "srb: " lines on w.
func logTo(w io.Writer) func(string, ...any) {
	return func(format string, args ...any) { fmt.Fprintf(w, "srb: "+format+"\n", args...) }
}

// stageImageFailure is how a stage command reports an error of
// [readyStageImage]: exit 2 with metadata.config_error when building the
// image failed on the task's own configuration (srb build exited 2: its
// assets, capability probes or identity run), else exit 1 (a harness
// fault: no engine, a build that could not run) with no metadata.
func stageImageFailure(err error) (int, map[string]any) {
	if ee := (*exitError)(nil); errors.As(err, &ee) && ee.code == ExitBadTask {
		return ExitBadTask, map[string]any{"config_error": true}
	}
	return ExitCouldNotRun, nil
}
