package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
	"github.com/swe-refactor-bench/srb/ladder/verification"
)

const verificationDoc = `Run stage 3, the verification: each of the task's adversaries, in a
round of its own, looks for an executable test that passes on State A and
fails on the submission.

It runs only when stage 1 passed and stage 2 is complete, as read from
audit.json and behavioural.json in the results folder. Otherwise it says
why, removes a stale verification.json, writes nothing and exits 0: an
absent file is how the scorer knows the ladder stopped below. --force runs
it anyway; the scorer still pays nothing for it.

Each round gets fresh, salted copies of both trees, reset from pristine
copies, and is an agent loop of the adversary's model with list_dir,
fetch_source, search, diff (run when the task allows commands), try_test,
which runs a candidate on both trees with the task's candidate_command,
and report. The role (original or submission) reaches the candidate
command only as its last argument; no path or variable names it. In the
image the candidate command runs as uid 65532, never root, once
everything left running is killed; the task's runner must exec, not
fork, what runs the candidate, since any process can read its argument
list (docs/LADDER.md, "The runner's part"). A claimed candidate is a
break only when both trees could be tested (a
fault exit code, 64-78 by default, on either side makes it invalid), it
passes on State A, fails on the submission, holds reruns times, and the
adjudicator model rules it within the scope. An adjudicator that cannot
be reached, and a round whose tool calls mostly failed, make the round an
error: re-run the stage. The task's timeouts.verification is the stage's
clock: when it runs out, the round it cuts short and every round not yet
started end as errors; the finished rounds are kept.

The result is DIR/verification.json, written (atomically) after every
round, so a stage that is killed keeps the rounds it finished (the file
says partial, status error, until the last round). Running srb
verification again on the same results folder plays only the rounds that
did not finish (error rounds included), when the inputs are the same:
metadata.inputs records the digests of the submission's tree, State A's
tree, the task folder, each adversary's and the adjudicator's driver
configuration (a script by its content), the image (or the host's
isolation) and srb's fingerprint; a round whose inputs differ is played
again, and --fresh plays every round. Transcripts of rounds played again
are removed first; a kept round keeps its own. Each round's transcript is
DIR/verification/round-<adversary>.jsonl and each adjudication's
DIR/verification/adjudication-<adversary>-<candidate>.jsonl (--logs moves
them). State A is --original, or the task's State A from the cache.

Each round runs in a container of its own of the task's verification
image (srb/<task id>:verification, used when its id is the config digest
images.lock records; built and loaded first when missing or stale, as srb
behavioural and srb ladder do; --image REF names another), with both
trees copied in. An engine that cannot be reached, or an image that
cannot be found or built, is a harness fault (exit 1), unless srb build
refused the task's own configuration (exit 2): no round runs.
The two trees of a round never share anything a candidate can change:
each tree has a container of its own (the run tool, when the task allows
commands, a third one).
--host runs the rounds on this machine instead (both toolchains must be
here), in a scratch folder per round, the candidate command's paths
under /tests/verification taken from a copy of the task folder. As root,
each tree's candidates run as an unused uid of their own, drawn at random
per round, in folders only that uid may enter (its tree, SRB_WORK, HOME,
TMPDIR), and after each run every process of that uid is killed and what
it left in /tmp, /var/tmp, /dev/shm and /run/lock removed. When srb is
not root, --host cannot separate users: both trees' candidates run as
srb's own user, which can reach the other tree's folders and srb's
files; metadata.isolation then says "folder-per-tree" (a note says so),
where the image gives "container-per-tree" and root "user-per-tree".
metadata.where records where the rounds ran, and metadata.image the
image. --keep-work DIR keeps each round's folder there.

Drivers: the task's, unless --driver (every position), --adversary-driver
or --adjudicator-driver (and --model, --adjudicator-model) say otherwise.
With the scripted driver, --script F (repeat: adversary n replays the n-th,
cycling), --adversary-script ID=F and --adjudicator-script F give the
turns. Credentials are checked before any round starts.

A candidate run killed at candidate_timeout_sec, on either tree, or one srb
could not carry out (the engine failed), is undecided: never a break. A
round whose candidates never tested both trees (every pair had a fault
code, a timeout or an uncarried run) established nothing: an error, not a
survival.

Exit status: 0 when the stage ran (whatever the rounds found) or correctly
declined to run; 1 when it could not (no submission, a missing credential,
a round that did not complete: re-run it, the finished rounds are kept);
2 when the task's own configuration is wrong.

Examples:
  srb verification tasks/lang90-tally-c-to-go --submission run/repo --results run/verifier
  srb verification lang90-tally-c-to-go --submission sub --results out --driver scripted --script a01.json --adjudicator-script rule.json`

