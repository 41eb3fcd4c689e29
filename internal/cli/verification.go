package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// VerificationOptions are the inputs of srb verification, which runs
// [stages.Verification] with them (srb ladder calls that stage directly).
//
// Task is a task folder or an id under ./tasks. Submission and Results are
// required; Original defaults to the task's State A from the cache; Logs
// to Results. Force runs the stage even when the gates say it was not
// earned. KeepWork keeps each round's scratch folder under it. Adversary
// overrides every adversary's position (adversary n of a scripted one
// replays Scripts[(n-1) % len]), Adversaries overrides single adversaries
// by id (and wins), Adjudicator overrides the adjudicator's; zero fields
// keep the task's ([StageDriver]).
type VerificationOptions struct {
	IO     IOStreams
	Now    func() time.Time
	Lookup func(string) (string, bool)

	Task       string
	Submission string
	Results    string
	Original   string
	Logs       string
	KeepWork   string
	Force      bool

	Adversary   StageDriver
	Adversaries map[string]StageDriver
	Adjudicator StageDriver

	// Host runs the rounds on this machine (the host's toolchains)
	// instead of in containers of the task's verification image.
	Host bool
	// HomeSeed is a folder whose content seeds each tree's HOME for its
	// warm-up run in every round on a --host run (--home-seed;
	// [stages.VerificationOptions.HomeSeed]).
	HomeSeed string
	// Image, when set, is the image each round's container starts from
	// instead of the task's verification image (srb/<task id>:verification,
	// checked against images.lock and built and loaded when missing or
	// stale).
	Image string
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE.
	BuildImage func(ctx context.Context, t *task.Task, stage string) error
	// Fresh plays every round, even those an earlier run on the same
	// results folder finished on the same inputs.
	Fresh bool
}

