package kinds

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"golang.org/x/sys/unix"
)

// EnvJailSpec is the one variable the helper's jail command is started
// with: the JSON of a [jailSpec]. Only root (the grader) can read a
// process's environment, so nothing the submission starts learns it; the
// command's argument list is just "jail".
const EnvJailSpec = "SRB_JAIL_SPEC"

// Exit codes of the jail command when it cannot run the program: it
// could not be executed (as when it does not exist: "could not start"),
// or the sandbox itself could not be entered (a harness fault). Its
// stderr then starts with jailMark. Neither the code nor the text is
// trusted: the program itself can exit with any code and print anything.
// What srb believes is the jail's status file ([jailSpec.Status]).
const (
	jailExecFailed  = 121
	jailSetupFailed = 122
	jailMark        = "srb-jail: "
)

// Lines of the jail's status file: "setup: <why>" when the sandbox could
// not be entered, "exec: <why>" when the program could not be executed.
// An empty file means the program was executed.
const (
	jailStatusSetup = "setup: "
	jailStatusExec  = "exec: "
)

// jailSpec is what the jail command does: enter a mount namespace where
// Hide are empty and /proc is private (Mount), become UID:GID with no
// supplementary groups, then execute Argv (Argv[0] a path) with exactly
// Env in the working folder it was started in.
type jailSpec struct {
	UID   int      `json:"uid"`
	GID   int      `json:"gid"`
	Mount bool     `json:"mount,omitempty"`
	Hide  []string `json:"hide,omitempty"`
	// Net: the process was started in a network namespace of its own,
	// whose loopback the jail brings up.
	Net bool `json:"net,omitempty"`
	// NProc, above zero, is the RLIMIT_NPROC set before becoming UID.
	NProc uint64   `json:"nproc,omitempty"`
	Argv  []string `json:"argv"`
	Env   []string `json:"env"`
	// Status is a file the jail creates (exclusively, as root, before
	// anything else, in a folder only root can enter) and keeps open
	// close-on-exec: it writes why it failed there, and a successful exec
	// closes it empty. Nothing the submission runs can open, write or
	// replace it, so a program that exits 122 and prints jailMark cannot
	// pass for a sandbox failure (a grader fault, the verdict invalid).
	Status string `json:"status,omitempty"`
}

// jailMain is "srb-helper jail": it never returns when it succeeds.
func jailMain(stderr io.Writer) int {
	// One thread from the mounts to the exec: no_new_privs (enterJail) is
	// a thread's, and the exec must come from the thread that set it.
	runtime.LockOSThread()
	var s jailSpec
	if err := json.Unmarshal([]byte(os.Getenv(EnvJailSpec)), &s); err != nil || len(s.Argv) == 0 {
		fmt.Fprintf(stderr, "%sno usable %s: %v\n", jailMark, EnvJailSpec, err)
		return jailSetupFailed
	}
	// The status file first, as root and before any mount hides its
	// folder. Go opens every file close-on-exec: a successful exec below
	// closes it, empty.
	var status *os.File
	if s.Status != "" {
		f, err := os.OpenFile(s.Status, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "%sthe status file: %v\n", jailMark, err)
			return jailSetupFailed
		}
		status = f
	}
	report := func(line string) {
		fmt.Fprintf(stderr, "%s%s\n", jailMark, line)
		if status != nil {
			status.WriteString(line + "\n")
			status.Close()
		}
	}
	if err := enterJail(s); err != nil {
		report(jailStatusSetup + err.Error())
		return jailSetupFailed
	}
	err := syscall.Exec(s.Argv[0], s.Argv, s.Env)
	report(fmt.Sprintf("%sexec %s: %v", jailStatusExec, s.Argv[0], err))
	return jailExecFailed
}

