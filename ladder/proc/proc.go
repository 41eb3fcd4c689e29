// Package proc runs a command contained, so that every process it starts,
// double-forked and setsid ones included, is gone when srb is done with it.
// It is srb's one process reaper: every stage, driver and backend that
// runs a process on this machine starts it here.
//
// The rules, written once:
//
//   - A command never runs directly under srb. srb starts a small init
//     (this same binary, re-executed through /proc/self/exe) and the init
//     starts the command. The init is the command's containment:
//   - As root the init is PID 1 of a new PID namespace and a new mount
//     namespace with a private /proc ([PIDNamespace]): the command sees
//     only its own processes, and when the init exits the kernel kills
//     everything left in the namespace, whatever it did to its session or
//     group. Not root, srb tries a user namespace holding a PID namespace
//     (no private /proc: the host's is still visible).
//   - Where no namespace can be made (a container without CAP_SYS_ADMIN, a
//     kernel that forbids it) the init marks itself a child subreaper
//     (PR_SET_CHILD_SUBREAPER) and ends its descendants by walking /proc
//     ([Subreaper]). This is weaker: a process whose parent chain the init
//     no longer leads (one that outlives a SIGKILL of the init itself)
//     escapes, so srb sends the init SIGKILL only as a last resort; every
//     [Exit] records which containment held.
//   - When the command's main process ends, the init counts what is still
//     running in its containment ([Exit.Leftovers]), SIGKILLs all of it,
//     reaps it and only then exits; [Process.Wait] returns after that.
//   - The init reports on a socket (fd 3 of the init only, never the
//     command's): a socket cannot be reopened through /proc/<init>/fd,
//     and the init is not dumpable, so a process of the command cannot
//     write a report of its own; a channel holding anything but one
//     report is an error, as is an init killed by anyone but srb.
//   - SIGTERM sent through [Process.Terminate] goes to every process of
//     the containment, not to the main process alone; [Process.Kill]
//     SIGKILLs every process of it.
//   - If srb dies, even by SIGKILL, the kernel SIGKILLs the init (its
//     parent-death signal), and in a PID namespace everything in it dies
//     with it; a subreaper's descendants outlive it (see above).
//   - The command runs under a fresh anonymous session keyring, joined
//     by the init before it starts the command, never under srb's: it
//     can neither read nor add to the keys of srb's session, nor share
//     keys with another command through it. A kernel without keyrings,
//     or keyctl refused to the init (and so to the command), is recorded
//     in [Exit.NoKeyring]; any other failure to join one is an error, and
//     the command does not run. The user keyrings of the command's uid
//     (@u, @us) are that uid's as everywhere: a command running as srb's
//     own user can reach srb's.
//   - A command that joins cgroups ([Spec.Cgroups]), or asks for it
//     ([Spec.CgroupNS]), runs in a cgroup namespace of its own, made by
//     the init once it joined them: its /proc/self/cgroup shows them as
//     "/" and names no cgroup above them (the caller's own); as root,
//     /sys/fs/cgroup is an empty folder in its mount namespace.
//
// A binary that imports this package runs the init from this package's
// init function when started with the init's marker; nothing else is
// needed in main.
package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Containment names how a command's processes were held together.
type Containment string

const (
	// PIDNamespace: the command ran in its own PID namespace, whose init
	// ended everything in it. Leak-proof.
	PIDNamespace Containment = "pid-namespace"
	// Subreaper: no namespace could be made; the init was a child
	// subreaper that ended its descendants by walking /proc. Weaker: see
	// the package documentation.
	Subreaper Containment = "subreaper"
)

