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
		Long:  help("behavioural"),
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

// NewCmdHelper builds the hidden `srb helper`, srb's own copy of
// cmd/srb-helper for host runs.
func NewCmdHelper(f *Factory, _ func([]string) error) *cobra.Command {
	return &cobra.Command{
		Use:                "helper run PLAN | wrap ...",
		Short:              "srb's in-image helper (used by the suite runner)",
		Long:               help("helper"),
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
