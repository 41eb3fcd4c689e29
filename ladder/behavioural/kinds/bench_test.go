package kinds

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// benchReps is how many interleaved rounds (a baseline round, then the
// measured one, their order swapped every other round) a benchmark runs
// at least, whatever b.N is.
const benchReps = 5

// benchCommandModule prepares a suite work folder with a built default
// configuration and returns a function that runs a command module of n
// cases of /bin/true, in parallel as a task's parallel module does (one
// worker per CPU), in record mode, and checks its checks.
func benchCommandModule(b *testing.B) func(n int) {
	dir := b.TempDir()
	suiteWork := filepath.Join(dir, "shared")
	l := behavioural.Ledger{Dir: filepath.Join(suiteWork, behavioural.LedgerDir)}
	tree := filepath.Join(l.Entry("default"), "tree")
	os.MkdirAll(tree, 0o755)
	if err := l.Put(behavioural.LedgerEntry{Configuration: "default", OK: true, Tree: tree}); err != nil {
		b.Fatal(err)
	}
	runs := 0
	return func(n int) {
		cases := make([]Case, n)
		for j := range cases {
			cases[j] = Case{ID: fmt.Sprintf("c%d", j), Argv: []string{"/bin/true"}}
		}
		params := raw(CommandParams{Configuration: "default", Compare: []string{"stdout", "exit"}, Cases: cases, Parallel: true})
		runs++
		work := filepath.Join(dir, fmt.Sprintf("w%d", runs))
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
		if err := k.observe(m); err != nil {
			b.Fatal(err)
		}
		if code := m.finish(nil); code != 0 {
			b.Fatalf("finish: %d", code)
		}
		if len(m.checks) != 2*n {
			b.Fatalf("%d checks", len(m.checks))
		}
		for _, c := range m.checks {
			if c.Verdict != "pass" {
				b.Fatalf("check %+v", c)
			}
		}
	}
}

// bareSpawns runs /bin/true n times bare (os/exec, nothing contained,
// nothing captured) with the parallelism a parallel command module has:
// one worker per CPU.
func bareSpawns(b *testing.B, n int) { spawns(b, n, spawnBare) }

// How [spawns] runs each /bin/true: bare; bare with its stdout and
// stderr captured (what a case observes); captured and contained in a
// reused process init ([proc.Server], one per worker), as a case is.
const (
	spawnBare = iota
	spawnCaptured
	spawnContained
)

func spawns(b *testing.B, n, how int) {
	workers := runtime.NumCPU()
	next := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var sv *proc.Server
			if how == spawnContained {
				var err error
				if sv, err = proc.NewServer(); err != nil {
					b.Error(err)
					return
				}
				defer sv.Close()
			}
			for range next {
				var out, errb bytes.Buffer
				switch how {
				case spawnBare:
					if err := exec.Command("/bin/true").Run(); err != nil {
						b.Error(err)
					}
				case spawnCaptured:
					cmd := exec.Command("/bin/true")
					cmd.Stdout, cmd.Stderr = &out, &errb
					if err := cmd.Run(); err != nil {
						b.Error(err)
					}
				case spawnContained:
					p, err := sv.Start(proc.Spec{Argv: []string{"/bin/true"}, Stdout: &out, Stderr: &errb})
					if err != nil {
						b.Error(err)
						continue
					}
					if e := p.Wait(); e.Err != nil || e.Code != 0 {
						b.Errorf("exit %+v", e)
					}
				}
			}
		})
	}
	for range n {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
}

// measure runs f and returns its wall and CPU time (this process and its
// waited-for children: the cases' process inits are reaped, with what
// they ran, before a module's observation returns).
func measure(f func()) (wall, cpu time.Duration) {
	t0, c0 := time.Now(), cpuTime()
	f()
	return time.Since(t0), cpuTime() - c0
}

