package proc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A Server is a containment's init started before its commands: it runs
// commands one at a time ([Server.Start]), each contained as [Start]'s
// is, and is reused for the next one only once every process of the
// previous command is gone (counted, killed and reaped by the init, as
// [Start]'s init does before it reports). What a command gets is what
// [Start] gives it: a fresh anonymous session keyring (joined by the
// init before each command), the init's PID namespace and private /proc
// (as root) or its subreaper, [Spec.Credential], Cloneflags and
// Unshareflags; its report comes on the init's channel alone (a socket,
// not reopenable, the init not dumpable). What commands of one server
// share, one after the other: the namespace's process ids go on counting
// (a command can tell how many processes earlier ones started), and the
// init's mount namespace (a command that is not root cannot change it).
//
// A server saves a command the init's start (a Go program: about 2–4 ms
// of CPU and of latency each); a caller that needs a fresh init per
// command can still start a server ahead of time and use it once
// ([Server.Close] after the one command), hiding the start's latency.
// A server does not trace ([Spec.TraceExecs]), join cgroups
// ([Spec.Cgroups]), make a cgroup namespace ([Spec.CgroupNS]) or join a
// network namespace ([Spec.NetNS]): [Server.Start] refuses such a Spec
// with [ErrNotServed]; use [Start].
type Server struct {
	cmd  *exec.Cmd
	conn *net.UnixConn // requests and reports
	ctl  *net.UnixConn // kill and term
	mode Containment
	// exited is closed once the init has been reaped (waitErr set).
	exited  chan struct{}
	waitErr error
	// buf receives the init's messages (one reader at a time: Start, then
	// the command's wait).
	buf []byte

	mu   sync.Mutex
	busy bool
	dead bool
	seq  uint64
	cur  *Process // the command running, if any
	// killedInit: srb SIGKILLed the init itself (Kill's last resort).
	killedInit atomic.Bool
}

// ErrNotServed is returned by [Server.Start] for a Spec a server does not
// run (a trace, cgroups, a cgroup namespace, a network namespace to join):
// [Start] runs it.
var ErrNotServed = errors.New("proc: a server does not run this command (trace, cgroups, a cgroup or network namespace): start it alone")

// ErrServerGone is returned by [Server.Start] when the server's init has
// ended (closed, killed, or retired after a command whose processes it
// could not end) or still runs a command.
var ErrServerGone = errors.New("proc: the server is closed or busy")

const (
	serveName = "srb-proc-serve"
	// serveMsgMax bounds one message on a server's channel (a request:
	// argv, environment and folder; a report): a larger request is
	// [ErrNotServed].
	serveMsgMax = 128 << 10
)

// NewServer starts an idle init (in a PID namespace as root, else as
// [Start] would contain a command) and returns once it is ready to run a
// command.
func NewServer() (*Server, error) {
	for m := modeRootNS; m <= modeSubreaper; m++ {
		if failed[m].Load() || (m == modeRootNS && os.Geteuid() != 0) {
			continue
		}
		sv, err := newServer(m)
		if err != nil && m != modeSubreaper && namespaceRefused(err) {
			failed[m].Store(true)
			continue
		}
		return sv, err
	}
	return nil, errors.New("proc: no containment could be made")
}

