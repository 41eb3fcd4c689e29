// Package progsep runs a program under test apart from the candidate that
// runs it (stage 3's program separation, docs/LADDER.md "Programs under
// test run apart").
//
// A stage-3 candidate is the adversary's code and decides a run by its exit
// status; the submission's programs it runs are the submission's code. When
// both run as one uid, the program can take the candidate over (ptrace of
// its ancestors, /proc/PID/mem, signals, rewriting the candidate's files)
// and make every run pass: forge-pass. Here the candidate never starts the
// program itself. It runs the launcher client (this package's [Client],
// any binary that links this package started under the name "srb-launch")
// with the program's command line; the client hands its command line,
// environment, working folder and standard streams (the descriptors
// themselves, over SCM_RIGHTS) to a broker ([Serve]) that runs as root
// beside the sandbox, which starts the program as a uid of its own (in a
// PID namespace of its own where it may make one) and answers with its
// exit status. The client exits with that status (128+N for a signal N),
// or 125 when the program could not be launched.
//
// The broker trusts nothing of the request but the caller's uid (the
// socket's peer credentials): the program runs with the caller's
// environment and working folder as a user that may read what the
// caller's group may read and write nothing of the caller's.
//
// The client forwards SIGTERM, SIGINT and SIGHUP it receives as a request
// to end the program; when the client dies (its connection closes) the
// broker ends the program.
package progsep

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// ClientName is the name the launcher client is started under: a binary
// linking this package whose argv[0]'s base is ClientName runs [Client]
// from this package's init and exits.
const ClientName = "srb-launch"

// SocketEnv names the variable a client finds the broker's socket in when
// it is given no --socket.
const SocketEnv = "SRB_LAUNCH_SOCKET"

// LaunchFault is the client's exit status when the program could not be
// launched (as docker run's 125).
const LaunchFault = 125

// maxRequest bounds a request's JSON (command line and environment).
const maxRequest = 4 << 20

// MaxLaunches bounds the launches one broker runs at once; a request past
// it is refused (the client exits [LaunchFault]).
const MaxLaunches = 64

func init() {
	if len(os.Args) > 0 {
		switch filepath.Base(os.Args[0]) {
		case ClientName:
			// syscall.Exit, not os.Exit: the client has nothing left
			// to flush, and a race-enabled one (the tests') would
			// sleep a second at each exit with status 0 (a race it
			// finds is still reported on its standard error).
			syscall.Exit(Client(os.Args[1:], os.Stderr))
		case BrokerName:
			os.Exit(BrokerMain(os.Args[1:], os.Stderr))
		}
	}
}

// Request is what a client asks: the program (an absolute path, resolved
// by the client in its own PATH and working folder), its argv (argv[0] as
// the caller gave it), its environment and working folder.
type Request struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// CopyCwd runs the program in a copy of Dir, a folder of its own,
	// and brings what it wrote there back into Dir when it ends
	// ([CopyIn], [CopyBack]; the client's --copy-cwd).
	CopyCwd bool `json:"copy_cwd,omitempty"`
	// PeerPID is the caller's pid in the broker's PID namespace (the
	// socket's peer credentials), never taken from the request.
	PeerPID int `json:"-"`
	// PeerUID and PeerGID are the caller's, from the same credentials.
	PeerUID int `json:"-"`
	PeerGID int `json:"-"`
}

// Reply is the broker's answer once the program and everything it started
// are gone: its exit code (-1 when a signal ended it), the signal, or why
// it could not run.
type Reply struct {
	Code   int    `json:"code"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Client is srb-launch: `srb-launch [--socket PATH] [--copy-cwd] [--]
// PROGRAM [ARG...]`. With --copy-cwd the program runs in a copy of the
// working folder (what the caller's group may read of it) and what it
// writes there is brought back when it ends ([CopyBack]).
func Client(args []string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "srb-launch: "+format+"\n", a...)
		return LaunchFault
	}
	sock := os.Getenv(SocketEnv)
	copyCwd := false
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] == "--socket" && len(args) > 1 {
			sock, args = args[1], args[2:]
			continue
		}
		if args[0] == "--copy-cwd" {
			copyCwd, args = true, args[1:]
			continue
		}
		if v, ok := strings.CutPrefix(args[0], "--socket="); ok {
			sock, args = v, args[1:]
			continue
		}
		break
	}
	if len(args) == 0 {
		return fail("usage: srb-launch [--socket PATH] [--copy-cwd] [--] PROGRAM [ARG...]")
	}
	if sock == "" {
		return fail("no broker socket (--socket or %s)", SocketEnv)
	}
	dir, err := os.Getwd()
	if err != nil {
		return fail("working folder: %v", err)
	}
	prog := args[0]
	if !strings.Contains(prog, "/") {
		if prog, err = exec.LookPath(prog); err != nil {
			fmt.Fprintf(stderr, "srb-launch: %s: command not found\n", args[0])
			return 127
		}
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	// The signals that end a program are forwarded from the start, so a
	// candidate that kills its background server right after starting it
	// still ends the program, not only this client.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return fail("connect to the broker: %v", err)
	}
	defer conn.Close()
	req, err := json.Marshal(Request{Path: prog, Argv: args, Env: os.Environ(), Dir: dir, CopyCwd: copyCwd})
	if err != nil {
		return fail("%v", err)
	}
	// The working folder goes as a descriptor too, so the broker can
	// tell the folder named is the caller's own.
	cwd, err := os.Open(".")
	if err != nil {
		return fail("working folder: %v", err)
	}
	defer cwd.Close()
	rights := syscall.UnixRights(0, 1, 2, int(cwd.Fd()))
	if _, _, err := conn.WriteMsgUnix(append(req, '\n'), rights, nil); err != nil {
		// A broker that refused the caller answered and closed first.
		var rep Reply
		if json.NewDecoder(conn).Decode(&rep) == nil && rep.Error != "" {
			return fail("%s", rep.Error)
		}
		return fail("send the request: %v", err)
	}
	go func() {
		for range sigs {
			conn.Write([]byte("t\n"))
		}
	}()
	var rep Reply
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&rep); err != nil {
		return fail("the broker gave no answer: %v", err)
	}
	switch {
	case rep.Error != "":
		return fail("%s", rep.Error)
	case rep.Signal != 0:
		return 128 + rep.Signal
	case rep.Code < 0 || rep.Code > 255:
		return fail("the broker answered exit code %d", rep.Code)
	}
	return rep.Code
}

