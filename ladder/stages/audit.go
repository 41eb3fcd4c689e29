package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// AuditOptions are one run of stage 1.
type AuditOptions struct {
	// Submission is the submitted tree the reviews read.
	Submission string
	// Results is the results folder: audit.json is written there.
	Results string
	// Original is State A's tree; "" is Task.StateA's.
	Original string
	// Logs is where the transcripts go, under audit/; "" is Results.
	Logs string
	// Driver overrides the task's model position for every review
	// (review n of a scripted one replays Scripts[(n-1) % len]).
	Driver pipeline.Driver
	// Host runs the run tool's commands on this machine, on copies of
	// both trees, instead of in the audit image.
	Host bool
	// Image is the audit image to run commands in; "" is the task's.
	Image string
	// Lookup reads credentials by name; nil is os.LookupEnv.
	Lookup func(string) (string, bool)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Out receives the stage's summary lines; Log its progress lines.
	Out, Log io.Writer
}

// Audit runs stage 1 on t: the task's reviews read State A and the
// submission and answer its gates, and audit.json is written (after
// every review, with the digests of its inputs; a re-run on the same
// results folder keeps the finished reviews of a run on the same
// inputs). It prints "audit: P/R required gate(s) passed…" on Out. It
// returns nil when the stage ran, whatever the gates decided.
func Audit(ctx context.Context, t *Task, opts AuditOptions) error {
	now := orNow(opts.Now)
	logw, outw := orDiscard(opts.Log), orDiscard(opts.Out)
	lookup := opts.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	sr := newRun(result.StageAudit, t, opts.Results, now, logw)
	out := sr.out
	// fail publishes a failed result naming the reason; an unfinished
	// result of an earlier run (itself status error) is left as it is,
	// so the reviews it kept are not lost to a re-run that could not start.
	fail := func(code int, reason string, meta map[string]any) error {
		if prev, err := result.ReadStage(out); err == nil && prev.Stage == result.StageAudit && prev.Metadata["in_progress"] == true {
			fmt.Fprintf(logw, "srb: audit: %s kept as it was: it holds an unfinished run's reviews\n", out)
			return &pipeline.Error{Code: code, Err: fmt.Errorf("%s: %s", result.StageAudit, reason)}
		}
		return sr.fail(code, reason, meta)
	}
	defer sr.stamp(t, opts.Image, opts.Host)()
	if st, err := os.Stat(opts.Submission); err != nil || !st.IsDir() {
		return fail(pipeline.CouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	tmpl, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(t.Audit.Prompt)))
	if err != nil {
		return fail(pipeline.BadTask, fmt.Sprintf("audit prompt not readable: %v", err), map[string]any{"config_error": true})
	}

	cfg := t.Positions(result.StageAudit)[0].Config
	if script, ok := cfg.Options["script"].(string); ok && script != "" && !filepath.IsAbs(script) {
		cfg.Options["script"] = filepath.Join(t.Dir, script) // a task's script is beside its task.cue
	}
	configFor := func(index int) models.Config { return opts.Driver.Apply(cfg, index) }
	if err := models.Preflight(lookup, models.Position{Where: result.StageAudit, Config: configFor(1)}); err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}

	origDir := opts.Original
	if origDir != "" {
		if st, err := os.Stat(origDir); err != nil || !st.IsDir() {
			return fail(pipeline.CouldNotRun, "original not found at "+origDir, nil)
		}
	}
	origDir, cleanup, err := original(ctx, t, origDir)
	if err != nil {
		return fail(pipeline.CouldNotRun, fmt.Sprintf("state A: %v", err), nil)
	}
	defer cleanup()

	workspace := opts.Submission
	roots := []agent.RootSpec{{Name: "original", Dir: origDir}, {Name: "workspace", Dir: workspace}}
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
		// who can write its copies and nothing of the grader's (the task
		// folder, the results). The file tools read the trees as
		// submitted, shown under the copies' paths (as in the image), so
		// what a command writes in a copy never changes what a review
		// reads; each review gets fresh copies.
		user, err := verification.NewHostUser()
		if err != nil {
			return fail(pipeline.CouldNotRun, err.Error(), nil)
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
			return fail(pipeline.CouldNotRun, err.Error(), nil)
		}
		defer os.RemoveAll(scratch)
		copies := [2]string{filepath.Join(scratch, "original"), filepath.Join(scratch, "workspace")}
		fresh := func(context.Context, int) error {
			for i, src := range [2]string{origDir, workspace} {
				if err := os.RemoveAll(copies[i]); err != nil {
					return fmt.Errorf("clear the review's copy of %s: %w", src, err)
				}
				if err := CopyReviewTree(src, copies[i]); err != nil {
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
			return fail(pipeline.CouldNotRun, err.Error(), nil)
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
		boxes, err := startAuditContainers(ctx, t, opts.Image, origDir, workspace, logw)
		if err != nil {
			code, meta := imageFailure(err)
			return fail(code, err.Error(), meta)
		}
		defer boxes.Close(ctx)
		roots[0].Shown, roots[1].Shown = t.Audit.OriginalMount, t.Audit.WorkspaceMount
		toolOpts.Runner = agent.SessionRunner{Session: boxes}
		toolOpts.Getenv = agent.ContainerEnv
		beforeReview = boxes.Fresh
		runIn = boxes.Ref()
	}
	tb, err := agent.NewToolbox(roots, toolOpts)
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	defer tb.Close()
	// Citations are re-checked against the trees as submitted, under the
	// paths the reviews were shown: with Host the reviews' tools work on
	// copies that their commands can change.
	ground, err := agent.NewToolbox([]agent.RootSpec{
		{Name: "original", Dir: origDir, Shown: tb.RootDir("original")},
		{Name: "workspace", Dir: workspace, Shown: tb.RootDir("workspace")},
	}, agent.ToolboxOptions{})
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	defer ground.Close()

	logs := cmpOr(opts.Logs, opts.Results)
	samples := t.Audit.Samples
	if samples <= 0 {
		samples = audit.DefaultSamples
	}
	budget := 0.0
	if t.AuditTimeout > 0 && t.Audit.Samples > 0 {
		budget = float64(t.AuditTimeout) / float64(t.Audit.Samples)
	}
	tools, _ := json.Marshal(map[string]any{"allowed_commands": t.Audit.AllowedCommands, "run_timeout_sec": t.Audit.RunTimeoutSec})
	inputs, inputsWhy := auditInputs(t.TreeDigest, origDir, workspace, string(tmpl)+"\x00"+string(tools), t.Audit.Gates, samples, budget, runIn, configFor)
	if inputsWhy != "" {
		fmt.Fprintf(logw, "srb: audit: %s; an interrupted run cannot be resumed\n", inputsWhy)
	}
	st, err := audit.Run(ctx, audit.Config{
		Task:    t.ID,
		Gates:   t.Audit.Gates,
		Prompt:  string(tmpl),
		Samples: t.Audit.Samples,
		Toolbox: tb,
		Ground:  ground,
		NewDriver: func(i int) (models.Driver, error) {
			return models.New(configFor(i), models.WithEnv(lookup), models.WithLog(logw, fmt.Sprintf("audit: review %d of %d", i, samples)))
		},
		Log:       logw,
		Out:       out,
		Inputs:    inputs,
		LogDir:    filepath.Join(logs, result.StageAudit),
		BudgetSec: budget,
		Now:       now,

		BeforeReview: beforeReview,
	})
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: Run wrote what finished (status error), and
			// a re-run on this folder keeps it.
			return couldNotRun(err)
		}
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	if runIn != "" {
		st.Metadata["commands_ran_in"] = runIn
	}
	if err := st.Write(out); err != nil {
		return couldNotRun(err)
	}
	fmt.Fprintln(outw, AuditLine(st))
	if st.Status != result.StatusOK {
		return couldNotRun(errors.New("audit: no review completed; the audit gate is undecided, so re-run the stage (see the transcripts)"))
	}
	if ok, why := scoring.AuditPassesGate(st, scoring.Published(), t.ID); !ok {
		fmt.Fprintf(outw, "audit: %s\n", why)
	}
	return nil
}