// Spec is a command to run contained. Its fields mean what os/exec.Cmd's
// do.
type Spec struct {
	// Argv is the command line; Argv[0] is looked up like exec.Command
	// does (the PATH of this process) unless Path is set.
	Argv []string
	// Path, when set, is the executable to run; a relative Path is
	// relative to Dir, as with exec.Cmd.
	Path string
	// Dir is the working folder; "" is this process's.
	Dir string
	// Env is the environment; nil is this process's, as with exec.Cmd.
	Env []string
	// Stdin, Stdout and Stderr are the standard streams; nil is the null
	// device.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Credential, when set, is the user and groups the command runs as;
	// the init stays root (it must be to make the namespace's /proc and
	// to end the command's processes), so only the command and what it
	// starts run as Credential. Every command, with a Credential or not,
	// runs with no_new_privs: no setuid, setgid or file-capability
	// program it executes gains a privilege.
	Credential *syscall.Credential
	// Cloneflags and Unshareflags are namespaces (syscall.CLONE_NEW*) the
	// init makes for the command as it starts it, as in
	// syscall.SysProcAttr (e.g. CLONE_NEWIPC; Unshareflags CLONE_NEWNS
	// also makes the command's mounts private). When the kernel refuses
	// them the command does not run and [Exit.Err] says why.
	Cloneflags, Unshareflags uintptr
	// WaitDelay bounds how long Wait waits for the output to drain after
	// the containment ended (exec.Cmd.WaitDelay); 0 waits until it does.
	WaitDelay time.Duration
	// TraceExecs makes the init trace the command (ptrace: every process
	// and thread it starts, followed at fork, vfork and clone) and record
	// every program it executes ([Exit.Execs]) from what the kernel says,
	// not from anything the command can write. The record lives in the
	// init's memory (root, not dumpable) and reaches srb on the init's
	// status channel. The init needs CAP_SYS_PTRACE to read a process of
	// another user (Credential); without it the first exec is a tracer
	// fault ([Exit.Err]). A user namespace is not used for a traced
	// command (its init would read the host's /proc): not root, it runs
	// under a subreaper. A traced command cannot stop itself with SIGSTOP.
	// Nor can it start a process the tracer does not follow: it runs
	// under a seccomp filter the init installs (seccomp.go) that makes a
	// clone with CLONE_UNTRACED stop for the tracer, which clears the flag
	// (on arm64 it is refused with EPERM), answers clone3 and io_uring
	// with ENOSYS, and refuses a user-notification listener (EPERM). The
	// tracer needs Linux 5.3 (PTRACE_GET_SYSCALL_INFO).
	TraceExecs bool
	// Cgroups are cgroup.procs files (one per cgroup v1 hierarchy, or one
	// of cgroup v2) the init moves itself into before it starts the
	// command, so the command and everything it starts, double-forked or
	// setsid ones included, are born in those cgroups and bound by their
	// limits (the init, a few threads, is counted too). Moving needs root;
	// when a move fails the command does not run and [Exit.Err] says why.
	// A command that joins Cgroups always gets a cgroup namespace of its
	// own rooted at them (see CgroupNS).
	Cgroups []string
	// CgroupNS gives the command a cgroup namespace of its own: once it
	// has joined Cgroups (or, with none, where the init was started), the
	// init's thread that starts the command unshares one
	// (CLONE_NEWCGROUP), so the cgroups the command starts in are the
	// namespace's root. Its /proc/self/cgroup then reads "/" for each, and
	// a cgroup above it (the caller's own, where srb keeps its groups) is
	// shown as "/.." steps, never by name. Where the init has a mount
	// namespace of its own ([PIDNamespace] as root), an empty read-only
	// tmpfs also covers /sys/fs/cgroup there, whose folders name every
	// cgroup of the machine. It is implied by Cgroups. It needs
	// CAP_SYS_ADMIN (root, or a user namespace); when the kernel refuses
	// it the command does not run and [Exit.Err] says why.
	CgroupNS bool
	// NetNS, when set, is a network namespace (an open
	// /proc/PID/ns/net) the init is started in, so the command lives in
	// it (a Cloneflags CLONE_NEWNET would make a fresh one instead).
	// Joining needs CAP_SYS_ADMIN; when it fails the command does not
	// run.
	NetNS *os.File
}

