package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

const behaviouralDoc = `Run stage 2, the behavioural modules: build the submission and compare
what it does with the truth recorded from State A.

The task's behavioural block declares the modules. A module of kind build
builds each named configuration once (state_b.build, with the
configuration's args and env) into the build ledger; command, http,
tree, symbols, digests and provenance modules restore a configuration by
name and compare what they observe with truth/<module>.json, which srb
freeze wrote; a program module is the task's own program writing the
module-result JSON. Every module runs in its own process group with the
SRB_* contract environment, is reaped before its result is read, and the
result DIR/behavioural.json is rewritten after each module, every declared
module seeded "unreached" first.

It runs in a container of the task's behavioural image
(srb/<task id>:behavioural, used when its id is the config digest
images.lock records; built and loaded first when missing or stale;
--image REF names another): the submission copied in at /srb/submission,
State A read-only at /srb/original, no network, and the image's own
/opt/srb/bin/srb-helper running the whole suite over the task's assets at
/tests/behavioural.

Every process the submission controls (its build, its programs, its
server) runs as uid 65531 (with --host, a uid of its own per run, drawn
from 3000000-3999999) with an environment built from an allow-list
(PATH, LANG, LC_*, TZ, TERM; HOME and TMPDIR in its sandbox) plus what
the task declares, in a sandbox folder of its own: truth, plans, the
build ledger, module programs and the results are root's and closed to
it, and a module's result counts only when srb's own helper wrote it and
the module ended normally. With --host as root the same holds, and each
of those processes also gets a mount namespace where the grader's
folders (the task folder, the work and results folders) are empty and
/proc lists only its own processes. --host as any other user cannot
isolate the submission at all: it then runs as srb's user, can reach
what that user can, and behavioural.json records isolation "none". behavioural.json is copied out whatever happened, and
each module's result.json and stdout.log land in DIR/behavioural/<module>/.
A container that did not finish the suite (killed, crashed, hung) leaves
every finished module's result and "unreached" for the rest, with status
error and exit 1. --host runs the suite on this machine instead: the
host's toolchains, srb itself as the helper (or --helper, a static
srb-helper).

Truth whose cases fingerprint differs from the task's cases is refused
before anything runs (exit 2): run srb freeze.

An interrupt (SIGINT, SIGTERM), the stage's clock (timeouts.behavioural)
running out, and a module that exceeds its budget while none of the
submission's processes is running (it hangs on its own) are faults of
the grader: the stage result has status error and harness_fault, the
verdict is invalid and nothing is charged to the submission. A module
that runs out of time while the submission's processes run is the
submission's timeout.

Exit status: 0 when the stage ran (whatever the checks decided), 1 when it
could not, 2 when the task's own configuration is wrong. The result file
is written in every case the command can name a results folder.

Examples:
  srb behavioural lang90-tally-c-to-go --submission run/repo --results run/verifier
  srb behavioural tasks/lang90-tally-c-to-go --submission port --results out --keep-work out/work
  srb behavioural lang90-tally-c-to-go --host --submission port --results out`

// BehaviouralOptions are the inputs of srb behavioural, and of stage 2
// when srb ladder runs it in-process through runBehavioural.
type BehaviouralOptions struct {
	IO  IOStreams
	Now func() time.Time

	// Task is a task folder or an id under ./tasks.
	Task string
	// Submission is the collected submission's tree (host folder).
	Submission string
	// Results is the results folder: behavioural.json, and each module's
	// result.json and stdout.log under behavioural/<module>/ for an image
	// run.
	Results string
	// Original is State A's tree; "" materialises the task's State A
	// from the cache.
	Original string
	// Helper is the helper of a host run (--host); "" is srb itself.
	Helper string
	// KeepWork keeps the work folder there (for an image run: copied out
	// of the container).
	KeepWork string
	// Host runs the suite on this machine (the host's toolchains, the
	// helper Helper) instead of in the task's behavioural image.
	Host bool
	// Image, when set, is the image to run in instead of the task's
	// behavioural image (srb/<task id>:behavioural, checked against
	// images.lock and built and loaded when missing or stale).
	Image string
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE.
	BuildImage func(ctx context.Context, t *task.Task, stage string) error
	// Started, when set, is given the stage's container session once it
	// runs (tests kill it mid-suite).
	Started func(*engine.Session)
}

