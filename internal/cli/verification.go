package cli

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// VerificationOptions are the inputs of srb verification: the task (a
// folder or an id under ./tasks) and the stage's own options, which it
// runs [stages.Verification] with (Out and Log are IO's; Adversary,
// Adversaries and Adjudicator come from the driver flags,
// [grade.StageDrivers]). Submission and Results are required.
type VerificationOptions struct {
	IO   IOStreams
	Task string
	stages.VerificationOptions
	// Engine connects to the container engine; nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads a stage image of t when the engine lacks
	// it; nil is srb build --load --stage STAGE.
	BuildImage imageBuilder
}

// NewCmdVerification builds `srb verification`.
func NewCmdVerification(f *Factory, runF func(*VerificationOptions) error) *cobra.Command {
	opts := &VerificationOptions{IO: f.IO, VerificationOptions: stages.VerificationOptions{Now: f.Now, Lookup: os.LookupEnv}, Engine: f.Engine}
	var d grade.DriverFlags
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
			var err error
			if opts.Adversary, opts.Adversaries, opts.Adjudicator, err = grade.StageDrivers(d); err != nil {
				return &usageError{err: err}
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
	fl.BoolVar(&opts.Host, "host", false, "run the rounds on this machine with its toolchains instead of in containers of the verification image (as root each tree a user and, on cgroup v1 or under a delegated $SRB_HOST_CGROUP on v2, a cgroup with the task's memory and pids limits; metadata.host_limits says which held; no disk limit)")
	fl.StringVar(&opts.HomeSeed, "home-seed", "", "with --host: a folder (a warm build cache, say) copied into each tree's HOME for its warm-up in every round; it must hold nothing a graded party made")
	fl.StringVar(&opts.Image, "image", "", "run each round in a container of this image instead of the task's verification image")
	fl.BoolVar(&opts.Fresh, "fresh", false, "play every round again, even those an earlier run on this results folder finished on the same inputs")
	fl.BoolVar(&opts.Force, "force", false, "run even when stage 1 failed or stage 2 is incomplete (the scorer still pays nothing)")
	addDriverFlags(fl, &d, driverFlag{"driver", "", "the driver of every position: " + strings.Join(models.DriverNames(), ", ")},
		driverFlag{"adversary-driver", "", "the adversaries' driver"},
		driverFlag{"model", "adversary-model", "the adversaries' model"},
		driverFlag{"script", "", "a scripted adversary's turns; repeat for adversary 2, 3, … (cycling)"},
		driverFlag{"adversary-script", "", "ID=FILE: the scripted turns of adversary ID (repeatable)"},
		driverFlag{"adjudicator-driver", "", "the adjudicator's driver"},
		driverFlag{"adjudicator-model", "", "the adjudicator's model"},
		driverFlag{"adjudicator-script", "", "the scripted adjudicator's turns (each adjudication replays them)"})
	return cmd
}

// runVerification runs stage 3 for opts ([stages.Verification]) on the
// task opts.Task names, and returns nil when the stage ran (or correctly
// declined to run), or an error whose exit code is 1 (could not run) or 2
// (the task's configuration is wrong).
func runVerification(ctx context.Context, opts *VerificationOptions) error {
	return runStage(ctx, result.StageVerification, opts.Task, opts.Results, opts.IO.ErrOut, opts.Now, backend(opts.Engine, opts.BuildImage),
		func(ctx context.Context, t *stages.Task, _ *grade.StageFile) error {
			so := opts.VerificationOptions
			so.Out, so.Log = opts.IO.Out, opts.IO.ErrOut
			return stages.Verification(ctx, t, so)
		})
}
