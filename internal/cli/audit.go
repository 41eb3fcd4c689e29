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

const auditDoc = `Run stage 1, the audit: model reviews read State A and the submission
and answer the task's gates, each pass or fail.

The task's audit block says which model reviews (driver, model, effort,
options), how many reviews vote (samples), the prompt and the gates. Each
review is an agent loop with list_dir, fetch_source, search, diff and, when
the task allows commands, run. A fail must cite path, line and quote; each
citation is re-opened, and a fail that does not ground, a verdict word that
is not pass or fail, and a tie all resolve to pass, recorded as such. A gate
no review answered is error, which makes the run invalid, never zero.

The result is written to DIR/audit.json, and each review's transcript to
DIR/audit/review-<n>.jsonl (--logs moves them). A fail counts only on a
quoted line of the submission's own tree (not a folder, a bare path, a note,
a trivial quote or State A's line). audit.json is rewritten after every
review (unfinished: status error), with the digests of its inputs; re-running
on the same DIR keeps the finished reviews of a run with the same inputs and
runs only the rest. Each review's start and end, and every retry of a model
call, is a line on stderr as it happens. State A is --original, or
the task's State A from the cache (srb fetch). Each review's budget is the
task's audit timeout divided among the samples.

The reviews' file tools read both trees here. When the task lets reviews
run commands (audit.allowed_commands), run executes inside a container of
the task's audit image (srb/<task id>:audit whose id images.lock records,
built and loaded first when the engine has none; --image names another): State A is copied to /opt/original
(read-only) and the submission to /opt/workspace, so nothing a review runs
changes the submission the later stages grade; the container has no
network, and the reviews are shown those two paths. --host runs the
commands on this machine instead, on copies of both trees (for tests and
machines without an engine).
--driver, --model and --script override the task's model for every review:
with --driver scripted, review n replays the n-th --script (cycling when
there are fewer), so a task's prompts can be smoke-tested without a budget.
Credentials are read from the environment by name (ANTHROPIC_API_KEY or
ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY, or options.api_key_env) and checked
before any review starts.

Exit status: 0 when the stage ran (whatever the gates decided), 1 when it
could not (no submission, missing credentials, no review completed), 2
when the task's own configuration is wrong. The result file is written in
every case the command can name a results folder.

Examples:
  srb audit tasks/lang90-tally-c-to-go --submission run/repo --results run/verifier
  srb audit lang90-tally-c-to-go --submission run/repo --results out --driver scripted --script r1.json --script r2.json --script r3.json`

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
		Long:  auditDoc,
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
