package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/gateway"
	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

const trialDoc = `Run an agent on a task the way Harbor runs it, here on Docker, then grade
the workspace it leaves with the ladder.

A trial
  1. starts a container of the task's agent image (built and loaded when
     missing): State A at the workspace (artifacts.path, /workspace/repo),
     no network, the agent's user, the task's limits (pids, memory, disk);
     the instruction is at /srb-agent/instruction.md;
  2. runs the agent for the task's budget (budget_hours; --budget may
     shorten it):
       nop              does nothing
       oracle           applies --solution FIXTURE (a submission fixture)
                        with the solve.sh srb export harbor writes
       scripted:FILE    replays FILE's steps: write, delete, run (see
                        docs/HARBOR.md)
       command:PATH     runs the program PATH, copied into the container at
                        /srb-agent/agent, in the workspace as the agent's
                        user, the instruction on its standard input (as CLI
                        agents are run)
     An agent that runs past the budget is stopped; what the workspace
     holds then is graded, and result.json says so;
  3. collects the workspace leaving out artifacts.exclude, into
     OUT/artifacts/repo, and destroys the container. The copy is bounded
     (8 GiB of files, 16 GiB read, a million entries, 128 folders deep,
     2048 bytes of path; --max-workspace-bytes and --max-workspace-entries
     lower them); FIFOs and devices are never opened, links never
     followed. A workspace past a bound is the agent's own failure:
     nothing is graded, and the verdict is a valid 0 saying why;
  4. grades it with srb ladder into OUT/verifier (reward.json last).

--gateway URL lets the agent reach that one model gateway (http or https)
and nothing else: the container keeps no network, and srb (as root, on the
engine's machine) listens inside its network namespace on 127.0.0.1 at the
gateway's port (and on [::1] at that port when the namespace has IPv6
loopback) and carries each connection to the gateway. The agent finds
the URL to use in SRB_GATEWAY_URL (it names 127.0.0.1, or the gateway's
host name mapped to 127.0.0.1); result.json's agent_network records the
network the agent had.
OUT follows Harbor's trial layout: agent/agent.log and
agent/trajectory.json, verifier/, artifacts/, and result.json with each
phase's timing. The ladder's driver flags pass through; with oracle, the
fixture's scripts choose the scripted driver where they cover a position,
as srb ladder --submission-fixture does.

Exit status: srb ladder's (0 graded; 1 a harness fault, the published
verdict invalid; 2 the task's configuration is wrong); 0 for a workspace
refused past a bound; 1 when the agent's container could not be run or
collected, or the gateway did not answer.

Examples:
  srb trial lang90-tally-c-to-go --agent nop --out trials/nop
  srb trial testdata/tasks/lang90-tally-c-to-go --agent oracle --solution testdata/submissions/lang90-tally-c-to-go/go-port --out trials/oracle
  srb trial lang90-tally-c-to-go --agent command:./my-agent.sh --out trials/mine
  srb trial lang90-tally-c-to-go --agent command:./my-agent.sh --gateway http://127.0.0.1:4000/v1 --out trials/gw`

// TrialOptions are the inputs of srb trial.
type TrialOptions struct {
	IO      IOStreams
	Factory *Factory

	Task     string
	Agent    string // nop, oracle, scripted:FILE, command:PATH
	Solution string // the oracle's submission fixture
	Out      string
	// Budget, when above zero, shortens the task's agent budget.
	Budget time.Duration
	Cache  string
	// Gateway, when set, is the one model gateway (an http or https URL)
	// the agent's container may reach; "" leaves it no network.
	Gateway string
	// MaxWorkspaceBytes and MaxWorkspaceEntries, when above zero, lower
	// the bounds of the workspace's copy (WorkspaceBytesLimit,
	// WorkspaceEntriesLimit); they never raise them.
	MaxWorkspaceBytes   int64
	MaxWorkspaceEntries int

	// Passed to srb ladder as its flags of the same names.
	Driver            string
	AuditScripts      []string
	AdversaryScripts  []string
	AdjudicatorScript string
}