func newServer(m int) (*Server, error) {
	// SEQPACKET: one request, one report, each a message; a request
	// carries the command's standard streams (SCM_RIGHTS). A second
	// channel carries srb's "kill"/"term" while a command runs, so the
	// init reads each request and runs its command on one thread, with no
	// hand-over between threads.
	var socks [2][2]int
	for i := range socks {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			if i == 1 {
				syscall.Close(socks[0][0])
				syscall.Close(socks[0][1])
			}
			return nil, fmt.Errorf("proc: server channel: %w", err)
		}
		socks[i] = [2]int(fds)
	}
	for _, fd := range socks[0] {
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, serveMsgMax+4096)
	}
	files := func(i int) (*os.File, *os.File) {
		return os.NewFile(uintptr(socks[i][0]), "serve"), os.NewFile(uintptr(socks[i][1]), "serve")
	}
	r, w := files(0)
	cr, cw := files(1)
	closeAll := func() { r.Close(); w.Close(); cr.Close(); cw.Close() }
	conn, err := unixConn(r)
	if err != nil {
		closeAll()
		return nil, err
	}
	ctl, err := unixConn(cr)
	if err != nil {
		conn.Close()
		closeAll()
		return nil, err
	}
	mode := PIDNamespace
	if m == modeSubreaper {
		mode = Subreaper
	}
	// The init's own environment reaches no command (each request carries
	// its command's).
	env := serveProcessEnv()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{serveName, string(mode)}, Env: env, ExtraFiles: []*os.File{w, cw}}
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
	sv := &Server{cmd: cmd, conn: conn, ctl: ctl, mode: mode, exited: make(chan struct{})}
	// Pdeathsig follows the thread that forked the init (see start): it
	// stays locked until the init has been reaped.
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err != nil {
			return
		}
		sv.waitErr = cmd.Wait()
		close(sv.exited)
	}()
	err = <-started
	w.Close()
	cw.Close()
	r.Close()
	cr.Close()
	if err != nil {
		conn.Close()
		ctl.Close()
		return nil, err
	}
	msg, err := sv.recv()
	if err != nil || string(msg) != "serving\n" {
		sv.kill()
		<-sv.exited
		conn.Close()
		ctl.Close()
		if err == nil {
			err = fmt.Errorf("proc: the server's init said %q", msg)
		}
		return nil, fmt.Errorf("proc: the server's init did not start: %w", err)
	}
	return sv, nil
}

// unixConn is f as a connection of the runtime's poller (f is left open:
// the caller closes it).
func unixConn(f *os.File) (*net.UnixConn, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("proc: server channel: %w", err)
	}
	return c.(*net.UnixConn), nil
}

// recv reads one message from the init; io.EOF when the init is gone.
func (sv *Server) recv() ([]byte, error) {
	if sv.buf == nil {
		sv.buf = make([]byte, serveMsgMax)
	}
	n, _, _, _, err := sv.conn.ReadMsgUnix(sv.buf, nil)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, io.EOF
	}
	return sv.buf[:n], nil
}

// Mode is how the server's commands are held together.
func (sv *Server) Mode() Containment { return sv.mode }

// Dead reports whether the server can run no more commands.
func (sv *Server) Dead() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.dead
}

// Close ends an idle server's init (a running command is killed first)
// and waits until it has been reaped.
func (sv *Server) Close() error {
	sv.mu.Lock()
	sv.dead = true
	cur := sv.cur
	sv.mu.Unlock()
	if cur != nil {
		cur.Kill()
	}
	// The init ends when its channel closes; the end of the one command it
	// may still run comes first (it is killed).
	_ = sv.conn.CloseWrite()
	select {
	case <-sv.exited:
	case <-time.After(10 * time.Second):
		sv.kill()
		<-sv.exited
	}
	sv.ctl.Close()
	return sv.conn.Close()
}

// kill SIGKILLs the init's process group (the init, and in a PID
// namespace everything in it with it).
func (sv *Server) kill() {
	sv.killedInit.Store(true)
	_ = syscall.Kill(-sv.cmd.Process.Pid, syscall.SIGKILL)
}

// serveRequest is one command for the init.
type serveRequest struct {
	Seq  uint64
	Path string
	Argv []string
	Env  []string
	Dir  string
	Sys  childSys
}

// encode is the request as its message: "run", then every field, NUL
// separated (no argument, variable or path can hold a NUL: execve's
// strings are C strings).
func (r serveRequest) encode() ([]byte, error) {
	cred := ""
	if c := r.Sys.Credential; c != nil {
		groups := make([]string, len(c.Groups))
		for i, g := range c.Groups {
			groups[i] = strconv.FormatUint(uint64(g), 10)
		}
		cred = fmt.Sprintf("%d %d %t %s", c.Uid, c.Gid, c.NoSetGroups, strings.Join(groups, ","))
		if c.Groups == nil {
			cred += " nil"
		}
	}
	fields := []string{"run", strconv.FormatUint(r.Seq, 10), r.Path, r.Dir, cred,
		strconv.FormatUint(uint64(r.Sys.Cloneflags), 10), strconv.FormatUint(uint64(r.Sys.Unshareflags), 10),
		strconv.Itoa(len(r.Argv))}
	fields = append(append(fields, r.Argv...), r.Env...)
	n := 0
	for _, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return nil, ErrNotServed // exec refuses it: Start says how
		}
		n += len(f) + 1
	}
	b := make([]byte, 0, n)
	for i, f := range fields {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, f...)
	}
	return b, nil
}