// ErrInitKilled is wrapped by [Exit.Err] when the init ended without a
// report, killed by something other than srb ([Exit.Signal] says by
// what): the OOM killer of a memory cgroup the init joined
// ([Spec.Cgroups]) when it could not be exempted, say.
var ErrInitKilled = errors.New("the containment's init was killed")

// Exit is how a contained command ended.
type Exit struct {
	// Code is the main process's exit status, or -1 when a signal ended
	// it or no status was reported.
	Code int
	// Signal is the signal that ended the main process, 0 if none did.
	Signal syscall.Signal
	// Leftovers is how many processes other than the main one were still
	// running in the containment when the main process ended (all of them
	// were then killed); 1 stands for "some" in a PID namespace without
	// its own /proc (not root), and -1 is unknown (the init was killed
	// itself).
	Leftovers int
	// Stopped is true when [Process.Terminate] or [Process.Kill] (or the
	// end of [Run]'s context) ended the command.
	Stopped bool
	// Containment is how the command's processes were held together.
	Containment Containment
	// PrivateProc is true when the command saw a /proc of its own
	// namespace only.
	PrivateProc bool
	// Err is a fault of running the command: the program could not be
	// executed, the init failed or was killed by anyone but srb (a
	// subreaper's init can be SIGKILLed by its own command, and what the
	// command detached then escapes), its status channel held more than
	// its report, or the output did not drain within WaitDelay, or (with
	// [Spec.TraceExecs]) the tracer failed. A non-zero exit is not an Err.
	Err error
	// Execs are the programs the command ran, in order, with
	// [Spec.TraceExecs]; nil otherwise.
	Execs []Exec
	// ExecsDropped counts execs past [ExecRecordLimit], not in Execs.
	ExecsDropped int
	// NoKeyring is empty when the command ran under a fresh anonymous
	// session keyring of its own, apart from the caller's (the init joins
	// one before it starts the command, and a command that cannot have one
	// does not run). Otherwise it says why the kernel gave none (keyctl
	// ENOSYS: no keyring support; or keyctl refused to the init and so to
	// the command, e.g. by a seccomp filter such as Docker's default
	// profile): then the command cannot reach the caller's session
	// keyring either.
	NoKeyring string
}

// Exited reports whether the main process ran and exited with a status
// (possibly non-zero) rather than being ended by a signal or never
// running.
func (e Exit) Exited() bool { return e.Err == nil && e.Signal == 0 && e.Code >= 0 }

// Process is a contained command that has started.
type Process struct {
	cmd     *exec.Cmd
	status  *os.File
	rd      *bufio.Reader
	early   string // a report line read in place of "ready"
	pid     int
	mode    Containment
	done    chan struct{}
	exit    Exit
	stopped atomic.Bool
	// killedInit is set when srb itself SIGKILLs the init (Kill's last
	// resort); an init killed otherwise was killed by its own command.
	killedInit atomic.Bool
	mu         sync.Mutex
	sent       []string

	// A command of a [Server]: srv runs it as its command seq; srb copies
	// its streams through the pipes it made (childEnds until the init has
	// its own copies, parentEnds srb's), waiting at most waitDelay for
	// them to drain after the command's end.
	srv        *Server
	seq        uint64
	waitDelay  time.Duration
	childEnds  []*os.File
	parentEnds []*os.File
	copies     sync.WaitGroup
	copyErr    error
}

const (
	initName = "srb-proc-init"
	initEnv  = "SRB_PROC_INIT"
)

// modes in the order tried; failed tracks those the kernel refused, so
// they are not tried again by this process.
var failed [3]atomic.Bool

const (
	modeRootNS = iota
	modeUserNS
	modeSubreaper
)

