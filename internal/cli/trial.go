package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/gateway"
	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/collect"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
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
			if err := checkDriverFlags(&LadderOptions{Driver: opts.Driver, AdversaryScripts: opts.AdversaryScripts}); err != nil {
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

// agentMount is where srb trial puts the instruction and a command agent
// in the agent's container: root-owned, outside the workspace.
const agentMount = "/srb-agent"

// agentStep is one command the agent phase runs in the container.
type agentStep struct {
	step  harbor.Step
	exec  engine.ExecSpec
	label string
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
	for _, d := range []string{harbor.TrialAgentDir, harbor.TrialVerifierDir, harbor.TrialArtifactsDir} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return couldNotRun(fmt.Errorf("trial: %w", err))
		}
	}
	kind, arg, _ := strings.Cut(opts.Agent, ":")
	budget := time.Duration(t.Agent.BudgetSec) * time.Second
	if opts.Budget > 0 && opts.Budget < budget {
		budget = opts.Budget
	}
	res := &harbor.TrialResult{TaskName: t.ID, TrialName: filepath.Base(out), AgentInfo: harbor.AgentInfo{Name: kind},
		StartedAt: time.Now().UTC()}
	switch kind {
	case "oracle":
		res.AgentInfo.What = filepath.Base(opts.Solution)
	case "scripted", "command":
		res.AgentInfo.What = filepath.Base(arg)
	}
	// fail records a harness fault: result.json says why, exit 1.
	fail := func(phase string, err error) error {
		res.ExceptionInfo = &harbor.ExceptionInfo{Type: phase, Message: err.Error()}
		res.FinishedAt = time.Now().UTC()
		if werr := res.Write(out); werr != nil {
			fmt.Fprintf(errOut, "srb: trial: %v\n", werr)
		}
		return couldNotRun(fmt.Errorf("trial: %s: %w", phase, err))
	}

	// Environment: the agent image, and what the agent brings.
	step := time.Now()
	instruction, err := os.ReadFile(filepath.Join(t.Dir, t.Instruction))
	if err != nil {
		return fail("environment", fmt.Errorf("instruction: %w", err))
	}
	work, err := os.MkdirTemp("", "srb-trial-")
	if err != nil {
		return fail("environment", err)
	}
	defer os.RemoveAll(work)
	mount := filepath.Join(work, "mount")
	if err := os.MkdirAll(mount, 0o755); err != nil {
		return fail("environment", err)
	}
	if err := os.WriteFile(filepath.Join(mount, "instruction.md"), instruction, 0o644); err != nil {
		return fail("environment", err)
	}
	var steps []agentStep
	// The verifier is srb ladder's grading of the collected workspace,
	// with the trial's drivers and scripts.
	lo := &LadderOptions{IO: opts.IO, Now: opts.Factory.Now, Lookup: os.LookupEnv, Engine: opts.Factory.Engine,
		Task: t.Dir, Jobs: 1, Cache: opts.Cache, Driver: opts.Driver}
	// The agent's user by uid: the image adds agent.user as image.AgentUID.
	agentUser := fmt.Sprintf("%d:%d", image.AgentUID, image.AgentUID)
	env := []string{"HOME=/home/" + t.Agent.User, "SRB_INSTRUCTION=" + agentMount + "/instruction.md"}
	var gw *gateway.Gateway
	res.AgentNetwork = &harbor.AgentNetwork{Mode: "none"}
	if opts.Gateway != "" {
		if gw, err = gateway.Parse(opts.Gateway); err != nil {
			return fail("environment", err)
		}
		env = append(env, gateway.EnvURL+"="+gw.AgentURL)
		res.AgentNetwork = &harbor.AgentNetwork{Mode: "gateway", Gateway: gw.Raw, AgentURL: gw.AgentURL, Listen: gw.Listen(),
			Target: gw.Target(), HostsEntry: gw.HostsEntry()}
	}
	as := func(argv ...string) engine.ExecSpec {
		return engine.ExecSpec{Argv: argv, User: agentUser, WorkDir: t.Artifacts.Path, Env: env}
	}
	switch kind {
	case "oracle":
		sol, cleanup, err := fixtureSolution(ctx, t, opts.Solution, opts.Cache)
		if err != nil {
			return fail("environment", fmt.Errorf("--solution %s: %w", opts.Solution, err))
		}
		err = sol.WriteDir(filepath.Join(mount, "solution"), t.Artifacts.Path)
		cleanup()
		if err != nil {
			return fail("environment", err)
		}
		argv := []string{"/bin/sh", agentMount + "/solution/solve.sh"}
		steps = append(steps, agentStep{step: harbor.Step{Kind: "run", Argv: argv}, exec: as(argv...), label: "solve.sh"})
		if err := fixtureDrivers(opts.Solution, opts.Driver == "", lo); err != nil {
			return fail("environment", err)
		}
	case "command":
		if _, err := copyFile(arg, filepath.Join(mount, "agent")); err != nil {
			return fail("environment", fmt.Errorf("--agent %s: %w", opts.Agent, err))
		}
		if err := os.Chmod(filepath.Join(mount, "agent"), 0o755); err != nil {
			return fail("environment", err)
		}
		e := as(agentMount + "/agent")
		e.Stdin = bytes.NewReader(instruction)
		steps = append(steps, agentStep{step: harbor.Step{Kind: "run", Argv: e.Argv}, exec: e, label: "the agent"})
	case "scripted":
		sc, err := harbor.ReadScript(arg)
		if err != nil {
			return fail("environment", err)
		}
		for _, s := range sc.Steps {
			switch {
			case s.Write != nil:
				perm, _ := s.Write.Perm()
				p := path.Join(t.Artifacts.Path, s.Write.Path)
				e := as("/bin/sh", "-c", `mkdir -p -- "$(dirname -- "$1")" && cat >"$1" && chmod "$2" "$1"`, "sh", p, fmt.Sprintf("%04o", perm))
				e.Stdin = strings.NewReader(s.Write.Content)
				steps = append(steps, agentStep{step: harbor.Step{Kind: "write", Path: s.Write.Path}, exec: e, label: "write " + s.Write.Path})
			case s.Delete != "":
				e := as("rm", "-rf", "--", path.Join(t.Artifacts.Path, s.Delete))
				steps = append(steps, agentStep{step: harbor.Step{Kind: "delete", Path: s.Delete}, exec: e, label: "delete " + s.Delete})
			default:
				steps = append(steps, agentStep{step: harbor.Step{Kind: "run", Argv: s.Run}, exec: as(s.Run...), label: strings.Join(s.Run, " ")})
			}
		}
	}
	eng, img, err := readyStageImage(ctx, t, "agent", "", opts.Factory.Engine, nil, errOut)
	if err != nil {
		return fail("environment", err)
	}
	res.EnvironmentSetup = harbor.NewTiming(step, time.Now())
	fmt.Fprintf(errOut, "srb: trial: the agent image of %s is ready (%s)\n", t.ID, since(step))

	// Agent setup: the container.
	step = time.Now()
	lim := stageLimits(t)
	// The container's own process (sleep) is root's, so the copies in resolve
	// their owner (the engine looks the container's user up when copying);
	// every step of the agent runs as agentUser.
	spec := engine.Spec{Image: img.Ref, User: "root", WorkDir: t.Artifacts.Path, Network: "none", NoNewPrivileges: true,
		Labels: map[string]string{"srb.task": t.ID, "srb.stage": "agent"},
		Copies: []engine.Copy{{HostPath: mount, ContainerPath: agentMount}}}
	lim.Apply(&spec)
	if gw != nil && gw.HostsEntry() != "" {
		spec.ExtraHosts = []string{gw.HostsEntry()}
	}
	sess, err := eng.Start(ctx, spec)
	if err != nil {
		return fail("agent_setup", fmt.Errorf("the agent's container: %w", err))
	}
	closed := false
	closeSess := func() {
		if !closed {
			closed = true
			if err := sess.Close(context.WithoutCancel(ctx)); err != nil {
				fmt.Fprintf(errOut, "srb: trial: removing the agent's container: %v\n", err)
			}
		}
	}
	defer closeSess()
	// The gateway, when asked for: the container keeps network "none"; srb
	// listens inside it and carries each connection to the gateway alone.
	var fwd *gateway.Forwarder
	closeFwd := func() {
		if fwd != nil {
			st := fwd.Close()
			fwd = nil
			n := res.AgentNetwork
			n.Connections, n.DialFailures, n.Rejected, n.BytesToGateway, n.BytesFromGateway =
				st.Connections, st.DialFailures, st.Rejected, st.BytesToGateway, st.BytesFromGateway
		}
	}
	defer closeFwd()
	if gw != nil {
		c, err := net.DialTimeout("tcp", gw.Target(), gateway.DialTimeout)
		if err != nil {
			return fail("agent_setup", fmt.Errorf("the gateway %s does not answer: %w", gw.Raw, err))
		}
		c.Close()
		pid, err := sess.HostPID(ctx)
		if err != nil {
			return fail("agent_setup", fmt.Errorf("--gateway: %w", err))
		}
		if fwd, err = gateway.Listen(pid, gw); err != nil {
			return fail("agent_setup", err)
		}
		addrs := fwd.Addrs()
		if len(addrs) > 1 {
			res.AgentNetwork.ListenIPv6 = addrs[1]
		}
		fmt.Fprintf(errOut, "srb: trial: the agent reaches %s at %s (%s in its container), and nothing else\n", gw.Target(), gw.AgentURL, strings.Join(addrs, " and "))
	}
	res.AgentSetup = harbor.NewTiming(step, time.Now())

	// Agent execution, within the budget.
	step = time.Now()
	deadline := step.Add(budget)
	ar := &harbor.AgentResult{BudgetSec: int(budget / time.Second)}
	res.AgentResult = ar
	logf, err := os.Create(filepath.Join(out, harbor.TrialAgentDir, harbor.AgentLogFile))
	if err != nil {
		return fail("agent_execution", err)
	}
	defer logf.Close()
	traj := harbor.Trajectory{Schema: harbor.TrajectorySchema, Agent: opts.Agent, Steps: []harbor.Step{}}
	for i, s := range steps {
		left := time.Until(deadline)
		if left <= 0 {
			ar.TimedOut = true
			break
		}
		s.exec.Timeout = left
		s.step.Index = i + 1
		s.step.StartedAt = time.Now().UTC()
		fmt.Fprintf(logf, "$ %s\n", s.label)
		r, err := sess.Exec(ctx, s.exec)
		if r != nil {
			logf.Write(r.Stdout)
			logf.Write(r.Stderr)
			s.step.Seconds = r.Duration.Seconds()
			s.step.TimedOut = r.TimedOut
			s.step.Output = string(append(append([]byte{}, r.Stdout...), r.Stderr...))
			if r.ExitCode >= 0 {
				code := r.ExitCode
				s.step.ExitCode, ar.ExitCode = &code, &code
			}
			fmt.Fprintf(logf, "[exit %d after %.1fs]\n", r.ExitCode, r.Duration.Seconds())
		}
		traj.Steps = append(traj.Steps, s.step)
		ar.Steps++
		if ctx.Err() != nil {
			// An interrupt is the harness's, never the agent's overrun.
			writeJSONFile(filepath.Join(out, harbor.TrialAgentDir, harbor.TrajectoryFile), traj)
			return fail("agent_execution", fmt.Errorf("%s: interrupted: %w", s.label, ctx.Err()))
		}
		if err != nil && (r == nil || !r.TimedOut) {
			writeJSONFile(filepath.Join(out, harbor.TrialAgentDir, harbor.TrajectoryFile), traj)
			return fail("agent_execution", fmt.Errorf("%s: %w", s.label, err))
		}
		if r.TimedOut {
			ar.TimedOut = true
			break
		}
	}
	closeFwd()
	res.AgentExecution = harbor.NewTiming(step, time.Now())
	if err := writeJSONFile(filepath.Join(out, harbor.TrialAgentDir, harbor.TrajectoryFile), traj); err != nil {
		return fail("agent_execution", err)
	}
	if ar.TimedOut {
		note := fmt.Sprintf("the agent ran past its budget of %s and was stopped; the workspace as it stood then is what was graded", budget)
		res.Notes = append(res.Notes, note)
		fmt.Fprintf(errOut, "srb: trial: %s\n", note)
	}

	// Collect the workspace with the artifact excludes; destroy the container.
	set, err := collect.CompileAll(t.Artifacts.Exclude)
	if err != nil {
		return fail("collect", err)
	}
	// Stopped first: a process the agent left running (a daemon, a step
	// cut at the budget) can no longer change the workspace while it is
	// copied out.
	if err := sess.Kill(ctx); err != nil {
		return fail("collect", fmt.Errorf("stopping the agent's container: %w", err))
	}
	raw := filepath.Join(work, "raw")
	bounds := workspaceBounds(opts, set)
	cctx, cancel := context.WithTimeout(ctx, WorkspaceCopyTimeout)
	csum, err := sess.CopyOutBounded(cctx, t.Artifacts.Path, raw, bounds)
	cancel()
	wc := &harbor.WorkspaceCopy{Bounds: map[string]int64{"max_bytes": bounds.MaxBytes, "max_stream_bytes": bounds.MaxStreamBytes,
		"max_entries": int64(bounds.MaxEntries), "max_depth": int64(bounds.MaxDepth), "max_path_bytes": int64(bounds.MaxPathBytes)}}
	ar.Workspace = wc
	if csum != nil {
		wc.Entries, wc.Files, wc.Links, wc.Dirs, wc.Bytes = csum.Entries, csum.Files, csum.Links, csum.Dirs, csum.Bytes
		wc.Special, wc.SpecialPaths, wc.Unlinked = csum.Special, csum.SpecialPaths, csum.Unlinked
	}
	var over *engine.BoundError
	if errors.As(err, &over) || errors.Is(err, engine.ErrNoPath) {
		// The workspace is the agent's own output: past a bound (or gone),
		// it is the submission's failure, a valid 0, never a partial tree
		// graded.
		closeSess()
		os.RemoveAll(raw)
		if over == nil {
			over = &engine.BoundError{Bound: "gone", Path: t.Artifacts.Path}
		}
		wc.OverBound, wc.OverBoundName = over.Error(), over.Bound
		why := fmt.Sprintf("the agent's workspace %s is past srb trial's bounds on the copy out of its container: %s", t.Artifacts.Path, over.Error())
		switch over.Bound {
		case "gone":
			why = fmt.Sprintf("the agent's workspace %s no longer exists in its container (the agent removed it)", t.Artifacts.Path)
		case "not a folder":
			why = fmt.Sprintf("the agent's workspace %s is no longer a folder but %s (the agent replaced it)", t.Artifacts.Path, over.Type)
		}
		res.Notes = append(res.Notes, why+"; the copy stopped there, nothing was graded, and the verdict is the agent's own 0 (valid)")
		fmt.Fprintf(errOut, "srb: trial: %s\n", why)
		step = time.Now()
		v, err := pipeline.PublishRefused(filepath.Join(out, harbor.TrialVerifierDir), t.ID, TaskPolicy(t), why)
		if err != nil {
			return fail("verifier", err)
		}
		res.Verifier = harbor.NewTiming(step, time.Now())
		res.VerifierResult = &harbor.VerifierResult{Rewards: result.Reward(v)}
		res.FinishedAt = time.Now().UTC()
		if err := res.Write(out); err != nil {
			return couldNotRun(fmt.Errorf("trial: %w", err))
		}
		fmt.Fprintf(opts.IO.Out, "trial %s: agent %s, reward %g: the workspace was refused (%s) (%s)\n", res.TrialName, opts.Agent, v.Reward(), over.Error(), out)
		return nil
	}
	if err != nil {
		return fail("collect", fmt.Errorf("copying %s out of the agent's container: %w", t.Artifacts.Path, err))
	}
	closeSess()
	repo := filepath.Join(out, harbor.TrialArtifactsDir, harbor.ArtifactsRepo)
	sum, err := collect.Collect(raw, repo, set)
	if err != nil {
		return fail("collect", err)
	}
	ar.CollectedFiles = int64(sum.Files + sum.Links)
	ar.Excluded = len(csum.Skipped)
	os.RemoveAll(raw)
	if wc.Special > 0 || len(wc.Unlinked) > 0 {
		note := fmt.Sprintf("the workspace held %d special file(s) (FIFOs, devices, sockets) and %d hard link(s) to excluded files: never collected", wc.Special, len(wc.Unlinked))
		res.Notes = append(res.Notes, note)
		fmt.Fprintf(errOut, "srb: trial: %s\n", note)
	}
	fmt.Fprintf(errOut, "srb: trial: collected %d file(s) from %s (%d left out by artifacts.exclude) (%s)\n", ar.CollectedFiles, t.Artifacts.Path, ar.Excluded, since(step))

	// Verifier: srb ladder's grading, in process.
	step = time.Now()
	lo.Submissions = []string{repo}
	lo.Results = filepath.Join(out, harbor.TrialVerifierDir)
	lo.AuditScripts = append(lo.AuditScripts, opts.AuditScripts...)
	lo.AdversaryScripts = append(lo.AdversaryScripts, opts.AdversaryScripts...)
	if opts.AdjudicatorScript != "" {
		lo.AdjudicatorScript = opts.AdjudicatorScript
	}
	code := reportExit(ctx, opts.IO.ErrOut, runLadder(ctx, lo))
	res.Verifier = harbor.NewTiming(step, time.Now())
	rewardPath := filepath.Join(out, harbor.TrialVerifierDir, result.RewardFile)
	if rw, err := result.ReadReward(rewardPath); err == nil {
		res.VerifierResult = &harbor.VerifierResult{Rewards: rw}
	} else {
		res.ExceptionInfo = &harbor.ExceptionInfo{Type: "verifier", Message: fmt.Sprintf("no reward: %v", err)}
		code = max(code, ExitCouldNotRun)
	}
	res.FinishedAt = time.Now().UTC()
	if err := res.Write(out); err != nil {
		return couldNotRun(fmt.Errorf("trial: %w", err))
	}
	if res.VerifierResult != nil {
		fmt.Fprintf(opts.IO.Out, "trial %s: agent %s, reward %g (%s)\n", res.TrialName, opts.Agent, res.VerifierResult.Rewards["reward"], out)
	}
	if code != ExitRan {
		return silent(code, fmt.Errorf("trial: exit %d", code))
	}
	return nil
}

