package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// Limits bound a stage container: the task's limits block (docs/SCHEMA.md
// "limits"). A zero field is no limit.
type Limits struct {
	// Pids is the most processes (threads included) the container holds
	// at once; a fork past it fails with EAGAIN.
	Pids int64
	// Memory is the container's memory in bytes, swap included; past it
	// the kernel's OOM killer ends a process of the container.
	Memory int64
	// Disk is the size in bytes of the container's writable layer. Docker
	// enforces it only where its storage driver can (overlay2 on xfs with
	// pquota, btrfs, zfs); elsewhere Start fails and says so.
	Disk int64
	// CPUs caps the container's CPU time at that many CPUs (Docker's
	// --cpus, as NanoCPUs); a busier container is throttled, not killed.
	CPUs int64
}

// DefaultLimits are the schema's defaults (task.cue limits): 1024
// processes and 8 GiB.
var DefaultLimits = Limits{Pids: 1024, Memory: 8192 << 20}

// Apply sets s's limits from l.
func (l Limits) Apply(s *Spec) {
	s.Pids, s.Memory, s.Disk, s.NanoCPUs = l.Pids, l.Memory, l.Disk, l.CPUs*1e9
}

// Map renders l for a stage result's metadata: pids, memory_bytes,
// disk_bytes and cpus, each only when set.
func (l Limits) Map() map[string]any {
	m := map[string]any{}
	if l.Pids > 0 {
		m["pids"] = l.Pids
	}
	if l.Memory > 0 {
		m["memory_bytes"] = l.Memory
	}
	if l.Disk > 0 {
		m["disk_bytes"] = l.Disk
	}
	if l.CPUs > 0 {
		m["cpus"] = l.CPUs
	}
	return m
}

// LimitHits says which of its limits a container reached so far.
type LimitHits struct {
	// OOMKilled is true when the OOM killer ended a process of the
	// container (the memory limit).
	OOMKilled bool
	// OOMKills is how many processes it ended; -1 when the container's
	// memory cgroup could not be read (OOMKilled then comes from the
	// engine alone).
	OOMKills int64
	// MemoryPeak is the most memory in bytes the container's memory
	// cgroup has held at once, swap included where it is counted (cgroup
	// v1 memory.memsw.max_usage_in_bytes, else memory.max_usage_in_bytes;
	// v2 memory.peak); -1 when it could not be read. An OOM kill with the
	// peak at the container's limit is that limit at work; one with the
	// container well under it can only be the host's own OOM killer (the
	// machine out of memory). (The v1 failcnt files are not used: some
	// kernels leave them at 0 through OOM kills at the limit.)
	MemoryPeak int64
	// PidsMax is how many forks failed at the pids limit; -1 when the
	// container's pids cgroup could not be read (a remote engine, an
	// engine that does not say where its cgroup is).
	PidsMax int64
}

// Hit reports whether any limit was reached.
func (h LimitHits) Hit() bool { return h.OOMKilled || h.OOMKills > 0 || h.PidsMax > 0 }

// Map renders h for a stage result's metadata: oom_killed, oom_kills and
// memory_peak and pids_max (the counts -1 when unknown).
func (h LimitHits) Map() map[string]any {
	return map[string]any{"oom_killed": h.OOMKilled, "oom_kills": h.OOMKills, "memory_peak": h.MemoryPeak, "pids_max": h.PidsMax}
}

// Note is one sentence for a stage result's notes when a limit was hit,
// "" otherwise, about the stage container ([LimitHits.NoteOn]).
func (h LimitHits) Note() string { return h.NoteOn("the stage container") }

// NoteOn is [LimitHits.Note] about subject, what reached the limits ("the
// stage container", "the submission's processes on --host").
func (h LimitHits) NoteOn(subject string) string {
	var hit []string
	if h.OOMKilled || h.OOMKills > 0 {
		hit = append(hit, "its memory limit (the kernel killed a process)")
	}
	if h.PidsMax > 0 {
		hit = append(hit, fmt.Sprintf("its process limit (%d fork(s) failed)", h.PidsMax))
	}
	if len(hit) == 0 {
		return ""
	}
	return subject + " reached " + strings.Join(hit, " and ")
}

// LimitHits reports which of its limits the container reached so far.
// It works on a stopped container too, until Close.
func (s *Session) LimitHits(ctx context.Context) (LimitHits, error) {
	return s.c.LimitHits(ctx)
}

// limitSettle bounds how long [dockerContainer.LimitHits] waits for the
// engine to record the end of a container whose first process ended.
const limitSettle = 10 * time.Second