// Start starts s contained and returns once the command runs. An error
// means nothing runs: the program was not found (exec.LookPath's error) or
// could not be executed (os.StartProcess's, "fork/exec PATH: ..."), or
// the init could not be started.
func Start(s Spec) (*Process, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("proc: empty argv")
	}
	path := s.Path
	if path == "" {
		path = s.Argv[0]
		if !strings.Contains(path, "/") {
			lp, err := exec.LookPath(path)
			if err != nil {
				return nil, err
			}
			path = lp
		}
	}
	// An absolute program that is missing or not executable is refused
	// here, as os/exec would, without starting an init first.
	if filepath.IsAbs(path) {
		if _, err := exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env = initProcessEnv(commandEnv(withoutInitEnv(env), path))
	for m := modeRootNS; m <= modeSubreaper; m++ {
		if failed[m].Load() || (m == modeRootNS && os.Geteuid() != 0) || (m == modeUserNS && s.TraceExecs) {
			continue
		}
		p, err := start(s, path, env, m)
		if err != nil && m != modeSubreaper && namespaceRefused(err) {
			failed[m].Store(true)
			continue
		}
		return p, err
	}
	return nil, errors.New("proc: no containment could be made")
}

func start(s Spec, path string, env []string, m int) (*Process, error) {
	// The status channel is a socket, not a pipe: a pipe's end can be
	// opened again through /proc/<init>/fd/3 by any process of the same
	// user, a socket's cannot, so no process of the command can write a
	// report of its own into it (the init is also not dumpable, so no
	// process without CAP_SYS_PTRACE can take the descriptor over).
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("proc: status channel: %w", err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "status"), os.NewFile(uintptr(fds[1]), "status")
	mode := PIDNamespace
	if m == modeSubreaper {
		mode = Subreaper
	}
	args := append([]string{initName, string(mode), childSys{s.Credential, s.Cloneflags, s.Unshareflags, s.TraceExecs, s.Cgroups, s.CgroupNS || len(s.Cgroups) > 0}.encode(), path}, s.Argv...)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: args, Dir: s.Dir, Env: env,
		Stdin: s.Stdin, Stdout: s.Stdout, Stderr: s.Stderr, WaitDelay: s.WaitDelay,
		ExtraFiles: []*os.File{w}}
	// If srb dies (SIGKILL included), the kernel SIGKILLs the init, and
	// with it (in a PID namespace) everything it holds.
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	switch m {
	case modeRootNS:
		attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	case modeUserNS:
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	// The kernel sends Pdeathsig when the thread that forked the init
	// ends, not the process (go.dev/issue/27505), and the Go runtime ends
	// a thread when a goroutine locked to it returns without unlocking.
	// So the init is forked from a thread locked for this purpose, which
	// is kept (and so alive) until the init has been reaped.
	done := make(chan struct{})
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		if s.NetNS != nil {
			// The thread joins the namespace for the fork, and is never
			// unlocked after: it ends with this goroutine rather than
			// serve another in that namespace.
			if err := setns(s.NetNS, syscall.CLONE_NEWNET); err != nil {
				runtime.UnlockOSThread()
				started <- fmt.Errorf("proc: join the network namespace: %w", err)
				return
			}
		} else {
			defer runtime.UnlockOSThread()
		}
		err := cmd.Start()
		started <- err
		if err == nil {
			<-done
		}
	}()
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	p := &Process{cmd: cmd, status: r, rd: bufio.NewReader(r), mode: mode, done: done}
	// The init says "ready" once its signal handlers are in place and the
	// command has started, so no signal of Terminate or Kill can reach it
	// before it can pass that signal on.
	line, _ := p.rd.ReadString('\n')
	if pid, ok := readyPid(line); ok {
		p.pid = pid
	} else {
		// No "ready": the init could not start the command and says why
		// (the rest of its report follows), or it died.
		p.early = line
		p.wait()
		if p.exit.Err != nil {
			return nil, p.exit.Err
		}
		return p, nil
	}
	go p.wait()
	return p, nil
}

