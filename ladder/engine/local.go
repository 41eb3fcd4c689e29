package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// Local is a [Runner] whose sandboxes are on this machine (srb's --host):
// the host's own programs and toolchains, no image. Its sessions are the
// same [Session] a Docker container is, so a stage written over
// Runner.Start runs here unchanged.
//
// One session is one private root folder (Base/srb-host-*, made fresh
// for it, outside anything graded) standing for the container's "/", and,
// when srb runs as root, one user of its own: an unused uid drawn by
// [hostuser.Draw], with its own group and no supplementary groups. The
// root folder is root's with mode 0710 and that user's group, so only
// root and the session's user can enter it and nobody but root can
// rename or replace its entries; not root, it is this process's with
// mode 0700. A copy in or out waits for the session's running Execs and
// walks its files with no process of the session's user alive, so
// nothing changes under it; a path through a symbolic link the user
// planted is refused.
//
// Paths. A session's processes run on this machine and see its paths
// where they are: container path p is Session.Path(p), the root folder
// joined with p. The session's own verbs take container paths (CopyIn,
// CopyOut, ExecSpec.WorkDir, Spec.ReadOnly) and map them (a WorkDir
// Session.Path gave is taken as it is); an argument or
// an environment value naming a session path is written by the stage
// with Session.Path, which is p itself on Docker (and on a Kubernetes
// backend), so the stage is written once. A mount namespace binding the
// root folder at "/" (or /srb, /tests at their places) was not chosen:
// it needs code between the init and the command, and ladder/proc, which
// starts every process here, is linked into the stage-2 helper and does
// not offer it; and a command run on the host must see the host's "/"
// (its toolchains), which only a chroot of bind mounts would give back.
//
// Users. Every command runs as the session's user, whatever
// ExecSpec.User or Spec.User says, except that root ("0", "root", "0:…")
// is refused: the grader's user runs nothing of a session. What CopyIn
// copies is root's with the modes it had (the session's user writes it
// only where they let others write, as a container's unprivileged user
// would), or, with Copy.Owned, the session user's whatever Copy.UID says:
// the one user a session has plays every user of a container, its root
// included, and the grader's root plays none.
//
// Containment. Each Exec runs through ladder/proc (as root: a PID
// namespace, so every process the command started is ended when Exec
// returns; at ExecSpec.Timeout the whole containment gets SIGTERM, Grace
// later SIGKILL), in an IPC namespace of its own and, unless Spec.Network
// names a network, a network namespace of its own with nothing but
// loopback; after every Exec each process of the session's user is
// killed ([hostuser.Sweep]). Kill kills them all; Remove then removes
// what the user left in the shared temporary folders and the root folder.
// Not root, commands run as this process's user with no namespace but
// proc's: the network is not denied and sessions can reach each other's
// folders ([Local.Isolation] says which held).
//
// Limits. As root, a session with Spec.Memory or Spec.Pids gets cgroups
// of its own (cgroup v1's memory and pids hierarchies under srb's own
// cgroup, or cgroup v2 under [Local.CgroupParent]) that every Exec's
// init joins before it starts the command, so all the session's
// processes together are bounded as a container's are (memory swap
// included; the inits count as tasks), and LimitHits reads their OOM
// kills and refused forks. Where no cgroup can be made for it (not root,
// cgroup v2 with no delegated parent: [Local.CgroupLimits] says why)
// they are not enforced and LimitHits reports them unknown (-1); a
// cgroup that can be made but fails is an error of Start. The user's
// task count is bounded by [hostuser.ProcessLimit] too (this process's
// RLIMIT_NPROC, lowered at Start as root). Spec.Disk and NanoCPUs are
// not enforced here. Spec.NoNewPrivileges is not set either (ladder/proc cannot set
// it); the session's user has no sudo rule and no password. Spec.ReadOnly
// paths are made unwritable to the session's user (root's, no group or
// other write bit), which root could still write. ExtraHosts, Tmpfs and
// CapAdd have no meaning here: a Spec that sets them is refused.
type Local struct {
	// Base is the folder session roots are made in ("": os.TempDir(),
	// or /tmp when a folder above that is closed to other users). As
	// root every folder above it must let other users pass (o+x).
	Base string
	// Root, when set, is every session's root folder instead of a fresh
	// Base/srb-host-* one: made at Start (it must not exist, and its
	// folder must let other users pass as root), removed at Close. Its
	// sessions run one at a time, at paths that stay put: for a stage
	// that shows its paths to a model and gives each review a fresh
	// session (stage 1's run tool).
	Root string
	// Env is every command's base environment, the stand-in for an
	// image's (nil: PATH of this process and LANG=C.UTF-8); Spec.Env and
	// ExecSpec.Env are added to it. Nothing else of this process's
	// environment (its credentials) reaches a command.
	Env []string
	// Images are the images this machine stands for: a reference maps to
	// the copies laid into each session's root before it starts (the
	// task's files at their image path, say), root's and readable (never
	// writable) by every user, as an image's files are. Start with a reference it
	// lacks is an error wrapping [ErrNoImage]; "" starts an empty root.
	Images map[string][]Copy
	// CgroupParent is a cgroup v2 folder delegated to srb, under which
	// each session's cgroup is made on a cgroup v2 machine ("": the
	// environment's SRB_HOST_CGROUP; neither leaves the limits
	// unenforced there). On cgroup v1 sessions' cgroups go under srb's
	// own in the memory and pids hierarchies. See [Local.CgroupLimits].
	CgroupParent string
}

