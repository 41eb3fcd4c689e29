package verification

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// Starter starts long-lived sandboxes: an [engine.Runner] (Docker,
// engine.Local with --host, or engine.Fake in tests) is one.
type Starter interface {
	Start(ctx context.Context, spec engine.Spec) (*engine.Session, error)
}

// Where a [Container] sandbox keeps things inside its sandbox (container
// paths; a command on this machine finds them at [engine.Session.Path]).
const (
	ContainerRoot = "/srb"
	containerHome = ContainerRoot + "/home"
	containerTmp  = ContainerRoot + "/tmp"
	containerRun  = ContainerRoot + "/run"
	containerCand = ContainerRoot + "/candidates"
	containerView = ContainerRoot + "/view"
)

// CandidateUser is the user ("uid:gid") a [Container] runs the candidate
// command as in a container: an unprivileged user of its own, so that a
// candidate can neither read what root's processes hold (their
// environment) nor change what the next run executes (the task's runner
// under /tests, srb's helper). Neither a name in the image's passwd nor a
// home is needed: HOME is /srb/home, which it owns. On this machine
// ([engine.Local]) the session's own user plays it.
const CandidateUser = "65532:65532"

// ContainerConfig configures a [Container] sandbox: a sandbox of the
// task's verification image per tree per round.
//
// Engine starts them from Image with Labels, no network unless Network,
// PID limit Pids (0: 1024), no_new_privs set (no setuid program raises a
// candidate's privileges) where the engine has them: Docker, the task's
// verification image; with --host an [engine.Local] whose image is the
// task's files at their image path, a private root folder and user per
// sandbox, no limits but the user's process count. Original and
// Submission are the host trees, copied (never changed). Command is the
// task's candidate_command as the image sees it; Paths are the image's
// folders it names files in (the task's files, at verification.assets):
// an argument under one is given as the sandbox's processes see it
// ([engine.Session.Path]). Every argument that looks like a path must
// exist in the sandbox, and the program must be found there. Timeout
// bounds one run (0: 300 s). FaultCodes are the exit codes that mean
// "this tree could not be tested" (nil: 64–78). Env is the candidates'
// base environment on top of the engine's (nil: LANG=C.UTF-8); the
// contract names are removed from it ([CandidateEnv]), and HOME and
// TMPDIR are always the tree's own folders, whatever Env says. User is who the
// candidate command runs as ("": [CandidateUser]); it owns the working
// tree, SRB_WORK, HOME and TMPDIR of its sandbox. Work is the host folder
// for the grader's copies of the trees (the pristine trees, the sides'
// snapshots, the toolbox's file tools' copies; "" for the system's
// temporary folder); Keep leaves it on Close (the sandboxes are always
// removed). Pids, Memory (bytes), Disk (bytes) and CPUs bound each
// container (the task's limits; 0 Pids is 1024, 0 Memory is
// engine.DefaultLimits', 0 Disk and 0 CPUs none); a run during which one
// was reached says so (CandidateRun.LimitHit). HomeSeed, when set, is a
// host folder whose content starts each tree's HOME for its warm-up run
// ([WarmUp]; what [WarmHome] left, say): it is copied into the tree's
// HOME, a copy per tree and round; candidates' runs start with HOME
// empty. ToolEnv is what the run tool's commands read PATH and HOME from
// (nil: [agent.ContainerEnv]); a HOME it gives as "" is a folder of each
// view's own. RestoreTimeout bounds putting the submission's side back
// from its snapshot before each run (0: Timeout, at least
// [MinRestoreTimeout]; see [Container]). WarmUpTimeout bounds each side's
// warm-up run ([WarmUp]: the task's runner building the tree before a
// round's first candidate; 0: Timeout): a submission whose warm-up does
// not end within it, where State A's does, cannot be tested (every run of
// its side fails); State A's that does not is an error. FreshPerRun starts every
// candidate run of a side in a fresh sandbox of the image (the side's
// previous one removed), restored from the side's snapshot: a container
// keeps the kernel state of its namespaces from one exec to the next (the
// next pid, IPC ids, TCP sockets in TIME_WAIT, the loopback's counters),
// which a run could count its runs by; on engine.Local a fresh session
// is also a fresh uid, whose user keyring (which outlives the uid's
// processes) no earlier run wrote. srb verification sets it in the
// images and with --host.
type ContainerConfig struct {
	Engine     Starter
	Image      string
	Labels     map[string]string
	Original   string
	Submission string
	Command    []string
	Paths      []string
	Timeout    time.Duration
	FaultCodes []int
	Env        []string
	User       string
	Network    bool
	Pids       int64
	Memory     int64
	Disk       int64
	CPUs       int64
	Work       string
	Keep       bool
	HomeSeed   string
	ToolEnv    func(string) string

	RestoreTimeout time.Duration
	WarmUpTimeout  time.Duration
	FreshPerRun    bool
}

// MinRestoreTimeout is the least time a restore of the submission's side
// is given when the run's timeout is shorter (a test's seconds, say): a
// restore copies the side's whole snapshot in, which a machine under load
// can take seconds for even for a small tree.
const MinRestoreTimeout = 60 * time.Second

