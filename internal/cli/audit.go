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

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// AuditOptions are the inputs of srb audit.
type AuditOptions struct {
	IO     IOStreams
	Now    func() time.Time
	Lookup func(string) (string, bool)

	Task       string
	Submission string
	Results    string
	Original   string
	Logs       string
	Driver     string
	Model      string
	Scripts    []string
	// Host runs the run tool's commands on this machine (--host) instead
	// of in the audit image.
	Host bool
	// Image is the audit image to run commands in (--image); "" is
	// image.Tag(task, "audit").
	Image string
	// Engine returns the Docker engine; called only when a container is
	// needed (Factory.Engine).
	Engine func() (engine.Runner, error)
	// BuildImage builds and loads the audit image when the engine has none
	// that images.lock vouches for; nil is srb build --load --stage audit.
	BuildImage imageBuilder
}

// NewCmdAudit builds `srb audit`.
func NewCmdAudit(f *Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: f.IO, Now: f.Now, Lookup: os.LookupEnv, Engine: f.Engine}
	cmd := &cobra.Command{
		Use:   "audit TASK --submission DIR --results DIR",
		Short: "Run stage 1: model reviews answer the task's audit gates",
		Long:  help("audit"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if opts.Submission == "" {
				return &usageError{err: errors.New("--submission DIR is required")}
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if opts.Driver != "" && !slices.Contains(models.DriverNames(), opts.Driver) {
				return &usageError{err: fmt.Errorf("--driver %s: known drivers are %s", opts.Driver, strings.Join(models.DriverNames(), ", "))}
			}
			if len(opts.Scripts) > 0 && opts.Driver != models.DriverScripted {
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
	fl.StringVar(&opts.Driver, "driver", "", "override the task's driver: "+strings.Join(models.DriverNames(), ", "))
	fl.StringVar(&opts.Model, "model", "", "override the task's model name")
	fl.StringArrayVar(&opts.Scripts, "script", nil, "a scripted review's turns (JSON); repeat for review 2, 3, …")
	fl.BoolVar(&opts.Host, "host", false, "run the reviews' commands on this machine, on copies of both trees, not in the audit image")
	fl.StringVar(&opts.Image, "image", "", "the audit image run executes in (default srb/<task id>:audit)")
	return cmd
}

func runAudit(ctx context.Context, opts *AuditOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	sr := &stageRun{stage: result.StageAudit, taskID: filepath.Base(dirs[0]), out: filepath.Join(opts.Results, result.StageAudit+".json"),
		now: opts.Now(), errOut: opts.IO.ErrOut}
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	return fromStage(stages.Audit(ctx, stageTask(t, opts.Engine, opts.BuildImage, ""), stages.AuditOptions{
		Submission: opts.Submission, Results: opts.Results, Original: opts.Original, Logs: opts.Logs,
		Driver: StageDriver{Driver: opts.Driver, Model: opts.Model, Scripts: opts.Scripts},
		Host:   opts.Host, Image: opts.Image, Lookup: opts.Lookup, Now: opts.Now, Out: opts.IO.Out, Log: opts.IO.ErrOut}))
}

// stateATreeIn is [grade.StateATree] in the cache cacheFlag names
// (resolveCache: "" is $SRB_CACHE, else the user cache dir's srb).
func stateATreeIn(ctx context.Context, t *task.Task, cacheFlag string) (string, func(), error) {
	cacheDir, err := resolveCache(cacheFlag)
	if err != nil {
		return "", nil, err
	}
	return grade.StateATree(ctx, t, cacheDir)
}

// copyReviewTree is [stages.CopyReviewTree].
var copyReviewTree = stages.CopyReviewTree
