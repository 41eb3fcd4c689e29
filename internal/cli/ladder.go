package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// LadderOptions are the inputs of srb ladder.
type LadderOptions struct {
	IO     IOStreams
	Now    func() time.Time
	Lookup func(string) (string, bool)

	Task        string
	Submissions []string // submitted trees
	Fixtures    []string // submission fixtures, applied on top of State A
	Results     string
	Jobs        int
	KeepWork    string // keep each submission's work under KEEP/<name>/
	// Resume keeps the audit's and the verification's results from an
	// earlier run on the same results folder, so stage 1 re-runs only the
	// reviews and stage 3 only the rounds that did not finish (each checks
	// its inputs by digest first and plays everything again when one
	// differs); stage 2 and the score are always made anew.
	Resume bool
	Cache  string // the State A cache (--cache; "" is $SRB_CACHE, else the user cache dir's srb)
	Helper string // stage 2's helper (srb behavioural --helper)
	// Host runs the stages on this machine instead of in the task's stage
	// images: stage 2's suite (srb behavioural --host), the audit's run
	// tool (srb audit --host) and stage 3's rounds (srb verification
	// --host).
	Host bool
	// HomeSeed is a folder whose content seeds each tree's HOME for the
	// warm-up run of every stage-3 round on a --host run (--home-seed;
	// [stages.VerificationOptions.HomeSeed]).
	HomeSeed string
	// Engine returns the Docker engine the stage containers run on
	// (Factory.Engine); called only when a container is needed.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine
	// lacks it (nil: srb build --load --stage STAGE); tests replace it.
	BuildImage func(ctx context.Context, t *task.Task, stage string) error

	// DriverFlags are the drivers of the model positions: Driver for
	// every position no per-position flag names; the per-position fields
	// override it.
	grade.DriverFlags

	// Run says who made the submissions (--run-* flags, see runmeta.go).
	Run RunMetaFlags
}

