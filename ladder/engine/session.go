package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/swe-refactor-bench/srb/ladder/hostuser"
)

// DefaultMaxOutput is how many bytes of each stream an exec keeps when
// ExecSpec.MaxOutput is 0 (16 MiB); the rest is counted, not kept.
const DefaultMaxOutput = 16 << 20

// DefaultGrace is how long a timed-out exec's process group has between
// SIGTERM and SIGKILL when ExecSpec.Grace is 0.
const DefaultGrace = 2 * time.Second

// defaultReadonlyPaths is Docker's own read-only list (moby oci.DefaultSpec);
// setting HostConfig.ReadonlyPaths replaces it, so Spec.ReadOnly extends it.
var defaultReadonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}

// Copy is one host file or folder copied into a container before it starts
// (Spec.Copies): HostPath's content becomes ContainerPath (absolute).
type Copy struct {
	HostPath      string
	ContainerPath string
	// UID and GID own what is copied when Owned is set; otherwise root
	// (0:0) owns it.
	UID, GID int
	Owned    bool
}

// ExecSpec is one command run in a Session's container.
type ExecSpec struct {
	// Argv is the program and its arguments; Argv[0] is looked up on the
	// container's PATH. Required.
	Argv []string
	// Env is added to the container's environment ("NAME=value").
	Env []string
	// WorkDir is the absolute working directory, a container path or
	// what Session.Path gave for one; "" is the container's.
	WorkDir string
	// User is "name", "uid" or "uid:gid"; "" is the container's user.
	User string
	// Stdin, when not nil, is copied to the command's standard input,
	// which is closed at EOF.
	Stdin io.Reader
	// Timeout bounds the command; 0 means only ctx bounds it. At the
	// timeout (or when ctx ends) the command's process group gets SIGTERM,
	// Grace later SIGKILL, and Exec returns with Result.TimedOut set.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; 0 is DefaultGrace.
	Grace time.Duration
	// MaxOutput bounds each of stdout and stderr in bytes; 0 is
	// DefaultMaxOutput.
	MaxOutput int
	// OOMFirst makes the command's processes the OOM killer's first
	// choice in the container (oom_score_adj 1000, which any process may
	// raise its own to; they may lower it back to the container's, never
	// under it): a graded party's command, which must not make the kernel
	// choose the container's own processes or the grader's commands when
	// it reaches the container's memory limit.
	OOMFirst bool
	// Tail keeps the last MaxOutput bytes of each stream instead of the
	// first (a run whose end says how it ended: a test runner's summary
	// after pages of output); the *Dropped counts are then of the bytes
	// before them.
	Tail bool
}

// Session is one long-lived container started by Runner.Start: commands
// run in it with Exec, files move with CopyIn and CopyOut, and Close
// removes it. A Session is safe for concurrent use. Always Close it
// (defer s.Close(ctx)): the container is removed even when ctx has ended.
type Session struct {
	// ID is the engine's container id.
	ID string
	// Image is the image the container runs.
	Image string

	c       Container
	onClose func()
	once    sync.Once
	err     error
}

// Container is what a Session drives: one running sandbox on one backend
// (a Docker container here; a Kubernetes pod, or any backend that can
// exec, write files and read files, implements it the same way, in this
// package or outside it, and hands it to [NewSession]). The stages see
// only the Session, so a new backend changes no stage.
type Container interface {
	// Exec runs es and waits for it, as [Session.Exec] documents: a
	// command that ran and failed is a Result with its exit code and a
	// nil error; es.Timeout signals the command's whole process group.
	Exec(ctx context.Context, es ExecSpec) (*Result, error)
	// CopyIn copies c.HostPath (a file or a folder, links kept as links)
	// to c.ContainerPath, owned by c.UID:c.GID when c.Owned.
	CopyIn(ctx context.Context, c Copy) error
	// CopyOut copies containerPath out to hostPath.
	CopyOut(ctx context.Context, containerPath, hostPath string) error
	// Kill stops every process of the sandbox at once.
	Kill(ctx context.Context) error
	// Remove deletes the sandbox and what it holds; it is called once.
	Remove(ctx context.Context) error
	// LimitHits reports which of its limits the sandbox reached.
	LimitHits(ctx context.Context) (LimitHits, error)
}

