package task

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/swe-refactor-bench/srb/schema"
)

const fixtureDir = "../../testdata/tasks/lang90-tally-c-to-go"

// bareLoad is the baseline: compile the schema and the task file and
// unify them, with nothing of srb's own on top.
func bareLoad(b *testing.B, src []byte) {
	ctx := cuecontext.New()
	s := ctx.CompileBytes(schema.TaskCUE())
	v := s.LookupPath(cue.ParsePath("#Task")).Unify(ctx.CompileBytes(src))
	if err := v.Validate(cue.Concrete(true)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkValidate runs srb validate's whole rule set on the fixture task,
// warm, and reports its cost as a ratio to a bare CUE load of the same
// files measured in the same run (x-baseline), and in ms per task (target
// ≤ 50).
func BenchmarkValidate(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(fixtureDir, FileName))
	if err != nil {
		b.Fatal(err)
	}
	// The baseline is measured here, in the same process and run, before
	// the timed loop (testing.Benchmark cannot nest inside a benchmark).
	const baselineRuns = 20
	bareLoad(b, src) // warm
	t0 := time.Now()
	for range baselineRuns {
		bareLoad(b, src)
	}
	baselineNs := float64(time.Since(t0).Nanoseconds()) / baselineRuns
	b.SetBytes(int64(len(src)))
	start := time.Now()
	n := 0
	for b.Loop() {
		r := Validate(fixtureDir)
		if !r.OK() {
			b.Fatalf("fixture has problems: %v", r.Problems)
		}
		n++
	}
	per := float64(time.Since(start).Nanoseconds()) / float64(n)
	b.ReportMetric(per/baselineNs, "x-baseline")
	b.ReportMetric(per/1e6, "ms/task")
}