// decodeServeRequest reads a message encode wrote.
func decodeServeRequest(b []byte) (serveRequest, bool) {
	var r serveRequest
	f := strings.Split(string(b), "\x00")
	if len(f) < 8 || f[0] != "run" {
		return r, false
	}
	var err error
	var clone, unshare uint64
	if r.Seq, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return r, false
	}
	r.Path, r.Dir = f[2], f[3]
	if f[4] != "" {
		var c syscall.Credential
		parts := strings.Split(f[4], " ")
		if len(parts) < 4 {
			return r, false
		}
		uid, err1 := strconv.ParseUint(parts[0], 10, 32)
		gid, err2 := strconv.ParseUint(parts[1], 10, 32)
		if err1 != nil || err2 != nil {
			return r, false
		}
		c.Uid, c.Gid, c.NoSetGroups = uint32(uid), uint32(gid), parts[2] == "true"
		if len(parts) == 5 && parts[4] == "nil" {
			c.Groups = nil
		} else {
			c.Groups = []uint32{}
			if parts[3] != "" {
				for _, g := range strings.Split(parts[3], ",") {
					n, err := strconv.ParseUint(g, 10, 32)
					if err != nil {
						return r, false
					}
					c.Groups = append(c.Groups, uint32(n))
				}
			}
		}
		r.Sys.Credential = &c
	}
	if clone, err = strconv.ParseUint(f[5], 10, 64); err != nil {
		return r, false
	}
	if unshare, err = strconv.ParseUint(f[6], 10, 64); err != nil {
		return r, false
	}
	r.Sys.Cloneflags, r.Sys.Unshareflags = uintptr(clone), uintptr(unshare)
	argc, err := strconv.Atoi(f[7])
	if err != nil || argc < 1 || 8+argc > len(f) {
		return r, false
	}
	r.Argv = f[8 : 8+argc]
	r.Env = f[8+argc:]
	return r, true
}

// control sends "kill SEQ" or "term SEQ": the init acts on it only while
// that command runs.
func (sv *Server) control(verb string, seq uint64) {
	_, _, _ = sv.ctl.WriteMsgUnix([]byte(verb+" "+strconv.FormatUint(seq, 10)), nil, nil)
}

// devNullRW is /dev/null opened once for reading and writing, the
// standard streams Spec leaves nil.
var devNullRW = sync.OnceValues(func() (*os.File, error) { return os.OpenFile(os.DevNull, os.O_RDWR, 0) })

