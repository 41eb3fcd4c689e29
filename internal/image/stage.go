package image

import (
	"context"
	"errors"
	"fmt"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// StageBuilder builds and loads one stage image of t on the engine (what
// srb build --load --stage STAGE does), rewriting t's images.lock.
type StageBuilder func(ctx context.Context, t *task.Task, stage string) error

// Mislabelled says how info's labels differ from t's stage image ("is
// labelled for task …", "was built from State A …", "is labelled as the
// … image"), or "" when they name t, t's State A and stage.
func Mislabelled(info *engine.ImageInfo, t *task.Task, stage string) string {
	if id := info.Labels[LabelTask]; id != t.ID {
		return fmt.Sprintf("is labelled for task %q", id)
	}
	if sa := info.Labels[LabelStateA]; sa != t.StateA.SHA256 {
		return fmt.Sprintf("was built from State A %.12s, the task pins %.12s", sa, t.StateA.SHA256)
	}
	if st := info.Labels[LabelStage]; st != stage {
		return fmt.Sprintf("is labelled as the %q image", st)
	}
	return ""
}

// FindStage returns t's stage image on eng: the image whose id is the
// config digest t's images.lock records for the stage (looked up by that
// id, so a tag another srb moved does not matter), when its labels name
// t, t's State A and the stage, and (the behavioural and verification
// images) the lockfile's "assets" input is the digest of the task
// folder's modules/, data/ and truth/ as they are now ([StaleAssets]).
// When there is none, or it is stale (or the lockfile cannot vouch for
// it), build builds and loads it (nil
// build: the reason is returned as an error), which rewrites the
// lockfile, and it is looked up again. A behavioural or verification
// image whose lockfile records no helper input is refused: it cannot run
// the suite. logf reports a build; it must not be nil.
func FindStage(ctx context.Context, t *task.Task, stage string, eng engine.Runner, build StageBuilder, logf func(string, ...any)) (*suite.Image, error) {
	tag := Tag(t, stage)
	look := func() (*suite.Image, string, error) {
		lock, err := ReadLock(t.Dir)
		if err != nil && !errors.Is(err, ErrNoLock) {
			return nil, "", err
		}
		var li LockImage
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
			if err == nil && info.ID == li.Config && Mislabelled(info, t, stage) == "" {
				// The image is the one the lockfile records; it is current
				// only if it holds the task folder's assets as they are now
				// (an edited scenario under data/ must not be graded with
				// the old one baked in).
				stale, err := StaleAssets(t, stage, li)
				if tfe := (*TaskFolderError)(nil); errors.As(err, &tfe) {
					return nil, err.Error(), nil
				}
				if err != nil {
					return nil, "", err
				}
				if stale != "" {
					return nil, stale, nil
				}
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
		if why := Mislabelled(info, t, stage); why != "" {
			return nil, tag + " " + why, nil
		}
		if lock == nil {
			return nil, fmt.Sprintf("the task has no %s to say which %s is current", LockName, tag), nil
		}
		switch _, ok := lock.Images[stage]; {
		case !ok:
			return nil, fmt.Sprintf("%s records no %s image", LockName, stage), nil
		case li.Config == "":
			return nil, fmt.Sprintf("%s records no config digest for the %s image (written before srb recorded it)", LockName, stage), nil
		}
		return nil, fmt.Sprintf("%s is %.19s, not the image %s records (%.19s)", tag, info.ID, LockName, li.Config), nil
	}
	helperless := func(si *suite.Image) error {
		if si == nil || (stage != result.StageBehavioural && stage != result.StageVerification) {
			return nil
		}
		if lock, err := ReadLock(t.Dir); err == nil && lock.Images[stage].Inputs["helper"] == "" {
			return fmt.Errorf("%s has no srb-helper at %s: it was built outside srb's source tree (srb build builds the helper from %s); run srb build --load --stage %s %s from a checkout of srb",
				si.Tag, HelperPath, HelperPackage, stage, t.ID)
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

// ReadyStage connects to the container engine newEngine returns (nil:
// engine.NewDocker) and returns it with the image a stage's containers
// start from: ref when it is not "" (an --image REF, which must exist on
// the engine), else t's stage image found by [FindStage], built and
// loaded with build when it is missing or images.lock does not vouch for
// it (nil build: that is an error). logf reports a build (nil: silent).
// An engine that cannot be reached is an error starting "the container
// engine: "; an image that cannot be found or built one starting "the
// <stage> image"; build's own error is wrapped.
func ReadyStage(ctx context.Context, t *task.Task, stage, ref string, newEngine func() (engine.Runner, error),
	build StageBuilder, logf func(string, ...any)) (engine.Runner, *suite.Image, error) {
	if newEngine == nil {
		newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
	}
	if logf == nil {
		logf = func(string, ...any) {}
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
	img, err := FindStage(ctx, t, stage, eng, build, logf)
	if err != nil {
		return nil, nil, fmt.Errorf("the %s image: %w", stage, err)
	}
	return eng, img, nil
}

// StageImages readies the stage images of one task: it implements
// [github.com/swe-refactor-bench/srb/ladder/pipeline.ImageProvider] with
// [ReadyStage], so the pipeline gets an image without knowing how one is
// found or built.
type StageImages struct {
	// Task is the task whose images are readied.
	Task *task.Task
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// Build builds and loads a stage image that is missing or stale; nil
	// refuses with the reason.
	Build StageBuilder
	// Log reports a build; nil is silent.
	Log func(format string, args ...any)
	// Hint, when set, is appended to an error in parentheses (srb ladder:
	// "srb ladder --host runs the stages here").
	Hint string
}

// Ready implements pipeline.ImageProvider: the image id of the stage's
// image.
func (s *StageImages) Ready(ctx context.Context, stage string) (string, error) {
	_, img, err := ReadyStage(ctx, s.Task, stage, "", s.Engine, s.Build, s.Log)
	if err != nil {
		if s.Hint != "" {
			return "", fmt.Errorf("%w (%s)", err, s.Hint)
		}
		return "", err
	}
	return img.Ref, nil
}

// FreezeImages connects to the engine newEngine returns (nil:
// engine.NewDocker) and returns it with t's verification and behavioural
// images, by stage: the images srb freeze records and checks the truth
// in, each found by [FindStage] (built and loaded with build when missing
// or stale). An error names the image ("the <stage> image: …"); the
// engine's own is returned as it is.
func FreezeImages(ctx context.Context, t *task.Task, newEngine func() (engine.Runner, error), build StageBuilder,
	logf func(string, ...any)) (engine.Runner, map[string]*suite.Image, error) {
	if newEngine == nil {
		newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
	}
	eng, err := newEngine()
	if err != nil {
		return nil, nil, err
	}
	images := map[string]*suite.Image{}
	for _, stage := range []string{result.StageVerification, result.StageBehavioural} {
		if images[stage], err = FindStage(ctx, t, stage, eng, build, logf); err != nil {
			return nil, nil, fmt.Errorf("the %s image: %w", stage, err)
		}
	}
	return eng, images, nil
}