// Container is a [Sandbox] in sandboxes of the verification image
// (HARNESS.md §4.3, "each round in its own container"): each tree of the
// round has a sandbox of its own (a container; on this machine a root
// folder and a user of its own), which holds that tree only, so nothing a
// candidate or the tree's code does on one side (its files, /tmp, its
// processes, IPC) can reach the other side's runs. Inside a tree's
// sandbox:
//
//	/srb/trees/<token>      the working tree a candidate runs in (the candidate user's)
//	/srb/candidates/<file>  candidate files (the candidate user's, 0700, in a folder that is the user's alone, 0700)
//	/srb/run                SRB_WORK;  /srb/home: HOME;  /srb/tmp: TMPDIR (the candidate user's)
//
// and on the grader's side, in Work, the pristine trees (.git left out)
// and each side's snapshot, which no process of a sandbox can reach. The
// toolbox's file tools read further host copies of the trees; its run tool
// executes in a sandbox of each view's own (see [viewContainer]). Tokens
// are salted per sandbox: token is the first 16 hex digits of
// sha256("<salt>:<role>") with a fresh 16-byte salt, so neither a path
// nor a variable names the role. The candidate command runs as
// [ContainerConfig.User], never root, with the role only as its last
// argument: no process of srb's holds the role anywhere a candidate can
// read it (/proc/<pid>/cmdline is readable by every user, so the task's
// runner must exec, not fork, the candidate, or its own argument list
// shows the role to it; docs/LADDER.md). Before every run, and after it,
// whatever is left running in the tree's sandbox is ended and what the
// candidate user left in the shared temporary folders removed
// ([engine.Session.Reap]). Every run of a side starts from the same
// state: before the side's first run of a round (after Reset) the side
// gets a fresh start (the working tree copied in from the pristine one,
// SRB_WORK and TMPDIR empty, HOME empty or the seed's copy, all the
// candidate user's) and [WarmUp] runs there, so the task's runner builds
// and caches the tree; the working tree and SRB_WORK are then copied out
// to the side's snapshot (bounded, [SnapshotMaxBytes]: a submission's
// side past it fails every run; State A's is a harness error). What a
// run leaves is deleted as soon as it ends ([engine.Session.Delete]:
// HOME and TMPDIR, and after a candidate's run or the snapshot the
// working tree and SRB_WORK), so a run that filled the disk leaves the
// other side room; before every later run they are copied in again from
// the snapshot (CopyInOwned), HOME and TMPDIR empty, so nothing a run
// does reaches the side's next run. No step runs a command as root: the
// root steps are the session's verbs, so the same sandbox runs in a
// container and on this machine.
type Container struct {
	cfg   ContainerConfig
	salt  string
	work  string
	uid   int
	gid   int
	trees map[string]string         // role → host tree
	sides map[string]*containerSide // role → the tree's sandbox
	views map[string]*viewContainer // role → the run tool's sandbox of that view
	// hard is the hardening of the round's first tree sandbox; every
	// later one (both sides, FreshPerRun's) must hide other uids'
	// processes where it did ([Container.sameHardening]).
	hardMu sync.Mutex
	hard   *engine.Hardening
}

// containerSide is one tree's sandbox.
type containerSide struct {
	sess *engine.Session
	hits engine.LimitHits // the limits reached before the latest run
	// primed says the side has its snapshot since the last Reset.
	primed bool
	// unfit, when set, says why the side's warm-up left more than its
	// snapshot may hold: the submission's side then fails every run.
	unfit string
	// spent says the side's sandbox reached its memory limit in its
	// latest run and could not be cleared after it (the OOM killer may
	// have stopped the container): its next run starts in a fresh one.
	spent bool
	// clean says the side's working tree, SRB_WORK, HOME and TMPDIR were
	// all deleted after its latest run ([Container.clear]), so its next
	// restore copies them in without deleting them first.
	clean bool
}

var _ Sandbox = (*Container)(nil)

// NewContainer starts the round's two sandboxes and checks the candidate
// command can launch in them. The caller must Close it.
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
	if cfg.WarmUpTimeout <= 0 {
		cfg.WarmUpTimeout = cfg.Timeout
	}
	if cfg.RestoreTimeout <= 0 {
		cfg.RestoreTimeout = max(cfg.Timeout, MinRestoreTimeout)
	}
	if cfg.FaultCodes == nil {
		for c := 64; c <= 78; c++ {
			cfg.FaultCodes = append(cfg.FaultCodes, c)
		}
	}
	if cfg.Pids == 0 {
		cfg.Pids = 1024
	}
	if cfg.Memory == 0 {
		cfg.Memory = engine.DefaultLimits.Memory
	}
	if cfg.User == "" {
		cfg.User = CandidateUser
	}
	if cfg.Env == nil {
		// On top of the engine's own environment, whose PATH has its
		// toolchains.
		cfg.Env = []string{"LANG=C.UTF-8"}
	}
	if cfg.ToolEnv == nil {
		cfg.ToolEnv = agent.ContainerEnv
	}
	uid, gid, err := numericUser(cfg.User)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, fmt.Errorf("sandbox: salt: %w", err)
	}
	work, err := os.MkdirTemp(cfg.Work, "srb-verification-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	c := &Container{cfg: cfg, salt: hex.EncodeToString(salt[:]), work: work, uid: uid, gid: gid,
		trees: map[string]string{RoleOriginal: cfg.Original, RoleSubmission: cfg.Submission},
		sides: map[string]*containerSide{}}
	c.views = map[string]*viewContainer{RoleOriginal: {c: c, role: RoleOriginal}, RoleSubmission: {c: c, role: RoleSubmission}}
	fail := func(err error) (*Container, error) {
		c.cfg.Keep = false
		c.Close()
		return nil, err
	}
	// The grader's own copies: the pristine trees every fresh start is
	// copied from, and an empty folder for HOME, TMPDIR and SRB_WORK.
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		if err := copyTree(c.trees[role], c.pristine(role)); err != nil {
			return fail(fmt.Errorf("sandbox: copy the %s tree: %w", role, err))
		}
	}
	if err := os.Mkdir(c.empty(), 0o700); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		side, err := c.startSide(ctx, role)
		if side != nil {
			c.sides[role] = side
		}
		if err != nil {
			return fail(err)
		}
	}
	// Where a sandbox's processes see its paths elsewhere (this machine),
	// the run tool's views are where their sandboxes put them: they start
	// now, so the toolbox can show them.
	if s := c.sides[RoleOriginal].sess; s.Path(containerView) != containerView {
		for _, role := range []string{RoleOriginal, RoleSubmission} {
			if _, err := c.views[role].session(ctx); err != nil {
				return fail(err)
			}
		}
	}
	if err := c.Reset(ctx); err != nil {
		return fail(err)
	}
	return c, nil
}

