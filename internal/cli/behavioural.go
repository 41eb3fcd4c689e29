package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
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

// BehaviouralOptions are the inputs of srb behavioural, which runs
// [stages.Behavioural] with them (srb ladder calls that stage directly).
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
	sr := &stageRun{stage: result.StageBehavioural, taskID: filepath.Base(opts.Task), out: filepath.Join(opts.Results, result.StageBehavioural+".json"),
		now: opts.Now(), errOut: opts.IO.ErrOut}
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return sr.fail(ExitCouldNotRun, err.Error(), nil)
	}
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	bo := stages.BehaviouralOptions{Submission: opts.Submission, Results: opts.Results, Original: opts.Original, Host: opts.Host,
		KeepWork: opts.KeepWork, Image: opts.Image, Started: opts.Started, Now: opts.Now, Out: opts.IO.Out, Log: opts.IO.ErrOut}
	if opts.Host {
		if bo.Helper, err = helperArgv(opts.Helper); err != nil {
			return sr.fail(ExitCouldNotRun, err.Error(), nil)
		}
	}
	return fromStage(stages.Behavioural(ctx, stageTask(t, opts.Engine, opts.BuildImage, ""), bo))
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

// workDir is [stages.WorkDir].
var workDir = stages.WorkDir

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