// Start runs s in the server and returns once the command runs, as
// [Start] does; the server takes no other command until the returned
// process is done. A Spec the server does not run is [ErrNotServed]; a
// server that is gone or busy is [ErrServerGone] (start another).
func (sv *Server) Start(s Spec) (*Process, error) {
	if s.TraceExecs || len(s.Cgroups) > 0 || s.CgroupNS || s.NetNS != nil {
		return nil, ErrNotServed
	}
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
	if filepath.IsAbs(path) {
		if _, err := exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env = commandEnv(withoutInitEnv(env), path)
	sv.mu.Lock()
	if sv.dead || sv.busy {
		sv.mu.Unlock()
		return nil, ErrServerGone
	}
	sv.busy = true
	sv.seq++
	seq := sv.seq
	sv.mu.Unlock()
	p := &Process{cmd: sv.cmd, srv: sv, seq: seq, mode: sv.mode, done: make(chan struct{}), waitDelay: s.WaitDelay}
	fail := func(err error) (*Process, error) {
		p.closeStreams()
		sv.release(false)
		return nil, err
	}
	files, err := p.streams(s.Stdin, s.Stdout, s.Stderr)
	if err != nil {
		return fail(err)
	}
	req, err := serveRequest{Seq: seq, Path: path, Argv: s.Argv, Env: env, Dir: s.Dir,
		Sys: childSys{Credential: s.Credential, Cloneflags: s.Cloneflags, Unshareflags: s.Unshareflags}}.encode()
	if err != nil {
		return fail(err)
	}
	if len(req) > serveMsgMax {
		return fail(ErrNotServed)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	_, _, err = sv.conn.WriteMsgUnix(req, syscall.UnixRights(fds...), nil)
	// The init holds its own copies now: the ones srb made for the
	// command are closed here, so an output's end is the command's.
	p.closeChildEnds()
	runtime.KeepAlive(files)
	if errors.Is(err, syscall.EMSGSIZE) {
		return fail(ErrNotServed)
	}
	if err != nil {
		sv.retire()
		return fail(fmt.Errorf("proc: the server's channel: %w", err))
	}
	msg, err := sv.recv()
	if err != nil {
		// The init is gone: what it was given never ran.
		sv.retire()
		sv.kill()
		<-sv.exited
		return fail(fmt.Errorf("proc: the server's init ended (%v) before the command started: %w", sv.waitErr, ErrInitKilled))
	}
	if pid, ok := readyPid(string(msg)); ok {
		p.pid = pid
		sv.mu.Lock()
		sv.cur = p
		sv.mu.Unlock()
		go p.serveWait(nil)
		return p, nil
	}
	// No "ready": the command could not start and the report says why.
	p.serveWait(msg)
	if p.exit.Err != nil {
		return nil, p.exit.Err
	}
	return p, nil
}

// release marks the server idle again, or gone.
func (sv *Server) release(retire bool) {
	sv.mu.Lock()
	sv.busy, sv.cur = false, nil
	if retire {
		sv.dead = true
	}
	sv.mu.Unlock()
}

// retire marks the server gone; its init is ended (if it is not already)
// when its channel closes.
func (sv *Server) retire() {
	sv.mu.Lock()
	sv.dead = true
	sv.mu.Unlock()
	_ = sv.conn.CloseWrite()
}

// streams returns the descriptors of the command's standard streams:
// a file as is, nil as /dev/null, any other reader or writer through a
// pipe srb copies (as exec.Cmd does).
func (p *Process) streams(stdin io.Reader, stdout, stderr io.Writer) ([]*os.File, error) {
	null, err := devNullRW()
	if err != nil {
		return nil, err
	}
	var files []*os.File
	// stdin
	switch r := stdin.(type) {
	case nil:
		files = append(files, null)
	case *os.File:
		files = append(files, r)
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		p.childEnds = append(p.childEnds, pr)
		p.parentEnds = append(p.parentEnds, pw)
		files = append(files, pr)
		p.copies.Add(1)
		go func() {
			defer p.copies.Done()
			_, err := io.Copy(pw, r)
			if err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, os.ErrClosed) {
				p.setCopyErr(err)
			}
			pw.Close()
		}()
	}
	for i, w := range []io.Writer{stdout, stderr} {
		if i == 1 && w != nil && interfaceEqual(stdout, stderr) {
			// One writer for both, as exec.Cmd: one pipe, one copy.
			files = append(files, files[1])
			continue
		}
		switch w := w.(type) {
		case nil:
			files = append(files, null)
		case *os.File:
			files = append(files, w)
		default:
			pr, pw, err := os.Pipe()
			if err != nil {
				return nil, err
			}
			p.childEnds = append(p.childEnds, pw)
			p.parentEnds = append(p.parentEnds, pr)
			files = append(files, pw)
			p.copies.Add(1)
			go func() {
				defer p.copies.Done()
				if _, err := io.Copy(w, pr); err != nil && !errors.Is(err, os.ErrClosed) {
					p.setCopyErr(err)
				}
				pr.Close()
			}()
		}
	}
	return files, nil
}

// interfaceEqual is a == b, false where == panics (exec.Cmd's test of
// Stdout against Stderr).
func interfaceEqual(a, b any) (eq bool) {
	defer func() { _ = recover() }()
	return a == b
}

func (p *Process) setCopyErr(err error) {
	p.mu.Lock()
	if p.copyErr == nil {
		p.copyErr = err
	}
	p.mu.Unlock()
}

func (p *Process) closeChildEnds() {
	for _, f := range p.childEnds {
		f.Close()
	}
	p.childEnds = nil
}

// closeStreams closes every pipe end srb holds (the copies then stop).
func (p *Process) closeStreams() {
	p.closeChildEnds()
	for _, f := range p.parentEnds {
		f.Close()
	}
}

// serveWait reads the command's report from the server (or uses early,
// a report read in place of "ready"), waits for the output to drain
// (within WaitDelay) and marks the process done and the server idle.
func (p *Process) serveWait(early []byte) {
	sv := p.srv
	msg := early
	var err error
	if msg == nil {
		msg, err = sv.recv()
	}
	e := Exit{Code: -1, Leftovers: -1, Containment: p.mode}
	retire := false
	head, body, _ := strings.Cut(string(msg), "\n")
	rep, ok := parseReport([]byte(body))
	switch {
	case err == nil && ok && (head == "report" || head == "retire") && string(rep.encode()) == body:
		e.Code, e.Signal, e.Leftovers, e.PrivateProc = rep.code, rep.signal, rep.left, rep.privateProc
		e.NoKeyring = rep.noKeyring
		if rep.err != "" {
			e.Err = errors.New(rep.err)
		}
		if head == "retire" {
			// The init could not end every process of the command: it
			// exits, and in a PID namespace the kernel ends the rest;
			// the process is done once the init has been reaped.
			retire = true
			sv.retire()
			<-sv.exited
		}
	case err == nil:
		// Only the init writes on the channel, one report per command in
		// its own encoding: anything else is not believed.
		e.Err = fmt.Errorf("proc: the channel of the server running %s held %d byte(s) that are not one report of its init; the exit is unknown", firstArg(p), len(msg))
		retire = true
		sv.retire()
		sv.kill()
		<-sv.exited
	default:
		// The init ended without a report: it was killed.
		retire = true
		sv.retire()
		<-sv.exited
		if ws, ok := sv.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		}
		if p.mode == Subreaper {
			_ = syscall.Kill(-sv.cmd.Process.Pid, syscall.SIGKILL)
		}
		switch {
		case e.Signal == syscall.SIGKILL && sv.killedInit.Load():
		case p.mode == Subreaper:
			e.Err = fmt.Errorf("proc: the server's init was killed (%v), not by srb: containment was lost and processes the command detached may still run: %w", sv.waitErr, ErrInitKilled)
		default:
			e.Err = fmt.Errorf("proc: the server's init ended without a report (%v): %w", sv.waitErr, ErrInitKilled)
		}
	}
	// The output drains once every process of the command is gone
	// (which the report says); WaitDelay bounds it, as exec.Cmd's.
	drained := make(chan struct{})
	go func() { p.copies.Wait(); close(drained) }()
	if p.waitDelay > 0 {
		select {
		case <-drained:
		case <-time.After(p.waitDelay):
			p.closeStreams()
			<-drained
			if e.Err == nil {
				e.Err = exec.ErrWaitDelay
			}
		}
	} else {
		<-drained
	}
	p.closeStreams()
	if e.Err == nil && p.copyErr != nil {
		e.Err = p.copyErr
	}
	e.Stopped = p.stopped.Load()
	p.exit = e
	sv.release(retire)
	close(p.done)
}

