// Package stages is the three stages of the ladder as a Go API: [Audit]
// (stage 1, the model reviews), [Behavioural] (stage 2, the suite against
// State A's truth) and [Verification] (stage 3, the adversaries' rounds),
// each over one submission, writing its stage file (audit.json,
// behavioural.json, verification.json) into the results folder on every
// path that can name the task, a failed one when it could not run.
// [Ladder] wraps the three as [pipeline.Stages], so a
// [pipeline.Grader] grades with them. [Freeze] records a task's ground
// truth for stage 2 from State A and proves it reproduces.
//
// What a stage needs of the task is a [Task]: the task's facts the stages
// read (gates, adversaries, timeouts, limits…) and the few things only
// the harness that owns the task model can provide, injected as
// functions: the behavioural declaration, State A's tree, the stage
// images (found, built and loaded), the provenance stamped into each
// stage file and the tree digest the audit's resume checks. srb builds it
// from its task model (internal/grade's StageTask); another harness builds
// its own.
//
// A stage's error is a [*pipeline.Error] naming its exit class
// ([pipeline.CouldNotRun], a fault of the grader, or [pipeline.BadTask],
// the task's own configuration); the stage's result is in its stage file
// whatever the error.
package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/suite"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

func couldNotRun(err error) error { return &pipeline.Error{Code: pipeline.CouldNotRun, Err: err} }

// Task is what the stages read of one task, and what the harness that
// owns the task model provides for it.
type Task struct {
	// ID is the task's id; every stage file names it.
	ID string
	// Dir is the task folder: prompts, scripts and the assets
	// (modules/, data/, truth/) are read from it.
	Dir string
	// Policy is the task's scoring policy (stage 3's gate reads it).
	Policy scoring.Policy
	// Limits bound every stage container.
	Limits engine.Limits
	// AuditTimeout, BehaviouralTimeout and VerificationTimeout are the
	// stages' clocks, in seconds (0: the audit's reviews have no budget).
	AuditTimeout, BehaviouralTimeout, VerificationTimeout int

	// Audit is stage 1's declaration.
	Audit AuditSpec
	// Verification is stage 3's declaration.
	Verification VerificationSpec

	// Declaration returns stage 2's declaration (modules, configurations,
	// truth) over the task folder; its error is the task's configuration.
	Declaration func() (*behavioural.Declaration, error)
	// StateA materialises State A's tree for a stage given none; cleanup
	// removes it.
	StateA func(ctx context.Context) (dir string, cleanup func(), err error)
	// Images finds stage's image (ref "" is the task's own, else the
	// image ref names), builds and loads it when missing or stale
	// (logging on log), and returns the engine it is on. A [*pipeline.Error] with
	// Code [pipeline.BadTask] says the build failed on the task's configuration.
	Images func(ctx context.Context, stage, ref string, log io.Writer) (engine.Runner, *suite.Image, error)
	// Provenance is what stage runs with (ref: the image an option names,
	// "" the task's; host: on this machine); it is stamped into the stage
	// file whatever the stage wrote. Nil stamps nothing.
	Provenance func(stage, ref string, host bool) result.Provenance
	// TreeDigest is the digest of a tree the audit's resume checks its
	// inputs by.
	TreeDigest func(dir string) (string, error)
}

// AuditSpec is the task's audit block.
type AuditSpec struct {
	// Model is the reviews' model position.
	Model models.Config
	// Samples is how many reviews vote (0: [audit.DefaultSamples]).
	Samples int
	// Prompt is the prompt template's path, relative to the task folder.
	Prompt string
	// AllowedCommands are what the run tool may run (none: no run tool).
	AllowedCommands []string
	// RunTimeoutSec bounds each run, in seconds.
	RunTimeoutSec int
	// Gates are the questions the reviews answer.
	Gates []audit.Gate
	// OriginalMount and WorkspaceMount are where the audit image's
	// containers hold State A and the submission.
	OriginalMount, WorkspaceMount string
}

