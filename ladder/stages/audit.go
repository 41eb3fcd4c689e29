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
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
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
	default:
		// The reviews' commands run in sessions of the execution interface
		// (ladder/engine), a pristine one per review, holding copies of
		// both trees (State A read-only): in containers of the task's
		// audit image, or with --host on this machine (engine.Local, a
		// user of its own per review as root, who owns its workspace copy
		// and can write nothing of the grader's: the task folder, the
		// submission as submitted, the results). Nothing a command runs
		// (the submission's own code, when a review runs its build) may
		// change the trees the later stages grade. The file tools read the
		// trees as submitted, shown under the sessions' paths, so what a
		// command writes in its copy never changes what a review reads.
		// The first session starts now, so a missing image or engine ends
		// the run before any review.
		boxes, getenv, where, done, err := startAuditSessions(ctx, t, opts, origDir, workspace, logw)
		if err != nil {
			code, meta := imageFailure(err)
			return fail(code, err.Error(), meta)
		}
		defer done()
		defer boxes.Close(ctx)
		roots[0].Shown, roots[1].Shown = boxes.Path(t.Audit.OriginalMount), boxes.Path(t.Audit.WorkspaceMount)
		toolOpts.Runner = agent.SessionRunner{Session: boxes}
		toolOpts.Getenv = getenv
		beforeReview = boxes.Fresh
		runIn = where
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
	if opts.Host {
		// The run tool's commands run here as a uid of their own: the
		// results and logs folders are closed to it (closeToGraded).
		notes, said, restore := closeToGraded(opts.Results, logs)
		defer restore()
		for _, n := range append(notes, said...) {
			fmt.Fprintf(logw, "srb: audit: %s\n", n)
		}
	}
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

// startAuditSessions starts the first of the reviews' sessions
// ([audit.Containers]): State A copied to the task's original mount
// (read-only), the submission to its workspace mount (the commands'
// own). With opts.Host they run on this machine ([engine.Local], its
// root folder at one path for every review so the paths shown stay put,
// HOME a folder of the session's user, PATH this process's) and where is
// "host"; otherwise in the audit image of opts.Image when set, else the
// task's (Task.Images: built and loaded when missing or stale), and where
// names it. done removes what the host's sessions were made in.
func startAuditSessions(ctx context.Context, t *Task, opts AuditOptions, original, workspace string, log io.Writer) (boxes *audit.Containers, getenv func(string) string, where string, done func(), err error) {
	spec := engine.Spec{
		Labels: map[string]string{"srb.task": t.ID, "srb.stage": result.StageAudit},
		Copies: []engine.Copy{
			{HostPath: original, ContainerPath: t.Audit.OriginalMount},
			{HostPath: workspace, ContainerPath: t.Audit.WorkspaceMount, Owned: true},
		},
		ReadOnly: []string{t.Audit.OriginalMount},
	}
	t.Limits.Apply(&spec)
	done = func() {}
	if !opts.Host {
		if t.Images == nil {
			return nil, nil, "", done, errors.New("no stage images were given (srb audit --host runs the commands here)")
		}
		eng, img, err := t.Images(ctx, result.StageAudit, opts.Image, log)
		if err != nil {
			return nil, nil, "", done, fmt.Errorf("%w (srb audit --host runs the commands here)", err)
		}
		spec.Image = img.Ref
		boxes, err := audit.StartContainers(ctx, eng, spec, img.Tag+" ("+img.Ref+")")
		if err != nil {
			return nil, nil, "", done, err
		}
		return boxes, agent.ContainerEnv, boxes.Ref(), done, nil
	}
	base := os.TempDir()
	if !hostuser.Reachable(base) {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "srb-audit-")
	if err == nil {
		err = os.Chmod(dir, 0o711)
	}
	if err != nil {
		return nil, nil, "", done, err
	}
	done = func() { os.RemoveAll(dir) }
	home, err := os.MkdirTemp(dir, "home-")
	if err == nil {
		err = os.Chmod(home, 0o700)
	}
	if err != nil {
		done()
		return nil, nil, "", func() {}, err
	}
	spec.Copies = append(spec.Copies, engine.Copy{HostPath: home, ContainerPath: auditHome, Owned: true})
	boxes, err = audit.StartContainers(ctx, &engine.Local{Root: filepath.Join(dir, "root")}, spec, "this machine")
	if err != nil {
		done()
		return nil, nil, "", func() {}, err
	}
	getenv = func(name string) string {
		if name == "HOME" {
			return boxes.Path(auditHome)
		}
		return os.Getenv(name)
	}
	return boxes, getenv, "host", done, nil
}

// auditHome is the HOME of the run tool's commands on this machine.
const auditHome = "/srb/home"
