// Package hostuser is srb's one rule for running graded code as a user
// of its own on this machine (srb as root): an unused uid drawn at random
// far above any the system allocates ([Draw]), so a uid says nothing of
// what runs as it and shares nothing with the grader or another sandbox;
// every process of it killed ([Sweep]) and whatever it left in the
// machine's shared temporary folders removed ([ClearShared]) when srb is
// done with it; and srb's own RLIMIT_NPROC lowered ([LimitProcesses]) so
// a fork bomb of such a user cannot fill the machine's PID space. The
// --host backend engine.Local (the sessions of stages 1 and 3 on this
// machine) and stage 2's jail user (drawn by ladder/stages for the helper)
// draw their users here.
package hostuser

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The uids [Draw] draws from, [Base] to Base+Span: far above any a
// system allocates (useradd's and subuid's ranges end well below), far
// below the 32-bit limit. [Sweep] and [ClearShared] refuse any uid below
// Base.
const (
	Base = 1_000_000_000
	Span = 1_000_000_000
)

// Draw draws n distinct uids at random from [Base, Base+Span) that no
// account, group or process of this machine uses. Each is also the gid of
// its user's own group (no account names it either).
func Draw(n int) ([]int, error) {
	used := map[int]bool{}
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if parts := strings.Split(line, ":"); len(parts) > 2 {
				if id, err := strconv.Atoi(parts[2]); err == nil {
					used[id] = true
				}
			}
		}
	}
	for _, p := range procs() {
		for _, id := range p.uids {
			used[id] = true
		}
	}
	var out []int
	for tries := 0; len(out) < n && tries < 1000; tries++ {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("host user: draw a user: %w", err)
		}
		id := Base + int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))%Span
		if !used[id] {
			used[id] = true
			out = append(out, id)
		}
	}
	if len(out) < n {
		return nil, errors.New("host user: no unused user id found")
	}
	return out, nil
}

// hostProc is one process of this machine: its pid and its real,
// effective, saved and file-system uids.
type hostProc struct {
	pid  int
	uids []int
}

// procs lists this machine's processes from /proc.
func procs() []hostProc {
	ents, _ := os.ReadDir("/proc")
	var out []hostProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if uids, ok := uidsOf(pid); ok {
			out = append(out, hostProc{pid: pid, uids: uids})
		}
	}
	return out
}

// uidsOf reads process pid's uids (real, effective, saved, filesystem)
// from /proc; false when it is gone.
func uidsOf(pid int) ([]int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			var uids []int
			for _, f := range strings.Fields(rest) {
				if id, err := strconv.Atoi(f); err == nil {
					uids = append(uids, id)
				}
			}
			return uids, true
		}
	}
	return nil, false
}

// killAs kills process pid if it still runs as uid, never another that
// took its number: the process is pinned by a pidfd first, its uids read
// again after the pin (a number reused before the pin shows the new
// process's uids, which are not uid's, or the pinned one is already
// gone), and the signal goes to the pidfd. A kernel without pidfds
// (before 5.3) gets kill(2) by number after the second read.
func killAs(pid, uid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil && !errors.Is(err, unix.ENOSYS) {
		return // gone
	}
	if uids, ok := uidsOf(pid); !ok || !slices.Contains(uids, uid) {
		if err == nil {
			unix.Close(fd)
		}
		return
	}
	if err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		return
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	unix.Close(fd)
}

