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

// Image labels srb's compiler sets on every stage image (internal/image).
const (
	labelTaskID = image.LabelTask
	labelStateA = image.LabelStateA
	labelStage  = image.LabelStage
)

// imageBuilder builds and loads one stage image of a task (srb build
// --load --stage STAGE).
type imageBuilder func(ctx context.Context, t *task.Task, stage string) error

// defaultImageBuilder is srb build --load --stage STAGE TASK, its output
// on w, on the engine newEngine returns; with noIdentity, --no-identity
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
		return runBuild(ctx, &BuildOptions{IO: IOStreams{Out: w, ErrOut: w}, Tasks: []string{t.Dir}, Stages: stages,
			Load: true, Progress: "quiet", Engine: newEngine, NoIdentity: noIdentity, NoIdentityWhy: noIdentityWhy(noIdentity)})
	}
}

// mislabelled says how info's labels differ from t's stage image ("is
// labelled for task …", "was built from State A …", "is labelled as the
// … image"), or "" when they name t, t's State A and stage.
func mislabelled(info *engine.ImageInfo, t *task.Task, stage string) string {
	if id := info.Labels[labelTaskID]; id != t.ID {
		return fmt.Sprintf("is labelled for task %q", id)
	}
	if sa := info.Labels[labelStateA]; sa != t.StateA.SHA256 {
		return fmt.Sprintf("was built from State A %.12s, the task pins %.12s", sa, t.StateA.SHA256)
	}
	if st := info.Labels[labelStage]; st != stage {
		return fmt.Sprintf("is labelled as the %q image", st)
	}
	return ""
}

// findStageImage returns t's stage image on eng: the image whose id is
// the config digest t's images.lock records for the stage (looked up by
// that id, so a tag another srb moved does not matter), when its labels
// name t, t's State A and the stage. When there is none, or it is stale
// (or the lockfile cannot vouch for it), build builds and loads it (nil
// build: the reason is returned as an error), which rewrites the
// lockfile, and it is looked up again.
func findStageImage(ctx context.Context, t *task.Task, stage string, eng engine.Runner, build imageBuilder, logf func(string, ...any)) (*suite.Image, error) {
	tag := image.Tag(t, stage)
	look := func() (*suite.Image, string, error) {
		lock, err := image.ReadLock(t.Dir)
		if err != nil && !errors.Is(err, image.ErrNoLock) {
			return nil, "", err
		}
		var li image.LockImage
		if lock != nil {
			li = lock.Images[stage]
		}
		// The image the lockfile records is looked up by its id first: a
		// tag is a name another srb (another checkout, another test) may
		// have moved to another build since, while the id is the content.
		if li.Config != "" {
			info, err := eng.Image(ctx, li.Config)
			if err != nil && !errors.Is(err, engine.ErrNoImage) {
				return nil, "", err
			}
			// The labels are checked as well: a lockfile merged by hand may
			// record another stage's (or another task's) image.
			if err == nil && info.ID == li.Config && mislabelled(info, t, stage) == "" {
				return &suite.Image{Stage: stage, Ref: info.ID, Tag: tag, Digest: li.Digest}, "", nil
			}
		}
		info, err := eng.Image(ctx, tag)
		if errors.Is(err, engine.ErrNoImage) {
			return nil, "the engine has no " + tag, nil
		}
		if err != nil {
			return nil, "", err
		}
		if why := mislabelled(info, t, stage); why != "" {
			return nil, tag + " " + why, nil
		}
		if lock == nil {
			return nil, fmt.Sprintf("the task has no %s to say which %s is current", image.LockName, tag), nil
		}
		switch _, ok := lock.Images[stage]; {
		case !ok:
			return nil, fmt.Sprintf("%s records no %s image", image.LockName, stage), nil
		case li.Config == "":
			return nil, fmt.Sprintf("%s records no config digest for the %s image (written before srb recorded it)", image.LockName, stage), nil
		}
		return nil, fmt.Sprintf("%s is %.19s, not the image %s records (%.19s)", tag, info.ID, image.LockName, li.Config), nil
	}
	helperless := func(si *suite.Image) error {
		if si == nil || (stage != result.StageBehavioural && stage != result.StageVerification) {
			return nil
		}
		if lock, err := image.ReadLock(t.Dir); err == nil && lock.Images[stage].Inputs["helper"] == "" {
			return fmt.Errorf("%s has no srb-helper at %s: it was built outside srb's source tree (srb build builds the helper from %s); run srb build --load --stage %s %s from a checkout of srb",
				si.Tag, image.HelperPath, image.HelperPackage, stage, t.ID)
		}
		return nil
	}
	si, why, err := look()
	if err != nil {
		return nil, err
	}
	if si != nil {
		return si, helperless(si)
	}
	if build == nil {
		return nil, fmt.Errorf("%s: run srb build --load --stage %s %s", why, stage, t.ID)
	}
	logf("%s: building it (srb build --load --stage %s)", why, stage)
	if err := build(ctx, t, stage); err != nil {
		return nil, fmt.Errorf("building the %s image: %w", stage, err)
	}
	si, why, err = look()
	if err != nil {
		return nil, err
	}
	if si == nil {
		return nil, fmt.Errorf("after srb build --load: %s", why)
	}
	return si, helperless(si)
}

// readyStageImage connects to the container engine newEngine returns (nil:
// engine.NewDocker) and returns it with the image a stage's containers
// start from: ref when it is not "" (--image REF, which must exist on the
// engine), else t's stage image found by [findStageImage], built and
// loaded with build (nil: [defaultImageBuilder], its output on w) when it
// is missing or images.lock does not vouch for it. It is what srb audit,
// srb behavioural and srb verification run before their containers start,
// and what srb ladder runs once per stage before the submissions start.
// An engine that cannot be reached is an error starting "the container
// engine: "; an image that cannot be found or built one starting "the
// <stage> image". Either is a harness fault (exit 1) for the caller,
// except a build srb build refused on the task's own configuration (see
// [stageImageFailure]).
func readyStageImage(ctx context.Context, t *task.Task, stage, ref string, newEngine func() (engine.Runner, error),
	build imageBuilder, w io.Writer) (engine.Runner, *suite.Image, error) {
	if newEngine == nil {
		newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
	}
	eng, err := newEngine()
	if err != nil {
		return nil, nil, fmt.Errorf("the container engine: %w", err)
	}
	if ref != "" {
		info, err := eng.Image(ctx, ref)
		if err != nil {
			return nil, nil, fmt.Errorf("the %s image %s: %w", stage, ref, err)
		}
		return eng, &suite.Image{Stage: stage, Ref: info.ID, Tag: ref}, nil
	}
	if build == nil {
		build = defaultImageBuilder(w, newEngine, false)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(w, "srb: "+format+"\n", args...) }
	img, err := findStageImage(ctx, t, stage, eng, build, logf)
	if err != nil {
		return nil, nil, fmt.Errorf("the %s image: %w", stage, err)
	}
	return eng, img, nil
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
