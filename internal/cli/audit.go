package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/verification"
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
	now := opts.Now()
	out := filepath.Join(opts.Results, result.StageAudit+".json")
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	sr := &stageRun{stage: result.StageAudit, taskID: filepath.Base(dirs[0]), out: out, now: now, errOut: opts.IO.ErrOut}
	// fail publishes a failed result naming the reason, so an absent
	// file never reads as "the ladder stopped below"; an unfinished
	// result of an earlier run (itself status error) is left as it is,
	// so the reviews it kept are not lost to a re-run that could not start.
	fail := func(code int, reason string, meta map[string]any) error {
		if prev, err := result.ReadStage(out); err == nil && prev.Stage == result.StageAudit && prev.Metadata["in_progress"] == true {
			fmt.Fprintf(opts.IO.ErrOut, "srb: audit: %s kept as it was: it holds an unfinished run's reviews\n", out)
			return &exitError{code: code, err: fmt.Errorf("%s: %s", result.StageAudit, reason)}
		}
		return sr.fail(code, reason, meta)
	}
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	defer stampStage(out, time.Now(), stageProvenance(t, result.StageAudit, opts.Image, opts.Host), opts.IO.ErrOut)
	if st, err := os.Stat(opts.Submission); err != nil || !st.IsDir() {
		return fail(ExitCouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	tmpl, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(t.Audit.Prompt)))
	if err != nil {
		return fail(ExitBadTask, fmt.Sprintf("audit prompt not readable: %v", err), map[string]any{"config_error": true})
	}

	cfg := taskPositions(t, result.StageAudit)[0].Config
	if script, ok := cfg.Options["script"].(string); ok && script != "" && !filepath.IsAbs(script) {
		cfg.Options["script"] = filepath.Join(t.Dir, script) // a task's script is beside its task.cue
	}
	if opts.Driver != "" && opts.Driver != cfg.Driver {
		cfg.Driver = opts.Driver
		cfg.Options = map[string]any{} // the task's options belong to its own driver
	}
	if opts.Model != "" {
		cfg.Model = opts.Model
	}
	configFor := func(index int) models.Config {
		c := cfg
		if len(opts.Scripts) > 0 {
			c.Options = copyOptions(cfg.Options)
			c.Options["script"] = opts.Scripts[(index-1)%len(opts.Scripts)]
		}
		return c
	}
	if err := models.Preflight(opts.Lookup, models.Position{Where: result.StageAudit, Config: configFor(1)}); err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}

	original := opts.Original
	if original == "" {
		dir, cleanup, err := stateATree(ctx, t)
		if err != nil {
			return fail(ExitCouldNotRun, fmt.Sprintf("state A: %v", err), nil)
		}
		defer cleanup()
		original = dir
	} else if st, err := os.Stat(original); err != nil || !st.IsDir() {
		return fail(ExitCouldNotRun, "original not found at "+original, nil)
	}

	workspace := opts.Submission
	roots := []agent.RootSpec{{Name: "original", Dir: original}, {Name: "workspace", Dir: workspace}}
	toolOpts := agent.ToolboxOptions{AllowedCommands: t.Audit.AllowedCommands, RunTimeout: time.Duration(t.Audit.RunTimeoutSec) * time.Second}
	runIn := ""
	var beforeReview func(context.Context, int) error
	switch {
	case len(t.Audit.AllowedCommands) == 0:
		// No run tool: the file tools read the trees where they are.
	case opts.Host:
		// run executes here, on copies: nothing it runs (the submission's
		// own code, when a review runs its build) may change the
		// submission the later stages grade, or State A. As root the
		// commands run as a user of their own (verification.HostUser),
		// who can write its copies and nothing of srb's (the task folder,
		// the results). The file tools read the trees as submitted, shown
		// under the copies' paths (as in the image), so what a command
		// writes in a copy never changes what a review reads; each review
		// gets fresh copies.
		user, err := verification.NewHostUser()
		if err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
		defer user.Close()
		var scratch string
		if user != nil {
			scratch, err = os.MkdirTemp(user.Dir(), "audit-")
			if err == nil {
				err = os.Chmod(scratch, 0o711)
			}
		} else {
			scratch, err = os.MkdirTemp("", "srb-audit-")
		}
		if err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
		defer os.RemoveAll(scratch)
		copies := [2]string{filepath.Join(scratch, "original"), filepath.Join(scratch, "workspace")}
		fresh := func(context.Context, int) error {
			for i, src := range [2]string{original, workspace} {
				if err := os.RemoveAll(copies[i]); err != nil {
					return fmt.Errorf("clear the review's copy of %s: %w", src, err)
				}
				if err := copyReviewTree(src, copies[i]); err != nil {
					return fmt.Errorf("copy %s for the reviews: %w", src, err)
				}
				if user != nil {
					if err := user.Give(copies[i]); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if err := fresh(ctx, 0); err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
		roots[0].Shown, roots[1].Shown = copies[0], copies[1]
		if user != nil {
			toolOpts.Runner, toolOpts.Getenv = user.Runner()
		}
		beforeReview = fresh
		runIn = "host"
	default:
		// The first container starts now, so a missing image or engine
		// ends the run before any review; each later review gets a
		// pristine one of its own.
		boxes, err := startAuditContainers(ctx, opts, t, original, workspace)
		if err != nil {
			code, meta := stageImageFailure(err)
			return fail(code, err.Error(), meta)
		}
		defer boxes.Close(ctx)
		roots[0].Shown, roots[1].Shown = image.OriginalMount, image.AuditRepoMount
		toolOpts.Runner = agent.SessionRunner{Session: boxes}
		toolOpts.Getenv = agent.ContainerEnv
		beforeReview = boxes.Fresh
		runIn = boxes.Ref()
	}
	tb, err := agent.NewToolbox(roots, toolOpts)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	defer tb.Close()
	// Citations are re-checked against the trees as submitted, under the
	// paths the reviews were shown: with --host the reviews' tools work on
	// copies that their commands can change.
	ground, err := agent.NewToolbox([]agent.RootSpec{
		{Name: "original", Dir: original, Shown: tb.RootDir("original")},
		{Name: "workspace", Dir: workspace, Shown: tb.RootDir("workspace")},
	}, agent.ToolboxOptions{})
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	defer ground.Close()

	logs := opts.Logs
	if logs == "" {
		logs = opts.Results
	}
	gates := make([]audit.Gate, len(t.Audit.Gates))
	for i, g := range t.Audit.Gates {
		gates[i] = audit.Gate{ID: g.ID, Title: g.Title, Question: g.Question, Required: g.Required}
	}
	samples := t.Audit.Samples
	if samples <= 0 {
		samples = audit.DefaultSamples
	}
	budget := 0.0
	if t.Timeouts.Audit > 0 && t.Audit.Samples > 0 {
		budget = float64(t.Timeouts.Audit) / float64(t.Audit.Samples)
	}
	tools, _ := json.Marshal(map[string]any{"allowed_commands": t.Audit.AllowedCommands, "run_timeout_sec": t.Audit.RunTimeoutSec})
	inputs, inputsWhy := auditInputs(original, workspace, string(tmpl)+"\x00"+string(tools), gates, samples, budget, runIn, configFor)
	if inputsWhy != "" {
		fmt.Fprintf(opts.IO.ErrOut, "srb: audit: %s; an interrupted run cannot be resumed\n", inputsWhy)
	}
	st, err := audit.Run(ctx, audit.Config{
		Task:    t.ID,
		Gates:   gates,
		Prompt:  string(tmpl),
		Samples: t.Audit.Samples,
		Toolbox: tb,
		Ground:  ground,
		NewDriver: func(i int) (models.Driver, error) {
			return models.New(configFor(i), models.WithEnv(opts.Lookup), models.WithLog(opts.IO.ErrOut, fmt.Sprintf("audit: review %d of %d", i, samples)))
		},
		Log:       opts.IO.ErrOut,
		Out:       out,
		Inputs:    inputs,
		LogDir:    filepath.Join(logs, result.StageAudit),
		BudgetSec: budget,
		Now:       opts.Now,

		BeforeReview: beforeReview,
	})
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: Run wrote what finished (status error), and
			// a re-run on this folder keeps it.
			return couldNotRun(err)
		}
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	if runIn != "" {
		st.Metadata["commands_ran_in"] = runIn
	}
	if err := st.Write(out); err != nil {
		return couldNotRun(err)
	}
	fmt.Fprintln(opts.IO.Out, auditLine(st))
	if st.Status != result.StatusOK {
		return couldNotRun(errors.New("audit: no review completed; the audit gate is undecided, so re-run the stage (see the transcripts)"))
	}
	if ok, why := scoring.AuditPassesGate(st, scoring.Published(), t.ID); !ok {
		fmt.Fprintf(opts.IO.Out, "audit: %s\n", why)
	}
	return nil
}

// auditInputs returns the digests the reviews' answers depend on, for
// audit.Config.Inputs: both trees (image.TreeDigest), the prompt and
// gates, every review's model position (with a scripted driver's script
// bytes), where commands run, the review budget, and srb's own
// fingerprint; prompt carries the template and the run tool's settings. When one cannot be taken it returns nil and why, so no
// earlier run is ever resumed on inputs that were not checked.
func auditInputs(original, workspace, prompt string, gates []audit.Gate, samples int, budget float64, runIn string, configFor func(int) models.Config) (map[string]string, string) {
	sum := func(parts ...[]byte) string {
		h := sha256.New()
		for _, p := range parts {
			fmt.Fprintf(h, "%d:", len(p))
			h.Write(p)
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	in := map[string]string{"budget_sec": fmt.Sprintf("%g", budget), "commands_ran_in": runIn}
	if in["srb"] = result.Fingerprint(); in["srb"] == "" {
		return nil, "srb's own fingerprint cannot be taken"
	}
	for key, dir := range map[string]string{"submission": workspace, "state_a": original} {
		d, err := image.TreeDigest(dir)
		if err != nil {
			return nil, fmt.Sprintf("the %s tree's digest cannot be taken (%v)", key, err)
		}
		in[key] = d
	}
	g, _ := json.Marshal(gates)
	in["prompt"] = sum([]byte(prompt), g)
	var parts [][]byte
	for i := 1; i <= samples; i++ {
		c := configFor(i)
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Sprintf("review %d's model position cannot be encoded (%v)", i, err)
		}
		parts = append(parts, b)
		if p, ok := c.Options["script"].(string); ok && p != "" {
			script, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Sprintf("review %d's script cannot be read (%v)", i, err)
			}
			parts = append(parts, script)
		}
	}
	in["models"] = sum(parts...)
	return in, ""
}

// auditLine is "audit: P/R required gate(s) passed[; failed: …][; undecided: …]".
func auditLine(st *result.Stage) string {
	var passed, required int
	var failed, undecided []string
	for _, c := range st.Checks {
		if !c.Required {
			continue
		}
		required++
		switch c.Verdict {
		case result.VerdictPass:
			passed++
		case result.VerdictFail:
			failed = append(failed, c.ID)
		default:
			undecided = append(undecided, c.ID)
		}
	}
	line := fmt.Sprintf("audit: %d/%d required gate(s) passed", passed, required)
	if len(failed) > 0 {
		line += "; failed: " + strings.Join(failed, ", ")
	}
	if len(undecided) > 0 {
		line += "; undecided: " + strings.Join(undecided, ", ")
	}
	return line
}

// taskPositions returns the model positions of t's stages (audit,
// verification), named as task.cue names them, for [models.Preflight] and
// [models.ForwardedEnv]: the ladder checks every credential it will need
// before it starts a container.
func taskPositions(t *task.Task, stages ...string) []models.Position {
	conv := func(where string, m task.Model) models.Position {
		return models.Position{Where: where, Config: models.Config{Driver: m.Driver, Model: m.Model, Effort: m.Effort, Options: copyOptions(m.Options)}}
	}
	var out []models.Position
	for _, s := range stages {
		switch s {
		case result.StageAudit:
			out = append(out, conv("audit", t.Audit.Model))
		case result.StageVerification:
			out = append(out, conv("verification.adjudicator", t.Verification.Adjudicator))
			for _, a := range t.Verification.Adversaries {
				out = append(out, conv(fmt.Sprintf("verification.adversaries[%s]", a.ID), a.Model))
			}
		}
	}
	return out
}

func copyOptions(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stateATree materialises t's State A from the cache (fetching it if need
// be) and extracts it into a temporary folder; cleanup removes it.
func stateATree(ctx context.Context, t *task.Task) (string, func(), error) {
	return stateATreeIn(ctx, t, "")
}

// stateATreeIn is [stateATree] with the cache folder given (resolveCache:
// "" is $SRB_CACHE, else the user cache dir's srb).
func stateATreeIn(ctx context.Context, t *task.Task, cacheFlag string) (string, func(), error) {
	cacheDir, err := resolveCache(cacheFlag)
	if err != nil {
		return "", nil, err
	}
	cache := &source.Cache{Dir: cacheDir}
	e, err := cache.Materialise(ctx, t.StateA, t.Dir, &source.Env{})
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "srb-state-a-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dir := filepath.Join(tmp, "tree")
	if err := archive.ExtractFile(e.Archive, dir, e.Limits); err != nil {
		cleanup()
		return "", nil, err
	}
	return archive.SingleTop(dir), cleanup, nil
}

// copyReviewTree copies the tree at src to dst for reviews that may run
// commands: directories, regular files (with their permission bits) and
// symbolic links (as links, never followed); anything else (a FIFO, a
// device) is left out (copytree: modes and file times kept, folders open
// to their owner).
func copyReviewTree(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{DirBits: 0o700, Times: true})
	return err
}

// startAuditContainers starts the first of the reviews' containers
// ([audit.Containers]) on opts.Engine, from
// opts.Image when set, else from the task's audit image as images.lock
// records it (image.FindStage: built and loaded when missing or stale).
func startAuditContainers(ctx context.Context, opts *AuditOptions, t *task.Task, original, workspace string) (*audit.Containers, error) {
	eng, img, err := readyStageImage(ctx, t, result.StageAudit, opts.Image, opts.Engine, opts.BuildImage, opts.IO.ErrOut)
	if err != nil {
		return nil, fmt.Errorf("%w (srb audit --host runs the commands here)", err)
	}
	spec := engine.Spec{
		Image:  img.Ref,
		Labels: map[string]string{"srb.task": t.ID, "srb.stage": result.StageAudit},
		Copies: []engine.Copy{
			{HostPath: original, ContainerPath: image.OriginalMount},
			{HostPath: workspace, ContainerPath: image.AuditRepoMount},
		},
		ReadOnly: []string{image.OriginalMount},
	}
	stageLimits(t).Apply(&spec)
	return audit.StartContainers(ctx, eng, spec, img.Tag+" ("+img.Ref+")")
}