var _ Runner = (*Local)(nil)

// Isolation names how a [Local] made by this process keeps its sessions
// apart and from the grader: "user-per-session" as root (a user, a PID,
// IPC and network namespace of its own), "folder-per-session" otherwise
// (this process's user, the network not denied).
func (h *Local) Isolation() string {
	if os.Geteuid() == 0 {
		return "user-per-session"
	}
	return "folder-per-session"
}

// Version implements Runner: "host (linux/amd64)".
func (h *Local) Version(context.Context) (string, error) {
	return fmt.Sprintf("host (%s/%s)", runtime.GOOS, runtime.GOARCH), nil
}

// Load implements Runner: this machine loads no image.
func (h *Local) Load(context.Context, io.Reader) ([]string, error) {
	return nil, errors.New("host: this machine's backend has no images to load")
}

// Image implements Runner from h.Images: the reference is its own ID.
func (h *Local) Image(_ context.Context, ref string) (*ImageInfo, error) {
	if _, ok := h.Images[ref]; !ok {
		return nil, fmt.Errorf("host image %s: %w", ref, ErrNoImage)
	}
	return &ImageInfo{ID: ref, Tags: []string{ref}, Labels: map[string]string{}}, nil
}

// Run implements Runner: a session for spec, spec.Entrypoint and
// spec.Cmd run in it to completion, the session removed.
func (h *Local) Run(ctx context.Context, spec Spec) (*Result, error) {
	argv := append(slices.Clone(spec.Entrypoint), spec.Cmd...)
	if len(argv) == 0 {
		return nil, fmt.Errorf("host run %s: no command", spec.Image)
	}
	s, err := h.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer s.Close(ctx)
	return s.Exec(ctx, ExecSpec{Argv: argv, WorkDir: spec.WorkDir})
}