// Sweep kills every process any of whose uids is uid, until none is left
// (at most 5 s), and reports whether there was one; never this process. Each is killed
// through a pidfd after its uids are read again ([killAs]): a process
// number reused in between is never signalled. A uid below [Base] is
// refused (nothing is killed): never a user of this machine's own.
func Sweep(uid int) bool {
	if uid < Base {
		return false // never a user of this machine's own
	}
	any := false
	deadline := time.Now().Add(5 * time.Second)
	for {
		found := false
		for _, p := range procs() {
			if p.pid == os.Getpid() {
				continue // never this process, whatever a thread of it is
			}
			if slices.Contains(p.uids, uid) {
				found, any = true, true
				killAs(p.pid, uid)
			}
		}
		if !found || time.Now().After(deadline) {
			return any
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// SharedTmp are the folders of this machine every user may write in,
// where a tree's run could leave something for the other's.
var SharedTmp = []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue"}

// ClearShared removes everything uid owns in [SharedTmp] and
// os.TempDir() (and in every folder there that every user may write in,
// at any depth), never following a link, and the System V IPC objects
// (shared memory, message queues, semaphore sets) of this IPC namespace
// that uid owns or created ([ClearIPC]): a stage-2 program on --host
// left a 64 MiB shared-memory segment and a message queue that outlived
// the ladder (fixture stage2-sysv-ipc, issue 14). A uid below [Base] is
// refused (nothing is removed). The walk holds each folder open and works
// relative to it (openat with O_NOFOLLOW, fstatat, unlinkat): a folder
// another user swaps for a link while the walk runs cannot turn a
// removal towards a file elsewhere (a break attempt did that to a path
// checked with Lstat and then removed by name), and what is removed is
// checked to be uid's on the descriptor that removes it.
func ClearShared(uid int) error {
	return ClearSharedFrom(uid, Base)
}

// ClearSharedFrom is [ClearShared] for a uid drawn from another range,
// its System V objects included: a uid below floor is refused (nothing is
// removed). The stage images' launcher clears its launched uids (from
// 70000) with it before and after each launch (ladder/progsep).
func ClearSharedFrom(uid, floor int) error {
	if uid < floor || floor <= 0 {
		return nil // never a user of this machine's own
	}
	dirs := slices.Clone(SharedTmp)
	if t := os.TempDir(); !slices.Contains(dirs, t) {
		dirs = append(dirs, t)
	}
	var errs []error
	for _, d := range dirs {
		fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&0o002 != 0 {
			clearAt(fd, d, uid, 0, &errs)
		}
		unix.Close(fd)
	}
	if err := clearIPCFrom(uid, floor); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// sysvIPC are the System V IPC object kinds: the /proc/sysvipc table
// each is listed in, the column of its identifier, and how one is
// removed by identifier (IPC_RMID).
var sysvIPC = []struct {
	table, idColumn string
	remove          func(id int) error
}{
	{"shm", "shmid", func(id int) error { _, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil); return err }},
	{"msg", "msqid", func(id int) error {
		_, _, e := unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0)
		return errnoErr(e)
	}},
	{"sem", "semid", func(id int) error {
		_, _, e := unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
		return errnoErr(e)
	}},
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// ClearIPC removes every System V IPC object of the caller's IPC
// namespace whose owner (uid) or creator (cuid) is uid, as listed in
// /proc/sysvipc/{shm,msg,sem}; a shared-memory segment still attached is
// destroyed when its last process detaches (ClearShared's callers have
// killed them first). A uid below [Base] is refused (nothing is
// removed). An object gone before it is removed is no error; a table
// that cannot be read (no /proc, a kernel without System V IPC) is
// skipped.
func ClearIPC(uid int) error {
	return clearIPCFrom(uid, Base)
}

// clearIPCFrom is [ClearIPC] with floor in place of [Base].
func clearIPCFrom(uid, floor int) error {
	if uid < floor || floor <= 0 {
		return nil // never a user of this machine's own
	}
	var errs []error
	for _, k := range sysvIPC {
		ids, err := ipcOwnedBy("/proc/sysvipc/"+k.table, k.idColumn, uid)
		if err != nil {
			continue
		}
		for _, id := range ids {
			err := k.remove(id)
			if errors.Is(err, unix.EPERM) {
				// Root without CAP_SYS_ADMIN (a stage container's):
				// the owner may remove its own.
				err = asEffectiveUID(uid, func() error { return k.remove(id) })
			}
			if err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EIDRM) {
				errs = append(errs, fmt.Errorf("remove System V %s %d of uid %d: %w", k.table, id, uid, err))
			}
		}
	}
	return errors.Join(errs...)
}

// ipcOwnedBy reads a /proc/sysvipc table (a header line naming the
// columns, then one object a line) and returns the identifiers of the
// objects whose uid or cuid column is uid.
func ipcOwnedBy(table, idColumn string, uid int) ([]int, error) {
	data, err := os.ReadFile(table)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	head := strings.Fields(lines[0])
	col := func(name string) int { return slices.Index(head, name) }
	ic, uc, cc := col(idColumn), col("uid"), col("cuid")
	if ic < 0 || uc < 0 || cc < 0 {
		return nil, fmt.Errorf("%s: no %s, uid or cuid column", table, idColumn)
	}
	var ids []int
	u := strconv.Itoa(uid)
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(head) || (f[uc] != u && f[cc] != u) {
			continue
		}
		if id, err := strconv.Atoi(f[ic]); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// clearAt removes what uid owns in the folder open as dfd (shown as
// name in errors) and descends into the folders there every user may
// write in, to depth 16.
func clearAt(dfd int, name string, uid, depth int, errs *[]error) {
	for _, e := range namesAt(dfd) {
		var st unix.Stat_t
		if unix.Fstatat(dfd, e, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		switch {
		case int(st.Uid) == uid:
			if err := removeAt(dfd, e, uid, true); err != nil {
				*errs = append(*errs, fmt.Errorf("remove %s: %w", filepath.Join(name, e), err))
			}
		case st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Mode&0o002 != 0 && depth < 16:
			fd, err := unix.Openat(dfd, e, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // swapped for a link or gone
			}
			var now unix.Stat_t
			if unix.Fstat(fd, &now) == nil && now.Mode&0o002 != 0 {
				clearAt(fd, filepath.Join(name, e), uid, depth+1, errs)
			}
			unix.Close(fd)
		}
	}
}

// removeAt removes the entry e of the folder open as dfd, never
// following a link: a folder is opened (O_NOFOLLOW), made the owner's
// (a sandbox's user may have left it without write permission), emptied
// through its descriptor and removed. With top, the entry must still be
// uid's when opened (it may have been swapped since it was checked).
func removeAt(dfd int, e string, uid int, top bool) error {
	err := unix.Unlinkat(dfd, e, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, err := unix.Openat(dfd, e, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if top && int(st.Uid) != uid {
		return nil // no longer uid's: another user's rename put it here
	}
	_ = unix.Fchmod(fd, 0o700)
	var first error
	for _, c := range namesAt(fd) {
		if err := removeAt(fd, c, uid, false); err != nil && first == nil {
			first = err
		}
	}
	if err := unix.Unlinkat(dfd, e, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) && first == nil {
		first = err
	}
	return first
}

// namesAt lists the folder open as dfd (its descriptor stays open).
func namesAt(dfd int) []string {
	fd, err := unix.Dup(dfd)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	return names
}

// ProcessLimit is the most tasks (processes and threads) a host user's
// uid may have at once on --host as root: the soft and hard RLIMIT_NPROC
// srb sets on itself there, which every process it starts inherits. A
// fork bomb in a candidate otherwise fills the machine's PID space and
// fails the grader's own forks and threads (an invalid verdict the graded
// side chose). Root, srb itself, is not bound by it.
const ProcessLimit = 4096

// LimitProcesses lowers this process's RLIMIT_NPROC to n (soft and
// hard) when it is higher; processes it starts afterwards inherit it, and
// it binds each non-root uid they switch to. An error is the kernel's
// refusal.
func LimitProcesses(n uint64) error {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &l); err != nil {
		return fmt.Errorf("RLIMIT_NPROC: %w", err)
	}
	if l.Cur <= n && l.Max <= n {
		return nil
	}
	l.Cur, l.Max = min(l.Cur, n), min(l.Max, n)
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &l); err != nil {
		return fmt.Errorf("RLIMIT_NPROC: %w", err)
	}
	return nil
}

// RemoveAll removes p even when a sandbox's user left folders without
// write permission in it (which only stops a grader that is not root).
// os.RemoveAll never follows a link; when it fails, every folder under p
// is made 0700 and it is tried again ([openFolders]).
func RemoveAll(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	openFolders(p)
	return os.RemoveAll(p)
}

// openFolders makes p (a folder, not a link) and every folder under it
// 0700, through an os.Root at p: no name under p, whatever a sandbox's
// user swapped for a link while the walk ran, can make it change a
// file's mode outside p (the walk used to chmod by path).
func openFolders(p string) {
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return
	}
	_ = os.Chmod(p, 0o700)
	r, err := os.OpenRoot(p)
	if err != nil {
		return
	}
	defer r.Close()
	_ = fs.WalkDir(r.FS(), ".", func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && q != "." {
			_ = r.Chmod(q, 0o700)
		}
		return nil
	})
}

// Reachable reports whether every folder from dir up to / lets other
// users pass through it (o+x): whether a host user could reach what is
// made in dir.
func Reachable(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// OpenToAll lets every user read (never write) what is under dir, links
// not followed: folders and executables get o+x, everything o+r, and
// group and other write bits are cleared. For what a host user must read
// but the grader made (a task's files standing in for an image's, State
// A's copy), which may come from folders closed to other users. Errors
// are the walk's or a chmod's.
func OpenToAll(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()&^0o022 | 0o444
		if d.IsDir() || mode&0o100 != 0 {
			mode |= 0o111
		}
		return os.Chmod(p, mode)
	})
}

// init keeps the main goroutine on the main thread for the program's
// life (LockOSThread in an init: main runs there, and the thread runs
// nothing else). A thread whose identity this package or its users change
// (asEffectiveUID here, ladder/progsep's copies as a launched uid) is
// locked and never unlocked, so the runtime ends it with its goroutine;
// the main thread it cannot end, only wedge, and /proc/PID/status shows
// the main thread's uids: a copy that had run there left the process
// looking like the launched uid's, and the next Sweep of that uid killed
// srb itself (seen as a CI failure, "signal: killed", of
// TestLocalLauncherSeparatesTheProgram). With the main thread taken, no
// such goroutine can land on it.
func init() {
	runtime.LockOSThread()
}

// asEffectiveUID runs f on a thread of its own whose effective uid is uid
// (setresuid(2) on that thread alone, not through Go's all-threads
// Setuid): a thread locked and never unlocked, which ends with its
// goroutine, so no other code ever runs as uid. The real and saved uids
// stay this process's.
func asEffectiveUID(uid int, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is discarded
		keep := ^uintptr(0)    // (uid_t)-1: leave it as it is
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, keep, uintptr(uid), keep); e != 0 {
			errc <- e
			return
		}
		errc <- f()
	}()
	return <-errc
}