// VerificationSpec is the task's verification block.
type VerificationSpec struct {
	// Prompt is the adversaries' prompt template's path, relative to the
	// task folder.
	Prompt string
	// CandidateCommand runs a candidate test; CandidateTimeoutSec bounds
	// each run (seconds); FaultExitCodes are exit codes that are faults,
	// not verdicts; NetworkAllowed lets candidates reach the network.
	CandidateCommand    []string
	CandidateTimeoutSec int
	FaultExitCodes      []int
	NetworkAllowed      bool
	// WarmCommand, when set, runs once per stage before the first round,
	// with no tree, as the candidates' user; what it leaves in its HOME
	// starts every tree's HOME for its warm-up run (verification.WarmConfig;
	// the task's verification.warm_command). WarmTimeoutSec bounds it
	// (seconds; 0: 600).
	WarmCommand    []string
	WarmTimeoutSec int
	// WarmUpTimeoutSec bounds each tree's warm-up run, the candidate
	// runner building the tree before a round's first candidate
	// (seconds; 0: CandidateTimeoutSec; the task's
	// verification.warm_up_timeout_sec, verification.ContainerConfig's
	// WarmUpTimeout).
	WarmUpTimeoutSec int
	// RunTimeoutSec bounds each of an adversary's commands (seconds);
	// AllowedCommands are what it may run.
	RunTimeoutSec   int
	AllowedCommands []string
	// Scope is what adversaries may and may not aim at.
	Scope verification.Scope
	// Reruns and RequireDeterministic decide how a break is confirmed.
	Reruns               int
	RequireDeterministic bool
	// Adversaries are the rounds, each with its model position
	// (AdversaryModels[i] is Adversaries[i]'s).
	Adversaries     []verification.Adversary
	AdversaryModels []models.Config
	// Adjudicator is the adjudicator's model position.
	Adjudicator models.Config
	// Assets is where the verification image holds the task's assets
	// (on this machine, the task folder stands for it).
	Assets string
	// AssetProblem, when set, says what is wrong with a candidate
	// command's argument arg that names a path under Assets the task
	// folder lacks ("" when nothing is), so a mistyped path is the task's
	// configuration once, not every round's fault.
	AssetProblem func(arg string) string
}

// Positions are the model positions of t's stages (result.StageAudit,
// result.StageVerification), named as task.cue names them, for
// [models.Preflight]: the ladder checks every credential it will need
// before it starts a container. Each has its own copy of the options.
func (t *Task) Positions(stages ...string) []models.Position {
	conv := func(where string, m models.Config) models.Position {
		m.Options = copyOptions(m.Options)
		return models.Position{Where: where, Config: m}
	}
	var out []models.Position
	for _, s := range stages {
		switch s {
		case result.StageAudit:
			out = append(out, conv("audit", t.Audit.Model))
		case result.StageVerification:
			out = append(out, conv("verification.adjudicator", t.Verification.Adjudicator))
			for i, a := range t.Verification.Adversaries {
				out = append(out, conv(fmt.Sprintf("verification.adversaries[%s]", a.ID), t.Verification.AdversaryModels[i]))
			}
		}
	}
	return out
}