// Start implements Runner: the session's root folder and user, the
// image's copies and spec.Copies laid in, spec.ReadOnly made unwritable.
// A command in spec is not started (a session on this machine has no
// first process): Exec runs each command.
func (h *Local) Start(ctx context.Context, spec Spec) (*Session, error) {
	what := "host start " + cmpOr(spec.Image, "(no image)")
	if len(spec.ExtraHosts) > 0 || len(spec.Tmpfs) > 0 || len(spec.CapAdd) > 0 {
		return nil, fmt.Errorf("%s: extra hosts, tmpfs mounts and capabilities have no meaning on this machine", what)
	}
	if isRoot(spec.User) {
		return nil, fmt.Errorf("%s: a session on this machine never runs as root", what)
	}
	var image []Copy
	if spec.Image != "" {
		var ok bool
		if image, ok = h.Images[spec.Image]; !ok {
			return nil, fmt.Errorf("%s: %w", what, ErrNoImage)
		}
	}
	c := &localContainer{h: h, spec: spec, uid: -1}
	if os.Geteuid() == 0 {
		if err := hostuser.LimitProcesses(hostuser.ProcessLimit); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		ids, err := hostuser.Draw(1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		c.uid = ids[0]
	}
	base := h.Base
	if h.Root != "" {
		base = filepath.Dir(h.Root)
	}
	if c.uid >= 0 && !hostuser.Reachable(cmpOr(base, os.TempDir())) {
		if base != "" {
			return nil, fmt.Errorf("%s: %s is closed to other users: the session's user could not reach its root folder", what, base)
		}
		base = "/tmp" // TMPDIR under a closed folder (a test's, say)
	}
	var root string
	var err error
	if h.Root != "" {
		root, err = filepath.Abs(h.Root)
		if err == nil {
			err = os.Mkdir(root, 0o700)
		}
	} else {
		root, err = os.MkdirTemp(base, "srb-host-")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c.root = root
	s := &Session{ID: filepath.Base(root), Image: spec.Image, c: c}
	if plan := h.cgroupPlan(); c.uid >= 0 && plan.Why == "" {
		if c.cg, err = cgroup.New(plan, s.ID, spec.Memory, spec.Pids); err != nil {
			s.Close(ctx)
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	if c.uid >= 0 {
		err = os.Chown(root, 0, c.uid)
		if err == nil {
			err = os.Chmod(root, 0o710)
		}
	}
	if err != nil {
		s.Close(ctx)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i, cp := range append(slices.Clone(image), spec.Copies...) {
		if err := c.CopyIn(ctx, cp); err != nil {
			s.Close(ctx)
			return nil, err
		}
		if i < len(image) {
			if err := hostuser.OpenToAll(c.Path(cp.ContainerPath)); err != nil {
				s.Close(ctx)
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
	}
	for _, p := range spec.ReadOnly {
		if err := c.readOnly(p); err != nil {
			s.Close(ctx)
			return nil, fmt.Errorf("%s: read-only %s: %w", what, p, err)
		}
	}
	if spec.Launcher && c.uid >= 0 {
		vars, err := c.startLauncher(cmpOr(base, os.TempDir()))
		if err != nil {
			s.Close(ctx)
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		c.spec.Env = append(slices.Clone(c.spec.Env), vars...)
	}
	return s, nil
}

// localContainer is one session of a [Local]: its root folder and user (-1:
// this process's own).
type localContainer struct {
	h    *Local
	spec Spec
	root string
	uid  int
	cg   *cgroup.Group // nil: no limit enforced

	// launcher is the session's program launcher (Spec.Launcher as root),
	// nil without one; launcherOnce stops it once.
	launcher     *localLauncher
	launcherOnce sync.Once

	// mu is held shared by each Exec and exclusively by the copies and
	// Remove, so no process of the session runs while a copy walks what
	// its user can change.
	mu sync.RWMutex

	// pmu guards the session's state and the Execs' processes (for
	// Kill).
	pmu     sync.Mutex
	killed  bool
	gone    bool
	running map[*proc.Process]bool
}

// Path implements [Pather]: the root folder joined with containerPath.
func (c *localContainer) Path(containerPath string) string {
	return filepath.Join(c.root, filepath.FromSlash(path.Clean("/"+containerPath)))
}

// containerPath is p as a container path: p itself, or, for a path
// Session.Path gave (under the root folder), the container path it
// stands for.
func (c *localContainer) containerPath(p string) string {
	if rel, ok := strings.CutPrefix(filepath.Clean(p), c.root); ok && (rel == "" || strings.HasPrefix(rel, "/")) {
		return "/" + strings.TrimPrefix(rel, "/")
	}
	return p
}

// isRoot says whether user ("name", "uid" or "uid:gid") is root.
func isRoot(user string) bool {
	u, _, _ := strings.Cut(user, ":")
	return u == "0" || u == "root"
}

// env is a command's environment: the Local's base, the Spec's, es's.
func (c *localContainer) env(es ExecSpec) []string {
	base := c.h.Env
	if base == nil {
		base = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	}
	return append(append(slices.Clone(base), c.spec.Env...), es.Env...)
}

// cloneflags are a command's namespaces as root: IPC, and network unless
// the spec names one (the host's loopback reaches the machine's own
// services).
func (c *localContainer) cloneflags() uintptr {
	if c.uid < 0 {
		return 0
	}
	if c.spec.Network == "" || c.spec.Network == "none" {
		return syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET
	}
	return syscall.CLONE_NEWIPC
}

// Exec implements [Container].
func (c *localContainer) Exec(ctx context.Context, es ExecSpec) (*Result, error) {
	what := fmt.Sprintf("exec %q in %s", es.Argv[0], c.root)
	if isRoot(cmpOr(es.User, c.spec.User)) {
		return nil, fmt.Errorf("%s: a session on this machine never runs a command as root", what)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	c.pmu.Lock()
	stopped := c.killed || c.gone
	c.pmu.Unlock()
	if stopped {
		return nil, fmt.Errorf("%s: the session is not running", what)
	}
	wd := c.containerPath(cmpOr(es.WorkDir, "/"))
	dir := c.Path(wd)
	if err := c.noLinks(wd); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	max := es.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	stdout, stderr := &capped{max: max, tail: es.Tail}, &capped{max: max, tail: es.Tail}
	// The command reaches the session by way of /bin/sh and a variable,
	// not as the init's arguments: the init is PID 1 of the command's
	// namespace, and its argument list (/proc/1/cmdline) is readable by
	// every process there, so a runner that execs its candidate would
	// still show the candidate its last argument (stage 3's role). The
	// shell takes the arguments from the variable, removes it and execs
	// the command, so neither the variable nor the arguments outlive it;
	// the init's own environment is closed (root's, not dumpable).
	env := append(c.env(es), execArgsVar+"="+shellQuote(es.Argv))
	spec := proc.Spec{Path: "/bin/sh", Argv: []string{"sh", "-c", execScript}, Dir: dir, Env: env, Stdin: es.Stdin, Stdout: stdout, Stderr: stderr,
		WaitDelay: 2 * time.Second, Cloneflags: c.cloneflags()}
	if c.uid >= 0 {
		spec.Credential = &syscall.Credential{Uid: uint32(c.uid), Gid: uint32(c.uid), Groups: []uint32{}}
		// As root: a cgroup namespace rooted at the session's cgroups
		// (or, with none, where srb runs), so the command's
		// /proc/self/cgroup names none of srb's cgroups.
		spec.CgroupNS = true
	}
	if c.cg != nil {
		spec.Cgroups = c.cg.Procs()
	}
	start := time.Now()
	var hitsBefore LimitHits
	if c.cg != nil {
		hitsBefore = HitsOf(c.cg.Counts())
	}
	p, err := proc.Start(spec)
	if err != nil {
		// /bin/sh could not be started, or the containment could not be
		// made (no descriptor, no process left): the grader's fault,
		// never a status the stage would grade. A program the command
		// names that is missing or not executable is the shell's exit
		// 127 or 126, as in a container.
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c.pmu.Lock()
	if c.running == nil {
		c.running = map[*proc.Process]bool{}
	}
	c.running[p] = true
	killed := c.killed
	c.pmu.Unlock()
	if killed {
		p.Kill() // Kill came while it started
	}
	defer func() {
		c.pmu.Lock()
		delete(c.running, p)
		last := len(c.running) == 0
		c.pmu.Unlock()
		// Nothing of the session's user outlives its last running Exec
		// (a backstop: proc's PID namespace has ended it already), nor
		// anything it launched (its clients are gone, so the broker is
		// ending their programs).
		if last && c.uid >= 0 {
			hostuser.Sweep(c.uid)
		}
		if last && c.launcher != nil {
			c.launcher.broker.Idle()
		}
	}()
	res := &Result{}
	// awaitExec returns once every process of the exec is gone.
	e, timedOut, ctxErr := awaitExec(ctx, p, es)
	res.TimedOut = timedOut
	if e.Err != nil && errors.Is(e.Err, proc.ErrInitKilled) && e.Signal == syscall.SIGKILL && c.cg != nil && HitsOf(c.cg.Counts()).OOMAtLimit(hitsBefore, c.spec.Memory) {
		// The session's memory limit: the OOM killer chose the init
		// (it cannot always be exempted), which ended every process of
		// the command with it, as a container ends when its first
		// process is killed. The command's doing, not the grader's:
		// killed by SIGKILL, the limit hit recorded. (The machine out
		// of memory kills as well, but leaves the session under its
		// limit: that stays the grader's fault.)
		e.Err, e.Code = nil, -1
	}
	if e.Err != nil {
		// The containment itself failed (a namespace refused, an init
		// killed by its command): a fault of the grader, never a status.
		return nil, fmt.Errorf("%s: %w", what, e.Err)
	}
	res.ExitCode = e.Code
	if e.Signal != 0 {
		res.ExitCode = 128 + int(e.Signal)
	}
	if e.Leftovers > 0 {
		res.Leftovers = e.Leftovers
	}
	res.Stdout, res.StdoutDropped = stdout.kept()
	res.Stderr, res.StderrDropped = stderr.kept()
	res.Stdout, res.Stderr = bytes.Clone(res.Stdout), bytes.Clone(res.Stderr)
	res.Duration = time.Since(start)
	if ctxErr != nil {
		return res, fmt.Errorf("%s: %w", what, ctxErr)
	}
	return res, nil
}

// noLinks refuses a container path one of whose folders, below the root
// folder, is a symbolic link or not a folder: the session's user could
// have planted it to turn a copy made as root towards the grader's files.
// What does not exist yet is fine (a copy makes it as root).
func (c *localContainer) noLinks(containerPath string) error {
	p := c.root
	for _, el := range strings.Split(strings.Trim(path.Clean("/"+containerPath), "/"), "/") {
		if el == "" {
			continue
		}
		p = filepath.Join(p, el)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link in the session", containerPath)
		}
	}
	return nil
}

// removed says whether Remove ran.
func (c *localContainer) removed() bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.gone
}

// exclusive takes the session for a copy: no Exec runs, no process of the
// session's user is left.
func (c *localContainer) exclusive() func() {
	c.mu.Lock()
	if c.uid >= 0 {
		hostuser.Sweep(c.uid)
	}
	return c.mu.Unlock
}

// CopyIn implements [Container]: the tar round trip of a container, so
// modes and links are the same; the session's user's when cp.Owned
// (whatever its UID), else root's.
func (c *localContainer) CopyIn(_ context.Context, cp Copy) error {
	if !strings.HasPrefix(cp.ContainerPath, "/") {
		return fmt.Errorf("copy %s into the session: container path %q is not absolute", cp.HostPath, cp.ContainerPath)
	}
	defer c.exclusive()()
	if c.removed() {
		return fmt.Errorf("copy %s into the session: it was removed", cp.HostPath)
	}
	dst := c.Path(cp.ContainerPath)
	if err := c.noLinks(path.Dir(cp.ContainerPath)); err != nil {
		return fmt.Errorf("copy %s into %s: %w", cp.HostPath, cp.ContainerPath, err)
	}
	if fi, err := os.Lstat(dst); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A link in the copy's place would take a folder's content
		// elsewhere: the copy replaces it, as a container's does.
		if err := os.Remove(dst); err != nil {
			return err
		}
	}
	if err := localCopy(cp.HostPath, dst); err != nil {
		return fmt.Errorf("copy %s into %s: %w", cp.HostPath, cp.ContainerPath, err)
	}
	if cp.Owned && c.uid >= 0 {
		err := filepath.WalkDir(dst, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, c.uid, c.uid)
		})
		if err != nil {
			return fmt.Errorf("copy %s into %s: give it to the session's user: %w", cp.HostPath, cp.ContainerPath, err)
		}
	}
	return nil
}

// Delete implements [Deleter]: as the grader, with no process of the
// session running, a path through a link the session's user planted
// refused.
func (c *localContainer) Delete(_ context.Context, containerPath string) error {
	defer c.exclusive()()
	if c.removed() {
		return fmt.Errorf("delete %s in the session: it was removed", containerPath)
	}
	if err := c.noLinks(path.Dir(containerPath)); err != nil {
		return fmt.Errorf("delete %s: %w", containerPath, err)
	}
	p := c.Path(containerPath)
	if p == c.root {
		return fmt.Errorf("delete %s: it is the session's root", containerPath)
	}
	if err := hostuser.RemoveAll(p); err != nil {
		return fmt.Errorf("delete %s: %w", containerPath, err)
	}
	return nil
}

// Reap implements [Reaper]: every process of the session's user is
// killed (a running Exec's too) and what it owns in this machine's shared
// temporary folders removed ([hostuser.ClearShared]); not root, nothing
// (the session's processes are this process's user's, and proc ended
// them with their Exec).
func (c *localContainer) Reap(context.Context, string) (bool, error) {
	if c.uid < 0 {
		return false, nil
	}
	killed := hostuser.Sweep(c.uid)
	if err := hostuser.ClearShared(c.uid); err != nil {
		return killed, fmt.Errorf("reap in the session: %w", err)
	}
	return killed, nil
}

// readOnly makes containerPath root's and unwritable by group and others.
func (c *localContainer) readOnly(containerPath string) error {
	if err := c.noLinks(containerPath); err != nil {
		return err
	}
	return filepath.WalkDir(c.Path(containerPath), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Lchown(p, os.Geteuid(), os.Getegid()); err != nil {
			return err
		}
		return os.Chmod(p, info.Mode().Perm()&^0o022)
	})
}

// out checks containerPath for a copy out and returns its host path.
func (c *localContainer) out(containerPath string) (string, error) {
	if c.removed() {
		return "", fmt.Errorf("copy %s out: the session was removed", containerPath)
	}
	if err := c.noLinks(path.Dir(containerPath)); err != nil {
		return "", fmt.Errorf("copy %s out: %w", containerPath, err)
	}
	src := c.Path(containerPath)
	if _, err := os.Lstat(src); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = ErrNoPath
		}
		return "", fmt.Errorf("copy %s out: %w", containerPath, err)
	}
	return src, nil
}

// CopyOut implements [Container], with no process of the session running
// while it walks.
func (c *localContainer) CopyOut(_ context.Context, containerPath, hostPath string) error {
	defer c.exclusive()()
	src, err := c.out(containerPath)
	if err != nil {
		return err
	}
	if err := localCopy(src, hostPath); err != nil {
		return fmt.Errorf("copy %s out to %s: %w", containerPath, hostPath, err)
	}
	return nil
}

// CopyOutBounded implements [BoundedCopier].
func (c *localContainer) CopyOutBounded(_ context.Context, containerPath, hostPath string, b CopyBounds) (*CopySummary, error) {
	defer c.exclusive()()
	src, err := c.out(containerPath)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeTar(pw, Copy{HostPath: src, ContainerPath: "/" + filepath.Base(src)}))
	}()
	sum, err := readTarBounded(pr, hostPath, &b)
	pr.CloseWithError(errors.New("copy ended"))
	if err != nil {
		return sum, fmt.Errorf("copy %s out to %s: %w", containerPath, hostPath, err)
	}
	return sum, nil
}