// LimitHits implements [Container]. The counts come from the container's
// cgroups on this machine, found when it started ([dockerContainer.harden]);
// OOMKilled also from the engine. When those cgroups could be read at the
// start and cannot now, the container's first process has ended (the OOM
// killer may have chosen it, where the container's own processes cannot
// be exempted, and the engine then removes its cgroups): the engine is
// waited for (at most [limitSettle]) to record the container's end, with
// its OOMKilled, before it is read. Read before that, a run whose
// processes reached the memory limit and stopped the container read as
// no limit reached, its failure as the grader's (seen under load: the
// clearing after the run failed with exit 126, a harness error, where
// the other side's same run was recorded at its memory limit).
func (c *dockerContainer) LimitHits(ctx context.Context) (LimitHits, error) {
	h := LimitHits{OOMKills: -1, MemoryPeak: -1, PidsMax: -1}
	info, err := c.d.Client.ContainerInspect(ctx, c.id)
	if err != nil {
		return h, fmt.Errorf("docker inspect %s: %w", c.image, err)
	}
	if c.cgroups != nil {
		h.OOMKills, h.MemoryPeak, h.PidsMax = countsAt(c.cgroups, cgroup.Root)
		if h.OOMKills < 0 && info.State != nil && (info.State.Running || info.State.Restarting) {
			wctx, cancel := context.WithTimeout(ctx, limitSettle)
			waitC, errC := c.d.Client.ContainerWait(wctx, c.id, container.WaitConditionNotRunning)
			select {
			case <-waitC:
			case <-errC:
			}
			cancel()
			if again, err := c.d.Client.ContainerInspect(ctx, c.id); err == nil {
				info = again
			}
		}
	} else if info.State != nil && info.State.Pid > 0 {
		h.OOMKills, h.MemoryPeak, h.PidsMax = cgroupCounts(fmt.Sprintf("/proc/%d/cgroup", info.State.Pid), cgroup.Root)
	}
	if info.State != nil {
		h.OOMKilled = info.State.OOMKilled
	}
	if h.OOMKills > 0 {
		h.OOMKilled = true
	}
	return h, nil
}

// cgroupCounts reads, for the process whose /proc/PID/cgroup is procFile,
// the OOM kills of its memory cgroup, the most memory it held at once
// (bytes), and the failed forks of its pids cgroup under the
// cgroup mount root (v1 controllers or v2 unified); -1 for what cannot be
// read.
func cgroupCounts(procFile, root string) (oomKills, memoryPeak, pidsMax int64) {
	oomKills, memoryPeak, pidsMax = -1, -1, -1
	paths, err := procCgroups(procFile) // controller ("" for v2) → path
	if err != nil {
		return
	}
	return countsAt(paths, root)
}

// countsAt is [cgroupCounts] of a process whose cgroup paths (controller,
// "" for v2, → path) are paths.
func countsAt(paths map[string]string, root string) (oomKills, memoryPeak, pidsMax int64) {
	oomKills, memoryPeak, pidsMax = -1, -1, -1
	if p, ok := paths["memory"]; ok {
		oomKills, memoryPeak = cgroup.ReadMemory(filepath.Join(root, "memory", p), false)
	} else if p, ok := paths[""]; ok {
		oomKills, memoryPeak = cgroup.ReadMemory(filepath.Join(root, p), true)
	}
	if p, ok := paths["pids"]; ok {
		pidsMax = cgroup.ReadPidsMax(filepath.Join(root, "pids", p))
	} else if p, ok := paths[""]; ok {
		pidsMax = cgroup.ReadPidsMax(filepath.Join(root, p))
	}
	return
}

// OOMAtLimit reports whether h, read after a command or a suite, shows
// the OOM killer at work at the memory limit of limit bytes since before
// (read before it started): the OOM kill count grew (where a count is
// unknown, the engine's OOMKilled flag newly set), and, where the peak
// can be read, the peak reached the limit (within
// [cgroup.MemoryLimitSlack]).
// The peak rules out the machine itself out of memory, whose OOM killer
// raises the count too but leaves the cgroup under its limit: that is
// the grader's fault, where a kill at the limit is what the command's
// own processes held.
func (h LimitHits) OOMAtLimit(before LimitHits, limit int64) bool {
	var killed bool
	if h.OOMKills >= 0 && before.OOMKills >= 0 {
		killed = h.OOMKills > before.OOMKills
	} else {
		killed = h.OOMKilled && !before.OOMKilled
	}
	if !killed {
		return false
	}
	return cgroup.PeakAtLimit(h.MemoryPeak, limit)
}
