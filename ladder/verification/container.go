package verification

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/engine"
	"github.com/swe-refactor-bench/srb/ladder/agent"
)

// Starter starts long-lived containers: an [engine.Runner] (Docker, or
// engine.Fake in tests) is one.
type Starter interface {
	Start(ctx context.Context, spec engine.Spec) (*engine.Session, error)
}

// Where a [Container] sandbox keeps things inside its container.
const (
	ContainerRoot = "/srb"
	containerHome = ContainerRoot + "/home"
	containerRun  = ContainerRoot + "/run"
	containerCand = ContainerRoot + "/candidates"
	containerView = ContainerRoot + "/view"
)

// CandidateUser is the user ("uid:gid") a [Container] runs the candidate
// command as: an unprivileged user of its own, so that a candidate can
// neither read what root's processes hold (their environment, the
// toolbox's views /srb/view/original and /srb/view/workspace, which name
// the trees) nor change what the next run executes (the task's runner
// under /tests, srb's helper). Neither a name in the image's passwd nor a
// home is needed: HOME is /srb/home, which it owns.
const CandidateUser = "65532:65532"

// ContainerConfig configures a [Container] sandbox: one container of the
// task's verification image per round.
//
// Engine starts it from Image with Labels, no network unless Network,
// PID limit Pids (0: 1024), no_new_privs set (no setuid program raises a
// candidate's privileges). Original and Submission are the host trees,
// copied in (never changed). Command is the task's candidate_command as
// the image sees it; every argument that looks like a path must exist in
// the container. Timeout bounds one run (0: 300 s); FaultCodes as in
// [HostConfig]. Env is the candidates' base environment on top of the
// image's (nil: PATH, LANG, HOME=/srb/home). User is who the candidate
// command runs as ("": [CandidateUser]); it owns the working trees,
// /srb/run and /srb/home. Work is the host folder for
// the toolbox's copies of the trees ("" for the system's temporary
// folder); Keep leaves it on Close (the container is always removed).
type ContainerConfig struct {
	Engine     Starter
	Image      string
	Labels     map[string]string
	Original   string
	Submission string
	Command    []string
	Timeout    time.Duration
	FaultCodes []int
	Env        []string
	User       string
	Network    bool
	Pids       int64
	Work       string
	Keep       bool
}

// Container is a [Sandbox] in one container of the verification image
// (HARNESS.md §4.3, "each round in its own container"). Inside it:
//
//	/srb/pristine/<token>   each tree as given, read-only
//	/srb/trees/<token>      the working tree a candidate runs in (the candidate user's)
//	/srb/view/original      what the toolbox shows as "original" (run's cwd)
//	/srb/view/workspace     ... and as "workspace" (/srb/view is root's, 0700)
//	/srb/candidates/<file>  candidate files (root's, readable)
//	/srb/run                SRB_WORK;  /srb/home: HOME (the candidate user's)
//
// The file tools read host copies of the views; the run tool executes in
// the container, as root. Tokens are salted per sandbox, as [Host]'s are.
// The candidate command runs as [ContainerConfig.User], never root, with
// the role only as its last argument: no process of srb's holds the role
// anywhere a candidate can read it (/proc/<pid>/cmdline is readable by
// every user, so the task's runner must exec, not fork, the candidate, or
// its own argument list shows the role to it; docs/LADDER.md). Before
// every run, and after it, whatever is left running in the container is
// killed: every process but those running when the container started, so
// nothing the run tool or an earlier run started can watch a run.
type Container struct {
	cfg   ContainerConfig
	sess  *engine.Session
	salt  string
	work  string
	trees map[string]string // role → host tree
	keep  []string          // pids of the container's own processes
}

var _ Sandbox = (*Container)(nil)

