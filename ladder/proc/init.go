package proc

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// init runs the containment's init when this binary was re-executed as
// one (argv[0] "srb-proc-init" and SRB_PROC_INIT=1); it never returns
// then. Otherwise it does nothing.
func init() {
	if os.Getenv(initEnv) == "1" && len(os.Args) == 2 && os.Args[0] == serveName {
		os.Exit(runServe(Containment(os.Args[1])))
	}
	if os.Getenv(initEnv) != "1" || len(os.Args) < 5 || os.Args[0] != initName {
		return
	}
	os.Exit(runInit(Containment(os.Args[1]), os.Args[2], os.Args[3], os.Args[4:]))
}

// sweepLimit bounds how long the init keeps killing what its containment
// keeps starting after the main process ended.
const sweepLimit = 10 * time.Second

// runInit is the init: it starts path with argv, forwards SIGTERM (and
// SIGINT, SIGHUP) to every process of its containment, SIGKILLs all of
// them on SIGUSR1, and when the main process ends counts, kills and reaps
// the rest, then writes its report on fd 3.
func runInit(mode Containment, attrs, path string, argv []string) int {
	syscall.CloseOnExec(3)
	status := os.NewFile(3, "status")
	var rep report
	sys, cgroups, cgroupNS, err := decodeChildSys(attrs)
	if err == nil {
		// Nothing the init inherited reaches the command but its
		// three streams.
		err = CloseInheritedOnExec()
	}
	if err == nil {
		err = joinCgroups(cgroups)
	}
	if err != nil {
		rep.code, rep.left, rep.err = -1, 0, err.Error()
		status.Write(rep.encode())
		return 0
	}
	// Not dumpable: /proc/<init> belongs to root and no process of the
	// command without CAP_SYS_PTRACE can read or take over the init's
	// descriptors (the status channel above all) or its memory. The
	// command's own exec makes it dumpable again.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1)
	inNS := mode == PIDNamespace && os.Getpid() == 1
	switch {
	case inNS:
		if unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") == nil &&
			unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "") == nil {
			rep.privateProc = true
		}
	default:
		mode = Subreaper
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	c := containment{ns: inNS, privateProc: rep.privateProc, self: os.Getpid()}
	env := initCommandEnv(os.Environ())
	// One thread starts the command and never lets go: a session keyring
	// is a thread's (the command inherits the one of the thread that
	// forks it), and every ptrace request must come from the tracer's
	// thread, the one that starts the command (PTRACE_TRACEME names it)
	// and waits.
	runtime.LockOSThread()
	if cgroupNS {
		// After the cgroups were joined: they are the namespace's root,
		// which the command's /proc/self/cgroup shows as "/", and what
		// is above them (the grader's own cgroup) has no name there. A
		// namespace is a thread's, as the keyring is: this thread forks
		// the command.
		if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil {
			rep.code, rep.left, rep.err = -1, 0, fmt.Sprintf("proc: the command would see the grader's cgroup path: a cgroup namespace of its own was refused: %v", err)
			status.Write(rep.encode())
			return 0
		}
		// The cgroup file system's folders name every cgroup of the
		// machine, srb's and its groups among them: in the init's own
		// mount namespace (private, so nothing of it reaches the
		// machine's) they are covered.
		if rep.privateProc {
			if err := hideCgroupFS(); err != nil {
				rep.code, rep.left, rep.err = -1, 0, "proc: the command would see the grader's cgroups: "+err.Error()
				status.Write(rep.encode())
				return 0
			}
		}
	}
	rep.noKeyring, err = freshSessionKeyring()
	if err != nil {
		rep.code, rep.left, rep.err = -1, 0, err.Error()
		status.Write(rep.encode())
		return 0
	}
	if sys.Ptrace {
		// Before the fork: the command inherits the filter from this
		// thread, so no process of it can clone one the tracer does not
		// follow (seccomp.go).
		if err := refuseUntraced(); err != nil {
			rep.code, rep.left, rep.err = -1, 0, err.Error()
			status.Write(rep.encode())
			return 0
		}
	}
	if err := noNewPrivs(); err != nil {
		rep.code, rep.left, rep.err = -1, 0, err.Error()
		status.Write(rep.encode())
		return 0
	}
	child, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys: sys})
	if err != nil {
		rep.code, rep.left, rep.err = -1, 0, err.Error()
		status.Write(rep.encode())
		return 0
	}
	main := child.Pid
	if len(cgroups) > 0 {
		// Bounded by a memory cgroup, the init (a Go program, larger
		// than a shell) would be the OOM killer's first choice among
		// many small processes: only the init is exempt (the command
		// was forked before, with the score it inherits). Without
		// CAP_SYS_RESOURCE (root in some containers) it cannot be, and
		// an init the OOM killer ended is [ErrInitKilled] with SIGKILL,
		// which the caller can tell from its cgroup's OOM count.
		_ = exemptFromOOM()
	}
	status.Write([]byte("ready " + strconv.Itoa(main) + "\n"))
	go func() {
		for s := range sigs {
			if s == syscall.SIGUSR1 {
				c.signalAll(syscall.SIGKILL)
			} else {
				c.signalAll(s.(syscall.Signal))
			}
		}
	}()
	rep.code = -1
	if sys.Ptrace {
		var log execLog
		var fault error
		rep.code, rep.signal, fault = traceUntilMainExits(main, c, &log)
		rep.execs, rep.dropped = log.execs, log.dropped
		if fault != nil {
			rep.err = fault.Error()
		}
	}
	for !sys.Ptrace {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: cannot happen before main is reaped
		}
		if pid == main {
			if ws.Signaled() {
				rep.signal = ws.Signal()
			} else {
				rep.code = ws.ExitStatus()
			}
			break
		}
	}
	reapZombies()
	rep.left = c.count()
	deadline := time.Now().Add(sweepLimit)
	for time.Now().Before(deadline) {
		c.signalAll(syscall.SIGKILL)
		if reapZombies() && c.count() == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	status.Write(rep.encode())
	return 0
}

