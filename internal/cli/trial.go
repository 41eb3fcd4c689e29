package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/gateway"
	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

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

	// DriverFlags are the verifier's (srb ladder's flags of the same
	// names: --driver, --audit-script, --adversary-script,
	// --adjudicator-script).
	grade.DriverFlags
}

// NewCmdTrial builds `srb trial`.
func NewCmdTrial(f *Factory, runF func(*TrialOptions) error) *cobra.Command {
	opts := &TrialOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "trial TASK --agent AGENT --out DIR",
		Short: "Run an agent on a task in its agent image, then grade it with the ladder",
		Long:  help("trial"),
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
			if err := checkDriverFlags(opts.DriverFlags); err != nil {
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
	addDriverFlags(fl, &opts.DriverFlags, driverFlag{"driver", "", "srb ladder --driver"},
		driverFlag{"audit-script", "", "srb ladder --audit-script (repeatable)"},
		driverFlag{"adversary-script", "", "srb ladder --adversary-script ID=FILE (repeatable)"},
		driverFlag{"adjudicator-script", "", "srb ladder --adjudicator-script"})
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}

func runTrial(ctx context.Context, opts *TrialOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	errOut := opts.IO.ErrOut
	t, err := loadTask("trial", opts.Task, errOut)
	if err != nil {
		return err
	}
	var gw *gateway.Gateway
	if opts.Gateway != "" {
		if gw, err = gateway.Parse(opts.Gateway); err != nil {
			return couldNotRun(fmt.Errorf("trial: --gateway: %w", err))
		}
	}
	// The verifier is srb ladder's grading of the collected workspace,
	// with the trial's drivers and scripts.
	drivers := grade.DriverFlags{Driver: opts.Driver}
	c := &harbor.TrialConfig{Task: t, Agent: opts.Agent, Out: opts.Out, Budget: opts.Budget, Gateway: gw,
		MaxWorkspaceBytes: opts.MaxWorkspaceBytes, MaxWorkspaceEntries: opts.MaxWorkspaceEntries, Policy: grade.TaskPolicy(t),
		SolutionDir: opts.Solution, Stdout: opts.IO.Out, Stderr: errOut,
		Solution: func(ctx context.Context) (*harbor.Solution, func(), error) {
			sol, cleanup, err := grade.FixtureSolution(ctx, t, opts.Solution, opts.Cache)
			if err != nil {
				return nil, nil, fmt.Errorf("--solution %s: %w", opts.Solution, err)
			}
			if err := drivers.AddFixture(opts.Solution, opts.Driver == ""); err != nil {
				cleanup()
				return nil, nil, err
			}
			return sol, cleanup, nil
		},
		AgentImage: func(ctx context.Context) (engine.Runner, *suite.Image, error) {
			return image.ReadyStage(ctx, t, "agent", "", opts.Factory.Engine, defaultImageBuilder(errOut, opts.Factory.Engine, false), logTo(errOut))
		},
		Verify: func(ctx context.Context, repo, dir string) int {
			drivers.AuditScripts = append(drivers.AuditScripts, opts.AuditScripts...)
			drivers.AdversaryScripts = append(drivers.AdversaryScripts, opts.AdversaryScripts...)
			if opts.AdjudicatorScript != "" {
				drivers.AdjudicatorScript = opts.AdjudicatorScript
			}
			l := &grade.Ladder{TaskDir: t.Dir, Submissions: []string{repo}, Results: dir, Jobs: 1, Cache: opts.Cache, DriverFlags: drivers,
				Backend: backend(opts.Factory.Engine, nil), Lookup: os.LookupEnv, Now: opts.Factory.Now, Log: errOut}
			start := time.Now()
			runs, err := l.Run(ctx)
			return reportExit(ctx, errOut, printLadder(opts.IO, runs, err, start))
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