// start starts one sandbox of the image, labelled with what labels add to
// the configuration's.
func (c *Container) start(ctx context.Context, labels map[string]string) (*engine.Session, error) {
	network := ""
	if c.cfg.Network {
		network = "bridge"
	}
	all := maps.Clone(c.cfg.Labels)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, labels)
	sess, err := c.cfg.Engine.Start(ctx, engine.Spec{
		Image:    c.cfg.Image,
		Labels:   all,
		Network:  network,
		Pids:     c.cfg.Pids,
		Memory:   c.cfg.Memory,
		Disk:     c.cfg.Disk,
		NanoCPUs: c.cfg.CPUs * 1e9,
		// A candidate stays the unprivileged user it is started as: no
		// setuid program in the image makes it root again.
		NoNewPrivileges: true,
		// The task's runner may run the submission's programs through
		// srb's launcher (SRB_LAUNCH), as a uid of their own, so they
		// cannot take over the candidate that runs them (forge-pass,
		// docs/LADDER.md). Served by engine.Local as root today.
		Launcher: true,
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: the verification image %s: %w", c.cfg.Image, err)
	}
	if err := c.sameHardening(sess.Hardening()); err != nil {
		sess.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return sess, nil
}

// sameHardening records h, the hardening of a tree sandbox just started,
// when it is the round's first, and otherwise refuses one whose /proc
// shows other uids' processes where the first's did not: the metadata
// (from the first) would say the submission's programs could not read
// the candidate's command lines while one of its sandboxes let them (a
// break attempt of issue 14). An error is the grader's fault.
func (c *Container) sameHardening(h engine.Hardening) error {
	c.hardMu.Lock()
	defer c.hardMu.Unlock()
	if c.hard == nil {
		c.hard = &h
		return nil
	}
	if h.HidesLessThan(*c.hard) {
		return fmt.Errorf("sandbox: a tree's container shows every process to every uid, unlike the round's first: %s", h.ProcHidden)
	}
	return nil
}

// startSide starts role's sandbox and runs the launch check there.
func (c *Container) startSide(ctx context.Context, role string) (*containerSide, error) {
	sess, err := c.start(ctx, map[string]string{"srb.tree": c.Token(role)})
	if err != nil {
		return nil, err
	}
	side := &containerSide{sess: sess}
	return side, launchCheck(ctx, sess, c.cfg.Image, c.cfg.User, c.cfg.Command, c.cfg.Paths)
}

// launchCheck is the launch check (HARNESS.md §4.3) of the candidate
// command cmd in sess, as user: the program is found, and every later
// argument that looks like an absolute path exists. The error names the
// command's argument as the task wrote it.
func launchCheck(ctx context.Context, sess *engine.Session, image, user string, cmd, paths []string) error {
	miss, err := missingArg(ctx, sess, user, sessionArgv(sess, cmd, paths))
	switch {
	case err != nil:
		return fmt.Errorf("sandbox: the verification image %s: %w", image, err)
	case miss == 0:
		return fmt.Errorf("sandbox: the candidate program %s cannot be found in the verification image %s", cmd[0], image)
	case miss > 0:
		return fmt.Errorf("sandbox: candidate command argument %s does not exist in the verification image %s", cmd[miss], image)
	}
	return nil
}

// CheckLaunch runs the launch check (HARNESS.md §4.3) of the candidate
// command cmd once, in a sandbox of image of its own started by starter
// (paths as in [ContainerConfig.Paths]), and removes it: a command that
// fails it is the task's fault, found before any round starts.
func CheckLaunch(ctx context.Context, starter Starter, image string, labels map[string]string, cmd, paths []string) error {
	if len(cmd) == 0 {
		return errors.New("sandbox: no candidate command")
	}
	all := maps.Clone(labels)
	if all == nil {
		all = map[string]string{}
	}
	all["srb.tree"] = "launch-check"
	sess, err := starter.Start(ctx, engine.Spec{Image: image, Labels: all, NoNewPrivileges: true})
	if err != nil {
		return fmt.Errorf("sandbox: the verification image %s: %w", image, err)
	}
	defer sess.Close(context.WithoutCancel(ctx))
	return launchCheck(ctx, sess, image, CandidateUser, cmd, paths)
}

// Token returns the salted name of role's tree.
func (c *Container) Token(role string) string {
	sum := sha256.Sum256([]byte(c.salt + ":" + role))
	return hex.EncodeToString(sum[:])[:16]
}

// pristine is the grader's copy of role's tree (.git left out), every
// fresh start's source.
func (c *Container) pristine(role string) string {
	return filepath.Join(c.work, "pristine", c.Token(role))
}

// empty is the grader's empty folder, copied in as an empty HOME, TMPDIR
// or SRB_WORK.
func (c *Container) empty() string { return filepath.Join(c.work, "empty") }

// snap is where role's snapshot is kept: the grader's, which no sandbox
// can reach.
func (c *Container) snap(role string) string { return filepath.Join(c.work, "snap", c.Token(role)) }

func (c *Container) tree(role string) string { return path.Join(ContainerRoot, "trees", c.Token(role)) }
func viewName(role string) string {
	if role == RoleSubmission {
		return "workspace"
	}
	return "original"
}

// replace deletes dst in sess and copies src (a host folder) there, owned
// by uid:gid.
func replace(ctx context.Context, sess *engine.Session, src, dst string, uid, gid int) error {
	if err := sess.Delete(ctx, dst); err != nil {
		return err
	}
	return sess.CopyInOwned(ctx, src, dst, uid, gid)
}

// Reset implements [Sandbox]: each side gets a fresh start before its
// next run, the run tool's views are copied again from the pristine trees
// when their sandboxes run, and the file tools' host copies from the
// trees given.
func (c *Container) Reset(ctx context.Context) error {
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		// Given a fresh start and warmed up again before its next run.
		c.sides[role].primed = false
		host := filepath.Join(c.work, "view", viewName(role))
		if err := forceRemove(host); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be cleared: %w", role, err)
		}
		if err := copyTree(c.trees[role], host); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
		}
	}
	if err := errors.Join(c.views[RoleOriginal].reset(ctx), c.views[RoleSubmission].reset(ctx)); err != nil {
		return err
	}
	return ctx.Err()
}

// Hardening is what the backend could add to the limits of the round's
// first tree sandbox ([engine.Session.Hardening]); every later one hides
// other uids' processes where it did ([Container.sameHardening]).
func (c *Container) Hardening() *engine.Hardening {
	c.hardMu.Lock()
	defer c.hardMu.Unlock()
	if c.hard == nil {
		h := c.sides[RoleOriginal].sess.Hardening()
		return &h
	}
	h := *c.hard
	return &h
}

// Roots implements [Sandbox]: host copies, shown as the run tool's views.
func (c *Container) Roots() []agent.RootSpec {
	return []agent.RootSpec{
		{Name: "original", Dir: filepath.Join(c.work, "view", "original"), Shown: c.views[RoleOriginal].shown()},
		{Name: "workspace", Dir: filepath.Join(c.work, "view", "workspace"), Shown: c.views[RoleSubmission].shown()},
	}
}

// RunTool implements [Sandbox]: the run tool executes in the sandbox of
// the view its folder is in, which holds that view alone and neither
// tree's working copy, with ContainerConfig.ToolEnv's PATH.
func (c *Container) RunTool() (agent.Runner, func(string) string) {
	return viewRunner(c.views), c.cfg.ToolEnv
}