// enterJail hides the grader's folders (the process was started in a
// fresh, private mount namespace when s.Mount) and drops to s.UID.
func enterJail(s jailSpec) error {
	if s.Mount {
		const flags = syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
		for _, p := range s.Hide {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if err := syscall.Mount("tmpfs", p, "tmpfs", flags, "size=4k,mode=0"); err != nil {
				return fmt.Errorf("hide %s: %w", p, err)
			}
		}
		if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "hidepid=2"); err != nil {
			return fmt.Errorf("a private /proc: %w", err)
		}
		// The process has an IPC namespace of its own, but a POSIX
		// message queue file system mounted on the machine (/dev/mqueue)
		// still shows the machine's queues: each gets this namespace's.
		for _, at := range mountsOfType("/proc/self/mountinfo", "mqueue") {
			if err := syscall.Mount("mqueue", at, "mqueue", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
				return fmt.Errorf("a private %s: %w", at, err)
			}
		}
	}
	if s.Net {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("the loopback of the network namespace: %w", err)
		}
	}
	if s.NProc > 0 {
		l := unix.Rlimit{Cur: s.NProc, Max: s.NProc}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &l); err != nil {
			return fmt.Errorf("RLIMIT_NPROC %d: %w", s.NProc, err)
		}
	}
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setgid(s.GID); err != nil {
		return fmt.Errorf("setgid %d: %w", s.GID, err)
	}
	if err := syscall.Setuid(s.UID); err != nil {
		return fmt.Errorf("setuid %d: %w", s.UID, err)
	}
	if os.Geteuid() != s.UID {
		return fmt.Errorf("still uid %d after setuid %d", os.Geteuid(), s.UID)
	}
	// As in a stage container (no-new-privileges): no setuid, setgid or
	// file-capability program of the machine's makes the submission's
	// processes more than its user.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

// mountsOfType is the mount points of every mount of type fstype in a
// mountinfo file (proc(5)), in its order; octal escapes (\040 for a
// space) are decoded.
func mountsOfType(mountinfo, fstype string) []string {
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil
	}
	var at []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		for i, x := range f {
			if x == "-" && i+1 < len(f) && len(f) > 4 && f[i+1] == fstype {
				at = append(at, unescapeMountPath(f[4]))
				break
			}
		}
	}
	return at
}

