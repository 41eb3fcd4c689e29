package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"golang.org/x/sys/unix"
)

// Hardening says what [Docker.Start] could add to a container's limits
// from this machine (an engine on it, srb root): each field is "" when
// it was done, else why not.
type Hardening struct {
	// OOMGuard: the container's own processes (docker-init and the
	// keep-alive command) are exempt from the OOM killer (oom_score_adj
	// -1000, written from this machine, which needs CAP_SYS_RESOURCE), so
	// a command whose processes reach the container's memory limit cannot
	// make the kernel stop the container by killing them.
	OOMGuard string
	// TCPLimit: on cgroup v1 the container's memory limit is also its TCP
	// buffer limit (memory.kmem.tcp.limit_in_bytes; v1 charges socket
	// buffers to no limit otherwise). cgroup v2 charges them to
	// memory.max already: "" there too.
	TCPLimit string
	// ProcHidden: the container's /proc is reconfigured, from this
	// machine, with hidepid=invisible and gid= the container's root group
	// (procfs, Linux 5.8 or later: each container's /proc is a procfs
	// instance of its own), so a process lists and reads only the
	// processes of its own uid, and root's group (srb's helper, broker
	// and reaper) every one. A program
	// srb's launcher runs as a uid of its own then cannot read the
	// candidate's command lines, nor the candidate srb's (issue 14:
	// answer-from-cmdline); the container itself could not do this, as
	// it has no CAP_SYS_ADMIN.
	ProcHidden string
}

// HidesLessThan says h shows other uids' processes in its container's
// /proc where first hid them (first.ProcHidden "", h.ProcHidden not): a
// sandbox started after first that gives less than the metadata, taken
// from first, says.
func (h Hardening) HidesLessThan(first Hardening) bool {
	return first.ProcHidden == "" && h.ProcHidden != ""
}

// hardeningOf is implemented by a Container that reports its [Hardening].
type hardeningOf interface {
	hardening() Hardening
}

// Hardening reports what the session's backend added to its limits; a
// backend that adds nothing says so in every field.
func (s *Session) Hardening() Hardening {
	if h, ok := s.c.(hardeningOf); ok {
		return h.hardening()
	}
	const why = "not a container of a local engine"
	return Hardening{OOMGuard: why, TCPLimit: why, ProcHidden: why}
}

func (c *dockerContainer) hardening() Hardening { return c.hard }

// localPID is the host pid of the container's first process, checked to
// be this container's (its memory or unified cgroup path names the
// container's id) so nothing is written to another process of this
// machine when the engine runs elsewhere; its cgroup lines come with it.
func (c *dockerContainer) localPID(ctx context.Context) (int, map[string]string, error) {
	pid, err := c.HostPID(ctx)
	if err != nil {
		return 0, nil, err
	}
	paths, err := procCgroups(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return 0, nil, err
	}
	for _, p := range paths {
		if strings.Contains(p, c.id) {
			return pid, paths, nil
		}
	}
	return 0, nil, errors.New("the engine's process for the container is not on this machine")
}

// procCgroups reads a /proc/PID/cgroup file: controller ("" for cgroup
// v2) → path.
func procCgroups(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	paths := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			paths[ctl] = parts[2]
		}
	}
	return paths, sc.Err()
}

// harden applies what it can of [Hardening] to the running container;
// guard says its own processes are srb's keep-alive (a container started
// with a command of the caller's keeps that command's OOM score).
func (c *dockerContainer) harden(ctx context.Context, memory int64, guard bool) {
	pid, paths, err := c.localPID(ctx)
	if err != nil {
		c.hard = Hardening{OOMGuard: err.Error(), TCPLimit: err.Error(), ProcHidden: err.Error()}
		return
	}
	c.hard.ProcHidden = hideProcs(pid)
	if oom, _, _ := countsAt(paths, cgroup.Root); oom >= 0 {
		c.cgroups = paths
	}
	c.hard.OOMGuard = "the container runs a command of its own"
	if guard {
		c.hard.OOMGuard = guardOwn(pid, len(c.own))
	}
	c.hard.TCPLimit = boundTCP(paths, cgroup.Root, memory)
}

// guardOwn exempts pid and every descendant it has now (want of them,
// as the container listed its own processes) from the OOM killer; ""
// when done, else why not.
func guardOwn(pid, want int) string {
	pids := descendants(pid)
	if len(pids) < want {
		return fmt.Sprintf("found %d of the container's %d own processes on this machine", len(pids), want)
	}
	for _, p := range pids {
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/oom_score_adj", p), []byte("-1000"), 0); err != nil {
			// Lowering a score needs CAP_SYS_RESOURCE, which root lacks
			// in some containers (this project's machine).
			return fmt.Sprintf("cannot exempt the container's own processes from the OOM killer: %v", err)
		}
	}
	return ""
}

// descendants is pid and every descendant it has now.
func descendants(pid int) []int {
	pids := []int{pid}
	for i := 0; i < len(pids); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pids[i]))
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					pids = append(pids, n)
				}
			}
		}
	}
	return pids
}

