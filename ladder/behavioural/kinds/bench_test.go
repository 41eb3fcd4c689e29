package kinds

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// BenchmarkCommandCases runs a command module of 500 cases, each the
// trivial binary /bin/true, in process (restore, a fresh folder per case,
// the scrubbed environment, a process group, normalisation, the
// observation and its check), and reports cases per second (target ≥ 500)
// and x-baseline against spawning /bin/true 500 times bare and one at a
// time.
func BenchmarkCommandCases(b *testing.B) {
	const n = 500
	dir := b.TempDir()
	suiteWork := filepath.Join(dir, "shared")
	l := behavioural.Ledger{Dir: filepath.Join(suiteWork, behavioural.LedgerDir)}
	tree := filepath.Join(l.Entry("default"), "tree")
	os.MkdirAll(tree, 0o755)
	if err := l.Put(behavioural.LedgerEntry{Configuration: "default", OK: true, Tree: tree}); err != nil {
		b.Fatal(err)
	}
	var cases []Case
	for i := range n {
		cases = append(cases, Case{ID: fmt.Sprintf("c%d", i), Argv: []string{"/bin/true"}})
	}
	params := raw(CommandParams{Configuration: "default", Compare: []string{"stdout", "exit"}, Cases: cases, Parallel: true})
	var bare, ours, bareCPU, oursCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), cpuTime()
		for range n {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
		bare += time.Since(t0)
		bareCPU += cpuTime() - c0
		work := filepath.Join(dir, fmt.Sprintf("w%d", i))
		os.MkdirAll(work, 0o755)
		k, err := newKind("command", params)
		if err != nil {
			b.Fatal(err)
		}
		m := &module{
			plan: &behavioural.Plan{Module: "bench", Kind: "command", Mode: behavioural.ModeRecord, TaskDir: dir},
			kind: k, work: work, suiteWork: suiteWork, result: filepath.Join(work, "result.json"),
			log: os.Stderr, seen: map[string]bool{},
			obs: behavioural.Observations{Values: map[string]any{}},
		}
		t1, c1 := time.Now(), cpuTime()
		if err := k.observe(m); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t1)
		oursCPU += cpuTime() - c1
		if len(m.checks) != 2*n {
			b.Fatalf("%d checks", len(m.checks))
		}
	}
	rate := float64(n*b.N) / ours.Seconds()
	b.ReportMetric(rate, "cases/s")
	b.ReportMetric(float64(n*b.N)/bare.Seconds(), "bare-spawns/s")
	b.ReportMetric(float64(ours)/float64(bare), "x-baseline")
	// CPU time per case (this process and its children, user and
	// system), which a busy machine stretches far less than wall time.
	b.ReportMetric(float64(oursCPU)/float64(n*b.N)/1e6, "cpu-ms/case")
	b.ReportMetric(float64(bareCPU)/float64(n*b.N)/1e6, "bare-cpu-ms/spawn")
	verdict := "met"
	if rate < 500 {
		verdict = "NOT met"
	}
	b.Logf("%.0f command cases/s, bare spawns %.0f/s in the same run: target >= 500 cases/s %s (load average: %s); CPU %.2f ms/case, bare %.2f ms/spawn",
		rate, float64(n*b.N)/bare.Seconds(), verdict, loadAverage(), float64(oursCPU)/float64(n*b.N)/1e6, float64(bareCPU)/float64(n*b.N)/1e6)
}

// cpuTime is the user and system CPU time of this process and of its
// waited-for children so far.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// loadAverage is /proc/loadavg's first three fields, or "unknown": a
// spawn rate means little without the machine's load beside it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// BenchmarkCommandCasesScaling runs a command module of n, 4n and 16n
// cases of /bin/true (n = 100), each beside the same number of bare
// spawns measured interleaved in the same iteration, and reports the CPU
// time per case at each size ("cpu-ms/case@xK"), its ratio to the bare
// spawns' ("x-baseline@xK") and the growth of the per-case CPU from ×1 to
// ×16 ("x16/x1", target ≤ 1.15: linear, since the result file is appended
// to, never re-encoded).
func BenchmarkCommandCasesScaling(b *testing.B) {
	const n = 100
	dir := b.TempDir()
	suiteWork := filepath.Join(dir, "shared")
	l := behavioural.Ledger{Dir: filepath.Join(suiteWork, behavioural.LedgerDir)}
	tree := filepath.Join(l.Entry("default"), "tree")
	os.MkdirAll(tree, 0o755)
	if err := l.Put(behavioural.LedgerEntry{Configuration: "default", OK: true, Tree: tree}); err != nil {
		b.Fatal(err)
	}
	scales := []int{1, 4, 16}
	ours := make([]time.Duration, len(scales))
	bare := make([]time.Duration, len(scales))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for si, k := range scales {
			cases := make([]Case, n*k)
			for j := range cases {
				cases[j] = Case{ID: fmt.Sprintf("c%d", j), Argv: []string{"/bin/true"}}
			}
			params := raw(CommandParams{Configuration: "default", Compare: []string{"stdout", "exit"}, Cases: cases, Parallel: true})
			c0 := cpuTime()
			for range n * k {
				if err := exec.Command("/bin/true").Run(); err != nil {
					b.Fatal(err)
				}
			}
			bare[si] += cpuTime() - c0
			work := filepath.Join(dir, fmt.Sprintf("w%d-%d", i, k))
			os.MkdirAll(work, 0o755)
			kd, err := newKind("command", params)
			if err != nil {
				b.Fatal(err)
			}
			m := &module{
				plan: &behavioural.Plan{Module: "bench", Kind: "command", Mode: behavioural.ModeRecord, TaskDir: dir},
				kind: kd, work: work, suiteWork: suiteWork, result: filepath.Join(work, "result.json"),
				log: os.Stderr, seen: map[string]bool{},
				obs: behavioural.Observations{Values: map[string]any{}},
			}
			c1 := cpuTime()
			if err := kd.observe(m); err != nil {
				b.Fatal(err)
			}
			if code := m.finish(nil); code != 0 {
				b.Fatalf("finish: %d", code)
			}
			ours[si] += cpuTime() - c1
			if len(m.checks) != 2*n*k {
				b.Fatalf("%d checks", len(m.checks))
			}
		}
	}
	per := make([]float64, len(scales))
	for si, k := range scales {
		per[si] = float64(ours[si]) / float64(n*k*b.N) / 1e6
		b.ReportMetric(per[si], fmt.Sprintf("cpu-ms/case@x%d", k))
		b.ReportMetric(float64(ours[si])/float64(bare[si]), fmt.Sprintf("x-baseline@x%d", k))
	}
	growth := per[2] / per[0]
	b.ReportMetric(growth, "x16/x1")
	verdict := "met"
	if growth > 1.15 {
		verdict = "NOT met"
	}
	b.Logf("CPU per case: x1 %.3f ms, x4 %.3f ms, x16 %.3f ms: x16/x1 %.2f, target <= 1.15 (linear) %s (load average: %s)",
		per[0], per[1], per[2], growth, verdict, loadAverage())
}
