package engine

import (
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// HitsOf is what a group's counters c say as a [LimitHits] (an
// engine.Local session's cgroup, stage 2's host jail): OOMKilled when the
// OOM killer ended any process of it; each count -1 when the group does
// not bound it or it cannot be read.
func HitsOf(c cgroup.Counts) LimitHits {
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