// unescapeMountPath decodes mountinfo's octal escapes (\ooo).
func unescapeMountPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) {
			if n, err := strconv.ParseUint(p[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// loopbackUp brings up the loopback interface of this process's network
// namespace (a fresh one has it down): programs of the submission that
// talk to themselves over 127.0.0.1 work as in a stage container.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// errJail is wrapped when a process of the submission could not be put in
// its sandbox: the grader's fault, never the submission's.
var errJail = errors.New("the submission's sandbox could not be entered")

// command returns the command that runs argv for the tree under test in
// dir with env: through the helper's jail command when the plan has a
// jail (as the submission's user, in its own process group), else
// directly. env is the full environment the program gets.
func (m *module) command(argv []string, dir string, env []string) (*exec.Cmd, jailStatus) {
	return m.commandNet(argv, dir, env, true)
}

// commandDirect is [module.command], with one difference where the jail
// has nothing to do but become the submission's user (a stage image: no
// mount namespace, no network namespace, no process limit of its own):
// the process init that contains the command starts it as that user
// itself ([proc.Spec.Credential]: no supplementary groups, then the gid,
// then the uid, in the child before it executes the program), rather
// than through the helper's jail command, a start of the whole helper
// (about 7 ms of CPU a process). The init is root and reports on srb's
// own channel, so no status file is needed: the command's start error is
// read with [jailStatus.startError]. Not for a traced command (the
// jail's exec is part of what a traced build records).
func (m *module) commandDirect(argv []string, dir string, env []string) (*exec.Cmd, jailStatus) {
	j := m.jail()
	if j == nil || len(m.plan.Helper) == 0 || j.Mount || j.Net || j.NProc > 0 {
		return m.command(argv, dir, env)
	}
	prog := lookPathIn(argv[0], env)
	if !strings.Contains(prog, "/") {
		prog = filepath.Join(dir, prog) // not found on PATH: exec fails, as the jail's would
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true,
		Credential: &syscall.Credential{Uid: uint32(j.UID), Gid: uint32(j.GID), Groups: []uint32{}}}
	return cmd, jailStatus(jailDirect + prog)
}

// commandNet is [module.command]; with ownNet false the jail makes no
// network namespace for the process even when it gives each process its
// own: the caller starts it in one it made (an http module's server,
// which the helper must reach: [newNetNS], proc.Spec.NetNS).
func (m *module) commandNet(argv []string, dir string, env []string, ownNet bool) (*exec.Cmd, jailStatus) {
	prog := lookPathIn(argv[0], env)
	j := m.jail()
	if j == nil || len(m.plan.Helper) == 0 {
		cmd := exec.Command(prog, argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd, ""
	}
	status, serr := m.newJailStatus()
	if !strings.Contains(prog, "/") {
		prog = filepath.Join(dir, prog) // not found on PATH: exec fails, as exec.Command would
	}
	net := j.Net && j.Mount && ownNet
	spec, _ := json.Marshal(jailSpec{UID: j.UID, GID: j.GID, Mount: j.Mount, Hide: j.Hide, Net: net, NProc: j.NProc,
		Argv: append([]string{prog}, argv[1:]...), Env: env, Status: string(status)})
	cmd := exec.Command(m.plan.Helper[0], append(append([]string{}, m.plan.Helper[1:]...), "jail")...)
	cmd.Dir = dir
	cmd.Env = []string{EnvJailSpec + "=" + string(spec)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if j.Mount {
		// An IPC namespace too: the submission's System V objects and
		// POSIX message queues are its own, and no other user's are
		// listed or reachable (ClearIPC still sweeps its uid's at the
		// end).
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC
	}
	if net {
		cmd.SysProcAttr.Unshareflags |= syscall.CLONE_NEWNET
	}
	if serr != nil {
		// No folder for the status file: the jail cannot report, so the
		// command is not run (its spec names no argv) and the result is
		// the grader's fault.
		cmd.Env = []string{EnvJailSpec + "="}
		return cmd, jailStatus(jailStatusSetup + serr.Error())
	}
	return cmd, status
}

// jailStatus is the path of a jail's status file ([jailSpec.Status]),
// "" when the process runs without a jail, (when it starts with
// jailStatusSetup) why no status file could be prepared, or (when it
// starts with jailDirect) the program the process init starts as the
// submission's user itself ([module.commandDirect]).
type jailStatus string

// jailDirect starts the status of a process started as the submission's
// user by its init, without the jail command.
const jailDirect = "direct:"

// refused reports whether err is the start of a process of
// [module.commandDirect] refused with EPERM or EINVAL: by setgroups,
// setgid or setuid (the grader's fault: the sandbox cannot be entered)
// or by execve (the submission's program), which the init cannot tell
// apart; the jail command can.
func (st jailStatus) refused(err error) bool {
	var errno syscall.Errno
	return strings.HasPrefix(string(st), jailDirect) && errors.As(err, &errno) && (errno == syscall.EPERM || errno == syscall.EINVAL)
}

// startError is what the start error err of the process means: for one
// started as the submission's user by its init ([module.commandDirect]),
// a program that could not be executed is the jail's "exec PROG: why"
// (the submission's: it observes "could not start", as through the
// jail). Other errors are returned as they are.
func (st jailStatus) startError(err error) error {
	prog, ok := strings.CutPrefix(string(st), jailDirect)
	if !ok || err == nil {
		return err
	}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return fmt.Errorf("exec %s: %v", prog, errno)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("exec %s: %v", prog, syscall.EACCES)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("exec %s: %v", prog, syscall.ENOENT)
	}
	return err
}

// jailStatusSeq numbers status files within this process.
var jailStatusSeq atomic.Uint64

// newJailStatus returns a fresh status file path in a folder of root's
// (mode 0700) made once per module: under the module's work folder (which
// the jail hides from the submission) or, without one, the temporary
// folder.
func (m *module) newJailStatus() (jailStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.statusDir == "" {
		base := m.work
		if base == "" {
			base = os.TempDir()
		} else if err := os.MkdirAll(base, 0o700); err != nil {
			return "", fmt.Errorf("the jail's status folder: %w", err)
		}
		d, err := os.MkdirTemp(base, "jail-status-")
		if err != nil {
			return "", fmt.Errorf("the jail's status folder: %w", err)
		}
		m.statusDir = d
	}
	return jailStatus(filepath.Join(m.statusDir, strconv.FormatUint(jailStatusSeq.Add(1), 10))), nil
}

// unprepared is the grader's fault of a status that could not be
// prepared ([module.newJailStatus] failed): the command must not run.
func (st jailStatus) unprepared() error {
	if strings.HasPrefix(string(st), jailStatusSetup) {
		return st.read(false)
	}
	return nil
}

// read says what the jail reported, once its process has ended, and
// removes the file: nil when the program was executed (or there was no
// jail), an error wrapping errJail when the sandbox could not be entered
// (or the jail never reported: no file and the process was not stopped
// by srb), or a plain error when the program could not be executed. The
// program's own exit code and output are never consulted.
func (st jailStatus) read(stopped bool) error {
	switch {
	case st == "" || strings.HasPrefix(string(st), jailDirect):
		return nil
	case strings.HasPrefix(string(st), jailStatusSetup):
		return fmt.Errorf("%w: %s", errJail, strings.TrimPrefix(string(st), jailStatusSetup))
	}
	f, err := os.OpenFile(string(st), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && stopped {
			return nil // stopped (a timeout) before the jail began
		}
		return fmt.Errorf("%w: the jail left no status: %v", errJail, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	f.Close()
	os.Remove(string(st))
	if err != nil {
		return fmt.Errorf("%w: the jail's status: %v", errJail, err)
	}
	line := strings.TrimSpace(string(b))
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, jailStatusSetup):
		return fmt.Errorf("%w: %s", errJail, strings.TrimPrefix(line, jailStatusSetup))
	case strings.HasPrefix(line, jailStatusExec):
		return errors.New(strings.TrimPrefix(line, jailStatusExec))
	}
	return fmt.Errorf("%w: the jail's status is unreadable: %q", errJail, line)
}

// jail returns the plan's jail, or nil.
func (m *module) jail() *behavioural.Jail {
	if m.plan == nil {
		return nil
	}
	return m.plan.Jail
}

// cgroup returns the jail's cgroup group, or nil (no jail, or one with
// no cgroup: the stage image, whose container bounds the whole stage).
func (m *module) cgroup() *cgroup.Group {
	if j := m.jail(); j != nil {
		return j.Cgroup
	}
	return nil
}

// cgroupNS says whether the submission's processes get a cgroup namespace
// of their own (proc.Spec.CgroupNS): with --host as root (the jail's
// mount namespace), so their /proc/self/cgroup reads "/" for the stage
// run's group (or, with none, for the cgroups srb runs in) and names none
// of srb's cgroups. A stage container (no CAP_SYS_ADMIN) cannot make
// one; its processes see the container's cgroups, not srb's.
func (m *module) cgroupNS() bool {
	j := m.jail()
	return j != nil && j.Mount && len(m.plan.Helper) > 0
}

// baseEnv is the environment every process of the tree under test starts
// from: with a jail, the allow-listed names, HOME and TMPDIR in the
// sandbox, and the task's declared variables; without one, the helper's
// own environment (which the runner built the same way) without the
// contract names.
func (m *module) baseEnv() []string {
	var declared []string
	if m.plan != nil {
		for _, k := range sortedKeys(m.plan.Env) {
			declared = append(declared, k+"="+m.plan.Env[k])
		}
	}
	if j := m.jail(); j != nil {
		return j.Env(os.Environ(), declared...)
	}
	return behavioural.SubmissionEnv(os.Environ(), declared...)
}

// scratch returns a fresh folder named name for the submission's use in
// this module: in the sandbox, owned by the submission's user, when the
// plan has a jail; else under the module's work folder.
func (m *module) scratch(name string) (string, error) {
	if j := m.jail(); j != nil {
		return j.Scratch(m.plan.Module, name)
	}
	dir := filepath.Join(m.work, name)
	if err := m.discard(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// discard removes dir in O(1) ([behavioural.Trash]): into the jail's
// trash, or without a jail the suite's work folder's, both emptied after
// the stage's result is published.
func (m *module) discard(dir string) error {
	if j := m.jail(); j != nil {
		return j.Trash().Discard(dir)
	}
	base := m.suiteWork
	if base == "" {
		base = filepath.Dir(m.work)
	}
	return behavioural.Trash{Dir: filepath.Join(base, behavioural.TrashName)}.Discard(dir)
}

// own gives p (a folder srb prepared, as root) to the submission's user
// when the plan has a jail.
func (m *module) own(p string) error {
	if j := m.jail(); j != nil {
		return j.Own(p, false)
	}
	return nil
}

// data is ${DATA}: the copy of the task's data in the sandbox, or the
// task folder without a jail.
func (m *module) data() string {
	if j := m.jail(); j != nil && j.Data != "" {
		return j.Data
	}
	return m.plan.TaskDir
}