// boundTCP sets the cgroup v1 TCP buffer limit of the memory cgroup in
// paths (under the cgroup mount root) to memory bytes; "" when done or
// not needed (cgroup v2, no memory limit), else why not.
func boundTCP(paths map[string]string, root string, memory int64) string {
	p, ok := paths["memory"]
	switch {
	case memory <= 0:
		return ""
	case !ok:
		if _, v2 := paths[""]; v2 {
			return "" // memory.max charges socket buffers
		}
		return "the container has no memory cgroup"
	}
	file := filepath.Join(root, "memory", p, "memory.kmem.tcp.limit_in_bytes")
	if err := os.WriteFile(file, []byte(strconv.FormatInt(memory, 10)), 0); err != nil {
		return fmt.Sprintf("cannot bound the container's TCP buffers: %v", err)
	}
	return ""
}

// rootGroupOf is the gid on this machine of the root group (gid 0) of the
// process pid's user namespace, from its gid_map (user_namespaces(7):
// "inside outside count" lines): 0 without user namespace remapping, the
// remapped base with Docker's userns-remap. procfs reads its gid option
// in the caller's namespace, this machine's.
func rootGroupOf(pid int) (int, error) {
	return rootGroupIn(fmt.Sprintf("/proc/%d/gid_map", pid))
}

// rootGroupIn is [rootGroupOf] from a gid_map file.
func rootGroupIn(gidMap string) (int, error) {
	b, err := os.ReadFile(gidMap)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		in, e1 := strconv.ParseUint(f[0], 10, 32)
		out, e2 := strconv.ParseUint(f[1], 10, 32)
		n, e3 := strconv.ParseUint(f[2], 10, 32)
		if e1 == nil && e2 == nil && e3 == nil && in == 0 && n > 0 {
			return int(out), nil
		}
	}
	return 0, errors.New("its gid 0 maps to no group of this machine")
}

// hideProcs reconfigures the /proc of the container whose first process
// is host pid, through /proc/PID/root/proc, so processes of other uids
// are invisible (not listed, not found by their pid) to all but the
// container's root group ([rootGroupOf]): fspick(2)
// takes a mount of another mount namespace (mount(2)'s MS_REMOUNT does
// not), and the procfs superblock is the container's own. It checks the
// path is a procfs mount's root, and reads the container's mount table
// back; "" when done, else why not.
func hideProcs(pid int) string {
	path := fmt.Sprintf("/proc/%d/root/proc", pid)
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Sprintf("cannot hide other uids' processes in the container's /proc: %v", err)
	}
	if st.Type != unix.PROC_SUPER_MAGIC {
		return fmt.Sprintf("cannot hide other uids' processes in the container: its /proc is not procfs (type %#x)", st.Type)
	}
	fd, err := unix.Fspick(unix.AT_FDCWD, path, unix.FSPICK_CLOEXEC|unix.FSPICK_NO_AUTOMOUNT)
	if err != nil {
		return fmt.Sprintf("cannot hide other uids' processes in the container's /proc: fspick: %v", err)
	}
	defer unix.Close(fd)
	gid, err := rootGroupOf(pid)
	if err != nil {
		return fmt.Sprintf("cannot hide other uids' processes in the container's /proc: its root group: %v", err)
	}
	for _, kv := range [][2]string{{"hidepid", "invisible"}, {"gid", strconv.Itoa(gid)}} {
		if err := unix.FsconfigSetString(fd, kv[0], kv[1]); err != nil {
			return fmt.Sprintf("cannot hide other uids' processes in the container's /proc: %s=%s: %v", kv[0], kv[1], err)
		}
	}
	if err := fsReconfigure(fd); err != nil {
		return fmt.Sprintf("cannot hide other uids' processes in the container's /proc: reconfigure: %v", err)
	}
	opts, err := procOptions(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		return fmt.Sprintf("cannot read back the container's /proc options: %v", err)
	}
	if !slices.Contains(opts, "hidepid=invisible") && !slices.Contains(opts, "hidepid=2") {
		return fmt.Sprintf("the container's /proc kept its options after the reconfiguration (%s)", strings.Join(opts, ","))
	}
	return ""
}

// fsReconfigure is fsconfig(fd, FSCONFIG_CMD_RECONFIGURE): x/sys/unix
// wraps the other commands only.
func fsReconfigure(fd int) error {
	if _, _, e := unix.Syscall6(unix.SYS_FSCONFIG, uintptr(fd), unix.FSCONFIG_CMD_RECONFIGURE, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// procOptions is the superblock options of the /proc mount in a
// mountinfo file (proc(5): the field after the filesystem type and
// source), split at commas; of several mounts at /proc, the last (the
// one on top).
func procOptions(mountinfo string) ([]string, error) {
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil, err
	}
	// The last mount at /proc is the one over the others, the one seen.
	var opts []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		// id parent major:minor root mountpoint options [tags...] - type source super
		if len(f) < 10 || f[4] != "/proc" {
			continue
		}
		for i, x := range f {
			if x == "-" && i+3 < len(f) && f[i+1] == "proc" {
				opts = strings.Split(f[i+3], ",")
				break
			}
		}
	}
	if opts == nil {
		return nil, errors.New("no proc mount at /proc")
	}
	return opts, nil
}
