package image

import (
	"context"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

func TestRecordLimits(t *testing.T) {
	ctx := context.Background()
	l := StageLimits(&task.Task{Limits: task.Limits{Pids: 256, MemoryMiB: 512}})
	if l != (engine.Limits{Pids: 256, Memory: 512 << 20}) {
		t.Fatalf("limits %+v", l)
	}
	f := &engine.Fake{}
	var spec engine.Spec
	l.Apply(&spec)
	s, err := f.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if got := f.Containers()[0].Spec; got.Pids != 256 || got.Memory != 512<<20 || got.Disk != 0 || got.NanoCPUs != 0 {
		t.Errorf("container spec %+v, want the task's limits", got)
	}
	st := &result.Stage{Metadata: map[string]any{}}
	suite.RecordLimits(ctx, st, s, l)
	m := st.Metadata["limits"].(map[string]any)
	if m["pids"] != int64(256) || m["oom_killed"] != false || m["pids_max"] != int64(0) || len(st.Notes) != 0 {
		t.Errorf("nothing reached: metadata %v, notes %v", m, st.Notes)
	}
	f.Containers()[0].Hits = engine.LimitHits{OOMKilled: true, OOMKills: 1, PidsMax: 12}
	st = &result.Stage{Metadata: map[string]any{}}
	suite.RecordLimits(ctx, st, s, l)
	m = st.Metadata["limits"].(map[string]any)
	if m["oom_killed"] != true || m["pids_max"] != int64(12) || len(st.Notes) != 1 ||
		st.Notes[0] != "the stage container reached its memory limit (the kernel killed a process) and its process limit (12 fork(s) failed)" {
		t.Errorf("limits reached: metadata %v, notes %v", m, st.Notes)
	}
}

// TestCPULimit: a task's limits.cpus reaches every container srb starts
// through StageLimits (srb trial's agent container, the audit and
// behavioural containers) as whole CPUs in NanoCPUs, and the stage
// result's metadata records it.
func TestCPULimit(t *testing.T) {
	l := StageLimits(&task.Task{Limits: task.Limits{Pids: 1024, MemoryMiB: 8192, CPUs: 2}})
	if l != (engine.Limits{Pids: 1024, Memory: 8192 << 20, CPUs: 2}) {
		t.Fatalf("limits %+v", l)
	}
	var spec engine.Spec
	l.Apply(&spec)
	if spec.NanoCPUs != 2e9 {
		t.Errorf("NanoCPUs %d, want 2e9", spec.NanoCPUs)
	}
	if m := l.Map(); m["cpus"] != int64(2) {
		t.Errorf("metadata %v, want cpus 2", m)
	}
	if m := StageLimits(&task.Task{Limits: task.Limits{Pids: 1024, MemoryMiB: 8192}}).Map(); m["cpus"] != nil {
		t.Errorf("no cpus set: metadata %v names one", m)
	}
}
