package grade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// Backend is where srb's stages get what a task alone does not say:
// State A's tree from the source cache, the container engine, and the
// build of a stage image the engine lacks. Its zero value is srb's
// defaults (the default cache, Docker, [image.LoadingBuilder]).
type Backend struct {
	// CacheDir is the State A cache folder; "" is
	// source.DefaultCacheDir, resolved when State A is needed.
	CacheDir string
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// Build builds and loads a missing or stale stage image; nil is
	// [image.LoadingBuilder] in srb's default cache. An error that is an
	// [*image.TaskFault] is the task's own configuration's fault.
	Build image.StageBuilder
}

// StateA is a fresh copy of t's State A from b's cache ([StateATree])
// and its cleanup. An archive that is not the pinned State A is a
// [*pipeline.Error] with Code pipeline.BadTask.
func (b Backend) StateA(ctx context.Context, t *task.Task) (string, func(), error) {
	cacheDir := b.CacheDir
	if cacheDir == "" {
		d, err := source.DefaultCacheDir()
		if err != nil {
			return "", nil, err
		}
		cacheDir = d
	}
	dir, cleanup, err := StateATree(ctx, t, cacheDir)
	// An archive that is not the pinned State A is the task's
	// configuration (srb freeze refuses it, exit 2).
	if mm := (*source.MismatchError)(nil); errors.As(err, &mm) {
		err = &pipeline.Error{Code: pipeline.BadTask, Err: err}
	}
	return dir, cleanup, err
}

// Builder is b.Build, else [image.LoadingBuilder] in srb's default
// cache on b's engine, printing what it builds on w; noIdentity skips
// the identity run (srb freeze's builds).
func (b Backend) Builder(w io.Writer, noIdentity bool) image.StageBuilder {
	if b.Build != nil {
		return b.Build
	}
	return func(ctx context.Context, t *task.Task, stage string) error {
		cacheDir, err := source.DefaultCacheDir()
		if err != nil {
			return err
		}
		stateA := func(ctx context.Context, t *task.Task) (string, func(), error) { return StateATree(ctx, t, cacheDir) }
		return image.LoadingBuilder(w, cacheDir, b.Engine, noIdentity, stateA)(ctx, t, stage)
	}
}

// StageTask is t as the stages read it ([StageTask]) with b's providers:
// State A from the cache ([Backend.StateA]) and each stage image readied
// by [image.ReadyStage] on b's engine with b's builder, logged on the
// stage's log; a build the task's configuration refused is a
// [*pipeline.Error] with Code pipeline.BadTask.
func (b Backend) StageTask(t *task.Task) *stages.Task {
	return StageTask(t, Providers{
		StateA: func(ctx context.Context) (string, func(), error) { return b.StateA(ctx, t) },
		Images: func(ctx context.Context, stage, ref string, w io.Writer) (engine.Runner, *suite.Image, error) {
			eng, img, err := image.ReadyStage(ctx, t, stage, ref, b.Engine, b.Builder(w, false), LogTo(w))
			if tf := (*image.TaskFault)(nil); errors.As(err, &tf) {
				err = &pipeline.Error{Code: pipeline.BadTask, Err: err}
			}
			return eng, img, err
		},
	})
}

// FreezeImages are the engine and t's verification and behavioural
// images a freeze in the images runs in ([image.FreezeImages] with b's
// builder, which skips srb build's identity run: srb freeze runs its
// own, against the truth it is about to record); builds print on w.
func (b Backend) FreezeImages(ctx context.Context, t *task.Task, w io.Writer) (engine.Runner, map[string]*suite.Image, error) {
	return image.FreezeImages(ctx, t, b.Engine, b.Builder(w, true), LogTo(w))
}

// LogTo is a logf printing "srb: " lines on w.
func LogTo(w io.Writer) func(string, ...any) {
	return func(format string, args ...any) { fmt.Fprintf(w, "srb: "+format+"\n", args...) }
}

// StageFile is the result file of a stage run alone (srb audit,
// behavioural, verification) before its stage starts: which stage
// (result.StageAudit, StageBehavioural or StageVerification), the task
// id it names (the folder's name until the task is loaded), its path
// (RESULTS/<stage>.json), the clock reading it is stamped with and the
// writer its problems go to.
type StageFile struct {
	Stage  string
	TaskID string
	Path   string
	Now    time.Time
	Log    io.Writer
}

// Fail publishes a failed stage result naming reason, with meta merged
// into its metadata, so an absent file never reads as "the ladder
// stopped below"; it returns a [*pipeline.Error] with code
// (pipeline.CouldNotRun or pipeline.BadTask) and "<stage>: <reason>". A
// result that cannot be written is reported on Log.
func (s *StageFile) Fail(code int, reason string, meta map[string]any) error {
	return stages.PublishFailed(s.Path, s.Stage, s.TaskID, s.Now, s.Log, code, reason, meta)
}

// Load loads the task folder dir. When it cannot be read, its problems
// are printed on Log and a failed result with config_error is published
// (pipeline.BadTask); once it is read, the result names the task's own
// id.
func (s *StageFile) Load(dir string) (*task.Task, error) {
	t, problems := task.Load(dir)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(s.Log, p.Format(""))
		}
		return nil, s.Fail(pipeline.BadTask, fmt.Sprintf("the task %s cannot be read (%d problem(s)); run srb validate", dir, len(problems)),
			map[string]any{"config_error": true})
	}
	s.TaskID = t.ID
	return t, nil
}