// NewSession returns the Session that drives c, the sandbox whose id is
// id and that runs image; Close removes c.
func NewSession(id, image string, c Container) *Session {
	return &Session{ID: id, Image: image, c: c}
}

// Exec runs es in the container and waits for it: the result holds its
// exit code and (bounded) output. A command that ran and failed is a
// Result with a non-zero ExitCode and a nil error; the error is for a
// command that could not be run, or for ctx ending (then the partial
// Result comes with it). Timeouts need /bin/sh and kill in the image
// (every srb stage image has them): the command is started through a
// one-line sh that reports its process id, so its group can be signalled.
func (s *Session) Exec(ctx context.Context, es ExecSpec) (*Result, error) {
	if len(es.Argv) == 0 {
		return nil, fmt.Errorf("exec in %s: empty argv", s.Image)
	}
	return s.c.Exec(ctx, es)
}

// CopyIn copies the host file or folder hostPath to containerPath
// (absolute; missing parents are created 0755), keeping modes and symbolic
// links; root owns the copy. Sockets, devices and FIFOs are left out. The
// copy travels as a tar stream through the engine's API, so a remote
// DOCKER_HOST works.
func (s *Session) CopyIn(ctx context.Context, hostPath, containerPath string) error {
	return s.c.CopyIn(ctx, Copy{HostPath: hostPath, ContainerPath: containerPath})
}

// CopyInOwned is CopyIn with uid:gid owning the copy.
func (s *Session) CopyInOwned(ctx context.Context, hostPath, containerPath string, uid, gid int) error {
	return s.c.CopyIn(ctx, Copy{HostPath: hostPath, ContainerPath: containerPath, UID: uid, GID: gid, Owned: true})
}

// ErrNoPath is wrapped by CopyOut when containerPath does not exist.
var ErrNoPath = errors.New("no such file or folder in the container")

// CopyOut copies the container file or folder containerPath to hostPath:
// a folder's content lands in hostPath (created if missing), a file
// becomes hostPath. Modes (permission bits) and symbolic links are kept;
// nothing is written outside hostPath, whatever the links say. It works on
// a stopped or killed container too, until Close. A containerPath that
// does not exist is an error wrapping ErrNoPath.
func (s *Session) CopyOut(ctx context.Context, containerPath, hostPath string) error {
	return s.c.CopyOut(ctx, containerPath, hostPath)
}

// BoundedCopier is a [Container] that can copy out under [CopyBounds]
// (the Docker backend and the fake can).
type BoundedCopier interface {
	CopyOutBounded(ctx context.Context, containerPath, hostPath string, b CopyBounds) (*CopySummary, error)
}

// CopyOutBounded is CopyOut under b: for a tree an adversary wrote (an
// agent's workspace). FIFOs, devices and sockets are counted, never
// opened; b.Skip leaves entries out as the copy streams; a tree past a
// bound stops the copy with a *BoundError (what was written so far stays
// in hostPath, and the summary says how far it got). A backend that cannot
// bound its copies is an error.
func (s *Session) CopyOutBounded(ctx context.Context, containerPath, hostPath string, b CopyBounds) (*CopySummary, error) {
	bc, ok := s.c.(BoundedCopier)
	if !ok {
		return nil, fmt.Errorf("copy %s out of %s: this engine cannot bound a copy", containerPath, s.Image)
	}
	return bc.CopyOutBounded(ctx, containerPath, hostPath, b)
}

// Pather is a [Container] whose processes find a container path
// somewhere else: a sandbox on this machine ([Local], a [Fake] that runs
// commands on the host) under its root folder.
type Pather interface {
	Path(containerPath string) string
}

// Path returns where the session's processes find the absolute container
// path containerPath: containerPath itself in a container (Docker, a
// cluster's pod), the same path under the session's root folder on this
// machine. The session's own verbs (CopyIn, CopyOut, ExecSpec.WorkDir,
// Spec.ReadOnly) take container paths and map them themselves; what a
// stage writes into a command's arguments or environment (HOME=…, a
// script's path) it maps with Path, so it is written once for every
// backend.
func (s *Session) Path(containerPath string) string {
	if p, ok := s.c.(Pather); ok {
		return p.Path(containerPath)
	}
	return containerPath
}

// Deleter is a [Container] that can remove a path of its sandbox as the
// sandbox's root would (every backend here can).
type Deleter interface {
	Delete(ctx context.Context, containerPath string) error
}

