// Package cgroup makes and reads the cgroups srb bounds the graded
// party's processes with when it runs them on this machine (--host as
// root): a [Group] per stage-3 session (engine.Local) and per stage-2 run
// (the behavioural jail). A group is a folder in each cgroup v1
// hierarchy a limit needs (memory, pids) under srb's own cgroup there,
// or one cgroup v2 folder under a delegated parent ([ParentEnv]). The
// processes join it through their ladder/proc init (proc.Spec.Cgroups,
// [Group.Procs]) before the command starts, so everything the command
// starts, setsid or double-forked, is bounded with it.
package cgroup

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

// Root is where this machine's cgroup file systems are mounted.
const Root = "/sys/fs/cgroup"

// ParentEnv names the environment variable that gives srb a cgroup v2
// folder delegated to it (one whose cgroup.subtree_control srb may set),
// under which its groups go on a cgroup v2 machine.
const ParentEnv = "SRB_HOST_CGROUP"

// Plan is where groups go on this machine: srb's own cgroup folders in
// the v1 memory and pids hierarchies, or a delegated cgroup v2 folder;
// Why says why no group can be made ("" when one can).
type Plan struct {
	// V1 maps a controller ("memory", "pids") to srb's own cgroup folder
	// in its hierarchy (absolute); both are set or the plan is not v1.
	V1 map[string]string
	// V2 is the delegated cgroup v2 parent folder ("" for v1).
	V2 string
	// Why is a sentence saying why limits cannot be enforced here (not
	// root, cgroup v2 with no parent, no cgroup file system); "" when
	// they can.
	Why string
}

// How says how a plan's groups are made ("cgroup v1" or "cgroup v2"), or,
// when none can be, why not (the other result "").
func (p Plan) How() (how, whyNot string) {
	switch {
	case p.Why != "":
		return "", p.Why
	case p.V2 != "":
		return "cgroup v2", ""
	}
	return "cgroup v1", ""
}

// PlanFor plans groups from selfCgroup (/proc/self/cgroup's content)
// under the cgroup mount root: under srb's own cgroups in the v1 memory
// and pids hierarchies, or, on a cgroup v2 machine, under parent (a
// folder delegated to srb; "" leaves the limits unenforced). Only root
// can make groups; any other user gets a plan with Why set.
func PlanFor(selfCgroup, root, parent string) Plan {
	if os.Geteuid() != 0 {
		return Plan{Why: "srb is not root, so it cannot make cgroups for the graded processes"}
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
		return Plan{V1: v1}
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		return Plan{Why: fmt.Sprintf("no cgroup v1 memory and pids hierarchy and no cgroup v2 file system at %s", root)}
	}
	if parent == "" {
		return Plan{Why: fmt.Sprintf("this machine has cgroup v2 and no cgroup was delegated to srb (%s, a folder under %s whose cgroup.subtree_control srb may set)", ParentEnv, root)}
	}
	return Plan{V2: parent}
}

// Here plans groups for this process on this machine ([PlanFor] over
// /proc/self/cgroup and [Root]); parent is the cgroup v2 parent, "" for
// the environment's [ParentEnv].
func Here(parent string) Plan {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return Plan{Why: fmt.Sprintf("cannot read this process's cgroups: %v", err)}
	}
	if parent == "" {
		parent = os.Getenv(ParentEnv)
	}
	return PlanFor(string(self), Root, parent)
}

// Group is one group of cgroup folders made by [New]: what bounds the
// processes that join it (through [Group.Procs]) together, as a
// container's cgroup does. Its fields are plain so a group can travel to
// the process that starts the commands (the stage helper, in a plan) and
// be read there; only its maker removes it.
type Group struct {
	// V2 is true for a cgroup v2 group (one folder).
	V2 bool `json:"v2,omitempty"`
	// Memory is the folder whose memory counters [Group.Counts] reads
	// ("" when memory is not bounded).
	Memory string `json:"memory,omitempty"`
	// Pids is the folder whose pids counters [Group.Counts] reads (""
	// when processes are not bounded).
	Pids string `json:"pids,omitempty"`
	// MemoryLimit is the memory bound in bytes, swap included (0: none).
	MemoryLimit int64 `json:"memory_limit,omitempty"`
	// PidsLimit is the most tasks (processes and threads) at once (0:
	// none).
	PidsLimit int64 `json:"pids_limit,omitempty"`
	// Dirs is every folder made, in the order made; [Group.Remove]
	// removes them.
	Dirs []string `json:"dirs,omitempty"`
	// ProcsFiles is the cgroup.procs file of each folder: what a
	// process writes its pid to to join the group (proc.Spec.Cgroups).
	ProcsFiles []string `json:"procs,omitempty"`
}