// joinCgroups moves the init (every thread of it) into each cgroup whose
// cgroup.procs file procs names, by writing 0 (the writer) to it, before
// anything is started: what it forks is born there ([Spec.Cgroups]).
func joinCgroups(procs []string) error {
	for _, p := range procs {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write([]byte("0"))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("proc: the command would run outside its cgroup: %w", err)
		}
	}
	return nil
}

// cgroupFS is where the machine's cgroup file systems are mounted.
const cgroupFS = "/sys/fs/cgroup"

// hideCgroupFS covers cgroupFS (when it is a folder) with an empty,
// read-only tmpfs in the calling process's mount namespace, which must be
// its own and private.
func hideCgroupFS() error {
	if st, err := os.Lstat(cgroupFS); err != nil || !st.IsDir() {
		return nil
	}
	if err := unix.Mount("tmpfs", cgroupFS, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
		return fmt.Errorf("covering %s: %w", cgroupFS, err)
	}
	return nil
}

// exemptFromOOM makes the OOM killer never choose the init.
func exemptFromOOM() error {
	f, err := os.OpenFile("/proc/self/oom_score_adj", os.O_WRONLY, 0)
	if err == nil {
		_, err = f.Write([]byte("-1000"))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("proc: the init would be the OOM killer's choice in its memory cgroup: %w", err)
	}
	return nil
}