// Delete removes the container file or folder containerPath, whoever
// owns what is in it and whatever its modes say (a folder a command made
// unwritable included); a symbolic link is removed, never followed. A
// path that does not exist is no error; "/" is refused. It is the root
// step a stage needs to give a command's folder a fresh start on every
// backend: a container's root removes it; on this machine ([Local]) the
// grader removes it, with no process of the session running and a path
// through a link the session's user planted refused.
func (s *Session) Delete(ctx context.Context, containerPath string) error {
	if !strings.HasPrefix(containerPath, "/") || path.Clean(containerPath) == "/" {
		return fmt.Errorf("delete %q in %s: not an absolute path below /", containerPath, s.Image)
	}
	d, ok := s.c.(Deleter)
	if !ok {
		return fmt.Errorf("delete %s in %s: this engine cannot delete", containerPath, s.Image)
	}
	return d.Delete(ctx, path.Clean(containerPath))
}

// Reaper is a [Container] that can end what its commands left running
// and clear what a user left in its shared folders.
type Reaper interface {
	Reap(ctx context.Context, user string) (bool, error)
}

// Reap ends every process of the sandbox but its own (the container's
// init and keep-alive command), a command still running included, and
// removes everything user ("uid" or "uid:gid"; "" none) owns in
// [hostuser.SharedTmp] (at any depth, never following a link). It reports
// whether it ended any process. In a container that is everything the
// image's users started; on this machine ([Local]) it is every process of
// the session's user, and what that user owns in this machine's shared
// temporary folders, whatever user says (the one user a session has plays
// every user of a container; nothing of a session outlives its Exec
// there, so Reap finds a process only while one runs). Reap between two
// commands is what makes the second start where the first one's leftovers
// cannot watch or change it.
func (s *Session) Reap(ctx context.Context, user string) (bool, error) {
	r, ok := s.c.(Reaper)
	if !ok {
		return false, fmt.Errorf("reap in %s: this engine cannot reap", s.Image)
	}
	return r.Reap(ctx, user)
}

// HostPIDer is a [Container] whose first process has a process id on the
// machine srb runs on (a Docker engine on this machine).
type HostPIDer interface {
	HostPID(ctx context.Context) (int, error)
}

// HostPID is the process id, in this machine's process namespace, of the
// container's first process: /proc/<pid>/ns/net is the container's
// network namespace. It is an error for a backend that has none (a remote
// engine cannot give one that means anything here) and for a container
// that is not running.
func (s *Session) HostPID(ctx context.Context) (int, error) {
	hp, ok := s.c.(HostPIDer)
	if !ok {
		return 0, fmt.Errorf("the container of %s has no process on this machine", s.Image)
	}
	return hp.HostPID(ctx)
}

// Kill stops every process in the container at once (SIGKILL); files stay
// readable with CopyOut until Close. Killing a stopped container is not an
// error.
func (s *Session) Kill(ctx context.Context) error {
	return s.c.Kill(ctx)
}

// Close removes the container and its anonymous volumes, whatever state it
// is in, even if ctx has ended (it gets 30 s of its own). Later calls
// return the first call's error.
func (s *Session) Close(ctx context.Context) error {
	s.once.Do(func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		s.err = s.c.Remove(cctx)
		if s.onClose != nil {
			s.onClose()
		}
	})
	return s.err
}

// Start implements Runner: it creates the container (network "none" unless
// spec.Network says otherwise, docker-init as PID 1 to reap orphans, the
// limits and labels of spec), copies spec.Copies in, then starts it with
// spec.Entrypoint/spec.Cmd, or "sleep infinity" when both are empty.
func (d *Docker) Start(ctx context.Context, spec Spec) (*Session, error) {
	entry, cmd := spec.Entrypoint, spec.Cmd
	if len(entry) == 0 && len(cmd) == 0 {
		entry = []string{"sleep", "infinity"}
	}
	id, err := d.create(ctx, spec, entry, cmd, true)
	if err != nil {
		return nil, err
	}
	c := &dockerContainer{d: d, id: id, image: spec.Image}
	s := &Session{ID: id, Image: spec.Image, c: c}
	for _, cp := range spec.Copies {
		if err := c.CopyIn(ctx, cp); err != nil {
			s.Close(ctx)
			return nil, err
		}
	}
	if err := d.Client.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		s.Close(ctx)
		return nil, fmt.Errorf("docker start %s: %w", spec.Image, err)
	}
	if spec.Launcher {
		// Before the list of the container's own processes: the broker
		// is one of them, which Reap spares.
		c.startLauncher(ctx)
	}
	// What runs before any command is the container's own: Reap spares it
	// (killing the keep-alive command would stop the container).
	c.own, c.ownErr = c.listOwn(ctx)
	c.harden(ctx, spec.Memory, len(spec.Entrypoint) == 0 && len(spec.Cmd) == 0)
	return s, nil
}