// NewContainer starts the round's container and checks the candidate
// command can launch in it. The caller must Close it.
func NewContainer(ctx context.Context, cfg ContainerConfig) (*Container, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("sandbox: no candidate command")
	}
	if cfg.Engine == nil || cfg.Image == "" {
		return nil, errors.New("sandbox: no engine or no image")
	}
	for _, p := range []string{cfg.Original, cfg.Submission} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("sandbox: no tree at %s", p)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 300 * time.Second
	}
	if cfg.FaultCodes == nil {
		for c := 64; c <= 78; c++ {
			cfg.FaultCodes = append(cfg.FaultCodes, c)
		}
	}
	if cfg.Pids == 0 {
		cfg.Pids = 1024
	}
	if cfg.User == "" {
		cfg.User = CandidateUser
	}
	if cfg.Env == nil {
		// On top of the image's own environment, whose PATH has its
		// toolchains.
		cfg.Env = []string{"LANG=C.UTF-8"}
	}
	if !slices.ContainsFunc(cfg.Env, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }) {
		cfg.Env = append(slices.Clone(cfg.Env), "HOME="+containerHome)
	}
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, fmt.Errorf("sandbox: salt: %w", err)
	}
	work, err := os.MkdirTemp(cfg.Work, "srb-verification-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	c := &Container{cfg: cfg, salt: hex.EncodeToString(salt[:]), work: work,
		trees: map[string]string{RoleOriginal: cfg.Original, RoleSubmission: cfg.Submission}}
	network := ""
	if cfg.Network {
		network = "bridge"
	}
	c.sess, err = cfg.Engine.Start(ctx, engine.Spec{
		Image:   cfg.Image,
		Labels:  cfg.Labels,
		Network: network,
		Copies: []engine.Copy{
			{HostPath: cfg.Original, ContainerPath: c.pristine(RoleOriginal)},
			{HostPath: cfg.Submission, ContainerPath: c.pristine(RoleSubmission)},
		},
		ReadOnly: []string{ContainerRoot + "/pristine"},
		Pids:     cfg.Pids,
		// A candidate stays the unprivileged user it is started as: no
		// setuid program in the image makes it root again.
		NoNewPrivileges: true,
	})
	if err != nil {
		forceRemove(work)
		return nil, fmt.Errorf("sandbox: the verification image %s: %w", cfg.Image, err)
	}
	var paths []string
	for _, a := range cfg.Command[1:] {
		if strings.HasPrefix(a, "/") && !strings.ContainsAny(a, " \t\n'\"$;|&<>()") {
			paths = append(paths, a)
		}
	}
	check := append([]string{"/bin/sh", "-c", `for f; do [ -e "$f" ] || { echo "$f"; exit 1; }; done; mkdir -p ` +
		strings.Join([]string{containerHome, containerRun, containerCand, ContainerRoot + "/trees", containerView}, " ") +
		" && chmod 0700 " + containerView, "sh"}, paths...)
	if r, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: check, User: "0", Timeout: time.Minute}); err != nil || r.ExitCode != 0 {
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("sandbox: the verification image %s: %w", cfg.Image, err)
		}
		if miss := strings.TrimSpace(string(r.Stdout)); miss != "" {
			return nil, fmt.Errorf("sandbox: candidate command argument %s does not exist in the verification image %s", miss, cfg.Image)
		}
		return nil, fmt.Errorf("sandbox: the verification image %s: cannot create %s: %s", cfg.Image, ContainerRoot, strings.TrimSpace(string(r.Stderr)))
	}
	// The candidate user's own: its HOME and SRB_WORK.
	if err := c.chown(ctx, containerHome, containerRun); err != nil {
		c.Close()
		return nil, err
	}
	// What runs in the container before any candidate is its own; reaping
	// spares it (killing the keep-alive command would stop the container).
	r, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: []string{"/bin/sh", "-c", listScript}, User: "0", Timeout: time.Minute})
	if err != nil || r.ExitCode != 0 {
		c.Close()
		return nil, fmt.Errorf("sandbox: cannot list the processes of the verification image %s: %v", cfg.Image, err)
	}
	c.keep = strings.Fields(string(r.Stdout))
	if err := c.Reset(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Token returns the salted name of role's tree.
func (c *Container) Token(role string) string {
	sum := sha256.Sum256([]byte(c.salt + ":" + role))
	return hex.EncodeToString(sum[:])[:16]
}

func (c *Container) pristine(role string) string {
	return path.Join(ContainerRoot, "pristine", c.Token(role))
}
func (c *Container) tree(role string) string { return path.Join(ContainerRoot, "trees", c.Token(role)) }
func viewName(role string) string {
	if role == RoleSubmission {
		return "workspace"
	}
	return "original"
}

// chown gives paths (recursively) to the candidate user, as root; -h -P
// change a symbolic link itself and never follow one (a submission tree is
// the agent's: a link in it must not hand the candidate a file outside).
func (c *Container) chown(ctx context.Context, paths ...string) error {
	r, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: append([]string{"chown", "-R", "-h", "-P", c.cfg.User}, paths...), User: "0", Timeout: 10 * time.Minute})
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("chown exited %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	if err != nil {
		return fmt.Errorf("sandbox: cannot give %s to the candidate user %s: %w", strings.Join(paths, " "), c.cfg.User, err)
	}
	return nil
}

