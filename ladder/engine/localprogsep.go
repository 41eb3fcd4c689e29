package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/proc"
	"github.com/swe-refactor-bench/srb/ladder/progsep"
)

// The launcher of a [Local] session ([Spec.Launcher], as root): a broker
// (ladder/progsep) on a socket in the session's root folder that only the
// session's user may reach, and the client, this binary under the name
// srb-launch, in a folder every user may read. Each launch runs the
// program through ladder/proc as a uid of its own drawn by hostuser.Draw
// (never the session's: it cannot ptrace, open /proc/PID/mem of, signal
// or write the files of the session's processes), whose only
// supplementary group is the session user's (so it reads what that
// group may read: the working folder a runner opened to its group), in a
// PID, mount (a private /proc), IPC and network namespace of its own
// (the network namespace: loopback only; the caller's is not joined, so
// a server the candidate starts through the launcher is out of its
// reach: see docs/LADDER.md), in the session's cgroup, with a HOME and
// TMPDIR of its own. When the program's main process ends, everything
// it started is ended, its uid swept and what it left in the shared
// temporary folders removed.

// launchClient is the client's path and how many sessions use it.
var launchClient struct {
	sync.Mutex
	dir  string
	refs int
}

// acquireLaunchClient returns the path of srb-launch: this executable
// copied once into a folder of root's that every user may read and run
// from, removed when the last session using it releases it.
func acquireLaunchClient(base string) (string, error) {
	launchClient.Lock()
	defer launchClient.Unlock()
	if launchClient.dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		dir, err := os.MkdirTemp(base, "srb-launch-")
		if err != nil {
			return "", err
		}
		if err := copyExecutable(exe, filepath.Join(dir, progsep.ClientName)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		launchClient.dir = dir
	}
	launchClient.refs++
	return filepath.Join(launchClient.dir, progsep.ClientName), nil
}

func releaseLaunchClient() {
	launchClient.Lock()
	defer launchClient.Unlock()
	if launchClient.refs--; launchClient.refs == 0 && launchClient.dir != "" {
		os.RemoveAll(launchClient.dir)
		launchClient.dir = ""
	}
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// localLauncher is a session's broker.
type localLauncher struct {
	broker *progsep.Broker
	client string
	sock   string
}

// startLauncher serves the session's launcher and returns the variables
// its commands find it by.
func (c *localContainer) startLauncher(base string) ([]string, error) {
	client, err := acquireLaunchClient(base)
	if err != nil {
		return nil, fmt.Errorf("launcher: %w", err)
	}
	sock := filepath.Join(c.root, ".launch.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		releaseLaunchClient()
		return nil, fmt.Errorf("launcher: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chown(sock, 0, c.uid); err == nil {
		err = os.Chmod(sock, 0o660)
	} else {
		ln.Close()
		releaseLaunchClient()
		return nil, fmt.Errorf("launcher: %w", err)
	}
	homes := filepath.Join(c.root, ".launch")
	if err := os.Mkdir(homes, 0o711); err != nil {
		ln.Close()
		releaseLaunchClient()
		return nil, fmt.Errorf("launcher: %w", err)
	}
	c.launcher = &localLauncher{client: client, sock: sock}
	c.launcher.broker = progsep.Serve(ln, c.uid, c.launch)
	return []string{"SRB_LAUNCH=" + client, progsep.SocketEnv + "=" + sock}, nil
}

// Launches implements [launches].
func (c *localContainer) Launches() bool { return c.launcher != nil }

// stopLauncher ends every launch and stops the broker.
func (c *localContainer) stopLauncher() {
	if c.launcher == nil {
		return
	}
	c.launcher.broker.Close()
	releaseLaunchClient()
}

// launch is the session's [progsep.Launch].
func (c *localContainer) launch(ctx context.Context, req progsep.Request, stdio [3]*os.File, stop <-chan struct{}) progsep.Reply {
	fail := func(err error) progsep.Reply { return progsep.Reply{Code: -1, Error: err.Error()} }
	c.pmu.Lock()
	stopped := c.killed || c.gone
	c.pmu.Unlock()
	if stopped {
		return fail(errors.New("the session is not running"))
	}
	ids, err := hostuser.Draw(1)
	if err != nil {
		return fail(err)
	}
	uid := ids[0]
	home := filepath.Join(c.root, ".launch", strconv.Itoa(uid))
	if err := os.Mkdir(home, 0o700); err != nil {
		return fail(err)
	}
	defer hostuser.RemoveAll(home)
	if err := os.Chown(home, uid, uid); err != nil {
		return fail(err)
	}
	env := make([]string, 0, len(req.Env)+2)
	for _, kv := range req.Env {
		if k, _, _ := cutEq(kv); k != "HOME" && k != "TMPDIR" {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "TMPDIR="+home)
	spec := proc.Spec{Path: req.Path, Argv: req.Argv, Dir: req.Dir, Env: env,
		Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2],
		Credential:   &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{uint32(c.uid)}},
		Cloneflags:   syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET,
		Unshareflags: 0,
		WaitDelay:    2 * time.Second,
	}
	if c.cg != nil {
		spec.Cgroups = c.cg.Procs()
	}
	p, err := proc.Start(spec)
	if err != nil {
		return fail(err)
	}
	defer func() {
		hostuser.Sweep(uid)
		hostuser.ClearShared(uid)
	}()
	go func() {
		select {
		case <-stop:
			p.Terminate(2 * time.Second)
		case <-p.Done():
		}
	}()
	e := p.Wait()
	if e.Err != nil {
		return fail(e.Err)
	}
	if e.Signal != 0 {
		return progsep.Reply{Code: -1, Signal: int(e.Signal)}
	}
	return progsep.Reply{Code: e.Code}
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