// create creates (does not start) a container for spec.
func (d *Docker) create(ctx context.Context, spec Spec, entry, cmd []string, init bool) (string, error) {
	network := spec.Network
	if network == "" {
		network = "none"
	}
	hc := &container.HostConfig{NetworkMode: container.NetworkMode(network)}
	if init {
		t := true
		hc.Init = &t
	}
	if len(spec.ReadOnly) > 0 {
		hc.ReadonlyPaths = append(append([]string(nil), defaultReadonlyPaths...), spec.ReadOnly...)
	}
	hc.Memory = spec.Memory
	if spec.Memory > 0 {
		hc.MemorySwap = spec.Memory // no swap beyond the limit
	}
	if spec.Pids > 0 {
		p := spec.Pids
		hc.PidsLimit = &p
	}
	if spec.Disk > 0 {
		hc.StorageOpt = map[string]string{"size": strconv.FormatInt(spec.Disk, 10)}
	}
	hc.NanoCPUs = spec.NanoCPUs
	if spec.NoNewPrivileges {
		hc.SecurityOpt = append(hc.SecurityOpt, "no-new-privileges")
	}
	hc.CapAdd = append(hc.CapAdd, spec.CapAdd...)
	if len(spec.Tmpfs) > 0 {
		hc.Tmpfs = spec.Tmpfs
	}
	hc.ExtraHosts = spec.ExtraHosts
	cfg := &container.Config{
		Image: spec.Image, Cmd: cmd, Env: spec.Env, User: spec.User, WorkingDir: spec.WorkDir,
		Labels: spec.Labels,
	}
	if len(entry) > 0 {
		cfg.Entrypoint = entry
	}
	created, err := d.Client.ContainerCreate(ctx, cfg, hc, nil, nil, spec.Name)
	if err != nil {
		return "", fmt.Errorf("docker create %s: %w", spec.Image, err)
	}
	return created.ID, nil
}

// dockerContainer is a Session's container on a Docker engine.
type dockerContainer struct {
	d     *Docker
	id    string
	image string
	// own are the pids of the container's own processes (its init and
	// keep-alive command), listed when it started; ownErr says why they
	// could not be.
	own    []string
	ownErr error
	// hard is what Start added to the container's limits.
	hard Hardening
	// launchEnv is what every command finds the launcher by (nil: the
	// container serves none).
	launchEnv []string
	// cgroups are the container's cgroup paths (controller, "" for v2
	// → path under cgroup.Root), read from its first process when it
	// started; nil when the engine's processes are not on this machine.
	cgroups map[string]string
}

// The in-container launcher (Spec.Launcher, docs/PROGSEP.md): the image's
// helper, linked under the client's and the broker's names, the broker
// started as root by a detached exec before the container's own processes
// are listed (so Reap spares it), on a socket under /srb/launch. An image
// whose helper has no broker (one built before it) serves none.
const (
	launchHelper       = "/opt/srb/bin/srb-helper"
	launchSocket       = "/srb/launch/sock"
	dockerLaunchClient = "/srb/bin/srb-launch"
	// launchUIDs is the first uid launched programs run as: none of an
	// image's users, nor the candidate user's 65532.
	launchUIDs = "70000"
)

// Launches implements [launches].
func (c *dockerContainer) Launches() bool { return c.launchEnv != nil }

