// Package pipeline grades one submission of one task with the whole
// ladder, as a Go API:
//
//	collect → stage 1 (audit) → stage 2 (behavioural, always) →
//	stage 3 (verification, when earned) → score
//
// publishing the results folder: audit.json, behavioural.json,
// verification.json (absent when stage 3 was not earned), score.json,
// summary.txt and reward.json, written last.
//
// What the pipeline owns: the order of the steps, the collection of the
// submitted tree with the task's exclusions ([collect]), the rule that
// stage 3 runs only when stage 1 passed and stage 2 is complete, the
// recording of a stage that left no result as a failed one (never "not
// run"), and the score. What it is given: the task's facts ([Task]),
// State A's tree, the stages themselves ([Stages]: srb's implementations
// run the audit's reviews, the behavioural suite and the verification
// rounds on an execution backend, on this machine or in the task's stage
// images through [github.com/swe-refactor-bench/srb/ladder/engine]), the
// model drivers of each position ([Drivers]) and, when the stages run in
// images, a provider that readies those images ([ImageProvider]) — the
// pipeline never builds an image itself.
//
// A fault of the grader (a stage that could not run, a results folder
// that does not add up) makes the verdict invalid; it is never the
// submission's zero.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/collect"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// Task is what the pipeline itself reads of a task; the stages read the
// rest of the task model on their own.
type Task struct {
	// ID is the task's id; every stage result and the verdict name it.
	ID string
	// Exclude is the task's artifacts.exclude: the patterns the
	// collection leaves out of the submitted tree (see [collect.Compile]).
	Exclude []string
	// Policy is the task's scoring policy with its declaration of modules
	// and adversaries (the score checks the stage files against it).
	Policy scoring.Policy
	// AuditDriver is the task's stage-1 driver, named in the progress line
	// when the submission's drivers do not override it.
	AuditDriver string
}

// Driver is one model position's override: the driver, the model and,
// for the scripted driver, the scripts (review n of stage 1 replays
// Scripts[(n-1) % len]). Zero fields keep the task's.
type Driver struct {
	Driver  string
	Model   string
	Scripts []string
}

// Apply returns cfg with d's overrides for the index-th call of the
// position (1-based; 0 counts as 1): a new driver drops the task's
// options (they belong to its own driver); a script sets
// options["script"].
func (d Driver) Apply(cfg models.Config, index int) models.Config {
	if d.Driver != "" && d.Driver != cfg.Driver {
		cfg.Driver = d.Driver
		cfg.Options = map[string]any{}
	}
	if d.Model != "" {
		cfg.Model = d.Model
	}
	if len(d.Scripts) > 0 {
		opts := make(map[string]any, len(cfg.Options)+1)
		for k, v := range cfg.Options {
			opts[k] = v
		}
		opts["script"] = d.Scripts[(max(index, 1)-1)%len(d.Scripts)]
		cfg.Options = opts
	}
	return cfg
}

// Drivers are a submission's overrides of the task's model positions.
type Drivers struct {
	// Audit is stage 1's reviews'.
	Audit Driver
	// Adjudicator is stage 3's adjudicator's.
	Adjudicator Driver
	// Adversary is every stage-3 adversary's that Adversaries does not
	// name.
	Adversary Driver
	// Adversaries are single adversaries' overrides, by adversary id.
	Adversaries map[string]Driver
}

// StageInput is what a stage is given for one submission.
type StageInput struct {
	// Submission is the collected submitted tree (read it; a stage that
	// runs commands runs them on its own copy).
	Submission string
	// Original is State A's tree (read-only to the stage).
	Original string
	// Results is the results folder; the stage writes <stage>.json (and
	// what its stage documents beside it) there.
	Results string
	// Work is a folder of this submission's the stage may use for its
	// work (kept when the caller asked to keep the work).
	Work string
	// Image is the stage image the provider readied for this stage ("" on
	// the host, or when the stage finds its own).
	Image string
	// Drivers are the submission's model-position overrides.
	Drivers Drivers
	// Log receives the stage's progress lines.
	Log io.Writer
}

// Stage runs one stage for one submission: it writes <stage>.json into
// in.Results, a failed result when it could not run. The error it returns
// is reported in [Outcome.StageErrors]; a stage that returns leaving no
// result is recorded as failed by the pipeline.
type Stage interface {
	Run(ctx context.Context, in StageInput) error
}