// Reset implements [Sandbox]: both working trees and both views, in the
// container from its pristine copies, on the host from the trees given.
// The working trees are the candidate user's; the views stay root's.
func (c *Container) Reset(ctx context.Context) error {
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		for _, dst := range []string{c.tree(role), path.Join(containerView, viewName(role))} {
			for _, argv := range [][]string{{"rm", "-rf", dst}, {"cp", "-a", c.pristine(role), dst}} {
				r, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: argv, User: "0", Timeout: 10 * time.Minute})
				if err != nil {
					return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
				}
				if r.ExitCode != 0 {
					return fmt.Errorf("sandbox: the %s tree could not be restored: %s exited %d: %s", role, argv[0], r.ExitCode, strings.TrimSpace(string(r.Stderr)))
				}
			}
		}
		if err := c.chown(ctx, c.tree(role)); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
		}
		host := filepath.Join(c.work, "view", viewName(role))
		if err := forceRemove(host); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be cleared: %w", role, err)
		}
		if err := copyTree(c.trees[role], host); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
		}
	}
	return ctx.Err()
}

// Roots implements [Sandbox]: host copies, shown as the container's views.
func (c *Container) Roots() []agent.RootSpec {
	return []agent.RootSpec{
		{Name: "original", Dir: filepath.Join(c.work, "view", "original"), Shown: path.Join(containerView, "original")},
		{Name: "workspace", Dir: filepath.Join(c.work, "view", "workspace"), Shown: path.Join(containerView, "workspace")},
	}
}

// RunTool implements [Sandbox]: the run tool executes in the container,
// with the container's PATH.
func (c *Container) RunTool() (agent.Runner, func(string) string) {
	return agent.SessionRunner{Session: c.sess}, agent.ContainerEnv
}

// Close implements [Sandbox]: the container is removed; the host copies
// too, unless ContainerConfig.Keep.
func (c *Container) Close() error {
	var err error
	if c.sess != nil {
		err = c.sess.Close(context.Background())
	}
	if !c.cfg.Keep {
		err = errors.Join(err, forceRemove(c.work))
	}
	return err
}

// listScript prints the pids of the container's processes but its own.
const listScript = `for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] || echo "$p"; done`

// reapScript kills every process in the container except those its
// arguments name (the container's own: its init and the command that keeps
// it alive, listed when it started) and the shell itself, and prints how
// many it killed.
const reapScript = `keep=" $* "; n=0; for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] && continue; case "$keep" in *" $p "*) continue;; esac; kill -9 "$p" 2>/dev/null && n=$((n+1)); done; echo $n`

// Execute implements [Sandbox].
func (c *Container) Execute(ctx context.Context, cand *Candidate, role string) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	tmp, err := os.MkdirTemp(c.work, "candidate-")
	if err == nil {
		defer os.RemoveAll(tmp)
		hostFile := filepath.Join(tmp, cand.Filename)
		if err = os.WriteFile(hostFile, []byte(cand.Code), 0o755); err == nil {
			err = c.sess.CopyIn(ctx, hostFile, path.Join(containerCand, cand.Filename))
		}
	}
	if err != nil {
		run.Stderr = "cannot run candidate command: cannot place the candidate: " + err.Error()
		return run
	}
	env := CandidateEnv(c.cfg.Env, c.cfg.Network,
		EnvCandidate+"="+path.Join(containerCand, cand.Filename), EnvCandidateName+"="+cand.Name,
		EnvTarget+"="+c.tree(role), EnvTargetToken+"="+c.Token(role), EnvWork+"="+containerRun)
	argv := append(slices.Clone(c.cfg.Command), role)
	reap := append([]string{"/bin/sh", "-c", reapScript, "sh"}, c.keep...)
	// Nothing left by the run tool (root's) or anything else may watch
	// this run's processes: it is killed first.
	if _, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: reap, User: "0", Timeout: time.Minute}); err != nil {
		run.Stderr = "cannot run candidate command: cannot clear the container: " + err.Error()
		return run
	}
	start := time.Now()
	res, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: argv, Env: env, WorkDir: c.tree(role), User: c.cfg.User,
		Timeout: c.cfg.Timeout, MaxOutput: 1 << 20})
	run.DurationSec = time.Since(start).Seconds()
	if res != nil {
		run.ExitCode, run.TimedOut = res.ExitCode, res.TimedOut
		run.Stdout, run.Stderr = lastBytes(res.Stdout), lastBytes(res.Stderr)
		if res.Duration > 0 {
			run.DurationSec = res.Duration.Seconds()
		}
	}
	if run.TimedOut {
		run.ExitCode = -1
	}
	if err != nil && !run.TimedOut {
		run.ExitCode = -1
		run.Stderr += "cannot run candidate command: " + err.Error()
	}
	if r, err := c.sess.Exec(ctx, engine.ExecSpec{Argv: reap, User: "0", Timeout: time.Minute}); err == nil {
		n, _ := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
		run.Reaped = n > 0
	}
	run.Passed = run.ExitCode == 0
	run.Fault = !run.TimedOut && run.ExitCode > 1 && slices.Contains(c.cfg.FaultCodes, run.ExitCode)
	return run
}

func lastBytes(b []byte) string {
	if len(b) > MaxRunTail {
		b = b[len(b)-MaxRunTail:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