// localCopy copies src to dst through the same tar stream a container's
// copy travels in (writeTar, readTar): modes and links come out the same.
func localCopy(src, dst string) error {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeTar(pw, Copy{HostPath: src, ContainerPath: "/" + filepath.Base(src)}))
	}()
	err := readTar(pr, dst)
	pr.CloseWithError(errors.New("copy ended"))
	return err
}

// Kill implements [Container]: every process of the session's user is
// killed; later Execs fail, copies still work.
func (c *localContainer) Kill(context.Context) error {
	c.pmu.Lock()
	c.killed = true
	running := make([]*proc.Process, 0, len(c.running))
	for p := range c.running {
		running = append(running, p)
	}
	c.pmu.Unlock()
	for _, p := range running {
		p.Kill()
	}
	if c.uid >= 0 {
		hostuser.Sweep(c.uid)
	}
	return nil
}

// Remove implements [Container]: Kill, then what the session's user left
// in the shared temporary folders and the root folder are removed.
func (c *localContainer) Remove(ctx context.Context) error {
	c.Kill(ctx)
	c.launcherOnce.Do(c.stopLauncher)
	defer c.exclusive()()
	c.pmu.Lock()
	c.gone = true
	c.pmu.Unlock()
	var err error
	if c.uid >= 0 {
		err = hostuser.ClearShared(c.uid)
	}
	return errors.Join(err, c.cg.Remove(), hostuser.RemoveAll(c.root))
}

// LimitHits implements [Container]: the OOM kills and refused forks of
// the session's cgroups; -1 for a limit not enforced (see [Local]).
func (c *localContainer) LimitHits(context.Context) (LimitHits, error) {
	return HitsOf(c.cg.Counts()), nil
}

// cmpOr is cmp.Or for strings.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// execArgsVar carries a command's arguments, shell-quoted, to the shell
// that execs it ([localContainer.Exec]); execScript is that shell's
// program: a program it does not find (on PATH, skipping folders the
// session's user cannot read, or at the path given) is exit 127, as a
// container's shell says.
const (
	execArgsVar = "SRB_EXEC_ARGS"
	execScript  = `eval "set -- $SRB_EXEC_ARGS" && unset SRB_EXEC_ARGS && { command -v -- "$1" >/dev/null || { echo "sh: $1: not found" >&2; exit 127; }; } && exec "$@"`
)

// shellQuote is argv as words a POSIX shell's eval reads back as argv:
// each in single quotes, a quote inside written '\”.
func shellQuote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
