package verification

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
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

// ContainerConfig configures a [Container] sandbox: a container of the
// task's verification image per tree per round.
//
// Engine starts them from Image with Labels, no network unless Network,
// PID limit Pids (0: 1024), no_new_privs set (no setuid program raises a
// candidate's privileges). Original and Submission are the host trees,
// copied in (never changed). Command is the task's candidate_command as
// the image sees it; every argument that looks like a path must exist in
// the container. Timeout bounds one run (0: 300 s); FaultCodes as in
// [HostConfig]. Env is the candidates' base environment on top of the
// image's (nil: PATH, LANG, HOME=/srb/home). User is who the candidate
// command runs as ("": [CandidateUser]); it owns the working tree,
// /srb/run and /srb/home of its container. Work is the host folder for
// the toolbox's copies of the trees ("" for the system's temporary
// folder); Keep leaves it on Close (the containers are always removed).
// Pids, Memory (bytes), Disk (bytes) and CPUs bound each container (the
// task's limits; 0 Pids is 1024, 0 Memory is engine.DefaultLimits', 0
// Disk and 0 CPUs none);
// a run during which one was reached says so (CandidateRun.LimitHit).
// HomeSeed, when set, is a host folder whose content starts each tree's
// HOME for its warm-up run ([WarmUp]; what [WarmHomeInImage] left, say):
// it is copied into the tree's container read-only (/srb/seed) and from
// there into its HOME, a copy per tree and round; candidates' runs start
// with HOME empty.
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
	Memory     int64
	Disk       int64
	CPUs       int64
	Work       string
	Keep       bool
	HomeSeed   string
}

// Container is a [Sandbox] in containers of the verification image
// (HARNESS.md §4.3, "each round in its own container"): each tree of the
// round has a container of its own, which holds that tree only, so
// nothing a candidate or the tree's code does on one side (its files,
// /tmp, its processes, IPC) can reach the other side's runs. Inside a
// tree's container:
//
//	/srb/pristine/<token>   the tree as given, read-only
//	/srb/trees/<token>      the working tree a candidate runs in (the candidate user's)
//	/srb/candidates/<file>  candidate files (root's, readable)
//	/srb/run                SRB_WORK;  /srb/home: HOME (the candidate user's)
//	/srb/snap               the side's snapshot (root's only)
//
// The toolbox's file tools read host copies of the trees; its run tool
// executes as root in a third container, started the first time it is
// used, holding /srb/view/original and /srb/view/workspace (neither tree's
// container has them). Tokens are salted per sandbox, as [Host]'s are.
// The candidate command runs as [ContainerConfig.User], never root, with
// the role only as its last argument: no process of srb's holds the role
// anywhere a candidate can read it (/proc/<pid>/cmdline is readable by
// every user, so the task's runner must exec, not fork, the candidate, or
// its own argument list shows the role to it; docs/LADDER.md). Before
// every run, and after it, whatever is left running in the tree's
// container is killed: every process but those running when the container
// started. Every run of a side starts from the same state: before the
// side's first run of a round (after Reset) [WarmUp] runs on a fresh
// tree, so the task's runner builds and caches it, and the working tree
// and SRB_WORK are kept in /srb/snap (root's, mode 0700); before every
// later run they are restored from it by root, HOME is emptied, and what the
// candidate user owns in /tmp, /var/tmp, /dev/shm, /run/lock and
// /dev/mqueue is removed, so nothing a run does reaches the side's next
// run.
type Container struct {
	cfg   ContainerConfig
	salt  string
	work  string
	trees map[string]string         // role → host tree
	sides map[string]*containerSide // role → the tree's container
	views map[string]*viewContainer // role → the run tool's container of that view
}

// containerSide is one tree's container and the pids of its own processes
// (its init and keep-alive command), which reaping spares.
type containerSide struct {
	sess *engine.Session
	keep []string
	hits engine.LimitHits // the limits reached before the latest run
	// primed says the side has its snapshot since the last Reset.
	primed bool
}

var _ Sandbox = (*Container)(nil)

