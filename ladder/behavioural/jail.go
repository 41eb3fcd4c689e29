package behavioural

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// SubmissionUID and SubmissionGID are the user and group every process
// the tree under test controls runs as in stage 2 (its build, its
// programs, its server), when the grader is root: a numeric id with no
// account, so it owns nothing but the sandbox srb hands it. Stage 3's
// candidates use another (verification.CandidateUser).
const (
	SubmissionUID = 65531
	SubmissionGID = 65531
)

// Isolation levels a stage-2 run records in its metadata ("isolation").
const (
	// IsolationMount: the submission's processes run as [SubmissionUID]
	// in a mount namespace of their own, where the grader's folders
	// (Jail.Hide) are empty and /proc shows only their own user's
	// processes, and an IPC namespace of their own, with no_new_privs;
	// the grader's folders are also private by permissions.
	IsolationMount = "uid+mount-namespace"
	// IsolationUID: they run as [SubmissionUID]; the grader's folders are
	// private by permissions only (a stage image, where no mount
	// namespace can be made). /proc lists the grader's processes, whose
	// argument lists name no private file, unless srb hid them from the
	// machine (engine.Hardening.ProcHidden, the usual case).
	IsolationUID = "uid"
	// IsolationNone: srb is not root and cannot start processes as
	// another user, so the submission runs as srb's own user and can
	// reach whatever that user can (docs/LADDER.md, "--host").
	IsolationNone = "none"
)

// Jail says how the processes the tree under test controls are started in
// stage 2. It travels in every [Plan] (which only the grader reads). The
// graded side is given Root's sandbox folders and nothing else: its own
// user, an environment built from [AllowedEnv] plus what the task
// declares, a HOME and TMPDIR inside Root, and its data files copied to
// Data. What it must not reach — truth, plans, the ledger's records,
// module programs, the results — lives in folders only root can enter,
// and, with Mount, is hidden as well.
type Jail struct {
	// UID and GID are the submission's user and group.
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Root is the sandbox folder (root-owned, 0755): <Root>/home and
	// <Root>/tmp belong to UID; <Root>/<module>/ holds each module's
	// scratch (build copies, case folders) and <Root>/ledger each
	// configuration's build while it builds.
	Root string `json:"root"`
	// Data is the copy of the task's data/ folder the submission may read
	// (<Data>/data/…): ${DATA} in a module's argv.
	Data string `json:"data"`
	// Mount starts each process in a new mount namespace where every
	// folder of Hide is covered by an empty read-only tmpfs and /proc is
	// remounted with hidepid=2, and a new IPC namespace, with
	// no_new_privs.
	Mount bool `json:"mount,omitempty"`
	// Hide are the grader's folders (absolute).
	Hide []string `json:"hide,omitempty"`
	// Net starts each process in a network namespace of its own with
	// only its loopback, up: the host's services (listening on its
	// loopback, or on abstract unix sockets) and other sandboxes are out
	// of reach, as in a stage container (network "none"). An http
	// module's server, which the grader must reach, gets one the helper
	// made and dials into. Set by [NewJail] with mount when the kernel
	// allows it; NetRefused then says why not.
	Net        bool   `json:"net,omitempty"`
	NetRefused string `json:"net_refused,omitempty"`
	// NProc, when above zero, is the RLIMIT_NPROC (soft and hard) every
	// process of the submission gets before it becomes UID: at most
	// NProc processes and threads of that user at once, so a fork bomb
	// cannot fill the machine's PID space ([SubmissionProcessLimit], set
	// by [NewJail] with mount, the --host sandbox).
	NProc uint64 `json:"nproc,omitempty"`
	// Cgroup, when set, is the stage run's cgroup group (--host as
	// root: the task's limits.memory and limits.pids, as the stage
	// image's container has): the containment's init of every process
	// of the submission joins it before the process starts
	// (proc.Spec.Cgroups), so all of them together, setsid or
	// double-forked ones too, are bounded by it. The grader made it and
	// removes it after the stage; the helper only reads its counters.
	Cgroup *cgroup.Group `json:"cgroup,omitempty"`
	// Helper is the argv prefix of a copy of the helper inside Root that
	// the submission's user can execute (the tool-provenance wrappers
	// its build runs); empty until [Jail.InstallHelper].
	Helper []string `json:"helper,omitempty"`
}