func copyOptions(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stageRun is one stage's run: which stage, the task, its result file and
// the clock reading the result is stamped with.
type stageRun struct {
	stage  string
	taskID string
	out    string // RESULTS/<stage>.json
	now    time.Time
	log    io.Writer
}

func newRun(stage string, t *Task, results string, now func() time.Time, log io.Writer) *stageRun {
	return &stageRun{stage: stage, taskID: t.ID, out: filepath.Join(results, stage+".json"), now: now(), log: log}
}

// fail publishes a failed stage result naming reason, with meta merged
// into its metadata, so an absent file never reads as "the ladder stopped
// below"; it returns a [*pipeline.Error] with code. A result that cannot be
// written is reported on the log.
func (s *stageRun) fail(code int, reason string, meta map[string]any) error {
	return PublishFailed(s.out, s.stage, s.taskID, s.now, s.log, code, reason, meta)
}

// PublishFailed writes a failed result of stage for the task taskID at
// path (RESULTS/<stage>.json), stamped now, naming reason, with meta
// merged into its metadata, so an absent file never reads as "the ladder
// stopped below"; it returns a [*pipeline.Error] with code
// (pipeline.CouldNotRun or pipeline.BadTask) and "<stage>: <reason>". A
// result that cannot be written is reported on log ("srb: " lines).
func PublishFailed(path, stage, taskID string, now time.Time, log io.Writer, code int, reason string, meta map[string]any) error {
	st := result.Failed(stage, taskID, reason, now)
	for k, v := range meta {
		st.Metadata[k] = v
	}
	if werr := st.Write(path); werr != nil {
		fmt.Fprintf(log, "srb: %v\n", werr)
	}
	return &pipeline.Error{Code: code, Err: fmt.Errorf("%s: %s", stage, reason)}
}

// stamp records t's provenance for the stage in its result when this run
// wrote it: a stage defers it first, so every path that publishes a
// result — a failure included — publishes its provenance. A result left
// by an earlier run (a stage not earned writes none) is not touched.
func (s *stageRun) stamp(t *Task, ref string, host bool) func() {
	if t.Provenance == nil {
		return func() {}
	}
	before, _ := os.Stat(s.out)
	p := t.Provenance(s.stage, ref, host)
	return func() {
		after, err := os.Stat(s.out)
		if err != nil || (before != nil && os.SameFile(before, after) && before.ModTime().Equal(after.ModTime())) {
			return
		}
		Stamp(s.out, p, s.log)
	}
}

// Stamp records p in the stage result at path; one that does not read
// is left as it is and the reason printed on log.
func Stamp(path string, p result.Provenance, log io.Writer) {
	st, err := result.ReadStage(path)
	if err == nil {
		p.Apply(st)
		err = st.Write(path)
	}
	if err != nil {
		fmt.Fprintf(log, "srb: the stage's provenance could not be recorded: %v\n", err)
	}
}

// imageFailure is how a stage reports an error of Task.Images: [pipeline.BadTask]
// with metadata.config_error when the build failed on the task's own
// configuration, else [pipeline.CouldNotRun] with no metadata.
func imageFailure(err error) (int, map[string]any) {
	if pipeline.Code(err) == pipeline.BadTask {
		return pipeline.BadTask, map[string]any{"config_error": true}
	}
	return pipeline.CouldNotRun, nil
}

// original returns dir when set (checked to be a folder; what names it
// in an error), else State A from t.StateA; cleanup is never nil.
func original(ctx context.Context, t *Task, dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	if t.StateA == nil {
		return "", nil, errors.New("no State A: give the stage the original tree")
	}
	return t.StateA(ctx)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func orNow(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// LadderOptions are what a ladder's three stages share.
type LadderOptions struct {
	// Host runs the stages on this machine instead of in the task's
	// stage images.
	Host bool
	// Helper is stage 2's helper argv prefix on a Host run.
	Helper []string
	// HomeSeed is stage 3's [VerificationOptions.HomeSeed] on a Host run.
	HomeSeed string
	// Lookup reads credentials by name; nil is os.LookupEnv.
	Lookup func(string) (string, bool)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Ladder returns t's three stages as [pipeline.Stages]: the audit, the
// behavioural suite and the verification rounds, each in the task's
// stage image (through t.Images) or, with opts.Host, on this machine.
// Each writes its stage file and prints its lines (summary and progress)
// on the submission's log.
func Ladder(t *Task, opts LadderOptions) pipeline.Stages {
	return pipeline.Stages{
		Audit: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			return Audit(ctx, t, AuditOptions{Submission: in.Submission, Results: in.Results, Original: in.Original,
				Driver: in.Drivers.Audit, Host: opts.Host, Lookup: opts.Lookup, Now: opts.Now, Out: in.Log, Log: in.Log})
		}),
		Behavioural: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			// The image was readied by the pipeline; the stage finds it
			// again by its lock, so its provenance names images.lock's
			// digest.
			bo := BehaviouralOptions{Submission: in.Submission, Results: in.Results, Original: in.Original, Host: opts.Host,
				Now: opts.Now, Out: in.Log, Log: in.Log}
			if opts.Host {
				bo.Helper = opts.Helper
			}
			return Behavioural(ctx, t, bo)
		}),
		Verification: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			d := in.Drivers
			return Verification(ctx, t, VerificationOptions{Submission: in.Submission, Original: in.Original, Results: in.Results,
				KeepWork: in.Work, Adjudicator: d.Adjudicator, Adversaries: d.Adversaries, Adversary: d.Adversary, Host: opts.Host, HomeSeed: opts.HomeSeed,
				Image: in.Image, Lookup: opts.Lookup, Now: opts.Now, Out: in.Log, Log: in.Log})
		}),
	}
}