func (c *dockerContainer) startLauncher(ctx context.Context) {
	if _, err := c.rootExec(ctx, "/bin/sh", "-c", `mkdir -p /srb/bin /srb/launch && chmod 755 /srb /srb/bin /srb/launch &&
ln -sf "$1" /srb/bin/srb-launch && ln -sf "$1" /srb/bin/srb-launch-broker`, "sh", launchHelper); err != nil {
		return
	}
	created, err := c.d.Client.ContainerExecCreate(ctx, c.id, container.ExecOptions{
		User: "0", Cmd: []string{"/srb/bin/srb-launch-broker", "--socket", launchSocket, "--uids", launchUIDs}})
	if err != nil {
		return
	}
	if err := c.d.Client.ContainerExecStart(ctx, created.ID, container.ExecStartOptions{Detach: true}); err != nil {
		return
	}
	for i := 0; i < 50; i++ {
		if _, err := c.rootExec(ctx, "test", "-S", launchSocket); err == nil {
			c.launchEnv = []string{"SRB_LAUNCH=" + dockerLaunchClient, "SRB_LAUNCH_SOCKET=" + launchSocket}
			return
		}
		// A helper without the broker exits at once (its usage).
		if in, err := c.d.Client.ContainerExecInspect(ctx, created.ID); err != nil || !in.Running {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// listScript prints the pids of the container's processes but its own.
const listScript = `for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] || echo "$p"; done`

// reapScript kills every process in the container except those its
// arguments after the first name (the container's own) and the shell
// itself, removes what the user its first argument names ("" none) owns
// in the shared folders (never following a link or leaving the folder's
// file system), and prints how many processes it killed and how many
// System V IPC objects there are ([ipcScript] removes them).
var reapScript = `user=$1; shift; keep=" $* "; n=0
for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] && continue; case "$keep" in *" $p "*) continue;; esac; kill -9 "$p" 2>/dev/null && n=$((n+1)); done
if [ -n "$user" ]; then for d in ` + strings.Join(hostuser.SharedTmp, " ") + `; do [ -d "$d" ] && [ ! -L "$d" ] && find "$d" -xdev -mindepth 1 -user "$user" -prune -exec rm -rf {} + || :; done; fi
ipc=0; for f in /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg; do [ -r "$f" ] || continue; while read -r key rest; do [ "$key" = key ] || ipc=$((ipc+1)); done < "$f"; done
echo $n $ipc`

// ipcScript, run as the user Reap names, removes every System V IPC
// object of the container's IPC namespace (shared memory, semaphore sets,
// message queues), which outlive the processes that made them; only that
// user's commands make them in a container Reap clears for a user, and
// only their creator (or CAP_SYS_ADMIN, which a container's root lacks)
// may remove them. It prints how many are left.
const ipcScript = `left=0
for k in shm:m sem:s msg:q; do f=/proc/sysvipc/${k%%:*}; [ -r "$f" ] || continue
while read -r key id rest; do [ "$key" = key ] && continue; ipcrm "-${k#*:}" "$id" 2>/dev/null || :; done < "$f"
while read -r key id rest; do [ "$key" = key ] || left=$((left+1)); done < "$f"; done
echo $left`

// rootExec runs argv in the container as root and returns its stdout; a
// non-zero exit is an error with its stderr.
func (c *dockerContainer) rootExec(ctx context.Context, argv ...string) (string, error) {
	r, err := c.Exec(ctx, ExecSpec{Argv: argv, User: "0", Timeout: 10 * time.Minute})
	if err != nil {
		return "", err
	}
	if r.ExitCode != 0 {
		return "", fmt.Errorf("exit %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	return string(r.Stdout), nil
}

// listOwn lists the pids of the container's processes (right after it
// started: its own).
func (c *dockerContainer) listOwn(ctx context.Context) ([]string, error) {
	out, err := c.rootExec(ctx, "/bin/sh", "-c", listScript)
	if err != nil {
		return nil, fmt.Errorf("list the processes of %s: %w", c.image, err)
	}
	return strings.Fields(out), nil
}

// Reap implements [Reaper], as root in the container.
func (c *dockerContainer) Reap(ctx context.Context, user string) (bool, error) {
	if c.ownErr != nil {
		return false, fmt.Errorf("reap in %s: %w", c.image, c.ownErr)
	}
	u, _, _ := strings.Cut(user, ":")
	out, err := c.rootExec(ctx, append([]string{"/bin/sh", "-c", reapScript, "sh", u}, c.own...)...)
	if err != nil {
		return false, fmt.Errorf("reap in %s: %w", c.image, err)
	}
	var n, ipc int
	if f := strings.Fields(out); len(f) == 2 {
		if n, err = strconv.Atoi(f[0]); err == nil {
			ipc, err = strconv.Atoi(f[1])
		}
	} else {
		err = errors.New("not two counts")
	}
	if err != nil {
		// The script did not run to its end (a command run as root
		// replaced the image's /bin/sh): nothing says what it killed.
		return false, fmt.Errorf("reap in %s: the reap printed no count (%q)", c.image, strings.TrimSpace(out))
	}
	if u == "" || ipc == 0 {
		return n > 0, nil
	}
	r, err := c.Exec(ctx, ExecSpec{Argv: []string{"/bin/sh", "-c", ipcScript}, User: user, Timeout: 10 * time.Minute})
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("exit %d: %s", r.ExitCode, strings.TrimSpace(string(r.Stderr)))
	}
	if err != nil {
		return n > 0, fmt.Errorf("reap in %s: System V IPC: %w", c.image, err)
	}
	left, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	switch {
	case err != nil:
		return n > 0, fmt.Errorf("reap in %s: System V IPC: printed no count (%q)", c.image, strings.TrimSpace(string(r.Stdout)))
	case left > 0:
		// What the next command would find (a run counter): the image
		// needs ipcrm (util-linux, busybox) to remove it.
		return n > 0, fmt.Errorf("reap in %s: %d System V IPC object(s) left that could not be removed (is ipcrm in the image?)", c.image, left)
	}
	return n > 0, nil
}

// Delete implements [Deleter], as root in the container.
func (c *dockerContainer) Delete(ctx context.Context, containerPath string) error {
	if _, err := c.rootExec(ctx, "rm", "-rf", "--", containerPath); err != nil {
		return fmt.Errorf("delete %s in %s: %w", containerPath, c.image, err)
	}
	return nil
}

// pidPrefix starts the line the exec wrapper writes to stderr before it
// execs the command.
const pidPrefix = "srb-exec-pid "

// Exec implements [Container].
func (c *dockerContainer) Exec(ctx context.Context, es ExecSpec) (*Result, error) {
	start := time.Now()
	wrapper := `echo "` + pidPrefix + `$$" >&2; exec "$@"`
	if es.OOMFirst {
		wrapper = `{ echo 1000 > /proc/self/oom_score_adj; } 2>/dev/null; ` + wrapper
	}
	argv := append([]string{"/bin/sh", "-c", wrapper, "srb-exec"}, es.Argv...)
	what := fmt.Sprintf("exec %q in %s", es.Argv[0], c.image)
	created, err := c.d.Client.ContainerExecCreate(ctx, c.id, container.ExecOptions{
		User: es.User, WorkingDir: es.WorkDir, Env: append(slices.Clone(c.launchEnv), es.Env...), Cmd: argv,
		AttachStdin: es.Stdin != nil, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	att, err := c.d.Client.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer att.Close()
	max := es.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	stdout := &capped{max: max, tail: es.Tail}
	stderr := &pidWriter{w: &capped{max: max, tail: es.Tail}, pid: make(chan int, 1)}
	if es.Stdin != nil {
		go func() {
			io.Copy(att.Conn, es.Stdin)
			att.CloseWrite()
		}()
	}
	done := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(stdout, stderr, att.Reader)
		done <- err
	}()
	var timeout <-chan time.Time
	if es.Timeout > 0 {
		t := time.NewTimer(es.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := &Result{ExitCode: -1}
	var ctxErr error
	finished := false
	select {
	case err := <-done:
		finished = true
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%s: reading output: %w", what, err)
		}
	case <-timeout:
		res.TimedOut = true
		finished = c.stopGroup(ctx, stderr.pid, es.Grace, done)
	case <-ctx.Done():
		ctxErr = ctx.Err()
		finished = c.stopGroup(ctx, stderr.pid, es.Grace, done)
	}
	if !finished {
		// A process outside the group still holds the output open.
		att.Close()
		<-done
	}
	stderr.flush()
	res.Unstarted = !stderr.started
	res.Stdout, res.StdoutDropped = stdout.kept()
	res.Stderr, res.StderrDropped = stderr.w.(*capped).kept()
	// The exit code settles a moment after the stream closes.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for ictx.Err() == nil {
		in, err := c.d.Client.ContainerExecInspect(ictx, created.ID)
		if err != nil {
			break
		}
		if !in.Running {
			res.ExitCode = in.ExitCode
			break
		}
		if !finished {
			break // still running outside its group: the exit code is unknown
		}
		time.Sleep(10 * time.Millisecond)
	}
	res.Duration = time.Since(start)
	if ctxErr != nil {
		return res, fmt.Errorf("%s: %w", what, ctxErr)
	}
	return res, nil
}

// pidWait bounds the wait for the exec wrapper's pid line when a timeout
// comes first (a loaded engine can take seconds to start an exec).
const pidWait = 30 * time.Second

// stopGroup sends SIGTERM to the exec's process group, and SIGKILL grace
// later if its output has not closed, then waits up to grace once more.
// It reports whether the output closed (done was received).
func (c *dockerContainer) stopGroup(ctx context.Context, pidc <-chan int, grace time.Duration, done <-chan error) bool {
	if grace <= 0 {
		grace = DefaultGrace
	}
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pidWait+grace*3+10*time.Second)
	defer cancel()
	var pid int
	select {
	case pid = <-pidc:
	case <-done:
		return true
	case <-time.After(pidWait):
		// The wrapper never reported its pid: there is no group to signal.
		return false
	}
	for _, sig := range []string{"TERM", "KILL"} {
		c.signal(kctx, pid, sig)
		select {
		case <-done:
			return true
		case <-time.After(grace):
		}
	}
	return false
}

// signal sends sig to process group pid in the container, as root.
func (c *dockerContainer) signal(ctx context.Context, pid int, sig string) {
	created, err := c.d.Client.ContainerExecCreate(ctx, c.id, container.ExecOptions{
		User: "0", Cmd: []string{"/bin/sh", "-c", "kill -s " + sig + " -- -" + strconv.Itoa(pid) + " 2>/dev/null"},
	})
	if err != nil {
		return
	}
	att, err := c.d.Client.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return
	}
	io.Copy(io.Discard, att.Reader)
	att.Close()
}

// Kill implements [Container].
func (c *dockerContainer) Kill(ctx context.Context) error {
	err := c.d.Client.ContainerKill(ctx, c.id, "KILL")
	if err != nil && strings.Contains(err.Error(), "is not running") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("docker kill %s: %w", c.image, err)
	}
	return nil
}

// Remove implements [Container].
func (c *dockerContainer) Remove(ctx context.Context) error {
	err := c.d.Client.ContainerRemove(ctx, c.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !strings.Contains(strings.ToLower(err.Error()), "no such container") {
		return fmt.Errorf("docker rm %s: %w", c.image, err)
	}
	return nil
}

// CopyIn implements [Container].
func (c *dockerContainer) CopyIn(ctx context.Context, cp Copy) error {
	if !strings.HasPrefix(cp.ContainerPath, "/") {
		return fmt.Errorf("copy %s into %s: container path %q is not absolute", cp.HostPath, c.image, cp.ContainerPath)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTar(pw, cp)) }()
	// CopyUIDGID makes Docker chown every file to the container's user (the
	// image's USER, root when it has none), which is what a plain copy
	// wants; an owned copy keeps the owners its tar names (cp.UID:cp.GID),
	// so it must not ask for it: with it, a warm command's HOME copied in
	// as uid 65532 arrived root's, mode 0700, and the command could not
	// write in it.
	err := c.d.Client.CopyToContainer(ctx, c.id, "/", pr, container.CopyToContainerOptions{CopyUIDGID: !cp.Owned})
	pr.CloseWithError(errors.New("copy ended"))
	if err != nil {
		return fmt.Errorf("copy %s into %s:%s: %w", cp.HostPath, c.image, cp.ContainerPath, err)
	}
	return nil
}

// CopyOut implements [Container].
func (c *dockerContainer) CopyOut(ctx context.Context, containerPath, hostPath string) error {
	rc, _, err := c.d.Client.CopyFromContainer(ctx, c.id, containerPath)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Errorf("copy %s:%s out: %w", c.image, containerPath, ErrNoPath)
		}
		return fmt.Errorf("copy %s:%s out: %w", c.image, containerPath, err)
	}
	defer rc.Close()
	if err := readTar(rc, hostPath); err != nil {
		return fmt.Errorf("copy %s:%s out to %s: %w", c.image, containerPath, hostPath, err)
	}
	return nil
}

