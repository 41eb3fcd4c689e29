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
// PID, mount (a private /proc) and IPC namespace of its own, in its
// caller's network namespace (the session's own loopback, so a server the
// candidate starts through the launcher is one it reaches; a session on
// the host's network gets the host's), in the session's cgroup, with a
// HOME and
// TMPDIR of its own. When the program's main process ends, everything
// it started is ended, its uid swept and what it left in the shared
// temporary folders removed.

// launchClients are the clients' folders, one per base folder (a
// session's [Local.Base]), each with how many sessions use it. One client
// for the whole process, made in the first session's base, vanished
// under every other session when that base went (a test's tmpfs
// unmounted while another test's sessions ran: "srb-launch: not found").
var launchClients struct {
	sync.Mutex
	m map[string]*launchClient
}

type launchClient struct {
	dir  string
	refs int
}

// acquireLaunchClient returns the path of srb-launch for sessions under
// base: this executable copied once into a folder of root's there that
// every user may read and run from, removed when the last session using
// it releases it ([releaseLaunchClient] with the same base).
func acquireLaunchClient(base string) (string, error) {
	launchClients.Lock()
	defer launchClients.Unlock()
	lc := launchClients.m[base]
	if lc == nil {
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
		if launchClients.m == nil {
			launchClients.m = map[string]*launchClient{}
		}
		lc = &launchClient{dir: dir}
		launchClients.m[base] = lc
	}
	lc.refs++
	return filepath.Join(lc.dir, progsep.ClientName), nil
}

// releaseLaunchClient releases one use of base's client, removing it
// with its last.
func releaseLaunchClient(base string) {
	launchClients.Lock()
	defer launchClients.Unlock()
	lc := launchClients.m[base]
	if lc == nil {
		return
	}
	if lc.refs--; lc.refs == 0 {
		os.RemoveAll(lc.dir)
		delete(launchClients.m, base)
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
	base   string // the base folder its client was acquired under
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
		releaseLaunchClient(base)
		return nil, fmt.Errorf("launcher: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chown(sock, 0, c.uid); err == nil {
		err = os.Chmod(sock, 0o660)
	} else {
		ln.Close()
		releaseLaunchClient(base)
		return nil, fmt.Errorf("launcher: %w", err)
	}
	homes := filepath.Join(c.root, ".launch")
	if err := os.Mkdir(homes, 0o711); err != nil {
		ln.Close()
		releaseLaunchClient(base)
		return nil, fmt.Errorf("launcher: %w", err)
	}
	c.launcher = &localLauncher{client: client, base: base, sock: sock}
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
	releaseLaunchClient(c.launcher.base)
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
	// With --copy-cwd the program runs in a copy of its caller's folder
	// (docs/PROGSEP.md, "Files the program writes").
	launched := &progsep.Creds{UID: uid, GID: uid, Groups: []int{c.uid}}
	dir, work, copied, err := progsep.PrepareCwd(req, home, launched, hostuser.RemoveAll)
	if err != nil {
		return fail(err)
	}
	if work != "" {
		defer hostuser.RemoveAll(work)
	}
	spec := proc.Spec{Path: req.Path, Argv: req.Argv, Dir: dir, Env: env,
		Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2],
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{uint32(c.uid)}},
		Cloneflags: syscall.CLONE_NEWIPC,
		CgroupNS:   true, // no name of srb's cgroups in its /proc/self/cgroup
		WaitDelay:  2 * time.Second,
	}
	if c.cg != nil {
		spec.Cgroups = c.cg.Procs()
	}
	var p *proc.Process
	if c.spec.Network == "" || c.spec.Network == "none" {
		// The program joins its caller's network namespace (the
		// session's own, loopback only), so a server the candidate
		// starts through the launcher is one it can reach.
		p, err = startInNetNS(req.PeerPID, c.uid, spec)
	} else {
		p, err = proc.Start(spec)
	}
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
	if work != "" {
		// Nothing of the uid may still write its folder while it comes
		// back.
		hostuser.Sweep(uid)
		if err := progsep.FinishCwd(req, work, copied, launched); err != nil {
			return fail(err)
		}
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

// startInNetNS starts spec in the network namespace of process pid,
// which must be uid's (the caller, by the socket's peer credentials).
func startInNetNS(pid, uid int, spec proc.Spec) (*proc.Process, error) {
	ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, fmt.Errorf("the caller's network namespace: %w", err)
	}
	defer ns.Close()
	// The pid may have been reused since the caller connected: the
	// namespace is taken only from a process of the session's user.
	var st syscall.Stat_t
	if err := syscall.Stat(fmt.Sprintf("/proc/%d", pid), &st); err != nil || int(st.Uid) != uid {
		return nil, fmt.Errorf("the caller (pid %d) is gone", pid)
	}
	spec.NetNS = ns
	return proc.Start(spec)
}