func firstArg(p *Process) string {
	if p.srv != nil {
		return "its command"
	}
	return p.cmd.Args[3]
}

// runServe is a server's init: it prepares its containment as runInit
// does, then runs each command it is sent, one at a time, and after each
// counts, kills and reaps what the command left before it reports. A
// command whose processes it could not end within sweepLimit is its last
// ("retire"): it exits, and in a PID namespace the kernel ends the rest.
func runServe(mode Containment) int {
	const fd, ctl = 3, 4
	syscall.CloseOnExec(fd)
	syscall.CloseOnExec(ctl)
	if CloseInheritedOnExec() != nil {
		// It never serves: srb starts each command with its own init,
		// which reports why.
		return 1
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1)
	inNS := mode == PIDNamespace && os.Getpid() == 1
	privateProc := false
	if inNS {
		if unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") == nil &&
			unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "") == nil {
			privateProc = true
		}
	} else {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	st := &serveState{c: containment{ns: inNS, privateProc: privateProc, self: os.Getpid()}}
	send := func(b []byte) { _ = syscall.Sendmsg(fd, b, nil, nil, 0) }
	// srb's kill and term, while a command runs.
	go func() {
		buf := make([]byte, 64)
		for {
			n, _, _, _, err := syscall.Recvmsg(ctl, buf, nil, 0)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || n == 0 {
				return
			}
			verb, rest, _ := strings.Cut(string(buf[:n]), " ")
			seq, _ := strconv.ParseUint(rest, 10, 64)
			switch verb {
			case "kill":
				st.signal(seq, syscall.SIGKILL)
			case "term":
				st.signal(seq, syscall.SIGTERM)
			}
		}
	}()
	go func() {
		for s := range sigs {
			sig := s.(syscall.Signal)
			if sig == syscall.SIGUSR1 {
				sig = syscall.SIGKILL
			}
			st.signalCurrent(sig)
		}
	}()
	// One thread reads each request and forks its command (a session
	// keyring is a thread's), with no hand-over between threads.
	runtime.LockOSThread()
	if noNewPrivs() != nil {
		// It never serves: srb starts each command with its own init,
		// which reports why.
		return 1
	}
	send([]byte("serving\n"))
	buf := make([]byte, serveMsgMax)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break // srb is done with the server, or gone
		}
		var fds []int
		if oobn > 0 {
			if cms, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, cm := range cms {
					if got, err := syscall.ParseUnixRights(&cm); err == nil {
						fds = append(fds, got...)
					}
				}
			}
		}
		r, ok := decodeServeRequest(buf[:n])
		if !ok || len(fds) != 3 {
			for _, f := range fds {
				syscall.Close(f)
			}
			break // not srb's request: the init ends
		}
		st.begin(r.Seq)
		rep, last := st.run(serveJob{r, fds})
		head := "report\n"
		if last {
			head = "retire\n"
		}
		send(append([]byte(head), rep.encode()...))
		if last {
			return 0
		}
	}
	st.c.signalAll(syscall.SIGKILL)
	reapZombies()
	return 0
}

