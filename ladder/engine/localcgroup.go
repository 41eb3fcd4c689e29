package engine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CgroupRoot is where this machine's cgroup file systems are mounted.
const CgroupRoot = "/sys/fs/cgroup"

// CgroupParentEnv names the environment variable that gives a [Local] a
// cgroup v2 folder delegated to srb (its default [Local.CgroupParent]).
const CgroupParentEnv = "SRB_HOST_CGROUP"

// localCgroup is one [Local] session's cgroups (as root): a folder in each
// cgroup v1 hierarchy a limit needs (memory, pids), made under srb's own
// cgroup there, or one cgroup v2 folder under [Local.CgroupParent]. The
// init of every Exec joins them before it starts the command
// (proc.Spec.Cgroups), so everything the session runs is bounded by the
// session's Spec.Memory (swap included) and Spec.Pids together, as a
// container is.
type localCgroup struct {
	v2    bool
	mem   string   // the folder whose memory counters LimitHits reads ("" none)
	pids  string   // the folder whose pids counters LimitHits reads ("" none)
	dirs  []string // every folder made, removed at Remove
	procs []string // the cgroup.procs file of each folder
}

// cgroupPlan is where a session's cgroups go on this machine: the
// cgroup v1 folders srb runs in, by controller, or a cgroup v2 parent;
// why says why limits cannot be enforced ("" when they can).
type cgroupPlan struct {
	v1  map[string]string // controller → srb's own cgroup folder in its hierarchy
	v2  string            // a delegated cgroup v2 folder
	why string
}

// planCgroups finds where sessions' cgroups can be made: under srb's own
// cgroups in the v1 memory and pids hierarchies, or, on a cgroup v2
// machine, under parent (a folder delegated to srb; "" leaves the limits
// unenforced). selfCgroup is /proc/self/cgroup's content, root the mount
// root.
func planCgroups(selfCgroup, root, parent string) cgroupPlan {
	if os.Geteuid() != 0 {
		return cgroupPlan{why: "srb is not root, so it cannot make a cgroup per session"}
	}
	v1 := map[string]string{}
	for _, line := range strings.Split(selfCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || parts[1] == "" {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl != "memory" && ctl != "pids" {
				continue
			}
			dir := filepath.Join(root, ctl, parts[2])
			if st, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil && st.Mode().IsRegular() {
				v1[ctl] = dir
			}
		}
	}
	if len(v1) == 2 {
		return cgroupPlan{v1: v1}
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		return cgroupPlan{why: fmt.Sprintf("no cgroup v1 memory and pids hierarchy and no cgroup v2 file system at %s", root)}
	}
	if parent == "" {
		return cgroupPlan{why: fmt.Sprintf("this machine has cgroup v2 and no cgroup was delegated to srb (%s, a folder under %s whose cgroup.subtree_control srb may set)", CgroupParentEnv, root)}
	}
	return cgroupPlan{v2: parent}
}