// CopyOutBounded implements [BoundedCopier]. Closing the stream at a
// bound ends the engine's side of the copy too.
func (c *dockerContainer) CopyOutBounded(ctx context.Context, containerPath, hostPath string, b CopyBounds) (*CopySummary, error) {
	rc, _, err := c.d.Client.CopyFromContainer(ctx, c.id, containerPath)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, fmt.Errorf("copy %s:%s out: %w", c.image, containerPath, ErrNoPath)
		}
		return nil, fmt.Errorf("copy %s:%s out: %w", c.image, containerPath, err)
	}
	defer rc.Close()
	sum, err := readTarBounded(rc, hostPath, &b)
	if err != nil {
		return sum, fmt.Errorf("copy %s:%s out to %s: %w", c.image, containerPath, hostPath, err)
	}
	return sum, nil
}

// HostPID implements [HostPIDer]: the engine's record of the container's
// first process. It means something here only when the engine runs on
// this machine, in this process namespace; the caller checks
// /proc/<pid>.
func (c *dockerContainer) HostPID(ctx context.Context) (int, error) {
	info, err := c.d.Client.ContainerInspect(ctx, c.id)
	if err != nil {
		return 0, fmt.Errorf("docker inspect %s: %w", c.image, err)
	}
	if info.State == nil || !info.State.Running || info.State.Pid <= 0 {
		return 0, fmt.Errorf("the container of %s is not running", c.image)
	}
	return info.State.Pid, nil
}