// Launch runs one request: the program with the caller's standard streams
// (stdio[0..2], owned by Launch's caller, closed after it returns) until
// it and everything it started are gone, or until stop is closed (the
// caller asked to end it, or went away), then ends it. It returns the
// reply to send.
type Launch func(ctx context.Context, req Request, stdio [3]*os.File, stop <-chan struct{}) Reply

// Broker serves one socket. Close stops it and waits for every launch.
type Broker struct {
	ln     *net.UnixListener
	slots  chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
	active sync.WaitGroup
}

// Serve listens on ln for clients whose uid (the socket's peer
// credentials) is clientUID (any uid when clientUID < 0) and runs each
// request with launch, one goroutine per connection.
func Serve(ln *net.UnixListener, clientUID int, launch Launch) *Broker {
	ctx, cancel := context.WithCancel(context.Background())
	b := &Broker{ln: ln, cancel: cancel, slots: make(chan struct{}, MaxLaunches)}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			conn, err := ln.AcceptUnix()
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			b.active.Add(1)
			go func() {
				defer b.active.Done()
				defer conn.Close()
				select {
				case b.slots <- struct{}{}:
					defer func() { <-b.slots }()
					serveConn(ctx, conn, clientUID, launch)
				default:
					b, _ := json.Marshal(Reply{Code: -1, Error: fmt.Sprintf("more than %d programs launched at once", MaxLaunches)})
					conn.Write(append(b, '\n'))
				}
			}()
		}
	}()
	return b
}

// Idle waits until no launch is running.
func (b *Broker) Idle() { b.active.Wait() }

// Close stops accepting, ends every running launch and waits for them.
func (b *Broker) Close() {
	b.cancel()
	b.ln.Close()
	b.wg.Wait()
	b.active.Wait()
}

func peerCred(conn *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, cerr
}

func serveConn(ctx context.Context, conn *net.UnixConn, clientUID int, launch Launch) {
	reply := func(r Reply) {
		b, _ := json.Marshal(r)
		conn.Write(append(b, '\n'))
	}
	cred, err := peerCred(conn)
	if err != nil {
		reply(Reply{Error: "caller: " + err.Error()})
		return
	}
	if clientUID >= 0 && int(cred.Uid) != clientUID {
		reply(Reply{Error: fmt.Sprintf("caller uid %d may not launch here", cred.Uid)})
		return
	}
	// The first read carries the descriptors with the first bytes of the
	// request; the rest of the line follows.
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return
	}
	var files []*os.File
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if fds, err := syscall.ParseUnixRights(&m); err == nil {
				for _, fd := range fds {
					files = append(files, os.NewFile(uintptr(fd), "stdio"))
				}
			}
		}
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if len(files) != 4 {
		reply(Reply{Error: fmt.Sprintf("the request carried %d descriptors, want 4", len(files))})
		return
	}
	data := buf[:n]
	rd := bufio.NewReader(conn)
	for !strings.Contains(string(data), "\n") {
		if len(data) > maxRequest {
			reply(Reply{Error: "request too long"})
			return
		}
		more, err := rd.ReadBytes('\n')
		data = append(data, more...)
		if err != nil {
			break
		}
	}
	var req Request
	if err := json.Unmarshal(data, &req); err != nil {
		reply(Reply{Error: "request: " + err.Error()})
		return
	}
	req.PeerPID, req.PeerUID, req.PeerGID = int(cred.Pid), int(cred.Uid), int(cred.Gid)
	if !filepath.IsAbs(req.Path) || !filepath.IsAbs(req.Dir) || len(req.Argv) == 0 {
		reply(Reply{Error: "request: the program and working folder must be absolute paths"})
		return
	}
	// The working folder is the caller's own (the descriptor it sent):
	// the init enters it as root and the program inherits it, so never a
	// folder the request merely names.
	var want, got syscall.Stat_t
	if syscall.Stat(req.Dir, &want) != nil || syscall.Fstat(int(files[3].Fd()), &got) != nil ||
		want.Dev != got.Dev || want.Ino != got.Ino {
		reply(Reply{Error: fmt.Sprintf("%s is not the caller's working folder", req.Dir)})
		return
	}
	// Anything more from the client (a forwarded signal) or its going
	// away ends the program.
	stop := make(chan struct{})
	go func() {
		rd.ReadByte()
		close(stop)
	}()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopOrCtx := make(chan struct{})
	go func() {
		select {
		case <-stop:
		case <-lctx.Done():
		}
		close(stopOrCtx)
	}()
	reply(launch(lctx, req, [3]*os.File{files[0], files[1], files[2]}, stopOrCtx))
}