// NewCmdLadder builds `srb ladder`.
func NewCmdLadder(f *Factory, runF func(*LadderOptions) error) *cobra.Command {
	opts := &LadderOptions{IO: f.IO, Now: f.Now, Lookup: os.LookupEnv, Engine: f.Engine}
	cmd := &cobra.Command{
		Use:   "ladder TASK --submission DIR --results DIR",
		Short: "Grade submissions with the whole ladder: collect, three stages, score",
		Long:  help("ladder"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if len(opts.Submissions)+len(opts.Fixtures) == 0 {
				return &usageError{err: errors.New("--submission DIR or --submission-fixture DIR is required")}
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if !opts.Host && opts.Helper != "" {
				return &usageError{err: errors.New("--helper is for --host runs (an image run uses the image's own helper)")}
			}
			if !opts.Host && opts.HomeSeed != "" {
				return &usageError{err: errors.New("--home-seed is for --host runs (a round's container starts from its image)")}
			}
			if opts.Jobs < 1 {
				return &usageError{err: fmt.Errorf("--jobs %d: at least 1", opts.Jobs)}
			}
			if err := checkDriverFlags(&opts.DriverFlags); err != nil {
				return err
			}
			if err := opts.Run.Check(); err != nil {
				return &usageError{err: err}
			}
			if runF != nil {
				return runF(opts)
			}
			return runLadder(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Submissions, "submission", nil, "a submitted tree to grade (repeatable)")
	fl.StringArrayVar(&opts.Fixtures, "submission-fixture", nil, "a submission fixture to apply on State A and grade (repeatable)")
	fl.StringVar(&opts.Results, "results", "", "the results folder (required); DIR/<name>/ per submission when there are several")
	fl.IntVar(&opts.Jobs, "jobs", 1, "how many submissions are graded at once")
	fl.StringVar(&opts.KeepWork, "keep-work", "", "keep each submission's collected tree and work under this folder")
	fl.BoolVar(&opts.Resume, "resume", false, "keep an earlier run's finished reviews and rounds in the results folder (when their inputs' digests match) and redo only what did not finish")
	addCacheFlag(cmd, &opts.Cache)
	fl.StringVar(&opts.HomeSeed, "home-seed", "", "with --host: a folder (a warm build cache, say) copied into each tree's HOME for its warm-up in every stage-3 round; it must hold nothing a graded party made")
	fl.BoolVar(&opts.Host, "host", false, "run stage 2, the audit's commands and stage 3's rounds on this machine instead of in the task's stage images")
	fl.StringVar(&opts.Helper, "helper", "", "with --host: a static srb-helper for stage 2's declarative modules (default: srb itself)")
	fl.StringVar(&opts.Driver, "driver", "", "the driver of every model position: "+strings.Join(models.DriverNames(), ", "))
	fl.StringVar(&opts.AuditDriver, "audit-driver", "", "stage 1's driver")
	fl.StringVar(&opts.AuditModel, "audit-model", "", "stage 1's model")
	fl.StringArrayVar(&opts.AuditScripts, "audit-script", nil, "a scripted review's turns; repeat for review 2, 3, …")
	fl.StringVar(&opts.AdversaryDriver, "adversary-driver", "", "every stage-3 adversary's driver")
	fl.StringVar(&opts.AdversaryModel, "adversary-model", "", "every stage-3 adversary's model")
	fl.StringArrayVar(&opts.AdversaryScripts, "adversary-script", nil, "ID=FILE: the scripted turns of adversary ID (repeatable)")
	fl.StringVar(&opts.AdjudicatorDriver, "adjudicator-driver", "", "stage 3's adjudicator driver")
	fl.StringVar(&opts.AdjudicatorModel, "adjudicator-model", "", "stage 3's adjudicator model")
	fl.StringVar(&opts.AdjudicatorScript, "adjudicator-script", "", "the adjudicator's scripted turns")
	addRunMetaFlags(fl, &opts.Run)
	return cmd
}

// checkDriverFlags is the usage error of opts' driver names and
// --adversary-script values (nil when all are known and well formed),
// for srb ladder and srb trial (whose verifier is srb ladder's grading).
func checkDriverFlags(opts *grade.DriverFlags) error {
	for _, d := range []struct{ flag, v string }{{"--driver", opts.Driver}, {"--audit-driver", opts.AuditDriver},
		{"--adversary-driver", opts.AdversaryDriver}, {"--adjudicator-driver", opts.AdjudicatorDriver}} {
		if d.v != "" && !slices.Contains(models.DriverNames(), d.v) {
			return &usageError{err: fmt.Errorf("%s %s: known drivers are %s", d.flag, d.v, strings.Join(models.DriverNames(), ", "))}
		}
	}
	for _, s := range opts.AdversaryScripts {
		if id, file, ok := strings.Cut(s, "="); !ok || id == "" || file == "" {
			return &usageError{err: fmt.Errorf("--adversary-script %s: write ID=FILE", s)}
		}
	}
	return nil
}

// StageDriver is one model position's override in a ladder run
// ([pipeline.Driver]): the driver, the model and, for the scripted
// driver, the scripts. Zero fields keep the task's.
type StageDriver = pipeline.Driver

func runLadder(ctx context.Context, opts *LadderOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	start := time.Now()
	errOut := &lockedWriter{w: opts.IO.ErrOut}
	runs, err := grade.Plan(opts.Submissions, opts.Fixtures, opts.Results)
	if clash := (*grade.NameClashError)(nil); errors.As(err, &clash) {
		return &usageError{err: err}
	} else if err != nil {
		return couldNotRun(fmt.Errorf("ladder: %w", err))
	}
	publishAll := func(taskID, msg string, annotate ...func(*result.Verdict)) {
		for _, r := range runs {
			if _, err := pipeline.PublishError(r.Results, taskID, msg, opts.Resume, annotate...); err != nil {
				fmt.Fprintf(errOut, "srb: ladder: %v\n", err)
			}
		}
	}

	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(fmt.Errorf("ladder: %w", err))
	}
	t, problems := task.Load(dirs[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(errOut, p.Format(""))
		}
		msg := fmt.Sprintf("cannot read the task %s (%d problem(s)); run srb validate", dirs[0], len(problems))
		publishAll(filepath.Base(dirs[0]), msg)
		return badTask(fmt.Errorf("ladder: %s", msg))
	}

	// Before anything starts: the fixtures' scripts decide drivers, every
	// credential is checked, every submission exists.
	for _, r := range runs {
		r.Drivers = grade.ResolveDrivers(opts.DriverFlags, opts.Lookup, r.Fixture)
	}
	if faults := grade.Preflight(t, runs, opts.Lookup); len(faults) > 0 {
		msg := "nothing was graded: " + strings.Join(faults, "; ")
		publishAll(t.ID, msg)
		return couldNotRun(fmt.Errorf("ladder: %s", msg))
	}

	step := time.Now()
	original, cleanup, err := stateATreeIn(ctx, t, opts.Cache)
	if err != nil {
		msg := fmt.Sprintf("State A: %v", err)
		publishAll(t.ID, msg)
		return couldNotRun(fmt.Errorf("ladder: %s", msg))
	}
	defer cleanup()
	fmt.Fprintf(errOut, "srb: ladder: State A of %s ready (%s)\n", t.ID, since(step))

	g := &pipeline.Grader{
		Task:     pipeline.Task{ID: t.ID, Exclude: t.Artifacts.Exclude, Policy: grade.TaskPolicy(t), AuditDriver: t.Audit.Driver},
		Original: original,
		Stages:   LadderStages(opts, t),
		Now:      opts.Now,
		Resume:   opts.Resume,
		KeepWork: opts.KeepWork,
		StopNote: onceSaid,
	}
	if !opts.Host {
		// The behavioural and verification images are found (built and
		// loaded when missing or stale) once, before the submissions
		// start, so concurrent runs never build them twice.
		build := opts.BuildImage
		if build == nil {
			build = defaultImageBuilder(errOut, opts.Engine, false)
		}
		images := &image.StageImages{Task: t, Engine: opts.Engine, Build: build, Log: logTo(errOut),
			Hint: "srb ladder --host runs the stages here"}
		err := g.Prepare(ctx, images, func(stage, _ string, took time.Duration) {
			fmt.Fprintf(errOut, "srb: ladder: the %s image of %s is ready (%s)\n", stage, t.ID, roundDuration(took))
		})
		if err != nil {
			// A build refused on the task's own configuration is the
			// task's fault (exit 2, metadata.config_error), as srb
			// behavioural and srb verification report it; anything else
			// is the harness's (exit 1).
			msg := err.Error()
			code, meta := stageImageFailure(err)
			publishAll(t.ID, msg, func(v *result.Verdict) { maps.Copy(v.Metadata, meta) })
			if code == ExitBadTask {
				return badTask(fmt.Errorf("ladder: %s", msg))
			}
			return couldNotRun(fmt.Errorf("ladder: %s", msg))
		}
	}

	b := &grade.Batch{Task: t, Grader: g, Jobs: opts.Jobs, RunMeta: opts.Run, Resume: opts.Resume, Log: errOut}
	b.GradeAll(ctx, runs)

	code := ExitRan
	for i, r := range runs {
		if len(runs) > 1 {
			if i > 0 {
				fmt.Fprintln(opts.IO.Out)
			}
			fmt.Fprintf(opts.IO.Out, "# %s  (%s)\n", r.Name, r.Results)
		}
		if r.Verdict != nil {
			fmt.Fprintln(opts.IO.Out, report.Render(r.Verdict, r.Verdict.Task))
		}
		if r.Fixture != nil && r.Fixture.Expect != nil {
			if len(r.Unmet) == 0 {
				fmt.Fprintf(opts.IO.Out, "expect: met (%s)\n", r.Fixture.Name)
			} else {
				fmt.Fprintf(opts.IO.Out, "expect: NOT MET (%s): %s\n", r.Fixture.Name, strings.Join(r.Unmet, "; "))
				code = max(code, ExitCouldNotRun)
			}
		}
		if r.Err != nil {
			fmt.Fprintf(errOut, "srb: ladder: %s: %v\n", r.Name, r.Err)
		}
		code = max(code, r.Code)
	}
	fmt.Fprintf(errOut, "srb: ladder: %d submission(s) graded in %s\n", len(runs), since(start))
	if code != ExitRan {
		return silent(code, fmt.Errorf("ladder: exit %d", code))
	}
	return nil
}

func since(t time.Time) string { return roundDuration(time.Since(t)) }

// roundDuration is d to the millisecond under a second, else to the tenth
// of a second.
func roundDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
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