// capped keeps the first max bytes written and counts the rest, or with
// tail the last max bytes, counting those before them.
type capped struct {
	buf     bytes.Buffer
	max     int
	tail    bool
	dropped int64
}

// Write implements io.Writer; it never fails.
func (c *capped) Write(p []byte) (int, error) {
	if c.tail {
		if len(p) >= c.max {
			c.dropped += int64(c.buf.Len() + len(p) - c.max)
			c.buf.Reset()
			c.buf.Write(p[len(p)-c.max:])
			return len(p), nil
		}
		c.buf.Write(p)
		if over := c.buf.Len() - c.max; over > c.max {
			// Trimmed now and then, not on every write: the buffer stays
			// under twice the bound.
			b := bytes.Clone(c.buf.Bytes()[over:])
			c.buf.Reset()
			c.buf.Write(b)
			c.dropped += int64(over)
		}
		return len(p), nil
	}
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// kept returns what c keeps (the last max bytes with tail) and how many
// it dropped.
func (c *capped) kept() ([]byte, int64) {
	b := c.buf.Bytes()
	if over := len(b) - c.max; c.tail && over > 0 {
		return b[over:], c.dropped + int64(over)
	}
	return b, c.dropped
}

// pidWriter takes the wrapper's first stderr line (pidPrefix and a pid)
// off the stream, sends the pid, and passes the rest through.
type pidWriter struct {
	w    io.Writer
	pid  chan int
	head []byte
	seen bool
	// started says the pid line came: the wrapper ran.
	started bool
}

// Write implements io.Writer.
func (p *pidWriter) Write(b []byte) (int, error) {
	if p.seen {
		return p.w.Write(b)
	}
	p.head = append(p.head, b...)
	i := bytes.IndexByte(p.head, '\n')
	if i < 0 {
		if len(p.head) > 64 {
			p.flush()
		}
		return len(b), nil
	}
	p.seen = true
	line, rest := p.head[:i], p.head[i+1:]
	if n, ok := bytes.CutPrefix(line, []byte(pidPrefix)); ok {
		if pid, err := strconv.Atoi(string(n)); err == nil {
			p.started = true
			p.pid <- pid
		}
	} else {
		rest = p.head
	}
	p.head = nil
	p.w.Write(rest)
	return len(b), nil
}

// flush passes on whatever is held when no pid line came.
func (p *pidWriter) flush() {
	if !p.seen {
		p.seen = true
		p.w.Write(p.head)
		p.head = nil
	}
}

// launches is a [Container] that may serve srb's program launcher.
type launches interface{ Launches() bool }

// Launches reports whether the session serves srb's program launcher
// ([Spec.Launcher]: SRB_LAUNCH is set in its commands' environment).
func (s *Session) Launches() bool {
	l, ok := s.c.(launches)
	return ok && l.Launches()
}