// namespaceRefused reports whether err is the kernel refusing to make a
// namespace (rather than a fault of the command).
func namespaceRefused(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.ENOSYS, syscall.EACCES:
		return true
	}
	return false
}

func withoutInitEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, initEnv+"=") && !strings.HasPrefix(kv, cmdPrefix) {
			out = append(out, kv)
		}
	}
	return out
}

// Pid returns the process id of the init holding the command (not of the
// command itself, which has its own id inside the containment).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Containment returns how the command's processes are held together.
func (p *Process) Containment() Containment { return p.mode }

// Done is closed once the command and everything it started are gone and
// [Process.Wait] would return at once.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits until the command and everything it started are gone and
// returns how the command ended. It may be called more than once and from
// several goroutines.
func (p *Process) Wait() Exit {
	<-p.done
	return p.exit
}

// Signals returns the signal names [Process.Terminate] and [Process.Kill]
// sent, in order ("SIGTERM", "SIGKILL"); none when the command ended by
// itself.
func (p *Process) Signals() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

func (p *Process) note(sig string) {
	p.mu.Lock()
	p.sent = append(p.sent, sig)
	p.mu.Unlock()
}

// Kill SIGKILLs every process of the containment and waits until they are
// gone. It is a no-op once the command has ended.
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.stopped.Store(true)
	p.note("SIGKILL")
	if p.srv != nil {
		// The server's init SIGKILLs this command's processes (it ignores
		// the request once the command is over); if it does not report
		// soon, it is killed itself.
		p.srv.control("kill", p.seq)
		select {
		case <-p.done:
			return
		case <-time.After(2 * time.Second):
		}
		p.srv.kill()
		<-p.done
		return
	}
	// The init SIGKILLs its containment on SIGUSR1 and reports; if it
	// does not end soon, it is killed itself (in a PID namespace the
	// kernel then kills the rest).
	_ = p.cmd.Process.Signal(syscall.SIGUSR1)
	select {
	case <-p.done:
		return
	case <-time.After(2 * time.Second):
	}
	p.killedInit.Store(true)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// Terminate sends SIGTERM to every process of the containment, waits up
// to grace for the command to end and then calls [Process.Kill]. It
// returns the signal names it sent; none when the command had already
// ended.
func (p *Process) Terminate(grace time.Duration) []string {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.stopped.Store(true)
	p.note("SIGTERM")
	sent := []string{"SIGTERM"}
	if p.srv != nil {
		p.srv.control("term", p.seq)
	} else {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-p.done:
		return sent
	case <-time.After(grace):
	}
	select {
	case <-p.done:
	default:
		p.Kill()
		sent = append(sent, "SIGKILL")
	}
	return sent
}

