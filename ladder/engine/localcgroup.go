package engine

import (
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// CgroupRoot is where this machine's cgroup file systems are mounted
// ([cgroup.Root]).
const CgroupRoot = cgroup.Root

// CgroupParentEnv names the environment variable that gives a [Local] a
// cgroup v2 folder delegated to srb (its default [Local.CgroupParent];
// [cgroup.ParentEnv]).
const CgroupParentEnv = cgroup.ParentEnv

// limitHits is what a session's group g (a [cgroup.Group] made for it;
// nil: no limit enforced) counted so far: the OOM kills, the memory peak
// and the forks refused at the pids limit; -1 for what it does not bound
// or cannot be read.
func limitHits(g *cgroup.Group) LimitHits {
	c := g.Counts()
	return LimitHits{OOMKilled: c.OOMKills > 0, OOMKills: c.OOMKills, MemoryPeak: c.MemoryPeak, PidsMax: c.PidsMax}
}

// CgroupLimits says whether this Local's sessions are bounded by their
// Spec.Memory and Spec.Pids (each session a cgroup of its own: "cgroup
// v1" or "cgroup v2"), or, when they are not (only the user's task
// count, hostuser.ProcessLimit, binds them), why not.
func (h *Local) CgroupLimits() (how, whyNot string) {
	return h.cgroupPlan().How()
}

// cgroupPlan is where this Local's sessions' cgroups go.
func (h *Local) cgroupPlan() cgroup.Plan {
	return cgroup.Here(h.CgroupParent)
}
