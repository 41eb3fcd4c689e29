package cli

import (
	"context"
	"errors"
	"io"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
	"github.com/swe-refactor-bench/srb/ladder/verification"
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

// stageTask is t as the stages read it ([stages.Task]), with srb's
// providers: the behavioural declaration (image.Declaration), State A
// from the cache cacheFlag names, the stage images readied by
// [readyStageImage] on newEngine (build nil: srb build --load), the
// provenance of [stageProvenance] and image.TreeDigest.
func stageTask(t *task.Task, newEngine func() (engine.Runner, error), build imageBuilder, cacheFlag string) *stages.Task {
	model := func(m task.Model) models.Config {
		return models.Config{Driver: m.Driver, Model: m.Model, Effort: m.Effort, Options: m.Options}
	}
	v := &stages.Task{
		ID: t.ID, Dir: t.Dir, Policy: TaskPolicy(t), Limits: image.StageLimits(t),
		AuditTimeout: t.Timeouts.Audit, BehaviouralTimeout: t.Timeouts.Behavioural, VerificationTimeout: t.Timeouts.Verification,
		Audit: stages.AuditSpec{Model: model(t.Audit.Model), Samples: t.Audit.Samples, Prompt: t.Audit.Prompt,
			AllowedCommands: t.Audit.AllowedCommands, RunTimeoutSec: t.Audit.RunTimeoutSec,
			OriginalMount: image.OriginalMount, WorkspaceMount: image.AuditRepoMount},
		Declaration: func() (*behavioural.Declaration, error) { return image.Declaration(t) },
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
		Provenance: func(stage, ref string, host bool) result.Provenance { return stageProvenance(t, stage, ref, host) },
		TreeDigest: image.TreeDigest,
	}
	v.Audit.Gates = make([]audit.Gate, len(t.Audit.Gates))
	for i, g := range t.Audit.Gates {
		v.Audit.Gates[i] = audit.Gate{ID: g.ID, Title: g.Title, Question: g.Question, Required: g.Required}
	}
	tv := t.Verification
	v.Verification = stages.VerificationSpec{Prompt: tv.Prompt, CandidateCommand: tv.CandidateCommand,
		CandidateTimeoutSec: tv.CandidateTimeoutSec, FaultExitCodes: tv.FaultExitCodes, NetworkAllowed: tv.NetworkAllowed,
		RunTimeoutSec: tv.RunTimeoutSec, AllowedCommands: tv.AllowedCommands, Reruns: tv.Reruns,
		RequireDeterministic: tv.RequireDeterministic, Adjudicator: model(tv.Adjudicator), Assets: task.VerificationAssets,
		// The same rule srb validate runs (candidate-command), so they
		// cannot drift.
		AssetProblem: func(arg string) string { return task.CandidateAssetProblem(arg, t.Dir) }}
	for _, it := range tv.Scope.Allow {
		v.Verification.Scope.Allow = append(v.Verification.Scope.Allow, verification.ScopeItem{ID: it.ID, Text: it.Text})
	}
	for _, it := range tv.Scope.Deny {
		v.Verification.Scope.Deny = append(v.Verification.Scope.Deny, verification.ScopeItem{ID: it.ID, Text: it.Text})
	}
	v.Verification.Adversaries = make([]verification.Adversary, len(tv.Adversaries))
	v.Verification.AdversaryModels = make([]models.Config, len(tv.Adversaries))
	for i, a := range tv.Adversaries {
		v.Verification.Adversaries[i] = verification.Adversary{ID: a.ID, Direction: a.Direction, Focus: a.Focus,
			Unrestricted: a.Unrestricted, BudgetSec: float64(a.BudgetSec)}
		v.Verification.AdversaryModels[i] = model(a.Model)
	}
	return v
}

// taskPositions returns the model positions of t's stages (audit,
// verification), named as task.cue names them ([stages.Task.Positions]).
func taskPositions(t *task.Task, which ...string) []models.Position {
	return stageTask(t, nil, nil, "").Positions(which...)
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