// NewContainer starts the round's two containers and checks the candidate
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
		trees: map[string]string{RoleOriginal: cfg.Original, RoleSubmission: cfg.Submission},
		sides: map[string]*containerSide{}}
	c.views = map[string]*viewContainer{RoleOriginal: {c: c, role: RoleOriginal}, RoleSubmission: {c: c, role: RoleSubmission}}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		side, err := c.startSide(ctx, role)
		if side != nil {
			c.sides[role] = side
		}
		if err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.Reset(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// start starts one container of the image with copies, labelled with
// what labels add to the configuration's.
func (c *Container) start(ctx context.Context, labels map[string]string, copies []engine.Copy, readOnly []string) (*engine.Session, error) {
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
		Copies:   copies,
		ReadOnly: readOnly,
		Pids:     c.cfg.Pids,
		Memory:   c.cfg.Memory,
		Disk:     c.cfg.Disk,
		NanoCPUs: c.cfg.CPUs * 1e9,
		// A candidate stays the unprivileged user it is started as: no
		// setuid program in the image makes it root again.
		NoNewPrivileges: true,
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: the verification image %s: %w", c.cfg.Image, err)
	}
	return sess, nil
}

// startSide starts role's container: the tree copied in, the launch
// check, the candidate user's folders, and the list of the container's
// own processes.
func (c *Container) startSide(ctx context.Context, role string) (*containerSide, error) {
	copies := []engine.Copy{{HostPath: c.trees[role], ContainerPath: c.pristine(role)}}
	readOnly := []string{ContainerRoot + "/pristine"}
	if c.cfg.HomeSeed != "" {
		copies = append(copies, engine.Copy{HostPath: c.cfg.HomeSeed, ContainerPath: containerSeed})
		readOnly = append(readOnly, containerSeed)
	}
	sess, err := c.start(ctx, map[string]string{"srb.tree": c.Token(role)}, copies, readOnly)
	if err != nil {
		return nil, err
	}
	side := &containerSide{sess: sess}
	var paths []string
	for _, a := range c.cfg.Command[1:] {
		if strings.HasPrefix(a, "/") && !strings.ContainsAny(a, " \t\n'\"$;|&<>()") {
			paths = append(paths, a)
		}
	}
	check := append([]string{"/bin/sh", "-c", `for f; do [ -e "$f" ] || { echo "$f"; exit 1; }; done; mkdir -p ` +
		strings.Join([]string{containerHome, containerRun, containerCand, ContainerRoot + "/trees"}, " "), "sh"}, paths...)
	if r, err := sess.Exec(ctx, engine.ExecSpec{Argv: check, User: "0", Timeout: time.Minute}); err != nil || r.ExitCode != 0 {
		if err != nil {
			return side, fmt.Errorf("sandbox: the verification image %s: %w", c.cfg.Image, err)
		}
		if miss := strings.TrimSpace(string(r.Stdout)); miss != "" {
			return side, fmt.Errorf("sandbox: candidate command argument %s does not exist in the verification image %s", miss, c.cfg.Image)
		}
		return side, fmt.Errorf("sandbox: the verification image %s: cannot create %s: %s", c.cfg.Image, ContainerRoot, strings.TrimSpace(string(r.Stderr)))
	}
	// The candidate user's own: its HOME and SRB_WORK.
	if err := c.chown(ctx, sess, containerHome, containerRun); err != nil {
		return side, err
	}
	// What runs in the container before any candidate is its own; reaping
	// spares it (killing the keep-alive command would stop the container).
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: []string{"/bin/sh", "-c", listScript}, User: "0", Timeout: time.Minute})
	if err != nil || r.ExitCode != 0 {
		return side, fmt.Errorf("sandbox: cannot list the processes of the verification image %s: %v", c.cfg.Image, err)
	}
	side.keep = strings.Fields(string(r.Stdout))
	return side, nil
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
func (c *Container) chown(ctx context.Context, sess *engine.Session, paths ...string) error {
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: append([]string{"chown", "-R", "-h", "-P", c.cfg.User}, paths...), User: "0", Timeout: 10 * time.Minute})
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("chown exited %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	if err != nil {
		return fmt.Errorf("sandbox: cannot give %s to the candidate user %s: %w", strings.Join(paths, " "), c.cfg.User, err)
	}
	return nil
}

// resetIn replaces dst with a copy of src inside sess's container, as
// root.
func resetIn(ctx context.Context, sess *engine.Session, src, dst string) error {
	for _, argv := range [][]string{{"rm", "-rf", dst}, {"cp", "-a", src, dst}} {
		r, err := sess.Exec(ctx, engine.ExecSpec{Argv: argv, User: "0", Timeout: 10 * time.Minute})
		if err != nil {
			return err
		}
		if r.ExitCode != 0 {
			return fmt.Errorf("%s exited %d: %s", argv[0], r.ExitCode, strings.TrimSpace(string(r.Stderr)))
		}
	}
	return nil
}

