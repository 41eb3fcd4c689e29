package harbor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/gateway"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/collect"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// TrialConfig is one trial of srb trial: an agent run on a task in the
// task's agent image, its workspace collected and graded
// (docs/HARBOR.md). The command parses flags into it; RunTrial does the
// rest.
type TrialConfig struct {
	// Task is the loaded task.
	Task *task.Task
	// Agent is nop, oracle, scripted:FILE or command:PATH (checked by
	// the caller).
	Agent string
	// Out is the trial folder, which must not exist yet (a folder that
	// does is refused before anything runs); RunTrial makes it absolute
	// and writes it in Harbor's layout.
	Out string
	// Budget, when above zero, shortens the task's agent budget
	// (agent.budget_hours); it never lengthens it.
	Budget time.Duration
	// Gateway, when not nil, is the one model gateway the agent's
	// container may reach; nil leaves it no network.
	Gateway *gateway.Gateway
	// MaxWorkspaceBytes and MaxWorkspaceEntries, when above zero, lower
	// the bounds of the workspace's copy (WorkspaceBytesLimit,
	// WorkspaceEntriesLimit); they never raise them.
	MaxWorkspaceBytes   int64
	MaxWorkspaceEntries int
	// Policy is the task's scoring policy, for the verdict of a refused
	// workspace.
	Policy scoring.Policy

	// SolutionDir is the oracle's submission fixture, recorded by its
	// base name in result.json's agent_info.
	SolutionDir string
	// Solution, for the oracle agent, returns the solution it applies
	// (its tree made from State A's) and a cleanup; its error fails the
	// trial's environment phase.
	Solution func(ctx context.Context) (*Solution, func(), error)
	// AgentImage finds the task's agent image (built and loaded when
	// missing) and the engine it runs on.
	AgentImage func(ctx context.Context) (engine.Runner, *suite.Image, error)
	// Verify grades the collected workspace repo into the results folder
	// dir (reward.json last) and returns the grading's exit status (0
	// graded, 1 a harness fault, 2 the task's configuration is wrong),
	// having printed its own errors.
	Verify func(ctx context.Context, repo, dir string) int

	// Stdout gets the trial's one-line summary; Stderr its progress.
	Stdout, Stderr io.Writer
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

// AgentMount is where srb trial puts the instruction and a command agent
// in the agent's container: root-owned, outside the workspace.
const AgentMount = "/srb-agent"

// agentStep is one command the agent phase runs in the container.
type agentStep struct {
	step  Step
	exec  engine.ExecSpec
	label string
}

// RunTrial runs the trial c describes: environment, agent setup, agent
// execution within the budget, collection of the workspace and the
// verifier, writing c.Out's result.json with each phase's timing.
//
// A non-nil error is a harness fault (exit 1; result.json names the
// phase when it could be written): the agent's container could not be
// run or collected, or the gateway did not answer. Otherwise code is the
// verifier's exit status (raised to 1 when it published no reward), or 0
// for a workspace refused past a bound (its verdict a valid 0).
func RunTrial(ctx context.Context, c *TrialConfig) (code int, err error) {
	t, errOut := c.Task, c.Stderr
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return 0, err
	}
	if _, err := os.Lstat(out); err == nil {
		return 0, fmt.Errorf("trial: %s already exists: a trial writes a new folder", out)
	}
	for _, d := range []string{TrialAgentDir, TrialVerifierDir, TrialArtifactsDir} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return 0, fmt.Errorf("trial: %w", err)
		}
	}
	kind, arg, _ := strings.Cut(c.Agent, ":")
	budget := time.Duration(t.Agent.BudgetSec) * time.Second
	if c.Budget > 0 && c.Budget < budget {
		budget = c.Budget
	}
	res := &TrialResult{TaskName: t.ID, TrialName: filepath.Base(out), AgentInfo: AgentInfo{Name: kind},
		StartedAt: time.Now().UTC()}
	switch kind {
	case "oracle":
		res.AgentInfo.What = filepath.Base(c.SolutionDir)
	case "scripted", "command":
		res.AgentInfo.What = filepath.Base(arg)
	}
	// fail records a harness fault: result.json says why, exit 1.
	fail := func(phase string, err error) (int, error) {
		res.ExceptionInfo = &ExceptionInfo{Type: phase, Message: err.Error()}
		res.FinishedAt = time.Now().UTC()
		if werr := res.Write(out); werr != nil {
			fmt.Fprintf(errOut, "srb: trial: %v\n", werr)
		}
		return 0, fmt.Errorf("trial: %s: %w", phase, err)
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
	// The agent's user by uid: the image adds agent.user as image.AgentUID.
	agentUser := fmt.Sprintf("%d:%d", image.AgentUID, image.AgentUID)
	env := []string{"HOME=/home/" + t.Agent.User, "SRB_INSTRUCTION=" + AgentMount + "/instruction.md"}
	gw := c.Gateway
	res.AgentNetwork = &AgentNetwork{Mode: "none"}
	if gw != nil {
		env = append(env, gateway.EnvURL+"="+gw.AgentURL)
		res.AgentNetwork = &AgentNetwork{Mode: "gateway", Gateway: gw.Raw, AgentURL: gw.AgentURL, Listen: gw.Listen(),
			Target: gw.Target(), HostsEntry: gw.HostsEntry()}
	}
	as := func(argv ...string) engine.ExecSpec {
		return engine.ExecSpec{Argv: argv, User: agentUser, WorkDir: t.Artifacts.Path, Env: env}
	}
	switch kind {
	case "oracle":
		sol, cleanup, err := c.Solution(ctx)
		if err != nil {
			return fail("environment", err)
		}
		err = sol.WriteDir(filepath.Join(mount, "solution"), t.Artifacts.Path)
		cleanup()
		if err != nil {
			return fail("environment", err)
		}
		argv := []string{"/bin/sh", AgentMount + "/solution/solve.sh"}
		steps = append(steps, agentStep{step: Step{Kind: "run", Argv: argv}, exec: as(argv...), label: "solve.sh"})
	case "command":
		if _, err := copyFile(arg, filepath.Join(mount, "agent")); err != nil {
			return fail("environment", fmt.Errorf("--agent %s: %w", c.Agent, err))
		}
		if err := os.Chmod(filepath.Join(mount, "agent"), 0o755); err != nil {
			return fail("environment", err)
		}
		e := as(AgentMount + "/agent")
		e.Stdin = bytes.NewReader(instruction)
		steps = append(steps, agentStep{step: Step{Kind: "run", Argv: e.Argv}, exec: e, label: "the agent"})
	case "scripted":
		sc, err := ReadScript(arg)
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
				steps = append(steps, agentStep{step: Step{Kind: "write", Path: s.Write.Path}, exec: e, label: "write " + s.Write.Path})
			case s.Delete != "":
				e := as("rm", "-rf", "--", path.Join(t.Artifacts.Path, s.Delete))
				steps = append(steps, agentStep{step: Step{Kind: "delete", Path: s.Delete}, exec: e, label: "delete " + s.Delete})
			default:
				steps = append(steps, agentStep{step: Step{Kind: "run", Argv: s.Run}, exec: as(s.Run...), label: strings.Join(s.Run, " ")})
			}
		}
	}
	eng, img, err := c.AgentImage(ctx)
	if err != nil {
		return fail("environment", err)
	}
	res.EnvironmentSetup = NewTiming(step, time.Now())
	fmt.Fprintf(errOut, "srb: trial: the agent image of %s is ready (%s)\n", t.ID, since(step))

	// Agent setup: the container.
	step = time.Now()
	// The container's own process (sleep) is root's, so the copies in resolve
	// their owner (the engine looks the container's user up when copying);
	// every step of the agent runs as agentUser.
	spec := engine.Spec{Image: img.Ref, User: "root", WorkDir: t.Artifacts.Path, Network: "none", NoNewPrivileges: true,
		Labels: map[string]string{"srb.task": t.ID, "srb.stage": "agent"},
		Copies: []engine.Copy{{HostPath: mount, ContainerPath: AgentMount}}}
	image.StageLimits(t).Apply(&spec)
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
		conn, err := net.DialTimeout("tcp", gw.Target(), gateway.DialTimeout)
		if err != nil {
			return fail("agent_setup", fmt.Errorf("the gateway %s does not answer: %w", gw.Raw, err))
		}
		conn.Close()
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
	res.AgentSetup = NewTiming(step, time.Now())

	// Agent execution, within the budget.
	step = time.Now()
	deadline := step.Add(budget)
	ar := &AgentResult{BudgetSec: int(budget / time.Second)}
	res.AgentResult = ar
	logf, err := os.Create(filepath.Join(out, TrialAgentDir, AgentLogFile))
	if err != nil {
		return fail("agent_execution", err)
	}
	defer logf.Close()
	traj := Trajectory{Schema: TrajectorySchema, Agent: c.Agent, Steps: []Step{}}
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
			writeJSONFile(filepath.Join(out, TrialAgentDir, TrajectoryFile), traj)
			return fail("agent_execution", fmt.Errorf("%s: interrupted: %w", s.label, ctx.Err()))
		}
		if err != nil && (r == nil || !r.TimedOut) {
			writeJSONFile(filepath.Join(out, TrialAgentDir, TrajectoryFile), traj)
			return fail("agent_execution", fmt.Errorf("%s: %w", s.label, err))
		}
		if r.TimedOut {
			ar.TimedOut = true
			break
		}
	}
	closeFwd()
	res.AgentExecution = NewTiming(step, time.Now())
	if err := writeJSONFile(filepath.Join(out, TrialAgentDir, TrajectoryFile), traj); err != nil {
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
	bounds := WorkspaceBounds(c.MaxWorkspaceBytes, c.MaxWorkspaceEntries, set)
	cctx, cancel := context.WithTimeout(ctx, WorkspaceCopyTimeout)
	csum, err := sess.CopyOutBounded(cctx, t.Artifacts.Path, raw, bounds)
	cancel()
	wc := &WorkspaceCopy{Bounds: map[string]int64{"max_bytes": bounds.MaxBytes, "max_stream_bytes": bounds.MaxStreamBytes,
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
		v, err := pipeline.PublishRefused(filepath.Join(out, TrialVerifierDir), t.ID, c.Policy, why)
		if err != nil {
			return fail("verifier", err)
		}
		res.Verifier = NewTiming(step, time.Now())
		res.VerifierResult = &VerifierResult{Rewards: result.Reward(v)}
		res.FinishedAt = time.Now().UTC()
		if err := res.Write(out); err != nil {
			return 0, fmt.Errorf("trial: %w", err)
		}
		fmt.Fprintf(c.Stdout, "trial %s: agent %s, reward %g: the workspace was refused (%s) (%s)\n", res.TrialName, c.Agent, v.Reward(), over.Error(), out)
		return 0, nil
	}
	if err != nil {
		return fail("collect", fmt.Errorf("copying %s out of the agent's container: %w", t.Artifacts.Path, err))
	}
	closeSess()
	repo := filepath.Join(out, TrialArtifactsDir, ArtifactsRepo)
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

	// Verifier: the ladder's grading, in process.
	step = time.Now()
	code = c.Verify(ctx, repo, filepath.Join(out, TrialVerifierDir))
	res.Verifier = NewTiming(step, time.Now())
	rewardPath := filepath.Join(out, TrialVerifierDir, result.RewardFile)
	if rw, err := result.ReadReward(rewardPath); err == nil {
		res.VerifierResult = &VerifierResult{Rewards: rw}
	} else {
		res.ExceptionInfo = &ExceptionInfo{Type: "verifier", Message: fmt.Sprintf("no reward: %v", err)}
		code = max(code, 1)
	}
	res.FinishedAt = time.Now().UTC()
	if err := res.Write(out); err != nil {
		return 0, fmt.Errorf("trial: %w", err)
	}
	if res.VerifierResult != nil {
		fmt.Fprintf(c.Stdout, "trial %s: agent %s, reward %g (%s)\n", res.TrialName, c.Agent, res.VerifierResult.Rewards["reward"], out)
	}
	return code, nil
}

// WorkspaceBounds are the workspace copy's bounds, lowered by maxBytes
// and maxEntries when above zero (never raised), with the artifact
// excludes set as its skip filter.
func WorkspaceBounds(maxBytes int64, maxEntries int, set *collect.Set) engine.CopyBounds {
	b := engine.CopyBounds{Dir: true, MaxBytes: WorkspaceBytesLimit, MaxStreamBytes: WorkspaceStreamBytesLimit, MaxEntries: WorkspaceEntriesLimit,
		MaxDepth: WorkspaceDepthLimit, MaxPathBytes: WorkspacePathBytesLimit,
		Skip: func(rel string) bool { return set.Excluded(rel) != nil }}
	if maxBytes > 0 && maxBytes < b.MaxBytes {
		b.MaxBytes = maxBytes
		b.MaxStreamBytes = 2 * maxBytes
	}
	if maxEntries > 0 && maxEntries < b.MaxEntries {
		b.MaxEntries = maxEntries
	}
	return b
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

// since is the time since t to the millisecond under a second, else to
// the tenth of a second (as srb's other progress lines).
func since(t time.Time) string {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