// NewCmdTrial builds `srb trial`.
func NewCmdTrial(f *Factory, runF func(*TrialOptions) error) *cobra.Command {
	opts := &TrialOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "trial TASK --agent AGENT --out DIR",
		Short: "Run an agent on a task in its agent image, then grade it with the ladder",
		Long:  trialDoc,
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if opts.Out == "" {
				return &usageError{err: errors.New("--out DIR is required")}
			}
			kind, arg, _ := strings.Cut(opts.Agent, ":")
			switch {
			case opts.Agent == "nop":
			case opts.Agent == "oracle":
				if opts.Solution == "" {
					return &usageError{err: errors.New("--agent oracle needs --solution FIXTURE")}
				}
			case (kind == "scripted" || kind == "command") && arg != "":
			default:
				return &usageError{err: fmt.Errorf("--agent %q: one of nop, oracle, scripted:FILE, command:PATH", opts.Agent)}
			}
			if opts.Solution != "" && opts.Agent != "oracle" {
				return &usageError{err: errors.New("--solution is the oracle's (--agent oracle)")}
			}
			if opts.Budget < 0 {
				return &usageError{err: fmt.Errorf("--budget %s: a duration above zero", opts.Budget)}
			}
			if opts.Gateway != "" {
				if _, err := gateway.Parse(opts.Gateway); err != nil {
					return &usageError{err: fmt.Errorf("--gateway: %w", err)}
				}
			}
			if opts.MaxWorkspaceBytes < 0 || opts.MaxWorkspaceEntries < 0 {
				return &usageError{err: errors.New("--max-workspace-bytes and --max-workspace-entries take a number above zero")}
			}
			// The verifier's flags are checked before the agent runs.
			if err := checkDriverFlags(&grade.DriverFlags{Driver: opts.Driver, AdversaryScripts: opts.AdversaryScripts}); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runTrial(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Agent, "agent", "", "nop, oracle, scripted:FILE or command:PATH (required)")
	fl.StringVar(&opts.Solution, "solution", "", "the oracle's submission fixture")
	fl.StringVar(&opts.Out, "out", "", "the trial folder, written in Harbor's layout (required; must not exist)")
	fl.DurationVar(&opts.Budget, "budget", 0, "shorten the agent's budget (never lengthens the task's)")
	fl.StringVar(&opts.Gateway, "gateway", "", "let the agent reach this one model gateway (http[s]://host[:port][/path]) and nothing else; its URL is in SRB_GATEWAY_URL")
	fl.Int64Var(&opts.MaxWorkspaceBytes, "max-workspace-bytes", 0, "lower the bound on the bytes of files collected from the workspace")
	fl.IntVar(&opts.MaxWorkspaceEntries, "max-workspace-entries", 0, "lower the bound on the entries read from the workspace")
	addCacheFlag(cmd, &opts.Cache)
	fl.StringVar(&opts.Driver, "driver", "", "srb ladder --driver")
	fl.StringArrayVar(&opts.AuditScripts, "audit-script", nil, "srb ladder --audit-script (repeatable)")
	fl.StringArrayVar(&opts.AdversaryScripts, "adversary-script", nil, "srb ladder --adversary-script ID=FILE (repeatable)")
	fl.StringVar(&opts.AdjudicatorScript, "adjudicator-script", "", "srb ladder --adjudicator-script")
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}

