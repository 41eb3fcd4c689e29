package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// scaledChecker is a checker over a task folder whose truth file and
// instruction both have n lines; one instruction line in 100 quotes a
// truth value.
func scaledChecker(tb testing.TB, n int) *checker {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "truth"), 0o755); err != nil {
		tb.Fatal(err)
	}
	var truth, instr strings.Builder
	for i := range n {
		fmt.Fprintf(&truth, "{\"case\": \"row %06d\", \"want\": %d}\n", i, i*7)
		if i%100 == 0 {
			fmt.Fprintf(&instr, "Line %d quotes {\"case\": \"row %06d\", \"want\": %d} here.\n", i, i, i*7)
		} else {
			fmt.Fprintf(&instr, "Line %d of the instruction says how tally counts module output %d.\n", i, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "truth", "cases.jsonl"), []byte(truth.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	t := &task.Task{Dir: dir, File: filepath.Join(dir, "task.cue"), Instruction: "instruction.md"}
	return &checker{t: t, r: &Report{Dir: dir, Task: t}, doc: newDoc([]byte(instr.String()))}
}

func TestInstructionChecksScaled(t *testing.T) {
	c := scaledChecker(t, 1000)
	c.instructionChecks()
	if got := len(c.r.Findings); got != 10 {
		t.Fatalf("%d findings, want 10 (one per quoting line)", got)
	}
	if l := c.r.Findings[3].Locations[0].Line; l != 301 {
		t.Errorf("fourth finding at line %d, want 301", l)
	}
}

// TestNeedleIndexFirst: the index finds the same first needle as trying
// each needle in turn.
func TestNeedleIndexFirst(t *testing.T) {
	ns := []needle{
		{text: "/tests/"}, {text: "run.sh", word: true}, {text: "modules/build/run.sh"},
		{text: "ws-tab-017", word: true}, {text: "a truth value that is long"}, {text: "`m1`"},
	}
	x := newNeedleIndex(ns)
	for _, l := range []string{
		"see modules/build/run.sh", "run run.sh now", "rerun.sh", "case ws-tab-017.", "ws-tab-017.txt",
		"quote: a truth value that is long, then /tests/", "module `m1` and /tests/x", "nothing", "",
	} {
		want := -1
		for i, n := range ns {
			if (n.word && containsWord(l, n.text)) || (!n.word && strings.Contains(l, n.text)) {
				want = i
				break
			}
		}
		if got := x.first(l, ns); got != want {
			t.Errorf("first(%q) = %d, want %d", l, got, want)
		}
	}
}

// BenchmarkInstructionChecks measures the instruction-checks rule at ×1
// (2,000 instruction lines and 2,000 truth lines), ×4 and ×16,
// interleaved (×1, ×4, ×16, ×1, …), five repetitions each, and reports
// the ratios of the fastest runs to ×1's: linear is 4 and 16, quadratic 16
// and 256 (issue 17 measured 8.7 at ×4 before the index). Targets: ×4/×1
// ≤ 5 and ×16/×1 ≤ 20; target-met is 1 when both hold.
func BenchmarkInstructionChecks(b *testing.B) {
	const base, reps = 2000, 5
	sizes := []int{1, 4, 16}
	checkers := make([]*checker, len(sizes))
	for i, k := range sizes {
		checkers[i] = scaledChecker(b, k*base)
	}
	run := func(c *checker) time.Duration {
		c.r.Findings = nil
		start := time.Now()
		c.instructionChecks()
		return time.Since(start)
	}
	best := make([]time.Duration, len(sizes))
	for range b.N {
		for range reps {
			for i, c := range checkers {
				if d := run(c); best[i] == 0 || d < best[i] {
					best[i] = d
				}
			}
		}
	}
	r4, r16 := float64(best[1])/float64(best[0]), float64(best[2])/float64(best[0])
	met := r4 <= 5 && r16 <= 20
	b.ReportMetric(r4, "x4/x1")
	b.ReportMetric(r16, "x16/x1")
	b.ReportMetric(float64(best[0].Microseconds())/1000, "x1-ms")
	b.ReportMetric(boolMetric(met), "target-met")
	b.Logf("instruction-checks ×4/×1 = %.2f, ×16/×1 = %.2f (linear 4 and 16; targets ≤ 5 and ≤ 20: %s)", r4, r16, metWord(met))
}

func boolMetric(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