// NewCmdVerification builds `srb verification`.
func NewCmdVerification(f *Factory, runF func(*VerificationOptions) error) *cobra.Command {
	opts := &VerificationOptions{IO: f.IO, Now: f.Now, Lookup: os.LookupEnv, Engine: f.Engine}
	var driver, advDriver, model, adjDriver, adjModel, adjScript string
	var scripts, advScripts []string
	cmd := &cobra.Command{
		Use:   "verification TASK --submission DIR --results DIR",
		Short: "Run stage 3: adversaries look for a test State A passes and the submission fails",
		Long:  help("verification"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if opts.Submission == "" {
				return &usageError{err: errors.New("--submission DIR is required")}
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if opts.Host && opts.Image != "" {
				return &usageError{err: errors.New("--image names the image the rounds run in; --host runs them on this machine: give one")}
			}
			if !opts.Host && opts.HomeSeed != "" {
				return &usageError{err: errors.New("--home-seed is for --host runs (a round's container starts from its image)")}
			}
			for _, d := range []struct{ flag, v string }{{"--driver", driver}, {"--adversary-driver", advDriver}, {"--adjudicator-driver", adjDriver}} {
				if d.v != "" && !slices.Contains(models.DriverNames(), d.v) {
					return &usageError{err: fmt.Errorf("%s %s: known drivers are %s", d.flag, d.v, strings.Join(models.DriverNames(), ", "))}
				}
			}
			opts.Adversary = StageDriver{Driver: cmpOr(advDriver, driver), Model: model, Scripts: scripts}
			opts.Adjudicator = StageDriver{Driver: cmpOr(adjDriver, driver), Model: adjModel}
			if len(scripts) > 0 && opts.Adversary.Driver != models.DriverScripted {
				return &usageError{err: errors.New("--script needs --driver scripted (or --adversary-driver scripted)")}
			}
			for _, s := range advScripts {
				id, file, ok := strings.Cut(s, "=")
				if !ok || id == "" || file == "" {
					return &usageError{err: fmt.Errorf("--adversary-script %s: write ID=FILE", s)}
				}
				if opts.Adversaries == nil {
					opts.Adversaries = map[string]StageDriver{}
				}
				opts.Adversaries[id] = StageDriver{Driver: cmpOr(opts.Adversary.Driver, models.DriverScripted), Model: model, Scripts: []string{file}}
				if opts.Adversaries[id].Driver != models.DriverScripted {
					return &usageError{err: errors.New("--adversary-script needs the scripted adversary driver")}
				}
			}
			if adjScript != "" {
				opts.Adjudicator.Driver = cmpOr(opts.Adjudicator.Driver, models.DriverScripted)
				if opts.Adjudicator.Driver != models.DriverScripted {
					return &usageError{err: errors.New("--adjudicator-script needs the scripted adjudicator driver")}
				}
				opts.Adjudicator.Scripts = []string{adjScript}
			}
			if runF != nil {
				return runF(opts)
			}
			return runVerification(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Submission, "submission", "", "the submitted tree (required)")
	fl.StringVar(&opts.Results, "results", "", "the results folder: audit.json and behavioural.json are read there, verification.json written (required)")
	fl.StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	fl.StringVar(&opts.Logs, "logs", "", "where transcripts go, under verification/ (default: the results folder)")
	fl.StringVar(&opts.KeepWork, "keep-work", "", "keep each round's scratch folder under this folder")
	fl.BoolVar(&opts.Host, "host", false, "run the rounds on this machine with its toolchains instead of in containers of the verification image")
	fl.StringVar(&opts.HomeSeed, "home-seed", "", "with --host: a folder (a warm build cache, say) copied into each tree's HOME for its warm-up in every round; it must hold nothing a graded party made")
	fl.StringVar(&opts.Image, "image", "", "run each round in a container of this image instead of the task's verification image")
	fl.BoolVar(&opts.Fresh, "fresh", false, "play every round again, even those an earlier run on this results folder finished on the same inputs")
	fl.BoolVar(&opts.Force, "force", false, "run even when stage 1 failed or stage 2 is incomplete (the scorer still pays nothing)")
	fl.StringVar(&driver, "driver", "", "the driver of every position: "+strings.Join(models.DriverNames(), ", "))
	fl.StringVar(&advDriver, "adversary-driver", "", "the adversaries' driver")
	fl.StringVar(&model, "model", "", "the adversaries' model")
	fl.StringArrayVar(&scripts, "script", nil, "a scripted adversary's turns; repeat for adversary 2, 3, … (cycling)")
	fl.StringArrayVar(&advScripts, "adversary-script", nil, "ID=FILE: the scripted turns of adversary ID (repeatable)")
	fl.StringVar(&adjDriver, "adjudicator-driver", "", "the adjudicator's driver")
	fl.StringVar(&adjModel, "adjudicator-model", "", "the adjudicator's model")
	fl.StringVar(&adjScript, "adjudicator-script", "", "the scripted adjudicator's turns (each adjudication replays them)")
	return cmd
}

// runVerification runs stage 3 for opts ([stages.Verification]) on the
// task opts.Task names, and returns nil when the stage ran (or correctly
// declined to run), or an error whose exit code is 1 (could not run) or 2
// (the task's configuration is wrong).
func runVerification(ctx context.Context, opts *VerificationOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	sr := &stageRun{stage: result.StageVerification, taskID: filepath.Base(dirs[0]),
		out: filepath.Join(opts.Results, result.StageVerification+".json"), now: opts.Now(), errOut: opts.IO.ErrOut}
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	return fromStage(stages.Verification(ctx, stageTask(t, opts.Engine, opts.BuildImage, ""), stages.VerificationOptions{
		Submission: opts.Submission, Results: opts.Results, Original: opts.Original, Logs: opts.Logs, KeepWork: opts.KeepWork,
		Force: opts.Force, Fresh: opts.Fresh, Adversary: opts.Adversary, Adversaries: opts.Adversaries, Adjudicator: opts.Adjudicator,
		Host: opts.Host, HomeSeed: opts.HomeSeed, Image: opts.Image, Lookup: opts.Lookup, Now: opts.Now, Out: opts.IO.Out, Log: opts.IO.ErrOut}))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