// StageFunc adapts a function to [Stage].
type StageFunc func(ctx context.Context, in StageInput) error

// Run implements [Stage].
func (f StageFunc) Run(ctx context.Context, in StageInput) error { return f(ctx, in) }

// Stages are the three stages of the ladder.
type Stages struct {
	Audit, Behavioural, Verification Stage
}

// ImageProvider readies a stage's image (finds it, builds and loads it
// when it is missing or stale) and returns the reference its containers
// start from. It is the only way the pipeline gets an image.
type ImageProvider interface {
	Ready(ctx context.Context, stage string) (ref string, err error)
}

// Grader grades submissions of one task against one State A. Its fields
// are read, never written, by Grade, so one Grader may grade several
// submissions at once (each with its own results folder).
type Grader struct {
	Task Task
	// Original is State A's tree.
	Original string
	// Stages run the three stages.
	Stages Stages
	// Now is the clock stage results and the verdict are stamped with;
	// nil is time.Now.
	Now func() time.Time
	// Resume keeps an earlier run's audit.json and verification.json in
	// the results folder (each stage resumes from its own file, checking
	// its inputs by digest); every other result file is removed first.
	Resume bool
	// StopNote, when set, words the log's reason stage 3 was not earned
	// from the scorer's why, the result of the stage that stopped the
	// ladder (nil when it left none) and its label ("stage 1", "stage
	// 2"); nil logs why itself.
	StopNote func(why string, st *result.Stage, stage string) string
	// KeepWork, when set, keeps each submission's collected tree and work
	// under KeepWork/<submission name>/; "" works in a temporary folder
	// removed afterwards.
	KeepWork string

	// images are the stage images Prepare readied, by stage.
	images map[string]string
}

// Prepare readies the behavioural and verification images with p, once
// for every submission the Grader then grades (so concurrent gradings
// never build one twice), logging each on log. A nil p (the stages run on
// this machine) readies nothing.
func (g *Grader) Prepare(ctx context.Context, p ImageProvider, log func(stage, ref string, took time.Duration)) error {
	if p == nil {
		return nil
	}
	g.images = map[string]string{}
	for _, stage := range []string{result.StageBehavioural, result.StageVerification} {
		start := time.Now()
		ref, err := p.Ready(ctx, stage)
		if err != nil {
			return err
		}
		g.images[stage] = ref
		if log != nil {
			log(stage, ref, time.Since(start))
		}
	}
	return nil
}

// Image is the ref Prepare readied for stage ("" when none was).
func (g *Grader) Image(stage string) string { return g.images[stage] }

// Submission is one submission to grade.
type Submission struct {
	// Name names it (its work folder under KeepWork).
	Name string
	// Tree is the submitted tree; ignored when Apply is set.
	Tree string
	// Apply, when set, makes the submitted tree at dst (e.g. a submission
	// fixture applied on top of original) and returns a line saying what
	// it did.
	Apply func(original, dst string) (string, error)
	// Results is its results folder (created when missing).
	Results string
	// Drivers are its model-position overrides.
	Drivers Drivers
	// Annotate, when set, is called on every verdict of this submission
	// before it is published, an invalid one included (srb ladder records
	// who made the submission in its metadata).
	Annotate func(*result.Verdict)
	// Log receives the pipeline's and the stages' progress lines; nil
	// discards them.
	Log io.Writer
}

// Outcome is how one grading ended.
type Outcome struct {
	// Verdict is the published verdict (reward.json); nil only when the
	// results folder could not be created (Err says why).
	Verdict *result.Verdict
	// StageErrors are the errors the stages returned, by stage.
	StageErrors map[string]error
	// BadTask says the task's own configuration is wrong (its exclusion
	// patterns do not compile).
	BadTask bool
	// Err is the pipeline's own fault (nil when the verdict was graded
	// from the stage files, valid or not).
	Err error
}

// ResultFiles are the files a grading writes into its results folder; a
// re-run removes them first, so nothing stale is graded.
var ResultFiles = []string{"audit.json", "behavioural.json", "verification.json", "score.json", "summary.txt", "reward.json"}

// resumedFiles are the stage files Resume keeps.
var resumedFiles = map[string]bool{"audit.json": true, "verification.json": true}

