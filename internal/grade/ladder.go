package grade

import (
	"context"
	"errors"
	"fmt"
	"github.com/swe-refactor-bench/srb/internal/archive"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// Ladder is srb ladder as a library: one task, a batch of submissions,
// each collected and graded by the whole ladder ([pipeline.Grader] over
// srb's stages), with its verdict published in its results folder.
// srb ladder and srb trial's verifier fill it from their flags and print
// what [Ladder.Run] returns.
type Ladder struct {
	// TaskDir is the task folder.
	TaskDir string
	// Submissions are submitted trees; Fixtures are submission fixtures,
	// applied on top of State A ([Plan] names them and their results
	// folders under Results, DIR/<name>/ each when there are several).
	Submissions, Fixtures []string
	Results               string
	// Jobs is how many submissions are graded at once (at least 1).
	Jobs int
	// KeepWork keeps each submission's collected tree and work under
	// KeepWork/<name>/; "" removes them.
	KeepWork string
	// Resume keeps the finished reviews and rounds of an earlier run on
	// the same results folder when their inputs' digests match, so stage
	// 1 re-runs only the reviews and stage 3 only the rounds that did not
	// finish; stage 2 and the score are always made anew
	// (pipeline.Grader.Resume).
	Resume bool
	// Cache is the State A cache folder the submissions are graded
	// against; "" is source.DefaultCacheDir.
	Cache string
	// Backend readies the stage images (its CacheDir is the stages'
	// when they run alone, not the ladder's).
	Backend Backend
	// Host runs the stages on this machine instead of in the task's
	// stage images; Helper is stage 2's helper there (a static
	// srb-helper, "" srb itself: [image.HostHelper]); HomeSeed seeds each
	// tree's HOME for its warm-up in stage 3's rounds
	// ([stages.VerificationOptions.HomeSeed]).
	Host     bool
	Helper   string
	HomeSeed string
	// DriverFlags are the operator's choice of drivers ([ResolveDrivers]
	// decides each submission's): Driver for every position no
	// per-position field names.
	DriverFlags
	// RunMeta says who made the submissions (Batch.RunMeta).
	RunMeta campaign.RunMetaFlags
	// Lookup reads the environment (drivers and credentials); nil is
	// os.LookupEnv. Now is the clock; nil is time.Now.
	Lookup func(string) (string, bool)
	Now    func() time.Time
	// Log receives the progress lines and each stage's lines (prefixed
	// with the submission's name when there are several); nil discards
	// them.
	Log io.Writer
}

// Stages are srb's three stages for a ladder run of t ([stages.Ladder]
// over l.Backend's view of t, [Backend.StageTask]). A --host helper that
// cannot be found leaves stage 2's Helper empty: stage 2 then fails,
// naming it, as the stage that could not run.
func (l *Ladder) Stages(t *task.Task) pipeline.Stages {
	lo := stages.LadderOptions{Host: l.Host, HomeSeed: l.HomeSeed, Lookup: l.Lookup, Now: l.Now}
	if l.Host {
		lo.Helper, _ = image.HostHelper(l.Helper)
	}
	return stages.Ladder(l.Backend.StageTask(t), lo)
}

// Run grades the batch: it names the submissions ([Plan]), loads the
// task, resolves each submission's drivers, checks every tree and
// credential ([Preflight]), readies State A and (unless Host) the
// behavioural and verification images once, then grades the submissions
// Jobs at a time ([Batch.GradeAll]) and returns them with their
// verdicts. What stops the batch before grading publishes an invalid
// verdict for every submission and is returned: a [*NameClashError]
// (two submissions with one name, nothing published), or a
// [*pipeline.Error] whose Code is pipeline.BadTask (the task cannot be
// read, or building a stage image failed on its configuration:
// metadata.config_error) or pipeline.CouldNotRun.
func (l *Ladder) Run(ctx context.Context) ([]*Run, error) {
	if l.Lookup == nil {
		l.Lookup = os.LookupEnv
	}
	log := l.Log
	if log == nil {
		log = io.Discard
	}
	log = &lockedWriter{w: log}
	fail := func(code int, err error) error {
		return &pipeline.Error{Code: code, Err: fmt.Errorf("ladder: %w", err)}
	}
	runs, err := Plan(l.Submissions, l.Fixtures, l.Results)
	if clash := (*NameClashError)(nil); errors.As(err, &clash) {
		return nil, err
	} else if err != nil {
		return nil, fail(pipeline.CouldNotRun, err)
	}
	publishAll := func(taskID, msg string, annotate ...func(*result.Verdict)) {
		for _, r := range runs {
			if _, err := pipeline.PublishError(r.Results, taskID, msg, l.Resume, annotate...); err != nil {
				fmt.Fprintf(log, "srb: ladder: %v\n", err)
			}
		}
	}
	stop := func(code int, taskID, msg string, annotate ...func(*result.Verdict)) ([]*Run, error) {
		publishAll(taskID, msg, annotate...)
		return nil, fail(code, errors.New(msg))
	}

	t, problems := task.Load(l.TaskDir)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(log, p.Format(""))
		}
		msg := fmt.Sprintf("cannot read the task %s (%d problem(s)); run srb validate", l.TaskDir, len(problems))
		return stop(pipeline.BadTask, filepath.Base(l.TaskDir), msg)
	}

	// Before anything starts: the fixtures' scripts decide drivers, every
	// credential is checked, every submission exists.
	for _, r := range runs {
		r.Drivers = ResolveDrivers(l.DriverFlags, l.Lookup, r.Fixture)
	}
	if faults := Preflight(t, runs, l.Lookup); len(faults) > 0 {
		return stop(pipeline.CouldNotRun, t.ID, "nothing was graded: "+strings.Join(faults, "; "))
	}

	step := time.Now()
	original, cleanup, err := (Backend{CacheDir: l.Cache}).StateA(ctx, t)
	if err != nil {
		return stop(pipeline.CouldNotRun, t.ID, fmt.Sprintf("State A: %v", err))
	}
	defer cleanup()
	fmt.Fprintf(log, "srb: ladder: State A of %s ready (%s)\n", t.ID, RoundDuration(time.Since(step)))

	g := &pipeline.Grader{
		Task:     pipeline.Task{ID: t.ID, Exclude: t.Artifacts.Exclude, Policy: TaskPolicy(t), AuditDriver: t.Audit.Driver},
		Original: original,
		Stages:   l.Stages(t),
		Now:      l.Now,
		Resume:   l.Resume,
		KeepWork: l.KeepWork,
		StopNote: OnceSaid,
	}
	if !l.Host {
		// The behavioural and verification images are found (built and
		// loaded when missing or stale) once, before the submissions
		// start, so concurrent runs never build them twice.
		images := &image.StageImages{Task: t, Engine: l.Backend.Engine, Build: l.Backend.Builder(log, false), Log: LogTo(log),
			Hint: "srb ladder --host runs the stages here"}
		err := g.Prepare(ctx, images, func(stage, _ string, took time.Duration) {
			fmt.Fprintf(log, "srb: ladder: the %s image of %s is ready (%s)\n", stage, t.ID, RoundDuration(took))
		})
		// A build refused on the task's own configuration is the task's
		// fault (exit 2, metadata.config_error), as srb behavioural and
		// srb verification report it; anything else is the harness's
		// (exit 1).
		if tf := (*image.TaskFault)(nil); errors.As(err, &tf) {
			meta := map[string]any{"config_error": true}
			return stop(pipeline.BadTask, t.ID, err.Error(), func(v *result.Verdict) { maps.Copy(v.Metadata, meta) })
		} else if err != nil {
			return stop(pipeline.CouldNotRun, t.ID, err.Error())
		}
	}

	b := &Batch{Task: t, Grader: g, Jobs: l.Jobs, RunMeta: l.RunMeta, Resume: l.Resume, Log: log}
	b.GradeAll(ctx, runs)
	return runs, nil
}