// Close implements [Sandbox]: the sandboxes are removed; the host copies
// too, unless ContainerConfig.Keep.
func (c *Container) Close() error {
	var errs []error
	for _, side := range c.sides {
		errs = append(errs, side.sess.Close(context.Background()))
	}
	errs = append(errs, c.views[RoleOriginal].close(), c.views[RoleSubmission].close())
	if !c.cfg.Keep {
		errs = append(errs, forceRemove(c.work))
	}
	return errors.Join(errs...)
}

// viewContainer is a sandbox the run tool executes in: one per view,
// started the first time a command runs in that view (or with the
// sandbox, where the view's path is the sandbox's to say), with that tree
// alone copied to /srb/view/<view> (owned by the sandbox's user: root in a
// container, the session's user on this machine) and a HOME of its own,
// and removed with the sandbox. A command run in one view cannot reach
// the other view's sandbox, so nothing the submission's own files make a
// command do (a Makefile's recipe, a daemon it leaves) can change what the
// adversary sees of State A, or the other way round; after every command
// what it left running, and on this machine what its user left in the
// shared temporary folders, is gone ([engine.Session.Reap]).
type viewContainer struct {
	c    *Container
	role string
	mu   sync.Mutex
	sess *engine.Session
}

// view is the view's folder in its sandbox (a container path).
func (v *viewContainer) view() string { return path.Join(containerView, viewName(v.role)) }

// shown is where the run tool's commands find the view: its sandbox's
// path once it runs, the container path before.
func (v *viewContainer) shown() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sess != nil {
		return v.sess.Path(v.view())
	}
	return v.view()
}

// session returns the view's sandbox, starting it when it is not running
// yet.
func (v *viewContainer) session(ctx context.Context) (*engine.Session, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sess != nil {
		return v.sess, nil
	}
	sess, err := v.c.start(ctx, map[string]string{"srb.tree": "view-" + viewName(v.role)})
	if err != nil {
		return nil, err
	}
	v.sess = sess
	if err := sess.CopyInOwned(ctx, v.c.empty(), containerHome, 0, 0); err != nil {
		return nil, fmt.Errorf("sandbox: the run tool's HOME: %w", err)
	}
	if err := v.resetLocked(ctx); err != nil {
		return nil, err
	}
	return sess, nil
}

func (v *viewContainer) reset(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.resetLocked(ctx)
}

func (v *viewContainer) resetLocked(ctx context.Context) error {
	if v.sess == nil {
		return nil
	}
	if err := replace(ctx, v.sess, v.c.pristine(v.role), v.view(), 0, 0); err != nil {
		return fmt.Errorf("sandbox: the run tool's view of the %s tree could not be restored: %w", v.role, err)
	}
	return nil
}

func (v *viewContainer) close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sess == nil {
		return nil
	}
	return v.sess.Close(context.Background())
}

// Run implements [agent.Runner] in the view's sandbox, as its user (root
// in a container), with HOME the view's own when ContainerConfig.ToolEnv
// gives none; what the command left is reaped after it.
//
// In a container the command runs as root, so it can replace what the
// container's own upkeep runs (its /bin/sh, say: the submission's
// Makefile run by the adversary's `make`), after which every later
// command there failed: tool errors, and a round whose tool calls fail
// more than half the time is an error. A view container whose upkeep
// (the reap after the command) fails, or that cannot start a command, is
// removed and the view starts again in a fresh container of the image
// (as it started, its files as in the tree); a command that could not
// start runs once more there. Neither is an error of the command's: its
// output says what happened. (On this machine the session's verbs are the
// grader's own, and their failure is srb's fault, an error.)
func (v *viewContainer) Run(ctx context.Context, cmd agent.Command) (agent.RunResult, error) {
	res, started, err := v.run(ctx, cmd)
	if err == nil || !v.inContainer() || ctx.Err() != nil {
		return res, err
	}
	v.drop()
	note := fmt.Sprintf("srb: the view's container stopped working (%v), perhaps because a command replaced what it runs; it was removed and the view started again from the image, its files as in the tree, so nothing built there before is kept\n", err)
	if started {
		res.Stderr = append(res.Stderr, []byte("\n"+note)...)
		return res, nil
	}
	res, started, err = v.run(ctx, cmd)
	if err != nil && started {
		// The command broke the fresh container again: that one goes
		// too. (A fresh container that cannot start a command is the
		// engine's or the image's fault: an error.)
		v.drop()
		err = nil
	}
	res.Stderr = append([]byte(note), res.Stderr...)
	return res, err
}

// inContainer says the view's sandbox is a container (its paths are the
// container's own), not a session on this machine.
func (v *viewContainer) inContainer() bool {
	return v.c.sides[RoleOriginal].sess.Path(containerView) == containerView
}

// drop removes the view's sandbox; the next command starts a fresh one.
func (v *viewContainer) drop() {
	v.mu.Lock()
	sess := v.sess
	v.sess = nil
	v.mu.Unlock()
	if sess != nil {
		sess.Close(context.Background())
	}
}

// run runs cmd in the view's sandbox, then reaps what it left and bounds
// what the view keeps; started says the command ran (the error, if any,
// came after it).
func (v *viewContainer) run(ctx context.Context, cmd agent.Command) (agent.RunResult, bool, error) {
	sess, err := v.session(ctx)
	if err != nil {
		return agent.RunResult{ExitCode: -1}, false, err
	}
	if v.c.cfg.ToolEnv("HOME") == "" {
		env := slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
		cmd.Env = append(env, "HOME="+sess.Path(containerHome))
	}
	res, err := agent.SessionRunner{Session: sess, RequireStart: v.inContainer()}.Run(ctx, cmd)
	started := err == nil
	if _, rerr := sess.Reap(context.WithoutCancel(ctx), ""); rerr != nil && err == nil {
		err = fmt.Errorf("run: %w", rerr)
	}
	if why := v.overBound(); why != "" {
		// What the view keeps between commands is bounded like a side's
		// snapshot: past the bound it is put back as it started, so a
		// command (the submission's Makefile or tests, run by the
		// adversary) that filled the disk leaves the trees' next runs
		// room for their candidates and their restores.
		v.mu.Lock()
		rerr := v.resetLocked(context.WithoutCancel(ctx))
		if rerr == nil {
			rerr = replace(context.WithoutCancel(ctx), sess, v.c.empty(), containerHome, 0, 0)
		}
		v.mu.Unlock()
		if rerr != nil && err == nil {
			err = fmt.Errorf("run: %w", rerr)
		}
		res.Stderr = append(res.Stderr, []byte("\nsrb: "+why+"; the view was put back as it started (its files as in the tree, HOME empty), so nothing this command or an earlier one built there is kept\n")...)
	}
	return res, started, err
}