// BenchmarkCommandCases runs a command module of 500 cases, each the
// trivial binary /bin/true, in process (restore, the cases' folders, the
// scrubbed environment, each case contained by ladder/proc, its output
// captured and normalised, the observation, its check, the result file),
// with one worker per CPU, beside 500 bare spawns of /bin/true with the
// same parallelism, interleaved (at least five rounds of each, the order
// swapped every other round). It reports cases per second and bare
// spawns per second, their ratio ("x-bare-rate", target ≥ 0.9), the CPU
// time per case and per bare spawn and their ratio ("x-bare-cpu"), and
// target-met. Two more baselines, in the same rounds, say where a case's
// cost over a bare spawn goes: a spawn whose stdout and stderr are
// captured ("captured-cpu-ms/spawn": what observing costs) and one also
// contained in a reused process init as a case is
// ("contained-cpu-ms/spawn": what containment costs); the rest is the
// module's own work.
func BenchmarkCommandCases(b *testing.B) {
	const n = 500
	run := benchCommandModule(b)
	var bare, ours, bareCPU, oursCPU, capturedCPU, containedCPU time.Duration
	reps := max(b.N, benchReps)
	b.ResetTimer()
	for i := range reps {
		steps := []func(){
			func() { w, c := measure(func() { bareSpawns(b, n) }); bare, bareCPU = bare+w, bareCPU+c },
			func() { w, c := measure(func() { run(n) }); ours, oursCPU = ours+w, oursCPU+c },
			func() { _, c := measure(func() { spawns(b, n, spawnCaptured) }); capturedCPU += c },
			func() { _, c := measure(func() { spawns(b, n, spawnContained) }); containedCPU += c },
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, s := range steps {
			s()
		}
	}
	total := float64(n * reps)
	rate, bareRate := total/ours.Seconds(), total/bare.Seconds()
	ratio := rate / bareRate
	met := ratio >= 0.9
	ms := func(d time.Duration) float64 { return float64(d) / total / 1e6 }
	b.ReportMetric(rate, "cases/s")
	b.ReportMetric(bareRate, "bare-spawns/s")
	b.ReportMetric(ratio, "x-bare-rate")
	b.ReportMetric(ms(oursCPU), "cpu-ms/case")
	b.ReportMetric(ms(bareCPU), "bare-cpu-ms/spawn")
	b.ReportMetric(ms(capturedCPU), "captured-cpu-ms/spawn")
	b.ReportMetric(ms(containedCPU), "contained-cpu-ms/spawn")
	b.ReportMetric(float64(oursCPU)/float64(bareCPU), "x-bare-cpu")
	b.ReportMetric(boolMetric(met), "target-met")
	b.Logf("%d rounds: %.0f command cases/s, bare spawns %.0f/s (%d workers each): %.2f× the bare rate, target >= 0.9: %s; CPU ms a case %.3f, a bare spawn %.3f (%.2f×), captured %.3f, captured and contained %.3f; load average: %s",
		reps, rate, bareRate, runtime.NumCPU(), ratio, metWord(met), ms(oursCPU), ms(bareCPU), float64(oursCPU)/float64(bareCPU),
		ms(capturedCPU), ms(containedCPU), loadAverage())
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
// spawns with the same parallelism, interleaved (at least five rounds),
// and reports the CPU time per case at each size ("cpu-ms/case@xK"), its
// ratio to the bare spawns' ("x-bare-cpu@xK") and the growth of the
// per-case CPU from ×1 to ×16 ("x16/x1", target ≤ 1.15: linear, since
// the result file is appended to, never re-encoded), and target-met.
func BenchmarkCommandCasesScaling(b *testing.B) {
	const n = 100
	run := benchCommandModule(b)
	scales := []int{1, 4, 16}
	ours := make([]time.Duration, len(scales))
	bare := make([]time.Duration, len(scales))
	reps := max(b.N, benchReps)
	b.ResetTimer()
	for i := range reps {
		for si, k := range scales {
			steps := []func(){
				func() { _, c := measure(func() { bareSpawns(b, n*k) }); bare[si] += c },
				func() { _, c := measure(func() { run(n * k) }); ours[si] += c },
			}
			if i%2 == 1 {
				steps[0], steps[1] = steps[1], steps[0]
			}
			for _, s := range steps {
				s()
			}
		}
	}
	per := make([]float64, len(scales))
	for si, k := range scales {
		per[si] = float64(ours[si]) / float64(n*k*reps) / 1e6
		b.ReportMetric(per[si], fmt.Sprintf("cpu-ms/case@x%d", k))
		b.ReportMetric(float64(ours[si])/float64(bare[si]), fmt.Sprintf("x-bare-cpu@x%d", k))
	}
	growth := per[2] / per[0]
	met := growth <= 1.15
	b.ReportMetric(growth, "x16/x1")
	b.ReportMetric(boolMetric(met), "target-met")
	b.Logf("%d rounds: CPU per case: x1 %.3f ms, x4 %.3f ms, x16 %.3f ms (%.2f×, %.2f×, %.2f× bare spawns): x16/x1 %.2f, target <= 1.15 (linear): %s (load average: %s)",
		reps, per[0], per[1], per[2], float64(ours[0])/float64(bare[0]), float64(ours[1])/float64(bare[1]), float64(ours[2])/float64(bare[2]),
		growth, metWord(met), loadAverage())
}