// WriteRuns prints a graded batch as srb ladder does: each run's score
// table on out (report.Render), headed "# NAME  (RESULTS)" when there
// are several, and whether its fixture's expect.json was met; each run's
// fault, and how long the batch took, on errOut. It returns the batch's
// exit class: the worst of the runs' Code, and pipeline.CouldNotRun for
// an expectation not met.
func WriteRuns(out, errOut io.Writer, runs []*Run, took time.Duration) int {
	code := 0
	for i, r := range runs {
		if len(runs) > 1 {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "# %s  (%s)\n", r.Name, r.Results)
		}
		if r.Verdict != nil {
			fmt.Fprintln(out, report.Render(r.Verdict, r.Verdict.Task))
		}
		if r.Fixture != nil && r.Fixture.Expect != nil {
			if len(r.Unmet) == 0 {
				fmt.Fprintf(out, "expect: met (%s)\n", r.Fixture.Name)
			} else {
				fmt.Fprintf(out, "expect: NOT MET (%s): %s\n", r.Fixture.Name, strings.Join(r.Unmet, "; "))
				code = max(code, pipeline.CouldNotRun)
			}
		}
		if r.Err != nil {
			fmt.Fprintf(errOut, "srb: ladder: %s: %v\n", r.Name, r.Err)
		}
		code = max(code, r.Code)
	}
	fmt.Fprintf(errOut, "srb: ladder: %d submission(s) graded in %s\n", len(runs), RoundDuration(took))
	return code
}