// overBound says, on this machine (engine.Local, where the view's folders
// are this machine's), whether the view and its HOME, the only folders of
// its sandbox a command can write (what its user left in the shared
// temporary folders is gone with [engine.Session.Reap]), hold more than a
// side's snapshot may ([Container.snapshotBounds], in blocks, so a sparse
// file counts as what it takes), or "". A container's writable layer is
// bounded by the task's limits.disk where the engine's storage driver
// allows it, and is not measured here.
func (v *viewContainer) overBound() string {
	v.mu.Lock()
	sess := v.sess
	v.mu.Unlock()
	if sess == nil || sess.Path(containerView) == containerView {
		return ""
	}
	b := v.c.snapshotBounds()
	var bytes int64
	entries := 0
	over := errors.New("over")
	for _, p := range []string{sess.Path(v.view()), sess.Path(containerHome)} {
		err := filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err != nil || d == nil {
				return nil // unreadable: nothing to count
			}
			entries++
			if info, err := d.Info(); err == nil {
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					bytes += st.Blocks * 512
				}
			}
			if bytes > b.MaxBytes || entries > b.MaxEntries {
				return over
			}
			return nil
		})
		if err == over {
			if bytes > b.MaxBytes {
				return fmt.Sprintf("the command left more than %d bytes in the view and its HOME, the most a view keeps (the task's limits.disk, else %d)", b.MaxBytes, SnapshotMaxBytes)
			}
			return fmt.Sprintf("the command left more than %d entries in the view and its HOME, the most a view keeps", b.MaxEntries)
		}
	}
	return ""
}

// viewRunner is the run tool of a [Container]: each command runs in the
// sandbox of the view its folder is in (/srb/view/original/… or
// /srb/view/workspace/…, where the sandbox shows them); a folder in
// neither is refused.
type viewRunner map[string]*viewContainer

// Run implements [agent.Runner].
func (r viewRunner) Run(ctx context.Context, cmd agent.Command) (agent.RunResult, error) {
	for _, v := range r {
		if inside(v.shown(), path.Clean(cmd.Dir)) {
			return v.Run(ctx, cmd)
		}
	}
	return agent.RunResult{ExitCode: -1}, fmt.Errorf("run: %s is in neither view", cmd.Dir)
}

// inside reports whether p is dir or under it (both clean, slash paths).
func inside(dir, p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// fresh gives role's sandbox a fresh start: the working tree from the
// pristine copy, SRB_WORK and TMPDIR empty, HOME empty or a copy of the
// seed folder's content, all the candidate user's.
func (c *Container) fresh(ctx context.Context, role string) error {
	sess := c.sides[role].sess
	home := c.empty()
	if c.cfg.HomeSeed != "" {
		home = c.cfg.HomeSeed
	}
	for _, p := range []struct{ src, dst string }{
		{c.pristine(role), c.tree(role)}, {c.empty(), containerRun}, {home, containerHome}, {c.empty(), containerTmp},
	} {
		if err := replace(ctx, sess, p.src, p.dst, c.uid, c.gid); err != nil {
			return err
		}
	}
	return nil
}

// snapParts are what a side's snapshot keeps: the working tree and
// SRB_WORK (where the task's runner caches its build), by the name the
// snapshot keeps each under. HOME and TMPDIR start every run empty.
func (c *Container) snapParts(role string) map[string]string {
	return map[string]string{"tree": c.tree(role), "work": containerRun}
}

// Snapshot bounds: what a side's snapshot may hold, its working tree and
// SRB_WORK together. The tree's code wrote both (its build, run by the
// task's runner), so the copy to the grader's side is bounded like any
// tree an adversary wrote: SnapshotMaxBytes bytes of files (the task's
// limits.disk instead when it sets one: the container could hold no
// more), SnapshotMaxEntries entries, and paths of at most
// SnapshotMaxPathBytes bytes under the working tree or SRB_WORK (a build
// can make a chain of folders longer than the system's PATH_MAX, 4096,
// one relative step at a time, which no copy by path could read or write
// again: the bound stops the copy well before, whatever the prefixes of
// the session's and the work folder's paths).
const (
	SnapshotMaxBytes     int64 = 8 << 30
	SnapshotMaxEntries         = 500_000
	SnapshotMaxPathBytes       = 2048
)

// snapshotBounds are the bounds of one side's snapshot (see
// [SnapshotMaxBytes]).
func (c *Container) snapshotBounds() engine.CopyBounds {
	limit := SnapshotMaxBytes
	if c.cfg.Disk > 0 {
		limit = c.cfg.Disk
	}
	return engine.CopyBounds{Dir: true, MaxBytes: limit, MaxStreamBytes: limit, MaxEntries: SnapshotMaxEntries, MaxPathBytes: SnapshotMaxPathBytes}
}

// overBound says which bound of a side's snapshot be reports, in the
// snapshot's own terms.
func (c *Container) overBound(be *engine.BoundError) string {
	b := c.snapshotBounds()
	switch be.Bound {
	case "bytes", "stream bytes":
		return fmt.Sprintf("after its warm-up run its working tree and SRB_WORK hold more than %d bytes of files together (at %q), the most a side's snapshot keeps (the task's limits.disk, else %d)", b.MaxBytes, be.Path, SnapshotMaxBytes)
	case "entries":
		return fmt.Sprintf("after its warm-up run its working tree and SRB_WORK hold more than %d entries together (at %q), the most a side's snapshot keeps", b.MaxEntries, be.Path)
	case "path bytes":
		return fmt.Sprintf("after its warm-up run its working tree or SRB_WORK holds a path longer than %d bytes (at %.200q…), the longest a side's snapshot keeps", b.MaxPathBytes, be.Path)
	}
	return "after its warm-up run " + be.Error()
}

// snapshot copies the side's working tree and SRB_WORK out to its
// snapshot on the grader's side, under [Container.snapshotBounds] for the
// two together. A side past a bound (or whose tree is no longer a folder)
// is a *engine.BoundError and keeps no snapshot.
func (c *Container) snapshot(ctx context.Context, role string) error {
	snap := c.snap(role)
	if err := forceRemove(snap); err != nil {
		return err
	}
	if err := os.MkdirAll(snap, 0o700); err != nil {
		return err
	}
	b := c.snapshotBounds()
	parts := c.snapParts(role)
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		sum, err := c.sides[role].sess.CopyOutBounded(ctx, parts[name], filepath.Join(snap, name), b)
		if errors.Is(err, engine.ErrNoPath) {
			continue // the warm-up removed it: runs start without it
		}
		if errors.Is(err, syscall.ENAMETOOLONG) {
			// A path the system cannot name even within the bound (the
			// session's own path was long): the tree's doing all the same.
			err = &engine.BoundError{Bound: "path bytes", Limit: int64(b.MaxPathBytes), Path: parts[name]}
		}
		if err != nil {
			return errors.Join(err, forceRemove(snap))
		}
		b.MaxBytes -= sum.Bytes
		b.MaxStreamBytes -= sum.Bytes
		b.MaxEntries -= sum.Entries
		if b.MaxBytes <= 0 || b.MaxEntries <= 0 {
			// What is left is nothing: 0 would mean "no bound".
			b.MaxBytes, b.MaxStreamBytes, b.MaxEntries = max(b.MaxBytes, 1), max(b.MaxStreamBytes, 1), max(b.MaxEntries, 1)
		}
	}
	return nil
}

