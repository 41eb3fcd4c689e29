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

// AuditOptions are the inputs of srb audit: the task (a folder or an id
// under ./tasks) and the stage's own options, which it runs
// [stages.Audit] with (Out and Log are IO's; Driver is --driver, --model
// and --script).
type AuditOptions struct {
	IO   IOStreams
	Task string
	stages.AuditOptions
	// Engine returns the Docker engine; called only when a container is
	// needed (Factory.Engine).
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads the audit image when the engine has none
	// that images.lock vouches for; nil is srb build --load --stage audit.
	BuildImage imageBuilder
}

// NewCmdAudit builds `srb audit`.
func NewCmdAudit(f *Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: f.IO, AuditOptions: stages.AuditOptions{Now: f.Now, Lookup: os.LookupEnv}, Engine: f.Engine}
	var d grade.DriverFlags
	cmd := &cobra.Command{
		Use:   "audit TASK --submission DIR --results DIR",
		Short: "Run stage 1: model reviews answer the task's audit gates",
		Long:  help("audit"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			opts.Driver = StageDriver{Driver: d.Driver, Model: d.AuditModel, Scripts: d.AuditScripts}
			if opts.Submission == "" {
				return &usageError{err: errors.New("--submission DIR is required")}
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if err := checkDriverFlags(d); err != nil {
				return err
			}
			if len(d.AuditScripts) > 0 && d.Driver != models.DriverScripted {
				return &usageError{err: errors.New("--script needs --driver scripted")}
			}
			if opts.Host && opts.Image != "" {
				return &usageError{err: errors.New("--image names the container run executes in: it does not take --host")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runAudit(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Submission, "submission", "", "the submitted tree to review (required)")
	fl.StringVar(&opts.Results, "results", "", "the folder audit.json is written to (required)")
	fl.StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	fl.StringVar(&opts.Logs, "logs", "", "where transcripts go, under audit/ (default: the results folder)")
	addDriverFlags(fl, &d, driverFlag{"driver", "", "override the task's driver: " + strings.Join(models.DriverNames(), ", ")},
		driverFlag{"model", "audit-model", "override the task's model name"},
		driverFlag{"script", "audit-script", "a scripted review's turns (JSON); repeat for review 2, 3, …"})
	fl.BoolVar(&opts.Host, "host", false, "run the reviews' commands on this machine, on copies of both trees, not in the audit image")
	fl.StringVar(&opts.Image, "image", "", "the audit image run executes in (default srb/<task id>:audit)")
	return cmd
}

func runAudit(ctx context.Context, opts *AuditOptions) error {
	return runStage(ctx, result.StageAudit, opts.Task, opts.Results, opts.IO.ErrOut, opts.Now, backend(opts.Engine, opts.BuildImage),
		func(ctx context.Context, t *stages.Task, _ *grade.StageFile) error {
			so := opts.AuditOptions
			so.Out, so.Log = opts.IO.Out, opts.IO.ErrOut
			return stages.Audit(ctx, t, so)
		})
}