// freshSessionKeyring makes the calling thread (the one that starts the
// command) join a new anonymous session keyring, so the command cannot
// read, search or add to the keys of the session keyring srb runs under,
// nor share keys with another command. A kernel without keyrings (keyctl
// ENOSYS), or keyctl refused to the init (a seccomp filter, as Docker's
// default profile has, refuses it to the command too, which inherits the
// filter) leaves nothing to share: it returns why, for [Exit.NoKeyring].
// Any other failure is an error: the command does not run rather than
// share srb's session keyring.
func freshSessionKeyring() (string, error) {
	// KEYCTL_JOIN_SESSION_KEYRING with a NULL name (x/sys's
	// KeyctlJoinSessionKeyring("") would pass a keyring named "").
	_, err := unix.KeyctlInt(unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0)
	if err == nil {
		return "", nil
	}
	if err == unix.ENOSYS {
		return "keyctl: " + err.Error(), nil
	}
	if _, perr := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false); perr == unix.EPERM || perr == unix.EACCES || perr == unix.ENOSYS {
		return "keyctl: " + err.Error(), nil
	}
	return "", fmt.Errorf("proc: the command would share the caller's session keyring: joining a fresh one failed: %w", err)
}

// reapZombies reaps every child that has ended without waiting and
// reports whether the init has no children left.
func reapZombies() bool {
	for {
		var ws syscall.WaitStatus
		// __WALL: traced threads are reaped too.
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG|unix.WALL, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return true // ECHILD
		case pid == 0:
			return false
		}
	}
}

// containment is the set of processes an init holds: everything else in
// its PID namespace (ns) or its descendants (a subreaper).
type containment struct {
	ns, privateProc bool
	self            int
}

// signalAll sends sig to every process of the containment but the init.
func (c containment) signalAll(sig syscall.Signal) {
	if c.ns {
		// kill(-1) from a namespace's init reaches every other process of
		// that namespace and nothing outside it.
		_ = syscall.Kill(-1, sig)
		return
	}
	for _, pid := range descendants(c.self) {
		_ = syscall.Kill(pid, sig)
	}
}

// count returns how many processes of the containment other than the
// init are alive (zombies are not).
func (c containment) count() int {
	switch {
	case c.ns && c.privateProc:
		n := 0
		for pid, st := range scanProc() {
			if pid != 1 && st.state != 'Z' && st.state != 'X' {
				n++
			}
		}
		return n
	case c.ns:
		// The host's /proc: kill(-1, 0) says whether anyone is left.
		if syscall.Kill(-1, 0) == nil {
			return 1
		}
		return 0
	}
	n := 0
	procs := scanProc()
	for _, pid := range descendantsIn(procs, c.self) {
		if st := procs[pid].state; st != 'Z' && st != 'X' {
			n++
		}
	}
	return n
}

type procStat struct {
	ppid  int
	state byte
}

// scanProc reads pid, parent and state of every process in /proc.
func scanProc() map[int]procStat {
	out := map[int]procStat{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || len(f[0]) == 0 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out[pid] = procStat{ppid: ppid, state: f[0][0]}
	}
	return out
}

// descendants returns the ids of every process below root.
func descendants(root int) []int { return descendantsIn(scanProc(), root) }

func descendantsIn(procs map[int]procStat, root int) []int {
	kids := map[int][]int{}
	for pid, st := range procs {
		kids[st.ppid] = append(kids[st.ppid], pid)
	}
	var out []int
	stack := []int{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, k := range kids[p] {
			out = append(out, k)
			stack = append(stack, k)
		}
	}
	return out
}

// RunsAs reports whether a live process of the containment other than
// the init runs with real uid uid (/proc/<pid>/status): for a runner that
// must tell whether the graded side's processes were still running when
// a deadline passed. It walks the host's /proc from the init down, as the
// subreaper's sweep does, so it sees the command's processes in either
// containment. A process that is gone, or a command that has ended,
// reports false.
func (p *Process) RunsAs(uid int) bool {
	select {
	case <-p.done:
		return false
	default:
	}
	procs := scanProc()
	for _, pid := range descendantsIn(procs, p.Pid()) {
		if st := procs[pid].state; st != 'Z' && st != 'X' && realUID(pid) == uid {
			return true
		}
	}
	return false
}

// realUID returns the real uid of process pid, or -1.
func realUID(pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(st), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if fs := strings.Fields(rest); len(fs) > 0 {
				if u, err := strconv.Atoi(fs[0]); err == nil {
					return u
				}
			}
		}
	}
	return -1
}
