package image

import (
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// StageLimits are the bounds of t's stage containers and its agent's
// container (task.cue limits: pids, memory and disk in bytes, whole
// CPUs); a nil t gets engine.DefaultLimits.
func StageLimits(t *task.Task) engine.Limits {
	if t == nil {
		return engine.DefaultLimits
	}
	return engine.Limits{Pids: t.Limits.Pids, Memory: t.Limits.MemoryMiB << 20, Disk: t.Limits.DiskMiB << 20, CPUs: t.Limits.CPUs}
}