// InstallHelper copies helper's program (helper[0]) into <Root>/bin under
// the same name (a multi-call binary is chosen by that name), root-owned
// and 0755, and sets j.Helper to run it with helper's other arguments.
func (j *Jail) InstallHelper(helper []string) error {
	if len(helper) == 0 {
		return errors.New("sandbox: no helper to install")
	}
	bin := filepath.Join(j.Root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	b, err := os.ReadFile(helper[0])
	if err != nil {
		return fmt.Errorf("sandbox: the helper: %w", err)
	}
	dst := filepath.Join(bin, filepath.Base(helper[0]))
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		return fmt.Errorf("sandbox: the helper: %w", err)
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return fmt.Errorf("sandbox: the helper: %w", err)
	}
	j.Helper = append([]string{dst}, helper[1:]...)
	return nil
}

// SubmissionProcessLimit is the RLIMIT_NPROC of the submission's
// processes in stage 2 ([Jail.NProc]): the same bound stage 3's --host
// path gives each candidate's uid (verification.HostProcessLimit).
const SubmissionProcessLimit = 4096

// Network says which network the submission's processes have, for a
// stage's metadata ("network"): "own namespace, loopback only",
// "the stage container's" (no mount namespace: a stage image, whose
// container has no network), "host (…why…)" when a namespace was
// refused, or "host" for nil.
func (j *Jail) Network() string {
	switch {
	case j == nil:
		return "host"
	case j.Net:
		return "own namespace, loopback only"
	case !j.Mount:
		return "the stage container's"
	case j.NetRefused != "":
		return "host (a network namespace was refused: " + j.NetRefused + ")"
	}
	return "host"
}

// probeNetNS reports whether this process may make a network namespace:
// a locked thread unshares one and then ends with its goroutine (a
// thread still locked when its goroutine returns is discarded), so no
// other code runs in it.
func probeNetNS() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- syscall.Unshare(syscall.CLONE_NEWNET)
	}()
	return <-errc
}

// Level returns the isolation level j gives ([IsolationNone] for nil).
func (j *Jail) Level() string {
	switch {
	case j == nil:
		return IsolationNone
	case j.Mount:
		return IsolationMount
	}
	return IsolationUID
}