// NewCmdBehavioural builds `srb behavioural`.
func NewCmdBehavioural(f *Factory, runF func(*BehaviouralOptions) error) *cobra.Command {
	opts := &BehaviouralOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "behavioural TASK --submission DIR --results DIR",
		Short: "Run stage 2: build the submission and check it against State A's truth",
		Long:  behaviouralDoc,
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if opts.Submission == "" || opts.Results == "" {
				return &usageError{err: errors.New("behavioural: --submission and --results are required")}
			}
			if opts.Host && opts.Image != "" {
				return &usageError{err: errors.New("behavioural: --image names the container to run in; --host runs on this machine: give one")}
			}
			if !opts.Host && opts.Helper != "" {
				return &usageError{err: errors.New("behavioural: --helper is for --host runs (an image run uses the image's own helper)")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runBehavioural(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Submission, "submission", "", "the collected submission's tree")
	fl.StringVar(&opts.Results, "results", "", "the results folder; behavioural.json is written there")
	fl.StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	fl.BoolVar(&opts.Host, "host", false, "run on this machine with its toolchains instead of in the behavioural image")
	fl.StringVar(&opts.Image, "image", "", "run in this image instead of the task's behavioural image")
	addHelperFlags(cmd, &opts.Helper, &opts.KeepWork)
	return cmd
}

func addHelperFlags(cmd *cobra.Command, helper, keep *string) {
	cmd.Flags().StringVar(helper, "helper", "", "a static srb-helper to run declarative modules with (default: srb itself)")
	cmd.Flags().StringVar(keep, "keep-work", "", "run in this work folder and keep it (default: a temporary folder, removed)")
}

func runBehavioural(ctx context.Context, opts *BehaviouralOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	now := opts.Now()
	out := filepath.Join(opts.Results, result.StageBehavioural+".json")
	sr := &stageRun{stage: result.StageBehavioural, taskID: filepath.Base(opts.Task), out: out, now: now, errOut: opts.IO.ErrOut}
	// fail publishes a failed result naming the reason, so an absent
	// file never reads as "the ladder stopped below".
	fail := sr.fail
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	// The sandbox and the work folder (and the trash in them: folders the
	// stage discarded, behavioural.Trash) are removed after the stage's
	// result is stamped and published, outside the stage's clock: a case
	// that left millions of files makes this slow, never the stage.
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()
	defer stampStage(out, time.Now(), stageProvenance(t, result.StageBehavioural, opts.Image, opts.Host), opts.IO.ErrOut)
	sub, err := filepath.Abs(opts.Submission)
	if st, serr := os.Stat(sub); err != nil || serr != nil || !st.IsDir() {
		return fail(ExitCouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	decl, err := image.Declaration(t)
	if err != nil {
		return fail(ExitBadTask, err.Error(), map[string]any{"config_error": true})
	}
	if msgs := suite.CheckTruth(decl); len(msgs) > 0 {
		for _, m := range msgs {
			fmt.Fprintln(opts.IO.ErrOut, m)
		}
		return fail(ExitBadTask, fmt.Sprintf("the truth of %d module(s) is missing or stale: run srb freeze %s", len(msgs), t.ID),
			map[string]any{"config_error": true})
	}
	original := opts.Original
	if original != "" {
		if original, err = filepath.Abs(original); err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
	} else {
		dir, cleanup, err := stateATree(ctx, t)
		if err != nil {
			return fail(ExitCouldNotRun, "State A: "+err.Error(), nil)
		}
		defer cleanup()
		original = dir
	}
	if !opts.Host {
		return runBehaviouralInImage(ctx, opts, t, decl, sub, original, out, fail)
	}
	helper, err := helperArgv(opts.Helper)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	work, done, err := workDir(opts.KeepWork, "srb-behavioural-")
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	cleanups = append(cleanups, done)
	jail, closeJail, err := hostJail(decl, work, opts.Results, helper)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	cleanups = append(cleanups, closeJail)
	if jail == nil {
		fmt.Fprintln(opts.IO.ErrOut, "srb: behavioural: --host as a user other than root cannot run the submission as another user: it can reach whatever srb's user can (recorded as isolation: none)")
	}
	decl.Jail = jail
	suite, err := decl.Suite(behavioural.ModeCheck, work, filepath.Join(decl.TaskDir, behavioural.TruthDir), helper)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(t.Timeouts.Behavioural)*time.Second)
	defer cancel()
	r := &behavioural.Runner{Repo: sub, Original: original, Work: work, ResultPath: out, Now: opts.Now, Jail: jail,
		Log: func(format string, args ...any) { fmt.Fprintf(opts.IO.ErrOut, "srb: "+format+"\n", args...) }}
	st, err := r.Run(ctx, suite)
	printStage(opts.IO, st)
	if err != nil {
		// An interrupt, the stage's clock, a module that hangs on its own,
		// a sandbox that could not be entered: the grader's fault, an
		// invalid stage (status error), never the submission's zero.
		return couldNotRun(err)
	}
	if st.Status != result.StatusOK {
		return silent(ExitCouldNotRun, errors.New("behavioural: the stage could not run"))
	}
	return nil
}

// runBehaviouralInImage runs the suite in a container of the task's
// behavioural image (or opts.Image) and writes out; fail writes a failed
// stage result when nothing ran.
func runBehaviouralInImage(ctx context.Context, opts *BehaviouralOptions, t *task.Task, decl *behavioural.Declaration,
	sub, original, out string, fail func(int, string, map[string]any) error) error {
	logf := func(format string, args ...any) { fmt.Fprintf(opts.IO.ErrOut, "srb: "+format+"\n", args...) }
	eng, img, err := readyStageImage(ctx, t, result.StageBehavioural, opts.Image, opts.Engine, opts.BuildImage, opts.IO.ErrOut)
	if err != nil {
		code, meta := stageImageFailure(err)
		return fail(code, err.Error(), meta)
	}
	budget := time.Duration(t.Timeouts.Behavioural) * time.Second
	cs := &suite.Container{Engine: eng, Image: img, Decl: decl, Mode: behavioural.ModeCheck, Repo: sub, Original: original,
		Budget: budget, Result: out, Modules: filepath.Join(opts.Results, result.StageBehavioural), Log: logf, Started: opts.Started,
		Limits: stageLimits(t)}
	if opts.KeepWork != "" {
		if cs.Work, err = filepath.Abs(opts.KeepWork); err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
	}
	st, err := cs.Run(ctx)
	if st == nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	printStage(opts.IO, st)
	if err != nil {
		return &exitError{code: ExitCouldNotRun, err: fmt.Errorf("behavioural: %w", err)}
	}
	if st.Status != result.StatusOK {
		return silent(ExitCouldNotRun, errors.New("behavioural: the stage could not run"))
	}
	return nil
}

// printStage prints one line per module and the ladder's sentence.
func printStage(io IOStreams, st *result.Stage) {
	for _, u := range st.Units {
		passed, total := result.Pooled(st.ChecksOf(u.ID))
		line := fmt.Sprintf("%-12s %-9s %d/%d checks passed", u.ID, u.Status, passed, total)
		if u.Status != result.UnitOK && u.Summary != "" {
			line += " -- " + firstLine(u.Summary)
		}
		fmt.Fprintln(io.Out, line)
		for _, c := range st.ChecksOf(u.ID) {
			if c.Weight > 0 && !c.OK() {
				fmt.Fprintf(io.Out, "  %s %s: %s\n", c.Verdict, c.ID, c.Summary)
			}
		}
	}
	_, _, why := scoring.BehaviouralReachesGate(st, scoring.Published(), "")
	fmt.Fprintln(io.Out, why)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// helperArgv is the argv prefix that runs the helper: --helper, else srb
// itself through its hidden "helper" command.
func helperArgv(flag string) ([]string, error) {
	if flag != "" {
		p, err := filepath.Abs(flag)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	}
	// os.Args[0] rather than os.Executable: a multi-call binary (the test
	// binary acting as srb) is selected by the name it is run under.
	self := os.Args[0]
	if !strings.Contains(self, "/") {
		p, err := exec.LookPath(self)
		if err != nil {
			return nil, fmt.Errorf("the helper: %w", err)
		}
		self = p
	}
	abs, err := filepath.Abs(self)
	if err != nil {
		return nil, err
	}
	return []string{abs, "helper"}, nil
}

// workDir returns keep (created) or a fresh temporary folder, and what to
// call when done.
func workDir(keep, prefix string) (string, func(), error) {
	if keep != "" {
		abs, err := filepath.Abs(keep)
		if err != nil {
			return "", nil, err
		}
		return abs, func() {}, os.MkdirAll(abs, 0o755)
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

const helperDoc = `Run srb's in-image helper (hidden): the declarative behavioural modules
and the tool-provenance wrappers. The suite runner calls it; a stage image
carries the same code as the static cmd/srb-helper.`

// NewCmdHelper builds the hidden `srb helper`, srb's own copy of
// cmd/srb-helper for host runs.
func NewCmdHelper(f *Factory, _ func([]string) error) *cobra.Command {
	return &cobra.Command{
		Use:                "helper run PLAN | wrap ...",
		Short:              "srb's in-image helper (used by the suite runner)",
		Long:               helperDoc,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := kinds.Main(args, f.IO.Out, f.IO.ErrOut); code != 0 {
				return silent(code, fmt.Errorf("helper: exit %d", code))
			}
			return nil
		},
	}
}

// The users a --host stage 2 runs the submission as: one drawn at random
// from [hostUIDBase, hostUIDBase+hostUIDSpan) per run, with the group of
// the same number (no account has them).
const (
	hostUIDBase = 3_000_000
	hostUIDSpan = 1_000_000
)

// hostJail makes the sandbox of a --host run when srb is root: a fresh
// folder under /tmp (searchable by every user, unlike a private TMPDIR)
// holding the task's data and a copy of the helper, with the grader's
// folders (the task folder, work, results, and TMPDIR when it is not
// /tmp) hidden from the submission's processes. It returns nil, and a
// no-op closer, when srb is not root.
func hostJail(decl *behavioural.Declaration, work, results string, helper []string) (*behavioural.Jail, func(), error) {
	if os.Geteuid() != 0 {
		return nil, func() {}, nil
	}
	root, err := os.MkdirTemp("/tmp", "srb-sandbox-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	done := func() { os.RemoveAll(root) }
	hide := []string{decl.TaskDir, work}
	if res, err := filepath.Abs(results); err == nil {
		hide = append(hide, res)
	}
	if tmp := os.TempDir(); filepath.Clean(tmp) != "/tmp" {
		hide = append(hide, tmp)
	}
	// A grader folder that holds the sandbox (a results folder given as
	// /) cannot be hidden without hiding the sandbox: it stays closed by
	// permissions only.
	hide = slices.DeleteFunc(hide, func(p string) bool {
		rel, err := filepath.Rel(p, root)
		return err == nil && !strings.HasPrefix(rel, "..")
	})
	// A user of its own per stage run: srb ladder --jobs grades several
	// submissions at once on this machine, and no two may share a user
	// (one could signal, trace or write into the other's sandbox).
	id := hostUIDBase + rand.IntN(hostUIDSpan)
	j, err := behavioural.NewJail(root, decl.TaskDir, id, id, true, hide)
	if err == nil {
		err = j.InstallHelper(helper)
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	return j, done, nil
}