// auditInputs returns the digests the reviews' answers depend on, for
// audit.Config.Inputs: both trees (digest), the prompt and gates, every
// review's model position (with a scripted driver's script bytes), where
// commands run, the review budget, and srb's own fingerprint; prompt
// carries the template and the run tool's settings. When one cannot be
// taken it returns nil and why, so no earlier run is ever resumed on
// inputs that were not checked.
func auditInputs(digest func(string) (string, error), original, workspace, prompt string, gates []audit.Gate, samples int, budget float64, runIn string, configFor func(int) models.Config) (map[string]string, string) {
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
	if digest == nil {
		return nil, "no tree digest was given"
	}
	for key, dir := range map[string]string{"submission": workspace, "state_a": original} {
		d, err := digest(dir)
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

// AuditLine is "audit: P/R required gate(s) passed[; failed: …][;
// undecided: …]" for stage 1's result st.
func AuditLine(st *result.Stage) string {
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

// CopyReviewTree copies the tree at src to dst for reviews that may run
// commands: directories, regular files (with their permission bits) and
// symbolic links (as links, never followed); anything else (a FIFO, a
// device) is left out (copytree: modes and file times kept, folders open
// to their owner).
func CopyReviewTree(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{DirBits: 0o700, Times: true})
	return err
}

// startAuditContainers starts the first of the reviews' containers
// ([audit.Containers]) from ref when set, else from the task's audit
// image (Task.Images: built and loaded when missing or stale).
func startAuditContainers(ctx context.Context, t *Task, ref, original, workspace string, log io.Writer) (*audit.Containers, error) {
	if t.Images == nil {
		return nil, errors.New("no stage images were given (srb audit --host runs the commands here)")
	}
	eng, img, err := t.Images(ctx, result.StageAudit, ref, log)
	if err != nil {
		return nil, fmt.Errorf("%w (srb audit --host runs the commands here)", err)
	}
	spec := engine.Spec{
		Image:  img.Ref,
		Labels: map[string]string{"srb.task": t.ID, "srb.stage": result.StageAudit},
		Copies: []engine.Copy{
			{HostPath: original, ContainerPath: t.Audit.OriginalMount},
			{HostPath: workspace, ContainerPath: t.Audit.WorkspaceMount},
		},
		ReadOnly: []string{t.Audit.OriginalMount},
	}
	t.Limits.Apply(&spec)
	return audit.StartContainers(ctx, eng, spec, img.Tag+" ("+img.Ref+")")
}