func runTrial(ctx context.Context, opts *TrialOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	errOut := opts.IO.ErrOut
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(fmt.Errorf("trial: %w", err))
	}
	t, problems := task.Load(dirs[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(errOut, p.Format(""))
		}
		return badTask(fmt.Errorf("trial: cannot read the task %s (%d problem(s)); run srb validate", dirs[0], len(problems)))
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return couldNotRun(err)
	}
	if _, err := os.Lstat(out); err == nil {
		return couldNotRun(fmt.Errorf("trial: %s already exists: a trial writes a new folder", out))
	}
	var gw *gateway.Gateway
	if opts.Gateway != "" {
		if gw, err = gateway.Parse(opts.Gateway); err != nil {
			return couldNotRun(fmt.Errorf("trial: --gateway: %w", err))
		}
	}
	// The verifier is srb ladder's grading of the collected workspace,
	// with the trial's drivers and scripts.
	lo := &LadderOptions{IO: opts.IO, Now: opts.Factory.Now, Lookup: os.LookupEnv, Engine: opts.Factory.Engine,
		Task: t.Dir, Jobs: 1, Cache: opts.Cache, DriverFlags: grade.DriverFlags{Driver: opts.Driver}}
	c := &harbor.TrialConfig{Task: t, Agent: opts.Agent, Out: out, Budget: opts.Budget, Gateway: gw,
		MaxWorkspaceBytes: opts.MaxWorkspaceBytes, MaxWorkspaceEntries: opts.MaxWorkspaceEntries, Policy: grade.TaskPolicy(t),
		SolutionDir: opts.Solution, Stdout: opts.IO.Out, Stderr: errOut,
		Solution: func(ctx context.Context) (*harbor.Solution, func(), error) {
			sol, cleanup, err := fixtureSolution(ctx, t, opts.Solution, opts.Cache)
			if err != nil {
				return nil, nil, fmt.Errorf("--solution %s: %w", opts.Solution, err)
			}
			if err := fixtureDrivers(opts.Solution, opts.Driver == "", lo); err != nil {
				cleanup()
				return nil, nil, err
			}
			return sol, cleanup, nil
		},
		AgentImage: func(ctx context.Context) (engine.Runner, *suite.Image, error) {
			return readyStageImage(ctx, t, "agent", "", opts.Factory.Engine, nil, errOut)
		},
		Verify: func(ctx context.Context, repo, dir string) int {
			lo.Submissions = []string{repo}
			lo.Results = dir
			lo.AuditScripts = append(lo.AuditScripts, opts.AuditScripts...)
			lo.AdversaryScripts = append(lo.AdversaryScripts, opts.AdversaryScripts...)
			if opts.AdjudicatorScript != "" {
				lo.AdjudicatorScript = opts.AdjudicatorScript
			}
			return reportExit(ctx, errOut, runLadder(ctx, lo))
		},
	}
	code, err := harbor.RunTrial(ctx, c)
	if err != nil {
		return couldNotRun(err)
	}
	if code != ExitRan {
		return silent(code, fmt.Errorf("trial: exit %d", code))
	}
	return nil
}

// fixtureDrivers adds a submission fixture's scripts (audit/*.json,
// adversaries/<id>.json, adjudicator.json) to lo's. With drivers (no
// --driver was given), each position a script covers gets the scripted
// driver, as srb ladder --submission-fixture gives it. The error is the
// fixture's that cannot be loaded.
func fixtureDrivers(dir string, drivers bool, lo *LadderOptions) error {
	fx, err := submission.Load(dir)
	if err != nil {
		return err
	}
	if len(fx.AuditScripts) > 0 && drivers {
		lo.AuditDriver = models.DriverScripted
	}
	lo.AuditScripts = append(lo.AuditScripts, fx.AuditScripts...)
	ids := slices.Sorted(maps.Keys(fx.AdversaryScripts))
	if len(ids) > 0 && drivers {
		lo.AdversaryDriver = models.DriverScripted
	}
	for _, id := range ids {
		lo.AdversaryScripts = append(lo.AdversaryScripts, id+"="+fx.AdversaryScripts[id])
	}
	if fx.AdjudicatorScript != "" {
		if drivers {
			lo.AdjudicatorDriver = models.DriverScripted
		}
		lo.AdjudicatorScript = fx.AdjudicatorScript
	}
	return nil
}