// Reset implements [Sandbox]: each working tree in its container from its
// pristine copy (the candidate user's), the run tool's views when its
// container runs, and the file tools' host copies from the trees given.
func (c *Container) Reset(ctx context.Context) error {
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		// Warmed up again before its next run.
		c.sides[role].primed = false
		sess := c.sides[role].sess
		if err := resetIn(ctx, sess, c.pristine(role), c.tree(role)); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
		}
		if err := c.chown(ctx, sess, c.tree(role)); err != nil {
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
	if err := errors.Join(c.views[RoleOriginal].reset(ctx), c.views[RoleSubmission].reset(ctx)); err != nil {
		return err
	}
	return ctx.Err()
}

// Roots implements [Sandbox]: host copies, shown as the run tool's views.
func (c *Container) Roots() []agent.RootSpec {
	return []agent.RootSpec{
		{Name: "original", Dir: filepath.Join(c.work, "view", "original"), Shown: path.Join(containerView, "original")},
		{Name: "workspace", Dir: filepath.Join(c.work, "view", "workspace"), Shown: path.Join(containerView, "workspace")},
	}
}

// RunTool implements [Sandbox]: the run tool executes as root in the
// round's third container, which holds the views and neither tree's
// working copy, with the container's PATH.
func (c *Container) RunTool() (agent.Runner, func(string) string) {
	return viewRunner(c.views), agent.ContainerEnv
}

// Close implements [Sandbox]: the containers are removed; the host copies
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

// viewContainer is a container the run tool executes in: one per view,
// started the first time a command runs in that view, with that tree
// alone copied to /srb/view/<view> (root's), and removed with the
// sandbox. A command run in one view cannot reach the other view's
// container, so nothing the submission's own files make a command do (a
// Makefile's recipe, a daemon it leaves) can change what the adversary
// sees of State A, or the other way round.
type viewContainer struct {
	c    *Container
	role string
	mu   sync.Mutex
	sess *engine.Session
}

