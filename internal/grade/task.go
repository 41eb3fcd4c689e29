// Package grade binds srb's tasks (internal/task) to the importable
// grader (ladder/stages, ladder/pipeline): a task as the stages read it
// (StageTask) with srb's providers (Backend: State A from the cache, the
// container engine, the stage-image builder), its scoring policy
// (TaskPolicy), what a stage runs with (Provenance), State A's tree
// (StateATree), a stage run alone's result file (StageFile), and srb
// ladder's batch (Ladder: naming the submissions with Plan, choosing each
// model position's driver with ResolveDrivers, Preflight, grading them
// concurrently with Batch.GradeAll, printing them with WriteRuns), srb
// score (Score) and the submission fixtures' uses (FixtureSolution,
// ApplyFixture, DriverFlags.AddFixture). The commands in internal/cli
// parse flags into these and print what they return.
package grade

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/stages"
	"github.com/swe-refactor-bench/srb/ladder/suite"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// Policy converts a task's scoring block into the scoring policy.
func Policy(s task.Scoring) scoring.Policy {
	return scoring.Policy{
		MaxScore:               s.MaxScore,
		BehaviouralPoints:      s.BehaviouralPoints,
		VerificationPoints:     s.VerificationPoints,
		VerificationModels:     s.VerificationModels,
		PointsPerSurvivedModel: s.PointsPerSurvivedModel,
	}
}

// TaskPolicy is t's scoring policy with t's declaration of what its stage
// results must hold: every behavioural module with its weight, and every
// adversary (see [scoring.Declaration]). srb score TASK and srb ladder
// grade with it, so the task's declaration wins over the files.
func TaskPolicy(t *task.Task) scoring.Policy {
	p := Policy(t.Scoring)
	d := &scoring.Declaration{Modules: []scoring.DeclaredModule{}, Adversaries: []string{}}
	for _, m := range t.Behavioural.Modules {
		d.Modules = append(d.Modules, scoring.DeclaredModule{ID: m.ID, Weight: m.Weight})
	}
	for _, a := range t.Verification.Adversaries {
		d.Adversaries = append(d.Adversaries, a.ID)
	}
	p.Task = d
	return p
}

// Providers are what StageTask cannot know from the task alone: where
// State A's tree comes from and how a stage image is made ready. Either
// may be nil when the caller only reads the view (Positions, say).
type Providers struct {
	// StateA returns a fresh copy of State A's tree and its cleanup
	// (StateATree over srb's cache, usually). A *pipeline.Error with
	// Code pipeline.BadTask says the task's configuration is at fault.
	StateA func(ctx context.Context) (string, func(), error)
	// Images finds (building and loading when missing or stale) the
	// task's image of stage (ref: an image to use instead, "" for the
	// task's own), logging on w; an error with Code pipeline.BadTask says
	// the task's configuration is at fault.
	Images func(ctx context.Context, stage, ref string, w io.Writer) (engine.Runner, *suite.Image, error)
}

// StageTask is t as the stages read it ([stages.Task]) with p's
// providers, the behavioural declaration (image.Declaration), the
// provenance of [Provenance] and image.TreeDigest.
func StageTask(t *task.Task, p Providers) *stages.Task {
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
		StateA:      p.StateA,
		Images:      p.Images,
		Provenance:  func(stage, ref string, host bool) result.Provenance { return Provenance(t, stage, ref, host) },
		TreeDigest:  image.TreeDigest,
	}
	v.Audit.Gates = make([]audit.Gate, len(t.Audit.Gates))
	for i, g := range t.Audit.Gates {
		v.Audit.Gates[i] = audit.Gate{ID: g.ID, Title: g.Title, Question: g.Question, Required: g.Required}
	}
	tv := t.Verification
	v.Verification = stages.VerificationSpec{Prompt: tv.Prompt, CandidateCommand: tv.CandidateCommand,
		WarmCommand: tv.WarmCommand, WarmTimeoutSec: tv.WarmTimeoutSec, WarmUpTimeoutSec: tv.WarmUpTimeoutSec,
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

// Positions returns the model positions of t's stages (which: some of
// result.StageAudit, result.StageVerification), named as task.cue names
// them ([stages.Task.Positions]).
func Positions(t *task.Task, which ...string) []models.Position {
	return StageTask(t, Providers{}).Positions(which...)
}

// Provenance is what a stage of t runs with: the task folder's commit
// (image.TaskCommit), State A's pin, srb's fingerprint and, unless it
// runs on the host, the stage image's digest (images.lock's; the tag srb
// gives the task's image when the task has no lock; ref when one is
// named) and the toolchains the task pins in that image.
func Provenance(t *task.Task, stage, ref string, host bool) result.Provenance {
	p := result.Provenance{TaskCommit: image.TaskCommit(context.Background(), t.Dir), StateA: t.StateA.SHA256,
		Images: map[string]string{}, Toolchains: map[string]string{}, SRB: result.Fingerprint(), Where: "host"}
	if host {
		return p
	}
	p.Where = "container"
	switch {
	case ref != "":
		p.Images[stage] = ref
	default:
		// images.lock's digest, which the stage checks the image it runs
		// against; a task with no lock ran the image srb built and tagged.
		p.Images[stage] = image.Tag(t, stage)
		if l, err := image.ReadLock(t.Dir); err == nil && l != nil {
			if im, ok := l.Images[stage]; ok && im.Digest != "" {
				p.Images[stage] = im.Digest
			}
		}
	}
	if si := t.Images.Stage(stage); si != nil {
		for _, pkg := range si.Packages {
			if name, ver, ok := strings.Cut(pkg, "="); ok {
				p.Toolchains[name] = ver
			}
		}
		for _, pkg := range si.NPM {
			if i := strings.LastIndex(pkg, "@"); i > 0 {
				p.Toolchains[pkg[:i]] = pkg[i+1:]
			}
		}
		if len(si.Go) > 0 {
			p.Toolchains["go"] = strings.Join(si.Go, ", ")
		}
	}
	return p
}

// StateATree materialises t's State A in the source cache at cacheDir
// (fetching it if need be) and extracts it into a temporary folder: it
// returns the tree's root and a cleanup that removes the folder. Errors
// are the cache's (a *source.MismatchError when the archive is not the
// pinned State A) or the extraction's.
func StateATree(ctx context.Context, t *task.Task, cacheDir string) (string, func(), error) {
	cache := &source.Cache{Dir: cacheDir}
	e, err := cache.Materialise(ctx, t.StateA, t.Dir, &source.Env{})
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "srb-state-a-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dir := filepath.Join(tmp, "tree")
	if err := archive.ExtractFile(e.Archive, dir, e.Limits); err != nil {
		cleanup()
		return "", nil, err
	}
	return archive.SingleTop(dir), cleanup, nil
}