// Score grades the run whose stage files are in the folder results, as
// srb score does: with t, t's policy and declaration ([TaskPolicy]);
// with t nil, the published policy and the task the folder names
// (pipeline.TaskOfResults). The verdict is published by [pipeline.Score]
// (stamped now; its notes on log) and returned with its title (title,
// "" the task's id). A folder that does not exist, or that holds runs
// rather than one run's stage files, is an error naming it.
func Score(t *task.Task, results string, now time.Time, title string, log io.Writer) (*result.Verdict, string, error) {
	policy, taskID := scoring.Published(), pipeline.TaskOfResults(results)
	if t != nil {
		policy, taskID = TaskPolicy(t), t.ID
	}
	if st, err := os.Stat(results); err != nil || !st.IsDir() {
		return nil, "", fmt.Errorf("score: no results folder at %s", results)
	}
	if runs := pipeline.RunsInside(results); len(runs) > 0 {
		// A folder of runs is not a run: grading it would write an
		// invalid verdict (no stage ran) into the runs' parent.
		return nil, "", fmt.Errorf("score: %s holds no stage files but holds runs (%s): give one run's folder to --results",
			results, strings.Join(runs, ", "))
	}
	if !pipeline.IsRun(results) {
		// No stage file here and no run below: a folder made for a run
		// that never wrote anything, or the wrong folder. Scoring it would
		// write an invalid verdict (no stage ran) where none belongs.
		what := "is empty"
		if entries, _ := os.ReadDir(results); len(entries) > 0 {
			names := make([]string, 0, 4)
			for i, e := range entries {
				if i == 3 {
					names = append(names, "…")
					break
				}
				n := archive.QuoteName(e.Name())
				if e.IsDir() {
					n += "/"
				}
				names = append(names, n)
			}
			what = "holds only " + strings.Join(names, ", ")
		}
		return nil, "", fmt.Errorf("score: %s holds no stage file (%s.json) and no run below it (it %s): give --results the folder a run wrote its stage files in",
			results, strings.Join(pipeline.StageFiles, ".json, "), what)
	}
	if title == "" {
		title = taskID
	}
	v, err := pipeline.Score(taskID, policy, results, t != nil, now, title, log)
	return v, title, err
}

// RoundDuration is d to the millisecond under a second, else to the
// tenth of a second (the ladder's progress lines).
func RoundDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// OnceSaid is why stage 3 did not run, for the ladder's log
// (pipeline.Grader.StopNote): when the stage that stopped the ladder
// completed (st's status ok), it printed its own reason as it ended, so
// the ladder names the stage and the blocked_by tag instead of printing
// the reason again (issue 16: stage 1's reason was printed three times);
// otherwise why itself.
func OnceSaid(why string, st *result.Stage, stage string) string {
	if st == nil || st.Status != result.StatusOK {
		return why
	}
	tag := ""
	if i := strings.LastIndex(why, " ["); i >= 0 && strings.HasSuffix(why, "]") {
		tag = why[i:]
	}
	return stage + " stopped the ladder, for the reason it gave above" + tag
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
