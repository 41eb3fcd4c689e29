package cli

import (
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// stageLimits are the bounds of t's stage containers (task.cue limits).
func stageLimits(t *task.Task) engine.Limits {
	if t == nil {
		return engine.DefaultLimits
	}
	return engine.Limits{Pids: t.Limits.Pids, Memory: t.Limits.MemoryMiB << 20, Disk: t.Limits.DiskMiB << 20, CPUs: t.Limits.CPUs}
}