// NewJail makes the sandbox folder root (which must not exist or be
// empty) for a submission running as uid:gid, copies taskDir's data/
// into it, and returns the jail. root's parents must be searchable by
// every user (a folder under /tmp is). hide lists the grader's folders.
func NewJail(root, taskDir string, uid, gid int, mount bool, hide []string) (*Jail, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	j := &Jail{UID: uid, GID: gid, Root: root, Data: filepath.Join(root, "task"), Mount: mount, Hide: hide}
	if mount {
		// On the host (a stage container has its own pids limit, and
		// its fixed uid may be shared by several containers).
		j.NProc = SubmissionProcessLimit
		if err := probeNetNS(); err != nil {
			j.NetRefused = err.Error()
		} else {
			j.Net = true
		}
	}
	for _, d := range []string{"home", "tmp"} {
		if err := j.Own(filepath.Join(root, d), true); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(j.Data, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	src := filepath.Join(taskDir, "data")
	if _, err := os.Stat(src); err == nil {
		// The task's data as the author wrote it: modes kept (folders
		// enterable by their owner), links copied as links, never followed.
		if _, err := copytree.Copy(src, filepath.Join(j.Data, "data"), copytree.Options{Modes: copytree.Keep, DirBits: 0o700}); err != nil {
			return nil, fmt.Errorf("sandbox: the task's data: %w", err)
		}
	}
	return j, nil
}

// Own makes dir (when mk, fresh: removed first) and gives it and
// everything under it to the submission's user, links changed themselves
// and never followed.
func (j *Jail) Own(dir string, mk bool) error {
	if mk {
		if err := j.Trash().Discard(dir); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	return chownTree(dir, j.UID, j.GID)
}

// Disown gives dir and everything under it back to root, links changed
// themselves and never followed. Modes are kept: they are what a module
// observes (an install tree's 0644 stays 0644).
func Disown(dir string) error { return chownTree(dir, 0, 0) }

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// Scratch returns a fresh folder <Root>/<module>/<name> owned by the
// submission's user.
func (j *Jail) Scratch(module, name string) (string, error) {
	dir := filepath.Join(j.Root, module, name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return dir, j.Own(dir, true)
}

// Env returns the environment a submission's process starts from: the
// names [AllowedEnv] keeps from base, HOME and TMPDIR inside the sandbox,
// then extra (KEY=VALUE, later ones win; what the task declares).
func (j *Jail) Env(base []string, extra ...string) []string {
	env := AllowedEnv(base)
	env = mergeEnv(env, "HOME="+filepath.Join(j.Root, "home"), "TMPDIR="+filepath.Join(j.Root, "tmp"))
	return mergeEnv(env, extra...)
}

// allowedEnv are the names a stage-2 process inherits from the grader's
// environment; allowedPrefixes the prefixes. Everything else — model
// credentials, tokens, SRB_* settings, proxies — is never passed on: a
// task that needs a variable declares it (behavioural.env, a
// configuration's env, a case's env).
var (
	allowedEnv      = []string{"PATH", "LANG", "LANGUAGE", "LC_ALL", "TZ", "TERM", "HOME", "TMPDIR", "USER", "LOGNAME"}
	allowedPrefixes = []string{"LC_"}
)

// AllowedEnv returns the entries of base (KEY=VALUE) whose name is on
// stage 2's allow-list: PATH, LANG, LANGUAGE, LC_*, TZ, TERM, HOME,
// TMPDIR, USER and LOGNAME. It is an allow-list, never a deny-list: a
// secret of any name stays with the grader.
func AllowedEnv(base []string) []string {
	var out []string
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		keep := false
		for _, a := range allowedEnv {
			keep = keep || name == a
		}
		for _, p := range allowedPrefixes {
			keep = keep || (strings.HasPrefix(name, p) && len(name) > len(p))
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// Private makes dir a folder only its owner (the grader) can enter:
// mode 0700. A read-only file system (a read-only mount) is not an error
// when dir is already closed to others; otherwise it is.
func Private(dir string) error {
	err := os.Chmod(dir, 0o700)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if info, serr := os.Stat(dir); serr == nil && info.Mode().Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%s cannot be closed to the submission: %w", dir, err)
}

// TrashName is the folder of a jail's Root (or of a suite's work folder
// without a jail) that removed folders are renamed into ([Trash]).
const TrashName = ".trash"

// Trash returns the jail's trash, <Root>/.trash.
func (j *Jail) Trash() Trash { return Trash{Dir: filepath.Join(j.Root, TrashName)} }

// Trash is a folder that folders are moved into instead of being removed
// where a clock runs: removing a folder the submission filled with
// millions of empty files takes minutes, which inside a module's budget
// would read as the grader's hang. A rename is one system call whatever
// the folder holds. The trash is root's (mode 0700), so the submission
// cannot reach what was moved there, and it is emptied only after the
// stage's result is published (srb --host removes the sandbox then; a
// stage container's trash goes with the container), outside every
// budget.
type Trash struct {
	// Dir is the trash folder; it must be on the same file system as what
	// is discarded into it, or Discard falls back to removing.
	Dir string
}

// Discard moves dir (which may not exist: nothing to do) into the trash,
// under a name of its own. When it cannot be renamed there (another file
// system) it is removed in place.
func (t Trash) Discard(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(t.Dir, 0o700); err == nil {
		if err := os.Chmod(t.Dir, 0o700); err == nil {
			if into, err := os.MkdirTemp(t.Dir, "d-"); err == nil {
				if err := os.Rename(dir, filepath.Join(into, "x")); err == nil {
					return nil
				}
				_ = os.Remove(into)
			}
		}
	}
	return os.RemoveAll(dir)
}

// Empty removes everything in the trash, and the trash itself. It takes
// as long as the trash holds files: call it only where no clock runs.
func (t Trash) Empty() error { return os.RemoveAll(t.Dir) }