// The bounds of the copy of the agent's workspace out of its container
// (docs/HARBOR.md, "Collect"): the bounds stage 2 puts on every tree a
// submission controls (kinds.BuildTreeBytesLimit, 8 GiB of files, and
// kinds.BuildTreeEntriesLimit, a million entries), twice the bytes for
// what the copy may read (excluded files are read and dropped), 128
// folders deep and 2048 bytes of relative path. A copy that takes longer
// than WorkspaceCopyTimeout is a harness fault.
const (
	WorkspaceBytesLimit       = kinds.BuildTreeBytesLimit
	WorkspaceStreamBytesLimit = 2 * kinds.BuildTreeBytesLimit
	WorkspaceEntriesLimit     = kinds.BuildTreeEntriesLimit
	WorkspaceDepthLimit       = 128
	WorkspacePathBytesLimit   = 2048
	WorkspaceCopyTimeout      = 30 * time.Minute
)

// workspaceBounds are the workspace copy's bounds, lowered by opts, with
// the artifact excludes as its skip filter.
func workspaceBounds(opts *TrialOptions, set *collect.Set) engine.CopyBounds {
	b := engine.CopyBounds{Dir: true, MaxBytes: WorkspaceBytesLimit, MaxStreamBytes: WorkspaceStreamBytesLimit, MaxEntries: WorkspaceEntriesLimit,
		MaxDepth: WorkspaceDepthLimit, MaxPathBytes: WorkspacePathBytesLimit,
		Skip: func(rel string) bool { return set.Excluded(rel) != nil }}
	if opts.MaxWorkspaceBytes > 0 && opts.MaxWorkspaceBytes < b.MaxBytes {
		b.MaxBytes = opts.MaxWorkspaceBytes
		b.MaxStreamBytes = 2 * opts.MaxWorkspaceBytes
	}
	if opts.MaxWorkspaceEntries > 0 && opts.MaxWorkspaceEntries < b.MaxEntries {
		b.MaxEntries = opts.MaxWorkspaceEntries
	}
	return b
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

// copyFile copies the regular file src to dst (mode 0644) and returns the
// bytes copied.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file", src)
	}
	o, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(o, in)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// writeJSONFile writes v as indented JSON to file.
func writeJSONFile(file string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}