// ClearResults removes dir's [ResultFiles] (but audit.json and
// verification.json when resume) and returns the names it removed.
func ClearResults(dir string, resume bool) []string {
	var removed []string
	for _, name := range ResultFiles {
		if resume && resumedFiles[name] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// PublishError publishes an invalid verdict naming msg into dir (created
// when missing; refused as [CheckResultsFolder] says, nothing written),
// after removing the result files a grading would write (all but the
// resumed ones when resume). Each annotate is called on the verdict before
// it is published (e.g. to add metadata.config_error).
func PublishError(dir, taskID, msg string, resume bool, annotate ...func(*result.Verdict)) (*result.Verdict, error) {
	if err := MakeResultsFolder(dir, 0o755); err != nil {
		return nil, err
	}
	ClearResults(dir, resume)
	v := result.ErrorVerdict(taskID, msg)
	for _, f := range annotate {
		if f != nil {
			f(v)
		}
	}
	return v, result.Publish(dir, v, report.Render(v, taskID))
}

// PublishRefused publishes into dir (created when missing; refused as
// [CheckResultsFolder] says, nothing written) the verdict on
// a submission refused before grading for a fault of its own, why (a
// workspace past the bounds of its copy): score 0 of policy.MaxScore, and
// valid, since the number is a judgement about the submission; no stage
// ran. metadata.submission_refused holds why, and a note says it in words.
func PublishRefused(dir, taskID string, policy scoring.Policy, why string) (*result.Verdict, error) {
	if err := MakeResultsFolder(dir, 0o755); err != nil {
		return nil, err
	}
	ClearResults(dir, false)
	v := result.NewVerdict(taskID, policy.MaxScore)
	v.Metadata["submission_refused"] = why
	v.Metadata[result.MetaProvenance] = map[string]any{"srb": result.Fingerprint(), "stages": map[string]any{}}
	v.Notes = append(v.Notes, "the submission was refused before grading: "+why+"; no stage ran, and the score is the submission's own 0")
	return v, result.Publish(dir, v, report.Render(v, taskID))
}

// Grade grades sub: it collects the submitted tree, runs stage 1 and
// stage 2, stage 3 when earned, and scores the stage files into the
// published verdict. Every path publishes a verdict into sub.Results
// (an invalid one when the pipeline could not complete).
func (g *Grader) Grade(ctx context.Context, sub Submission) *Outcome {
	now := g.Now
	if now == nil {
		now = time.Now
	}
	out := &Outcome{StageErrors: map[string]error{}}
	logw := sub.Log
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "srb: ladder: "+format+"\n", args...) }
	fail := func(msg string) *Outcome {
		out.Err = errors.New(msg)
		v := result.ErrorVerdict(g.Task.ID, msg)
		if sub.Annotate != nil {
			sub.Annotate(v)
		}
		out.Verdict = v
		if err := result.Publish(sub.Results, v, report.Render(v, g.Task.ID)); err != nil {
			logf("%v", err)
		}
		return out
	}
	// A results folder the ladder makes is its user's alone (0700): stage
	// 3's transcripts there hold every candidate's code and expected
	// output, and with --host the graded processes run on this machine
	// (the stages close a folder that was there before while they run).
	if err := MakeResultsFolder(sub.Results, 0o700); err != nil {
		out.Err = err
		return out
	}
	if removed := ClearResults(sub.Results, g.Resume); len(removed) > 0 {
		logf("removed the previous run's %s", strings.Join(removed, ", "))
	}
	var work string
	if g.KeepWork != "" {
		work = filepath.Join(g.KeepWork, sub.Name)
		if err := os.RemoveAll(work); err != nil {
			return fail(err.Error())
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			return fail(err.Error())
		}
	} else {
		dir, err := os.MkdirTemp("", "srb-ladder-")
		if err != nil {
			return fail(err.Error())
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	timed := func(what string, step time.Time) { logf("%s (%s)", what, since(step)) }

	src := sub.Tree
	if sub.Apply != nil {
		step := time.Now()
		src = filepath.Join(work, "submitted")
		what, err := sub.Apply(g.Original, src)
		if err != nil {
			return fail(err.Error())
		}
		timed(what, step)
	}
	step := time.Now()
	set, err := collect.CompileAll(g.Task.Exclude)
	if err != nil {
		out.BadTask = true
		return fail("artifacts.exclude: " + err.Error())
	}
	repo := filepath.Join(work, "repo")
	sum, err := collect.CollectBounded(src, repo, set, collect.DefaultBounds)
	if be := (*collect.BoundError)(nil); errors.As(err, &be) {
		// The submitted tree is the submission's own: past a bound of its
		// collection it is refused, a valid 0, never an invalid verdict it
		// could choose, and never a partial tree graded.
		why := "the submitted tree cannot be collected: " + be.Error()
		logf("%s", why)
		v, perr := PublishRefused(sub.Results, g.Task.ID, g.Task.Policy, why)
		if v != nil && sub.Annotate != nil {
			sub.Annotate(v)
			perr = errors.Join(perr, result.Publish(sub.Results, v, report.Render(v, g.Task.ID)))
		}
		out.Verdict, out.Err = v, perr
		return out
	}
	if err != nil {
		return fail(err.Error())
	}
	timed(fmt.Sprintf("collected %d file(s), %d link(s)%s", sum.Files, sum.Links, excludedText(sum)), step)

	in := StageInput{Submission: repo, Original: g.Original, Results: sub.Results, Drivers: sub.Drivers, Log: logw}
	run := func(stage string, s Stage, in StageInput) {
		err := s.Run(ctx, in)
		if err != nil {
			out.StageErrors[stage] = err
			logf("%s: %v", stage, err)
		}
		p := filepath.Join(sub.Results, stage+".json")
		if _, serr := os.Stat(p); errors.Is(serr, fs.ErrNotExist) {
			// A stage that left no result is recorded as an error by the
			// ladder, never read as "not run".
			note := "the stage exited without a result"
			if err != nil {
				note = err.Error()
			}
			st := result.Failed(stage, g.Task.ID, "the "+stage+" stage left no result: "+note, now())
			st.Metadata["recorded_by"] = "ladder"
			if werr := st.Write(p); werr != nil {
				logf("%v", werr)
			}
		}
	}

	step = time.Now()
	run(result.StageAudit, g.Stages.Audit, in)
	timed("stage 1 (audit) with the "+cmpOr(sub.Drivers.Audit.Driver, g.Task.AuditDriver)+" driver", step)

	step = time.Now()
	bin := in
	bin.Image = g.Image(result.StageBehavioural)
	run(result.StageBehavioural, g.Stages.Behavioural, bin)
	timed("stage 2 (behavioural)", step)

	if ok, why, st, label := earned(sub.Results, g.Task.ID, g.Task.Policy, now()); !ok {
		if g.StopNote != nil {
			why = g.StopNote(why, st, label)
		}
		logf("verification: not run -- %s", why)
	} else {
		step = time.Now()
		vin := in
		vin.Work = filepath.Join(work, "verification")
		vin.Image = g.Image(result.StageVerification)
		run(result.StageVerification, g.Stages.Verification, vin)
		timed("stage 3 (verification)", step)
	}

	step = time.Now()
	v, err := Score(g.Task.ID, g.Task.Policy, sub.Results, true, now(), "", logw, sub.Annotate)
	if err != nil {
		out.Err = err
		return out
	}
	out.Verdict = v
	timed("scored", step)
	return out
}

// Earned says whether stage 3 is earned by the stage files in dir (stage
// 1 passed and stage 2 complete under policy) and, when not, why.
func Earned(dir, taskID string, policy scoring.Policy, now time.Time) (bool, string) {
	ok, why, _, _ := earned(dir, taskID, policy, now)
	return ok, why
}

// earned is [Earned] with, when stage 3 is not earned, the result of the
// stage that stopped the ladder and its label ("stage 1", "stage 2").
func earned(dir, taskID string, policy scoring.Policy, now time.Time) (bool, string, *result.Stage, string) {
	auditSt, _ := ReadStage(dir, result.StageAudit, taskID, true, now)
	behSt, _ := ReadStage(dir, result.StageBehavioural, taskID, true, now)
	if ok, why := scoring.AuditPassesGate(auditSt, policy, taskID); !ok {
		return false, why, auditSt, "stage 1"
	}
	if ok, _, why := scoring.BehaviouralReachesGate(behSt, policy, taskID); !ok {
		return false, why, behSt, "stage 2"
	}
	return true, "", nil, ""
}

func excludedText(s *collect.Summary) string {
	if len(s.Excluded) == 0 {
		return ""
	}
	var parts []string
	for pat, paths := range s.Excluded {
		parts = append(parts, fmt.Sprintf("%s: %d", pat, len(paths)))
	}
	sort.Strings(parts)
	return "; excluded " + strings.Join(parts, ", ")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func since(t time.Time) string {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