// wait collects the init and its report.
func (p *Process) wait() {
	// The report is read to its end first: with a trace it can be larger
	// than the socket's buffer, and the init exits only once it is sent.
	// Only the init holds the other end (close-on-exec, not dumpable), so
	// the end of the stream is the init's exit.
	rest, _ := io.ReadAll(p.rd)
	werr := p.cmd.Wait()
	data := append([]byte(p.early), rest...)
	p.status.Close()
	e := Exit{Code: -1, Leftovers: -1, Containment: p.mode}
	rep, ok := parseReport(data)
	var ee *exec.ExitError
	switch {
	case ok && string(rep.encode()) != string(data):
		// Only the init writes on the channel, and only one report in its
		// own encoding: anything else was written by someone else, and
		// none of it, the init's own lines included, is believed.
		e.Err = fmt.Errorf("proc: the status channel of %s held %d byte(s) that are not one report of its init; the exit is unknown", p.cmd.Args[3], len(data))
		if p.mode == Subreaper {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
	case ok:
		e.Code, e.Signal, e.Leftovers, e.PrivateProc = rep.code, rep.signal, rep.left, rep.privateProc
		e.Execs, e.ExecsDropped, e.NoKeyring = rep.execs, rep.dropped, rep.noKeyring
		if rest, ok := strings.CutPrefix(rep.err, ErrTracer.Error()); ok {
			e.Err = fmt.Errorf("%w%s", ErrTracer, rest)
		} else if rep.err != "" {
			e.Err = errors.New(rep.err)
		}
		if werr != nil && !errors.As(werr, &ee) && e.Err == nil {
			e.Err = werr
		}
	case werr != nil && !errors.As(werr, &ee):
		e.Err = werr
	default:
		// The init ended without a report: it was killed. In a PID
		// namespace the kernel killed the rest; otherwise its group is
		// killed here (a subreaper's orphans may have left it).
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		}
		if p.mode == Subreaper {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
		switch {
		case e.Signal == syscall.SIGKILL && p.killedInit.Load():
		case p.mode == Subreaper:
			// Its own command (same user) killed the init: the processes
			// it had detached are no longer below anything srb holds.
			e.Err = fmt.Errorf("proc: the init of %s was killed (%v), not by srb: containment was lost and processes the command detached may still run: %w", p.cmd.Args[3], werr, ErrInitKilled)
		default:
			e.Err = fmt.Errorf("proc: the init of %s ended without a report (%v): %w", p.cmd.Args[3], werr, ErrInitKilled)
		}
	}
	e.Stopped = p.stopped.Load()
	p.exit = e
	close(p.done)
}

// Run starts s contained and waits for it. When ctx ends first, every
// process of the command is killed ([Process.Kill]) and the Exit says
// Stopped. The error is only Start's: nothing ran.
func Run(ctx context.Context, s Spec) (Exit, error) {
	p, err := Start(s)
	if err != nil {
		return Exit{Code: -1, Leftovers: 0}, err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Kill()
	}
	return p.Wait(), nil
}

// report is what the init writes on its status pipe: one "key value" a
// line.
type report struct {
	code        int
	signal      syscall.Signal
	left        int
	privateProc bool
	execs       []Exec
	dropped     int
	noKeyring   string
	err         string
}

func (r report) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "code %d\nsignal %d\nleft %d\nproc %t\n", r.code, int(r.signal), r.left, r.privateProc)
	for _, e := range r.execs {
		j, _ := json.Marshal(e)
		fmt.Fprintf(&b, "exec %s\n", j)
	}
	if r.dropped > 0 {
		fmt.Fprintf(&b, "dropped %d\n", r.dropped)
	}
	if r.noKeyring != "" {
		fmt.Fprintf(&b, "nokeyring %s\n", strings.ReplaceAll(r.noKeyring, "\n", " "))
	}
	if r.err != "" {
		fmt.Fprintf(&b, "error %s\n", strings.ReplaceAll(r.err, "\n", " "))
	}
	return []byte(b.String())
}

// readyPid reads the init's first line, exactly "ready <pid>\n" with a
// pid > 0.
func readyPid(line string) (int, bool) {
	v, ok := strings.CutPrefix(line, "ready ")
	if !ok || !strings.HasSuffix(v, "\n") {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(v, "\n"))
	if err != nil || pid <= 0 || strconv.Itoa(pid)+"\n" != v {
		return 0, false
	}
	return pid, true
}

func parseReport(data []byte) (report, bool) {
	r := report{code: -1, left: -1}
	seen := false
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		switch k {
		case "code":
			r.code, _ = strconv.Atoi(v)
			seen = true
		case "signal":
			n, _ := strconv.Atoi(v)
			r.signal = syscall.Signal(n)
		case "left":
			r.left, _ = strconv.Atoi(v)
		case "proc":
			r.privateProc = v == "true"
		case "error":
			r.err = v
		case "exec":
			var e Exec
			if json.Unmarshal([]byte(v), &e) != nil {
				return r, false
			}
			r.execs = append(r.execs, e)
		case "dropped":
			r.dropped, _ = strconv.Atoi(v)
		case "nokeyring":
			r.noKeyring = v
		}
	}
	return r, seen
}