// restore puts the side back as its snapshot keeps it (the candidate
// user's again), with HOME and TMPDIR empty. What its latest run left is
// deleted first, unless [Container.clear] already deleted all of it.
func (c *Container) restore(ctx context.Context, role string) error {
	side := c.sides[role]
	clean := side.clean
	side.clean = false
	if !clean {
		if err := c.clear(ctx, role, append(scratchPaths(), c.partPaths(role)...)); err != nil {
			return err
		}
	}
	for name, p := range c.snapParts(role) {
		src := filepath.Join(c.snap(role), name)
		if _, err := os.Lstat(src); err != nil {
			continue // the snapshot has no such part: runs start without it
		}
		if err := side.sess.CopyInOwned(ctx, src, p, c.uid, c.gid); err != nil {
			return err
		}
	}
	for _, p := range []string{containerHome, containerTmp} {
		if err := side.sess.CopyInOwned(ctx, c.empty(), p, c.uid, c.gid); err != nil {
			return err
		}
	}
	return nil
}

// restoreBounded restores role's side ([Container.restore]); the
// submission's side within the RestoreTimeout. A restore of the
// submission's side that takes longer (its build left a snapshot so large
// that copying it in takes longer than a run may) is the submission's
// doing: why then says so and the run fails on it. Copies a session
// carries out without watching the context (engine.Local's) finish
// first. What such a restore put back is deleted before it returns.
func (c *Container) restoreBounded(ctx context.Context, role string) (why string, err error) {
	if role != RoleSubmission {
		return "", c.restore(ctx, role)
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RestoreTimeout)
	defer cancel()
	start := time.Now()
	err = c.restore(rctx, role)
	took := time.Since(start)
	if ctx.Err() == nil && (took > c.cfg.RestoreTimeout || rctx.Err() != nil) {
		// What the restore put back goes now, as after any run.
		if cerr := c.clear(context.WithoutCancel(ctx), role, append(scratchPaths(), c.partPaths(role)...)); cerr != nil {
			return "", fmt.Errorf("cannot clear the sandbox after a restore that took too long: %w", cerr)
		}
		c.sides[role].clean = true
		return fmt.Sprintf("the submission's tree cannot be tested: putting it back from its snapshot (its working tree and SRB_WORK after its warm-up run) before the run took longer than the %s a restore may take (%.1f s), so the run did not start", c.cfg.RestoreTimeout, took.Seconds()), nil
	}
	return "", err
}

// scratchPaths are HOME and TMPDIR, which every run starts empty.
func scratchPaths() []string { return []string{containerHome, containerTmp} }

// partPaths are the snapshot's parts in role's sandbox (the working tree
// and SRB_WORK), in a fixed order.
func (c *Container) partPaths(role string) []string {
	return slices.Sorted(maps.Values(c.snapParts(role)))
}