// closeToGraded makes each of dirs (the grader's results and logs folders,
// created when missing) 0700 when srb runs as root on this machine
// (--host): no graded uid (a tree's candidates, the programs srb's
// launcher runs for them, stage 2's submission, the audit's run tool) can
// then enter it. Stage 3's transcripts there hold every candidate's code,
// its expected output included, while later candidates of the round still
// run, and another submission graded on this machine at the same time has
// graded uids of its own (issue 14: the graded party learns no grader
// path's content; a break attempt read round-<adversary>.jsonl from a
// launched program and passed every candidate: fixture
// answer-from-transcript). In the images the graded code never sees this
// machine's folders.
//
// A folder srb made stays 0700. One that was there before (the
// operator's: --results .) is closed while the stage runs and given its
// mode back by restore, which the caller runs when the stage ends; each
// such folder is named in logs. A folder shared with others (/, or one
// that anyone may write, as /tmp, each judged after its links are
// resolved) is left as it is, and so is one named by a link another
// user made; the returned notes name each such folder, and any that could
// not be closed. restore is never nil.
func closeToGraded(dirs ...string) (notes, logs []string, restore func()) {
	restore = func() {}
	if os.Geteuid() != 0 {
		return nil, nil, restore
	}
	type back struct {
		dir  string
		mode os.FileMode
	}
	var undo []back
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		li, existed := os.Lstat(abs)
		if existed == nil && li.Mode()&os.ModeSymlink != 0 {
			// A link another user made (a graded uid of an earlier run
			// can make one at a name in /tmp) would have srb close,
			// while a stage runs, whatever folder it names (/etc).
			if st, ok := li.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
				notes = append(notes, fmt.Sprintf("%s is a link made by uid %d, so the folder it leads to was left as it is: what srb writes there is readable by the graded processes on this machine; give --results a folder of its own", abs, st.Uid))
				continue
			}
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			notes = append(notes, fmt.Sprintf("%s could not be made: %v", abs, err))
			continue
		}
		// Judged, and changed, as the folder the links lead to: a
		// --results that is a link to / is /.
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", abs, err))
			continue
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		fi, err := os.Stat(real)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", abs, err))
			continue
		}
		if real == "/" || fi.Mode()&(os.ModeSticky|0o002) != 0 {
			notes = append(notes, abs+" is shared with other users (/ or writable by anyone), so it was left open: what srb writes there (transcripts with every candidate's code) is readable by the graded processes on this machine; give --results a folder of its own")
			continue
		}
		mode := fi.Mode().Perm() | fi.Mode()&(os.ModeSetgid|os.ModeSetuid|os.ModeSticky)
		if fi.Mode().Perm() == 0o700 {
			continue
		}
		if err := os.Chmod(real, 0o700); err != nil {
			notes = append(notes, fmt.Sprintf("%s could not be closed to the graded processes: %v", abs, err))
			continue
		}
		if existed == nil {
			undo = append(undo, back{real, mode})
			logs = append(logs, fmt.Sprintf("%s was there before, mode %04o: closed (0700) while the stage runs and given its mode back after, so what srb leaves in it is readable by the graded processes of later runs on this machine; give --results a folder of its own to keep it closed", abs, mode.Perm()))
		}
	}
	restore = func() {
		for _, u := range undo {
			os.Chmod(u.dir, u.mode)
		}
	}
	return notes, logs, restore
}