// VerificationOptions are the inputs of srb verification, and of stage 3
// when srb ladder runs it in-process ([runVerification]).
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
		Long:  verificationDoc,
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

// verificationAssets is where the verification image holds the task's
// assets (modules/, data/, truth/); on this machine they are the task
// folder's.
const verificationAssets = task.VerificationAssets

// checkImageCommand is the part of the launch check (HARNESS.md §4.3) on
// the candidate command cmd that can be made before the task's
// verification image runs: there is a command, and every argument naming
// a path under /tests/verification names a file or folder of the task's
// modules/, data/ or truth/ in the task folder taskDir, which is all the
// image holds there (image.AssetDirs). Without it a mistyped path there
// would fail every round in turn, as rounds that could not start, instead
// of the task's configuration once (exit 2). Other paths are checked in
// each round's container (verification.NewContainer).
func checkImageCommand(cmd []string, taskDir string) error {
	if len(cmd) == 0 {
		return errors.New("sandbox: no candidate command")
	}
	for _, a := range cmd {
		// The same rule validate runs (candidate-command), so they cannot drift.
		if msg := task.CandidateAssetProblem(a, taskDir); msg != "" {
			return errors.New("sandbox: " + msg)
		}
	}
	return nil
}

// runVerification runs stage 3 for opts (HARNESS.md §1.4 verification,
// §4.3) and is what srb ladder calls in-process. It gates on the results
// folder's audit.json and behavioural.json unless opts.Force; a stage that
// was not earned writes nothing, removes a stale verification.json and
// returns nil. Otherwise it writes verification.json on every path that
// can name the task, prints "verification: S survived, B broke through, E
// did not complete" and a line per round to opts.IO.Out, and returns nil
// when the stage ran, or an error whose exit code is 1 (could not run) or
// 2 (the task's configuration is wrong).
func runVerification(ctx context.Context, opts *VerificationOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	now := opts.Now()
	out := filepath.Join(opts.Results, result.StageVerification+".json")
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	sr := &stageRun{stage: result.StageVerification, taskID: filepath.Base(dirs[0]), out: out, now: now, errOut: opts.IO.ErrOut}
	// fail publishes a failed result naming the reason, so an absent
	// file never reads as "the ladder stopped below".
	fail := sr.fail
	t, err := sr.loadTask(dirs[0])
	if err != nil {
		return err
	}
	defer stampStage(out, time.Now(), stageProvenance(t, result.StageVerification, opts.Image, opts.Host), opts.IO.ErrOut)

	// The gates (HARNESS.md §7 bugs 5 and 6): not earned means no file.
	if earned, why := verificationEarned(t, opts.Results, now); !earned {
		if !opts.Force {
			fmt.Fprintf(opts.IO.Out, "verification: not run -- %s\n", why)
			if err := os.Remove(out); err == nil {
				fmt.Fprintf(opts.IO.Out, "verification: removed stale %s\n", out)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return couldNotRun(fmt.Errorf("verification: remove stale %s: %w", out, err))
			}
			return nil
		}
		fmt.Fprintf(opts.IO.ErrOut, "srb: verification: forced, though %s; the scorer will not pay for it\n", why)
	}

	if st, err := os.Stat(opts.Submission); err != nil || !st.IsDir() {
		return fail(ExitCouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	tmpl, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(t.Verification.Prompt)))
	if err != nil {
		return fail(ExitBadTask, fmt.Sprintf("verification prompt not readable: %v", err), map[string]any{"config_error": true})
	}
	assets, err := filepath.Abs(t.Dir)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	pathMap := map[string]string{verificationAssets: assets}
	if opts.Host {
		if _, err := verification.CheckCommand(t.Verification.CandidateCommand, pathMap); err != nil {
			return fail(ExitBadTask, fmt.Sprintf("verification.candidate_command: %v", err), map[string]any{"config_error": true})
		}
	} else {
		// The rest of the launch check runs in each round's container
		// (srb ladder's rounds too: it names the task's image by its id).
		if err := checkImageCommand(t.Verification.CandidateCommand, assets); err != nil {
			return fail(ExitBadTask, fmt.Sprintf("verification.candidate_command: %v", err), map[string]any{"config_error": true})
		}
	}

	// Every position, with the overrides, checked before a round starts.
	positions := taskPositions(t, result.StageVerification)
	adjCfg := opts.Adjudicator.Apply(positions[0].Config, 1)
	taskScript(t, &adjCfg)
	positions[0].Config = adjCfg
	advCfg := map[string]models.Config{}
	for i, a := range t.Verification.Adversaries {
		d, ok := opts.Adversaries[a.ID]
		if !ok {
			d = opts.Adversary
		}
		c := d.Apply(positions[i+1].Config, i+1)
		taskScript(t, &c)
		positions[i+1].Config = c
		advCfg[a.ID] = c
	}
	for id := range opts.Adversaries {
		if !slices.ContainsFunc(t.Verification.Adversaries, func(a task.Adversary) bool { return a.ID == id }) {
			return fail(ExitCouldNotRun, fmt.Sprintf("an adversary script names %s, which is not one of the task's adversaries", id), nil)
		}
	}
	if err := models.Preflight(opts.Lookup, positions...); err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}

	// The image is found (built and loaded when missing or stale) before
	// any round starts, not six times over as six rounds that could not
	// start; with no engine nothing runs, and never on this machine
	// instead.
	var eng engine.Runner
	var img *suite.Image
	if !opts.Host {
		if eng, img, err = readyStageImage(ctx, t, result.StageVerification, opts.Image, opts.Engine, opts.BuildImage, opts.IO.ErrOut); err != nil {
			code, meta := stageImageFailure(err)
			return fail(code, err.Error()+" (srb verification --host runs the rounds here)", meta)
		}
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
	if opts.KeepWork != "" {
		if err := os.MkdirAll(opts.KeepWork, 0o755); err != nil {
			return fail(ExitCouldNotRun, err.Error(), nil)
		}
	}

	v := t.Verification
	var scope verification.Scope
	for _, it := range v.Scope.Allow {
		scope.Allow = append(scope.Allow, verification.ScopeItem{ID: it.ID, Text: it.Text})
	}
	for _, it := range v.Scope.Deny {
		scope.Deny = append(scope.Deny, verification.ScopeItem{ID: it.ID, Text: it.Text})
	}
	advs := make([]verification.Adversary, len(v.Adversaries))
	for i, a := range v.Adversaries {
		advs[i] = verification.Adversary{ID: a.ID, Direction: a.Direction, Focus: a.Focus, Unrestricted: a.Unrestricted, BudgetSec: float64(a.BudgetSec)}
	}
	logs := cmpOr(opts.Logs, opts.Results)
	meta := map[string]any{}
	if !opts.Host {
		meta["isolation"] = verification.IsolationContainer
		meta["where"] = "container"
		im := map[string]any{"stage": result.StageVerification, "ref": img.Tag, "id": img.Ref}
		if img.Digest != "" {
			im["digest"] = img.Digest
		}
		meta["image"] = im
	} else {
		meta["where"] = "host"
		meta["isolation"] = verification.HostIsolation()
	}
	imgRef := ""
	if img != nil {
		imgRef = img.Ref
	}
	inputs, err := verification.Inputs(opts.Submission, original, t.Dir, imgRef, adjCfg, advCfg)
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	meta["inputs"] = inputs
	var kept map[string]verification.Kept
	if !opts.Fresh {
		kept = verification.KeptRounds(out, inputs)
		if len(kept) > 0 {
			ids := slices.Sorted(maps.Keys(kept))
			fmt.Fprintf(opts.IO.ErrOut, "srb: verification: %d round(s) finished earlier on the same inputs are kept (%s); the others are played\n", len(kept), strings.Join(ids, ", "))
		}
	}
	st, err := verification.Run(ctx, verification.Config{
		Progress:             opts.IO.ErrOut,
		Task:                 t.ID,
		Prompt:               string(tmpl),
		Scope:                scope,
		Adversaries:          advs,
		Reruns:               v.Reruns,
		RequireDeterministic: v.RequireDeterministic,
		AllowedCommands:      v.AllowedCommands,
		RunTimeout:           time.Duration(v.RunTimeoutSec) * time.Second,
		NewSandbox: func(ctx context.Context, adversary string) (verification.Sandbox, error) {
			if !opts.Host {
				return verification.NewContainer(ctx, verification.ContainerConfig{
					Engine:     eng,
					Image:      img.Ref,
					Labels:     map[string]string{"srb.task": t.ID, "srb.stage": result.StageVerification, "srb.round": adversary},
					Original:   original,
					Submission: opts.Submission,
					Command:    v.CandidateCommand,
					Timeout:    time.Duration(v.CandidateTimeoutSec) * time.Second,
					FaultCodes: v.FaultExitCodes,
					Network:    v.NetworkAllowed,
					Pids:       stageLimits(t).Pids,
					Memory:     stageLimits(t).Memory,
					Disk:       stageLimits(t).Disk,
					CPUs:       stageLimits(t).CPUs,
					Work:       opts.KeepWork,
					Keep:       opts.KeepWork != "",
				})
			}
			return verification.NewHost(verification.HostConfig{
				Env:        verification.HostCandidateEnv(),
				Original:   original,
				Submission: opts.Submission,
				Command:    v.CandidateCommand,
				PathMap:    pathMap,
				Timeout:    time.Duration(v.CandidateTimeoutSec) * time.Second,
				FaultCodes: v.FaultExitCodes,
				Network:    v.NetworkAllowed,
				Work:       opts.KeepWork,
				Keep:       opts.KeepWork != "",
			})
		},
		NewDriver: func(a verification.Adversary) (models.Driver, error) {
			return models.New(advCfg[a.ID], models.WithEnv(opts.Lookup), models.WithLog(opts.IO.ErrOut, "verification: round "+a.ID))
		},
		NewAdjudicator: func() (models.Driver, error) {
			return models.New(adjCfg, models.WithEnv(opts.Lookup), models.WithLog(opts.IO.ErrOut, "verification: adjudicator"))
		},
		LogDir:   filepath.Join(logs, result.StageVerification),
		Kept:     kept,
		Metadata: meta,
		// Each finished round is on disk at once (atomically), so a
		// stage that is killed keeps what it finished.
		Checkpoint: func(partial *result.Stage) error { return partial.Write(out) },
		Budget:     time.Duration(t.Timeouts.Verification) * time.Second,
		Now:        opts.Now,
	})
	if err != nil {
		return fail(ExitCouldNotRun, err.Error(), nil)
	}
	if opts.Host {
		if verification.HostIsolation() != verification.IsolationUser {
			st.Note("srb is not root, so --host ran both trees' candidates as srb's own user: a candidate on one tree could reach the other tree's folders and srb's files (run as root, or in the verification image, to keep the trees apart)")
		}
	}
	if err := st.Write(out); err != nil {
		return couldNotRun(err)
	}
	for _, line := range verification.Lines(st) {
		fmt.Fprintln(opts.IO.Out, line)
	}
	if st.Status != result.StatusOK {
		return couldNotRun(errors.New("verification: no round completed; re-run the stage (see the transcripts)"))
	}
	if n, _ := st.Metadata["errored"].(int); n > 0 {
		// A round that did not finish (the stage's clock, an engine that
		// failed, an adjudicator out of reach) is a fault of the grader:
		// the verdict is invalid, never a survival or a break.
		return couldNotRun(fmt.Errorf("verification: %d of %d round(s) did not complete; re-run the stage", n, len(st.Checks)))
	}
	return nil
}

// verificationEarned reports whether the results folder's stage 1 and
// stage 2 results let stage 3 run, and why not: [pipeline.Earned], the
// rule srb ladder applies, so the two never disagree.
func verificationEarned(t *task.Task, dir string, now time.Time) (bool, string) {
	return pipeline.Earned(dir, t.ID, TaskPolicy(t), now)
}

// taskScript resolves a scripted position's relative options.script
// against the task folder, as srb audit does.
func taskScript(t *task.Task, c *models.Config) {
	if c.Driver != models.DriverScripted {
		return
	}
	if s, ok := c.Options["script"].(string); ok && s != "" && !filepath.IsAbs(s) {
		if _, err := os.Stat(s); err != nil {
			c.Options = copyOptions(c.Options)
			c.Options["script"] = filepath.Join(t.Dir, s)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