// serveJob is a request and the standard streams it carries.
type serveJob struct {
	serveRequest
	fds []int
}

// serveState is the command a server's init runs now, for the signals
// srb sends it.
type serveState struct {
	c       containment
	mu      sync.Mutex
	seq     uint64
	started bool
	pending syscall.Signal
}

func (s *serveState) begin(seq uint64) {
	s.mu.Lock()
	s.seq, s.started, s.pending = seq, false, 0
	s.mu.Unlock()
}

// signal sends sig to every process of command seq, if it is the one
// running (a signal for a command not yet started is sent when it is).
func (s *serveState) signal(seq uint64, sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq == 0 || seq != s.seq {
		return
	}
	if s.started {
		s.c.signalAll(sig)
	} else if s.pending != syscall.SIGKILL {
		s.pending = sig
	}
}

func (s *serveState) signalCurrent(sig syscall.Signal) {
	s.mu.Lock()
	seq := s.seq
	s.mu.Unlock()
	s.signal(seq, sig)
}

// run starts one command, waits for it, and ends what it left; last says
// the init could not end it all and must exit.
func (s *serveState) run(job serveJob) (rep report, last bool) {
	defer func() {
		s.mu.Lock()
		s.seq, s.started, s.pending = 0, false, 0
		s.mu.Unlock()
	}()
	closeFds := func() {
		for _, f := range job.fds {
			syscall.Close(f)
		}
	}
	rep.privateProc = s.c.privateProc
	var err error
	rep.noKeyring, err = freshSessionKeyring()
	if err != nil {
		closeFds()
		rep.code, rep.left, rep.err = -1, 0, err.Error()
		return rep, false
	}
	cred := job.Sys.Credential
	if cred != nil && cred.Groups == nil {
		cred.Groups = []uint32{}
	}
	sys := &syscall.SysProcAttr{Credential: cred, Cloneflags: job.Sys.Cloneflags, Unshareflags: job.Sys.Unshareflags}
	files := make([]uintptr, len(job.fds))
	for i, f := range job.fds {
		files[i] = uintptr(f)
	}
	// syscall.ForkExec, not os.StartProcess: the os package forks an
	// extra child in each process to probe pidfd support first.
	main, err := syscall.ForkExec(job.Path, job.Argv, &syscall.ProcAttr{Dir: job.Dir, Env: job.Env, Files: files, Sys: sys})
	closeFds()
	if err != nil {
		rep.code, rep.left, rep.err = -1, 0, (&os.PathError{Op: "fork/exec", Path: job.Path, Err: err}).Error()
		return rep, false
	}
	_ = syscall.Sendmsg(3, []byte("ready "+strconv.Itoa(main)+"\n"), nil, nil, 0)
	s.mu.Lock()
	s.started = true
	if s.pending != 0 {
		s.c.signalAll(s.pending)
	}
	s.mu.Unlock()
	rep.code = -1
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break
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
	// No child left (a subreaper's and a namespace's init are the parent
	// of every orphan, so no child means no descendant): nothing to count.
	if reapZombies() {
		rep.left = 0
		return rep, false
	}
	rep.left = s.c.count()
	deadline := time.Now().Add(sweepLimit)
	for time.Now().Before(deadline) {
		s.c.signalAll(syscall.SIGKILL)
		if reapZombies() && s.c.count() == 0 {
			return rep, false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return rep, true
}