// session returns the view's container, starting it when it is not
// running yet.
func (v *viewContainer) session(ctx context.Context) (*engine.Session, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sess != nil {
		return v.sess, nil
	}
	copies := []engine.Copy{{HostPath: v.c.trees[v.role], ContainerPath: path.Join(ContainerRoot, "view-pristine", viewName(v.role))}}
	sess, err := v.c.start(ctx, map[string]string{"srb.tree": "view-" + viewName(v.role)}, copies, []string{ContainerRoot + "/view-pristine"})
	if err != nil {
		return nil, err
	}
	v.sess = sess
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
	name := viewName(v.role)
	if err := resetIn(ctx, v.sess, path.Join(ContainerRoot, "view-pristine", name), path.Join(containerView, name)); err != nil {
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

// Run implements [agent.Runner] in the view's container, as root.
func (v *viewContainer) Run(ctx context.Context, cmd agent.Command) (agent.RunResult, error) {
	sess, err := v.session(ctx)
	if err != nil {
		return agent.RunResult{ExitCode: -1}, err
	}
	return agent.SessionRunner{Session: sess}.Run(ctx, cmd)
}

// viewRunner is the run tool of a [Container]: each command runs in the
// container of the view its folder is in (/srb/view/original/… or
// /srb/view/workspace/…); a folder in neither is refused.
type viewRunner map[string]*viewContainer

// Run implements [agent.Runner].
func (r viewRunner) Run(ctx context.Context, cmd agent.Command) (agent.RunResult, error) {
	for role, v := range r {
		if inside(path.Join(containerView, viewName(role)), path.Clean(cmd.Dir)) {
			return v.Run(ctx, cmd)
		}
	}
	return agent.RunResult{ExitCode: -1}, fmt.Errorf("run: %s is in neither view", cmd.Dir)
}

// inside reports whether p is dir or under it (both clean, slash paths).
func inside(dir, p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// listScript prints the pids of the container's processes but its own.
const listScript = `for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] || echo "$p"; done`

// reapScript kills every process in the container except those its
// arguments name (the container's own: its init and the command that keeps
// it alive, listed when it started) and the shell itself, and prints how
// many it killed.
const reapScript = `keep=" $* "; n=0; for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] && continue; case "$keep" in *" $p "*) continue;; esac; kill -9 "$p" 2>/dev/null && n=$((n+1)); done; echo $n`

// containerSnap is where a tree's container keeps the tree's snapshot
// (root's, mode 0700: the candidate user cannot enter it).
const containerSnap = ContainerRoot + "/snap"

// containerShared are the folders of a tree's container every user may
// write in; what the candidate user owns there is removed before every
// run.
var containerShared = []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue"}

// clearTail removes, in each folder its arguments name, everything the
// user $user owns (at any depth, never following a link or leaving the
// folder's file system).
const clearTail = `for d; do [ -d "$d" ] && [ ! -L "$d" ] && find "$d" -xdev -mindepth 1 -user "$user" -prune -exec rm -rf {} +; done; exit 0`

// freshScript gives a tree's container a fresh start, as root: the
// working tree from the pristine copy, SRB_WORK empty, HOME empty or a
// copy of the seed folder's content (when seed names a folder), and what
// the candidate user left in the shared folders removed. Arguments:
// pristine tree run home user seed shared...
const freshScript = `set -e; pristine=$1 tree=$2 run=$3 home=$4 user=$5 seed=$6; shift 6
rm -rf "$tree" "$run" "$home"; cp -a "$pristine" "$tree"; mkdir -p "$run" "$home"
if [ -n "$seed" ] && [ -d "$seed" ]; then cp -a "$seed/." "$home/"; fi
set +e; ` + clearTail

// containerSeed is where a tree's container holds the HOME seed
// ([ContainerConfig.HomeSeed]), read-only.
const containerSeed = ContainerRoot + "/seed"

// snapshotScript keeps the working tree and SRB_WORK in a folder of
// root's, as they are (owners, modes and times kept), and HOME's folder
// empty. Arguments: snap tree run home.
const snapshotScript = `set -e; snap=$1; rm -rf "$snap"; mkdir -m 700 "$snap"
cp -a "$2" "$snap/tree"; cp -a "$3" "$snap/run"; cp -a "$4" "$snap/home"; find "$snap/home" -mindepth 1 -delete`

// restoreScript puts the working tree and SRB_WORK back as the snapshot
// keeps them (the candidate user's again), HOME empty, and removes what
// the candidate user left in the shared folders. Arguments: snap tree run
// home user shared...
const restoreScript = `set -e; snap=$1 tree=$2 run=$3 home=$4 user=$5; shift 5
rm -rf "$tree" "$run" "$home"
cp -a "$snap/tree" "$tree"; cp -a "$snap/run" "$run"; cp -a "$snap/home" "$home"
set +e; ` + clearTail

// candidateUID is the user part of ContainerConfig.User ("uid:gid").
func (c *Container) candidateUID() string {
	u, _, _ := strings.Cut(c.cfg.User, ":")
	return u
}

// rootSh runs script with args in sess's container as root; an error
// carries the script's stderr.
func rootSh(ctx context.Context, sess *engine.Session, script string, args ...string) error {
	r, err := sess.Exec(ctx, engine.ExecSpec{Argv: append([]string{"/bin/sh", "-c", script, "sh"}, args...), User: "0", Timeout: 10 * time.Minute})
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("exit %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	return err
}

// reap kills every process in side's container but the container's own
// and returns how many it killed.
func (c *Container) reap(ctx context.Context, side *containerSide) (int, error) {
	argv := append([]string{"/bin/sh", "-c", reapScript, "sh"}, side.keep...)
	r, err := side.sess.Exec(ctx, engine.ExecSpec{Argv: argv, User: "0", Timeout: time.Minute})
	if err != nil {
		return 0, err
	}
	if r.ExitCode != 0 {
		return 0, fmt.Errorf("exit %d", r.ExitCode)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	return n, nil
}

// prime gives role's container a fresh start, runs [WarmUp] there and
// keeps what it left (working tree and SRB_WORK) as the side's snapshot,
// from which every later run of the side starts, with HOME empty.
func (c *Container) prime(ctx context.Context, role string) error {
	side := c.sides[role]
	if _, err := c.reap(ctx, side); err != nil {
		return fmt.Errorf("cannot clear the container: %w", err)
	}
	seed := ""
	if c.cfg.HomeSeed != "" {
		seed = containerSeed
	}
	args := append([]string{c.pristine(role), c.tree(role), containerRun, containerHome, c.candidateUID(), seed}, containerShared...)
	if err := rootSh(ctx, side.sess, freshScript, args...); err != nil {
		return fmt.Errorf("cannot give the tree a fresh start: %w", err)
	}
	if err := c.chown(ctx, side.sess, c.tree(role), containerRun, containerHome); err != nil {
		return err
	}
	w := WarmUp
	if run := c.execute(ctx, &w, role, false); run.Harness != "" {
		return fmt.Errorf("the warm-up run on the tree could not be carried out: %s", run.Harness)
	}
	if err := rootSh(ctx, side.sess, snapshotScript, containerSnap, c.tree(role), containerRun, containerHome); err != nil {
		return fmt.Errorf("cannot keep the tree's snapshot: %w", err)
	}
	side.primed = true
	return nil
}

// Execute implements [Sandbox]: the run happens in role's container only,
// and starts from the side's snapshot (see [Container]), so nothing an
// earlier run of the side did (the adjudicator's reruns included) can
// change what this one sees.
func (c *Container) Execute(ctx context.Context, cand *Candidate, role string) CandidateRun {
	if !c.sides[role].primed {
		if err := c.prime(ctx, role); err != nil {
			run := CandidateRun{Target: role, ExitCode: -1, Harness: err.Error()}
			run.Stderr = "cannot run candidate command: " + err.Error()
			return run
		}
	}
	return c.execute(ctx, cand, role, true)
}

// execute runs cand in role's container: the candidate placed, every
// leftover process killed, the side restored from its snapshot (when
// restore), the command run as the candidate user, and its processes
// killed afterwards.
func (c *Container) execute(ctx context.Context, cand *Candidate, role string, restore bool) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	side := c.sides[role]
	harness := func(why string) CandidateRun {
		run.Harness = why
		run.Stderr = "cannot run candidate command: " + why
		return run
	}
	tmp, err := os.MkdirTemp(c.work, "candidate-")
	if err == nil {
		defer os.RemoveAll(tmp)
		hostFile := filepath.Join(tmp, cand.Filename)
		if err = os.WriteFile(hostFile, []byte(cand.Code), 0o755); err == nil {
			err = side.sess.CopyIn(ctx, hostFile, path.Join(containerCand, cand.Filename))
		}
	}
	if err != nil {
		return harness("cannot place the candidate: " + err.Error())
	}
	env := CandidateEnv(c.cfg.Env, c.cfg.Network,
		EnvCandidate+"="+path.Join(containerCand, cand.Filename), EnvCandidateName+"="+cand.Name,
		EnvTarget+"="+c.tree(role), EnvTargetToken+"="+c.Token(role), EnvWork+"="+containerRun)
	argv := append(slices.Clone(c.cfg.Command), role)
	// Nothing left by an earlier run may watch this run's processes: it
	// is killed first.
	if _, err := c.reap(ctx, side); err != nil {
		return harness("cannot clear the container: " + err.Error())
	}
	if restore {
		args := append([]string{containerSnap, c.tree(role), containerRun, containerHome, c.candidateUID()}, containerShared...)
		if err := rootSh(ctx, side.sess, restoreScript, args...); err != nil {
			return harness("cannot restore the tree's snapshot: " + err.Error())
		}
	}
	start := time.Now()
	res, err := side.sess.Exec(ctx, engine.ExecSpec{Argv: argv, Env: env, WorkDir: c.tree(role), User: c.cfg.User,
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
		// The engine could not run it, or the stage was stopped: srb's
		// fault, never the tree's.
		run.ExitCode = -1
		run.Harness = err.Error()
		run.Stderr += "cannot run candidate command: " + err.Error()
	}
	if n, err := c.reap(ctx, side); err == nil {
		run.Reaped = n > 0
	} else if run.Harness == "" {
		run.Harness = "cannot clear the container after the run: " + err.Error()
	}
	if h, err := side.sess.LimitHits(ctx); err == nil {
		run.LimitHit = limitHit(side.hits, h)
		side.hits = h
	}
	run.Passed = run.ExitCode == 0 && run.Harness == ""
	run.Fault = !run.TimedOut && run.Harness == "" && run.ExitCode > 1 && slices.Contains(c.cfg.FaultCodes, run.ExitCode)
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
