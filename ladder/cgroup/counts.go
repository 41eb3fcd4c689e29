package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Counts are a cgroup's counters of its limits at work; each -1 when it
// cannot be read (or is not bounded).
type Counts struct {
	// OOMKills is how many processes the OOM killer ended in the memory
	// cgroup (v1 memory.oom_control, v2 memory.events "oom_kill").
	OOMKills int64
	// MemoryPeak is the most memory in bytes the memory cgroup has held
	// at once, swap included where it is counted (v1
	// memory.memsw.max_usage_in_bytes, else memory.max_usage_in_bytes;
	// v2 memory.peak).
	MemoryPeak int64
	// PidsMax is how many forks the pids cgroup refused at its limit
	// (pids.events "max").
	PidsMax int64
}

// OOMAtLimit reports whether c, read after a command, shows the OOM
// killer at work at the memory limit of limit bytes since before (read
// before it started): the OOM kill count grew, and, where the peak can
// be read, the peak reached the limit ([PeakAtLimit]). Unknown counts
// (-1) are never a kill. The peak rules out the machine itself out of
// memory, whose OOM killer raises the count too but leaves the cgroup
// under its limit: that is the grader's fault, where a kill at the limit
// is what the command's own processes held.
func (c Counts) OOMAtLimit(before Counts, limit int64) bool {
	if c.OOMKills < 0 || before.OOMKills < 0 || c.OOMKills <= before.OOMKills {
		return false
	}
	return PeakAtLimit(c.MemoryPeak, limit)
}

// PeakAtLimit reports whether a memory cgroup's peak of peak bytes
// reached its limit of limit bytes (within [MemoryLimitSlack]); true
// when either is unknown (peak -1, limit 0), where nothing tells the
// machine's OOM killer from the limit's.
func PeakAtLimit(peak, limit int64) bool {
	if peak < 0 || limit <= 0 {
		return true
	}
	return peak >= limit-MemoryLimitSlack(limit)
}

// MemoryLimitSlack is how far under a memory limit of limit bytes a
// cgroup's peak may stay and still count as having reached it: the
// larger of 4 MiB (a charge of a huge page or a batch of pages refused
// at the limit) and 1/64 of the limit.
func MemoryLimitSlack(limit int64) int64 {
	return max(4<<20, limit/64)
}

// ReadMemory reads the memory cgroup folder dir (cgroup v2's when v2):
// its OOM kills and the most memory in bytes it held at once; -1 for
// what cannot be read. (The v1 failcnt files are not used: some kernels
// leave them at 0 through OOM kills at the limit.)
func ReadMemory(dir string, v2 bool) (oomKills, peak int64) {
	if v2 {
		return counter(filepath.Join(dir, "memory.events"), "oom_kill"), number(filepath.Join(dir, "memory.peak"))
	}
	return counter(filepath.Join(dir, "memory.oom_control"), "oom_kill"), v1Peak(dir)
}

// ReadPidsMax reads how many forks the pids cgroup folder dir refused at
// its limit; -1 when it cannot.
func ReadPidsMax(dir string) int64 {
	return counter(filepath.Join(dir, "pids.events"), "max")
}

// v1Peak is the most memory the cgroup v1 memory cgroup dir has held at
// once: memory.memsw.max_usage_in_bytes (memory and swap, the counter
// Docker limits to the same value) where swap is accounted, else
// memory.max_usage_in_bytes; -1 when neither can be read.
func v1Peak(dir string) int64 {
	if n := number(filepath.Join(dir, "memory.memsw.max_usage_in_bytes")); n >= 0 {
		return n
	}
	return number(filepath.Join(dir, "memory.max_usage_in_bytes"))
}

// number reads a cgroup file holding one number; -1 when it cannot.
func number(file string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// counter reads "key N" from a cgroup file; -1 when it cannot.
func counter(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
