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