// clear deletes paths in role's sandbox.
func (c *Container) clear(ctx context.Context, role string, paths []string) error {
	for _, p := range paths {
		if err := c.sides[role].sess.Delete(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// reap ends what is left running in role's sandbox and removes what the
// candidate user left in its shared folders.
func (c *Container) reap(ctx context.Context, role string) (bool, error) {
	return c.sides[role].sess.Reap(ctx, c.cfg.User)
}

// prime gives role's sandbox a fresh start, runs [WarmUp] there and
// keeps what it left (working tree and SRB_WORK) as the side's snapshot,
// from which every later run of the side starts, with HOME and TMPDIR
// empty.
func (c *Container) prime(ctx context.Context, role string) error {
	side := c.sides[role]
	if side.spent {
		if err := c.renew(ctx, role); err != nil {
			return err
		}
	} else if _, err := c.reap(ctx, role); err != nil {
		return fmt.Errorf("cannot clear the sandbox: %w", err)
	}
	if err := c.fresh(ctx, role); err != nil {
		return fmt.Errorf("cannot give the tree a fresh start: %w", err)
	}
	w := WarmUp
	if run := c.execute(ctx, &w, role, false); run.Harness != "" {
		return fmt.Errorf("the warm-up run on the tree could not be carried out: %s", run.Harness)
	} else if run.TimedOut {
		return c.warmUpTimedOut(ctx, role)
	} else if side.spent {
		// The tree's build reached the sandbox's memory limit and left
		// it unusable: the submission's fails every run (its own
		// behaviour); State A's must fit the task's limits.
		why := "the warm-up run on the tree reached the sandbox's memory limit and left it unusable"
		if role != RoleSubmission {
			return errors.New(why)
		}
		side.unfit = "the submission's tree cannot be tested: " + why
		side.primed = true
		return nil
	}
	err := c.snapshot(ctx, role)
	// The side's next run copies its snapshot in: what the warm-up left
	// goes now, kept or not.
	// (HOME and TMPDIR went when the warm-up ended.)
	if cerr := c.clear(ctx, role, c.partPaths(role)); cerr != nil {
		return fmt.Errorf("cannot clear the sandbox after the warm-up run: %w", cerr)
	}
	if err != nil {
		var be *engine.BoundError
		if role == RoleSubmission && errors.As(err, &be) {
			// The submission's own build left it: every run of the side
			// fails (the tree cannot be tested within the task's bounds),
			// never a fault a submission could choose to cause.
			side.unfit = "the submission's tree cannot be tested: " + c.overBound(be)
			side.primed = true
			return nil
		}
		if errors.As(err, &be) {
			return fmt.Errorf("cannot keep the tree's snapshot: %s", c.overBound(be))
		}
		return fmt.Errorf("cannot keep the tree's snapshot: %w", err)
	}
	side.unfit = ""
	side.primed, side.clean = true, true
	return nil
}

// warmUpTimedOut rules on role's warm-up run that did not end within
// [ContainerConfig.WarmUpTimeout]. A timed-out candidate decides nothing
// (issue 15: a loaded machine or a slow but correct tree), but the
// warm-up is no candidate: it is the task's runner building the tree,
// which stage 2 built and ran within its own bounds before stage 3 could
// start, and the bound is the task's, set above any genuine build (the
// schema's default is twice stage 2's default build bound). A submission
// whose build hangs in stage 3 alone (its build sees SRB_WORK, the
// candidate user, the verification image) made every pair undecided,
// every round an error and the verdict invalid, never the low score its
// defect earns: now, with State A's warm-up ending within the same bound
// on the same machine as the witness (run first if it has not run), the
// submission's side is unfit and every run of it fails, so a pair whose
// State A run passes discriminates, and is reproduced and ruled on like
// any other. State A's own warm-up past the bound is the task's bound or
// the machine, never the submission: an error.
func (c *Container) warmUpTimedOut(ctx context.Context, role string) error {
	bound := c.cfg.WarmUpTimeout
	if role != RoleSubmission {
		return fmt.Errorf("State A's warm-up run (the task's runner building the tree) did not end within %s, the task's verification.warm_up_timeout_sec: the bound is too small for State A's build, or the machine too loaded", bound)
	}
	if !c.sides[RoleOriginal].primed {
		if err := c.prime(ctx, RoleOriginal); err != nil {
			return err
		}
	}
	side := c.sides[role]
	side.unfit = fmt.Sprintf("the submission's tree cannot be tested: its warm-up run (the task's runner building it, before any candidate) did not end within %s, the task's verification.warm_up_timeout_sec, where State A's did", bound)
	side.primed = true
	return nil
}

// renew replaces role's sandbox with a fresh one of the image
// ([ContainerConfig.FreshPerRun]), its working tree, SRB_WORK, HOME and
// TMPDIR not there yet (the restore copies them in, with nothing to
// delete first).
func (c *Container) renew(ctx context.Context, role string) error {
	side := c.sides[role]
	sess, err := c.start(ctx, map[string]string{"srb.tree": c.Token(role)})
	if err != nil {
		return fmt.Errorf("cannot start a fresh sandbox for the run: %w", err)
	}
	old := side.sess
	side.sess, side.hits, side.clean, side.spent = sess, engine.LimitHits{}, true, false
	if err := old.Close(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("cannot remove the side's previous sandbox: %w", err)
	}
	return nil
}

// Execute implements [Sandbox]: the run happens in role's sandbox only,
// and starts from the side's snapshot (see [Container]), so nothing an
// earlier run of the side did (the adjudicator's reruns included) can
// change what this one sees.
func (c *Container) Execute(ctx context.Context, cand *Candidate, role string) CandidateRun {
	start := time.Now()
	if !c.sides[role].primed {
		if err := c.prime(ctx, role); err != nil {
			run := CandidateRun{Target: role, ExitCode: -1, Harness: err.Error(), UpkeepSec: time.Since(start).Seconds()}
			run.Stderr = "cannot run candidate command: " + err.Error()
			return run
		}
	}
	primed := time.Since(start).Seconds()
	if why := c.sides[role].unfit; why != "" {
		return CandidateRun{Target: role, ExitCode: -1, Stderr: why, UpkeepSec: primed}
	}
	run := c.execute(ctx, cand, role, true)
	run.UpkeepSec += primed
	return run
}

// candidateEnv is the candidate's environment in sess: the configured
// base with HOME and TMPDIR the tree's own (whatever it says) and the
// contract's names, every path as sess's processes see it.
func (c *Container) candidateEnv(sess *engine.Session, cand *Candidate, role string) []string {
	base := slices.DeleteFunc(slices.Clone(c.cfg.Env), func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	base = append(base, "HOME="+sess.Path(containerHome), "TMPDIR="+sess.Path(containerTmp))
	return CandidateEnv(base, c.cfg.Network,
		EnvCandidate+"="+sess.Path(path.Join(containerCand, cand.Filename)), EnvCandidateName+"="+cand.Name,
		EnvTarget+"="+sess.Path(c.tree(role)), EnvTargetToken+"="+c.Token(role), EnvWork+"="+sess.Path(containerRun))
}

// execute runs cand in role's sandbox: the candidate placed, every
// leftover process ended, the side restored from its snapshot (when
// restore), the command run as the candidate user within the run's
// timeout (the warm-up's, [ContainerConfig.WarmUpTimeout], when not
// restore: the warm-up starts from no snapshot), and what it left reaped
// afterwards.
func (c *Container) execute(ctx context.Context, cand *Candidate, role string, restore bool) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	side := c.sides[role]
	// Everything here but the candidate's own command is the grader's
	// upkeep ([CandidateRun.UpkeepSec]).
	began := time.Now()
	harness := func(why string) CandidateRun {
		run.Harness = why
		run.Stderr = "cannot run candidate command: " + why
		run.UpkeepSec = time.Since(began).Seconds()
		return run
	}
	renewed := restore && (c.cfg.FreshPerRun || side.spent)
	if renewed {
		// A fresh sandbox of the image: nothing of the kernel state an
		// earlier run (the warm-up's included) left in the namespaces of
		// the side's last one reaches this run; the restore below puts
		// the side's files back.
		if err := c.renew(ctx, role); err != nil {
			return harness(err.Error())
		}
	}
	sess := side.sess
	tmp, err := os.MkdirTemp(c.work, "candidate-")
	if err == nil {
		defer os.RemoveAll(tmp)
		// The candidate and its folder are the candidate user's alone
		// (0700): a program under test run apart (the launcher,
		// docs/PROGSEP.md) reads what that user's group may, and must
		// neither read the candidate's expectations out of its source
		// nor list the folder (the candidates' names and sizes). The
		// folder is copied in whole (tmp holds this candidate alone), so
		// its mode and owner are set on every placement.
		hostFile := filepath.Join(tmp, cand.Filename)
		if err = os.WriteFile(hostFile, []byte(cand.Code), 0o700); err == nil {
			err = os.Chmod(hostFile, 0o700)
		}
		if err == nil {
			err = os.Chmod(tmp, 0o700)
		}
		if err == nil {
			err = sess.CopyInOwned(ctx, tmp, containerCand, c.uid, c.gid)
		}
	}
	if err != nil {
		return harness("cannot place the candidate: " + err.Error())
	}
	env := c.candidateEnv(sess, cand, role)
	argv := append(sessionArgv(sess, c.cfg.Command, c.cfg.Paths), role)
	// Nothing left by an earlier run may watch this run's processes: it
	// is ended first (a fresh sandbox holds nothing of one).
	if !renewed {
		if _, err := c.reap(ctx, role); err != nil {
			return harness("cannot clear the sandbox: " + err.Error())
		}
	}
	if restore {
		if why, err := c.restoreBounded(ctx, role); why != "" {
			// The submission's own tree is too slow to put back: the run
			// fails, like a side past its snapshot's bounds, never a fault.
			run.Stderr = why
			run.UpkeepSec = time.Since(began).Seconds()
			return run
		} else if err != nil {
			return harness("cannot restore the tree's snapshot: " + err.Error())
		}
	}
	start := time.Now()
	timeout := c.cfg.Timeout
	if !restore {
		timeout = c.cfg.WarmUpTimeout
	}
	res, err := sess.Exec(ctx, engine.ExecSpec{Argv: argv, Env: env, WorkDir: c.tree(role), User: c.cfg.User,
		Timeout: timeout, MaxOutput: MaxRunTail, Tail: true, OOMFirst: true})
	ran := time.Since(start)
	run.DurationSec = ran.Seconds()
	if res != nil {
		run.ExitCode, run.TimedOut = res.ExitCode, res.TimedOut
		run.Stdout, run.Stderr = lastBytes(res.Stdout), lastBytes(res.Stderr)
		run.Reaped = res.Leftovers > 0
		if res.Duration > 0 {
			run.DurationSec = res.Duration.Seconds()
		}
	}
	if run.TimedOut {
		run.ExitCode = -1
	}
	if err != nil && !run.TimedOut {
		// The engine could not run it, or the stage was stopped: srb's
		// fault, never the tree's (unless the run's own processes
		// reached the sandbox's memory limit: below).
		run.ExitCode = -1
		run.Harness = err.Error()
		run.Stderr += "cannot run candidate command: " + err.Error()
	}
	stopped := ctx.Err() != nil
	if reaped, err := c.reap(context.WithoutCancel(ctx), role); err == nil {
		run.Reaped = run.Reaped || reaped
	} else if run.Harness == "" {
		run.Harness = "cannot clear the sandbox after the run: " + err.Error()
	}
	// What the run left beyond the side's snapshot (HOME and TMPDIR, and
	// after a candidate's run the working tree and SRB_WORK, which the
	// side's next run copies in again) is removed now, not before the
	// side's next run: nothing bounds a sandbox's disk on this machine,
	// and a run that filled it must not leave the other side's next run
	// (State A's) without room for its candidate and its restore.
	left := scratchPaths()
	if restore {
		left = append(left, c.partPaths(role)...)
	}
	if err := c.clear(context.WithoutCancel(ctx), role, left); err != nil && run.Harness == "" {
		run.Harness = "cannot clear the sandbox after the run: " + err.Error()
	} else if err == nil && restore {
		side.clean = true
	}
	if h, err := sess.LimitHits(context.WithoutCancel(ctx)); err == nil {
		run.LimitHit = limitHit(side.hits, h)
		if run.Harness != "" && !stopped && h.OOMAtLimit(side.hits, c.cfg.Memory) {
			// The OOM killer ended a process at the sandbox's memory
			// limit, which only what the run's processes held can reach
			// (the grader's own steps fit in it), and the run or the
			// clearing after it failed: the kernel may have chosen the
			// container's own processes (where they cannot be exempted,
			// [engine.Hardening]) and stopped it, or what the run left
			// (a System V segment, a tmpfs file) leaves no room for the
			// grader's steps. It is the run's failure, the tree's own
			// behaviour, never a fault of the grader that a candidate or
			// the submission chose; the side's next run starts in a
			// fresh sandbox.
			run.Stderr += "\nthe run reached the sandbox's memory limit (" + run.Harness + ")"
			run.Harness = ""
			side.spent, side.clean = true, false
			if run.ExitCode == 0 {
				run.ExitCode = -1
			}
		}
		if run.Harness != "" && !stopped && h.PidsMax > side.hits.PidsMax {
			// The run's processes reached the sandbox's process limit
			// and the run or the clearing after it could not start a
			// process (the engine's exec needs one: runc's init joins
			// the full pids cgroup, exit 126): only what the run left
			// can hold every pid, so it is the run's failure, the
			// tree's own behaviour; the side's next run starts in a
			// fresh sandbox, as after the memory limit.
			run.Stderr += "\nthe run reached the sandbox's process limit (" + run.Harness + ")"
			run.Harness = ""
			side.spent, side.clean = true, false
			if run.ExitCode == 0 {
				run.ExitCode = -1
			}
		}
		side.hits = h
	}
	run.Passed = run.ExitCode == 0 && run.Harness == ""
	run.Fault = !run.TimedOut && run.Harness == "" && run.ExitCode > 1 && slices.Contains(c.cfg.FaultCodes, run.ExitCode)
	run.UpkeepSec = (time.Since(began) - ran).Seconds()
	return run
}

func lastBytes(b []byte) string {
	if len(b) > MaxRunTail {
		b = b[len(b)-MaxRunTail:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// limitHit names the limits reached between before and after: "memory",
// "pids", "memory,pids" or "".
func limitHit(before, after engine.LimitHits) string {
	var hit []string
	if (after.OOMKilled && !before.OOMKilled) || after.OOMKills > before.OOMKills {
		hit = append(hit, "memory")
	}
	if after.PidsMax > before.PidsMax {
		hit = append(hit, "pids")
	}
	return strings.Join(hit, ",")
}