// New makes a group named name (a random part is added: several srb
// processes may use a name at once) with memory bytes (swap included)
// and pids tasks (0: not bounded) where plan (one with no Why) says; nil
// and no error when neither is set. Each folder is root's with mode
// 0700, so no process of the group (nor of another group) reads its
// counters. The v1 memory limit is also written to
// memory.memsw.limit_in_bytes and memory.kmem.tcp.limit_in_bytes where
// they exist. An error is a group that could not be made or set up
// (anything made is removed).
func New(plan Plan, name string, memory, pids int64) (g *Group, err error) {
	if memory <= 0 && pids <= 0 {
		return nil, nil
	}
	if plan.Why != "" {
		return nil, fmt.Errorf("cgroup: %s", plan.Why)
	}
	g = &Group{V2: plan.V2 != "", MemoryLimit: max(memory, 0), PidsLimit: max(pids, 0)}
	defer func() {
		if err != nil {
			g.Remove()
			g = nil
		}
	}()
	var token [6]byte
	if _, err := rand.Read(token[:]); err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	// Each folder is root's with mode 0700: its counters (the memory
	// high-water mark, page-in and fault counts, refused forks, the
	// processes it holds) outlive a run and are read by no process of
	// the group, nor of another group, so none can count its runs by
	// them or watch another's (a cgroup's files are readable by every
	// user otherwise). The init joins as root.
	mkdir := func(parent string) (string, error) {
		dir := filepath.Join(parent, "srb-"+name+"-"+hex.EncodeToString(token[:]))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return "", fmt.Errorf("cgroup: %w", err)
		}
		g.Dirs = append(g.Dirs, dir)
		g.ProcsFiles = append(g.ProcsFiles, filepath.Join(dir, "cgroup.procs"))
		return dir, nil
	}
	if g.V2 {
		if err := enableControllers(plan.V2, "memory", "pids"); err != nil {
			return g, err
		}
		dir, err := mkdir(plan.V2)
		if err != nil {
			return g, err
		}
		g.Memory, g.Pids = dir, dir
		if memory > 0 {
			if err := write(dir, "memory.max", memory); err != nil {
				return g, err
			}
			if err := write(dir, "memory.swap.max", 0); err != nil && !errors.Is(err, os.ErrNotExist) {
				return g, err
			}
		}
		if pids > 0 {
			return g, write(dir, "pids.max", pids)
		}
		return g, nil
	}
	if memory > 0 {
		dir, err := mkdir(plan.V1["memory"])
		if err != nil {
			return g, err
		}
		g.Memory = dir
		if err := write(dir, "memory.limit_in_bytes", memory); err != nil {
			return g, err
		}
		// Swap included, where swap is accounted (memsw is at least
		// the memory limit, so it is written after it).
		if err := write(dir, "memory.memsw.limit_in_bytes", memory); err != nil && !errors.Is(err, os.ErrNotExist) {
			return g, err
		}
		// TCP buffers are not charged to a cgroup v1 memory limit
		// unless a TCP limit of its own is set (cgroup v2 charges
		// them): without it a group with the network could hold the
		// machine's TCP memory (net.ipv4.tcp_mem, GiBs) on loopback
		// connections nobody reads, past its limit and starving every
		// other process's TCP (the grader's, another srb's).
		if err := write(dir, "memory.kmem.tcp.limit_in_bytes", memory); err != nil && !errors.Is(err, os.ErrNotExist) {
			return g, err
		}
	}
	if pids > 0 {
		dir, err := mkdir(plan.V1["pids"])
		if err != nil {
			return g, err
		}
		g.Pids = dir
		if err := write(dir, "pids.max", pids); err != nil {
			return g, err
		}
	}
	return g, nil
}

// Procs is the cgroup.procs file of each of g's folders (nil for a nil
// group): proc.Spec.Cgroups, which the init joins before it starts the
// command.
func (g *Group) Procs() []string {
	if g == nil {
		return nil
	}
	return g.ProcsFiles
}

// Counts reads g's counters so far; -1 for what g does not bound or
// cannot be read (all -1 for a nil group).
func (g *Group) Counts() Counts {
	c := Counts{OOMKills: -1, MemoryPeak: -1, PidsMax: -1}
	if g == nil {
		return c
	}
	if g.Memory != "" {
		c.OOMKills, c.MemoryPeak = ReadMemory(g.Memory, g.V2)
	}
	if g.Pids != "" {
		c.PidsMax = ReadPidsMax(g.Pids)
	}
	return c
}

// Remove removes g's folders once their processes are gone (a folder
// stays busy a moment while the last exits), waiting at most 10 s for
// each; an error names each folder that stayed. A nil group is nothing
// to remove.
func (g *Group) Remove() error {
	if g == nil {
		return nil
	}
	var errs []error
	for i := len(g.Dirs) - 1; i >= 0; i-- {
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := syscall.Rmdir(g.Dirs[i])
			if err == nil || err == syscall.ENOENT {
				break
			}
			if err != syscall.EBUSY || time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("cgroup: removing %s: %w", g.Dirs[i], err))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	g.Dirs = nil
	return errors.Join(errs...)
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
		return fmt.Errorf("cgroup: enabling %s for the groups under %s: %w", strings.Join(ctls, " and "), parent, err)
	}
	return nil
}

// write writes n to dir's control file name.
func write(dir, name string, n int64) error {
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
