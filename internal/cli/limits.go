package cli

import (
	"context"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// stageLimits are the bounds of t's stage containers (task.cue limits).
func stageLimits(t *task.Task) engine.Limits {
	if t == nil {
		return engine.DefaultLimits
	}
	return engine.Limits{Pids: t.Limits.Pids, Memory: t.Limits.MemoryMiB << 20, Disk: t.Limits.DiskMiB << 20}
}

// recordLimits writes into st's metadata "limits" the bounds l the stage
// container ran with and what of them s reached (engine.LimitHits), and a
// note when one was reached. A container whose counters cannot be read
// records the bounds and limits_error.
func recordLimits(ctx context.Context, st *result.Stage, s *engine.Session, l engine.Limits) {
	m := l.Map()
	hits, err := s.LimitHits(ctx)
	if err != nil {
		m["limits_error"] = err.Error()
	} else {
		for k, v := range hits.Map() {
			m[k] = v
		}
		if n := hits.Note(); n != "" {
			st.Note(n)
		}
	}
	st.Metadata["limits"] = m
}