// childSys is what the init applies to the command, passed as JSON in
// its argument list.
type childSys struct {
	Credential   *syscall.Credential `json:"credential,omitempty"`
	Cloneflags   uintptr             `json:"cloneflags,omitempty"`
	Unshareflags uintptr             `json:"unshareflags,omitempty"`
	Trace        bool                `json:"trace,omitempty"`
	Cgroups      []string            `json:"cgroups,omitempty"`
	CgroupNS     bool                `json:"cgroupns,omitempty"`
}

func (c childSys) encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// decodeChildSys returns the command's process attributes, the
// cgroup.procs files the init joins ([Spec.Cgroups]) and whether the
// command gets a cgroup namespace of its own ([Spec.CgroupNS]).
func decodeChildSys(s string) (*syscall.SysProcAttr, []string, bool, error) {
	var c childSys
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, nil, false, fmt.Errorf("proc: bad process attributes %q: %w", s, err)
	}
	if c.Credential != nil && c.Credential.Groups == nil {
		c.Credential.Groups = []uint32{}
	}
	return &syscall.SysProcAttr{Credential: c.Credential, Cloneflags: c.Cloneflags, Unshareflags: c.Unshareflags, Ptrace: c.Trace}, c.Cgroups, c.CgroupNS, nil
}

// StartCmd starts cmd contained: it is [Start] of the Spec that cmd's
// Path, Args, Dir, Env, standard streams, WaitDelay and SysProcAttr
// (Credential, Cloneflags and Unshareflags; Setpgid and Setsid are
// implied) describe. cmd itself is not started and must not be. An error
// is cmd.Err, a field this package cannot honour (ExtraFiles, other
// SysProcAttr fields) or Start's.
func StartCmd(cmd *exec.Cmd) (*Process, error) {
	s, err := CmdSpec(cmd)
	if err != nil {
		return nil, err
	}
	return Start(s)
}

// CmdSpec is the Spec that cmd's Path, Args, Dir, Env, standard streams,
// WaitDelay and SysProcAttr (Credential, Cloneflags and Unshareflags;
// Setpgid and Setsid are implied) describe, for a caller that sets more
// of it (TraceExecs) before [Start]. An error is cmd.Err or a field this
// package cannot honour (ExtraFiles, Cancel, other SysProcAttr fields).
func CmdSpec(cmd *exec.Cmd) (Spec, error) {
	if cmd.Err != nil {
		return Spec{}, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 || cmd.Cancel != nil {
		return Spec{}, errors.New("proc: ExtraFiles and Cancel cannot be passed to a contained command")
	}
	s := Spec{Argv: cmd.Args, Path: cmd.Path, Dir: cmd.Dir, Env: cmd.Env, Stdin: cmd.Stdin,
		Stdout: cmd.Stdout, Stderr: cmd.Stderr, WaitDelay: cmd.WaitDelay}
	if a := cmd.SysProcAttr; a != nil {
		rest := *a
		rest.Setpgid, rest.Setsid, rest.Pgid = false, false, 0
		rest.Credential, rest.Cloneflags, rest.Unshareflags = nil, 0, 0
		if !reflect.ValueOf(rest).IsZero() {
			return Spec{}, fmt.Errorf("proc: SysProcAttr %+v cannot be passed to a contained command", rest)
		}
		s.Credential, s.Cloneflags, s.Unshareflags = a.Credential, a.Cloneflags, a.Unshareflags
	}
	if len(s.Argv) == 0 {
		s.Argv = []string{cmd.Path}
	}
	return s, nil
}

// setns joins f's namespace of kind nstype (this thread only, for a
// network namespace).
func setns(f *os.File, nstype int) error { return unix.Setns(int(f.Fd()), nstype) }