// newLocalCgroup makes the cgroups of the session name with memory bytes
// (swap included) and pids tasks (0: not bounded) as plan (one with no
// why) says; nil when neither is set. An error is a cgroup that could
// not be made or set up (anything made is removed).
func newLocalCgroup(plan cgroupPlan, name string, memory, pids int64) (cg *localCgroup, err error) {
	if memory <= 0 && pids <= 0 {
		return nil, nil
	}
	cg = &localCgroup{v2: plan.v2 != ""}
	defer func() {
		if err != nil {
			cg.remove()
			cg = nil
		}
	}()
	// A random part: sessions of a fixed root folder (Local.Root) share
	// a name, and several srb processes can run them at once.
	var token [6]byte
	if _, err := rand.Read(token[:]); err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	// Each folder is root's with mode 0700: its counters (the memory
	// high-water mark, page-in and fault counts, refused forks, the
	// processes it holds) outlive a run and are read by no process of
	// the session, nor of another session, so none can count its runs
	// by them or watch the other tree's (a cgroup's files are readable
	// by every user otherwise). The init joins as root.
	mkdir := func(parent string) (string, error) {
		dir := filepath.Join(parent, "srb-"+name+"-"+hex.EncodeToString(token[:]))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return "", fmt.Errorf("cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, dir)
		cg.procs = append(cg.procs, filepath.Join(dir, "cgroup.procs"))
		return dir, nil
	}
	if cg.v2 {
		if err := enableControllers(plan.v2, "memory", "pids"); err != nil {
			return cg, err
		}
		dir, err := mkdir(plan.v2)
		if err != nil {
			return cg, err
		}
		cg.mem, cg.pids = dir, dir
		if memory > 0 {
			if err := cgroupWrite(dir, "memory.max", memory); err != nil {
				return cg, err
			}
			if err := cgroupWrite(dir, "memory.swap.max", 0); err != nil && !errors.Is(err, os.ErrNotExist) {
				return cg, err
			}
		}
		if pids > 0 {
			return cg, cgroupWrite(dir, "pids.max", pids)
		}
		return cg, nil
	}
	if memory > 0 {
		dir, err := mkdir(plan.v1["memory"])
		if err != nil {
			return cg, err
		}
		cg.mem = dir
		if err := cgroupWrite(dir, "memory.limit_in_bytes", memory); err != nil {
			return cg, err
		}
		// Swap included, where swap is accounted (memsw is at least
		// the memory limit, so it is written after it).
		if err := cgroupWrite(dir, "memory.memsw.limit_in_bytes", memory); err != nil && !errors.Is(err, os.ErrNotExist) {
			return cg, err
		}
		// TCP buffers are not charged to a cgroup v1 memory limit
		// unless a TCP limit of its own is set (cgroup v2 charges
		// them): without it a session with the network could hold the
		// machine's TCP memory (net.ipv4.tcp_mem, GiBs) on loopback
		// connections nobody reads, past its limit and starving every
		// other process's TCP (the grader's, another srb's).
		if err := cgroupWrite(dir, "memory.kmem.tcp.limit_in_bytes", memory); err != nil && !errors.Is(err, os.ErrNotExist) {
			return cg, err
		}
	}
	if pids > 0 {
		dir, err := mkdir(plan.v1["pids"])
		if err != nil {
			return cg, err
		}
		cg.pids = dir
		if err := cgroupWrite(dir, "pids.max", pids); err != nil {
			return cg, err
		}
	}
	return cg, nil
}

// enableControllers makes sure parent's children get the controllers
// (cgroup v2's cgroup.subtree_control).
func enableControllers(parent string, ctls ...string) error {
	b, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	have := strings.Fields(string(b))
	var add []string
	for _, c := range ctls {
		if !slices.Contains(have, c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(strings.Join(add, " ")), 0); err != nil {
		return fmt.Errorf("cgroup: enabling %s for the sessions under %s: %w", strings.Join(ctls, " and "), parent, err)
	}
	return nil
}

// cgroupWrite writes n to dir's control file name.
func cgroupWrite(dir, name string, n int64) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	_, err = f.WriteString(strconv.FormatInt(n, 10))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cgroup: %s = %d: %w", filepath.Join(dir, name), n, err)
	}
	return nil
}

// hits reads the OOM kills, the memory peak and the forks refused at the
// pids limit so far; -1 for what the session does not bound or cannot be read.
func (cg *localCgroup) hits() LimitHits {
	h := LimitHits{OOMKills: -1, MemoryPeak: -1, PidsMax: -1}
	if cg == nil {
		return h
	}
	if cg.mem != "" {
		h.OOMKills, h.MemoryPeak = memoryCounts(cg.mem, cg.v2)
		h.OOMKilled = h.OOMKills > 0
	}
	if cg.pids != "" {
		h.PidsMax = pidsMaxCount(cg.pids)
	}
	return h
}

// remove removes the session's cgroups once their processes are gone
// (they are, after Kill: a PID namespace ends with its init; a folder
// stays busy a moment while the last exits), waiting at most 10 s.
func (cg *localCgroup) remove() error {
	if cg == nil {
		return nil
	}
	var errs []error
	for i := len(cg.dirs) - 1; i >= 0; i-- {
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := syscall.Rmdir(cg.dirs[i])
			if err == nil || err == syscall.ENOENT {
				break
			}
			if err != syscall.EBUSY || time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("cgroup: removing %s: %w", cg.dirs[i], err))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cg.dirs = nil
	return errors.Join(errs...)
}

// CgroupLimits says whether this Local's sessions are bounded by their
// Spec.Memory and Spec.Pids (each session a cgroup of its own: "cgroup
// v1" or "cgroup v2"), or, when they are not (only the user's task
// count, hostuser.ProcessLimit, binds them), why not.
func (h *Local) CgroupLimits() (how, whyNot string) {
	plan := h.cgroupPlan()
	switch {
	case plan.why != "":
		return "", plan.why
	case plan.v2 != "":
		return "cgroup v2", ""
	}
	return "cgroup v1", ""
}

// cgroupPlan is where this Local's sessions' cgroups go.
func (h *Local) cgroupPlan() cgroupPlan {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupPlan{why: fmt.Sprintf("cannot read this process's cgroups: %v", err)}
	}
	parent := h.CgroupParent
	if parent == "" {
		parent = os.Getenv(CgroupParentEnv)
	}
	return planCgroups(string(self), CgroupRoot, parent)
}
