package behavioural

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkRunnerOverhead runs a suite of ten modules through the runner
// (contract environment, each module contained by ladder/proc, reaping, a
// checkpoint after each module, the synced last write) and the same ten
// commands bare, one after the other as the runner runs them, interleaved:
// at least five rounds, the order of the two swapped every other round.
// x-baseline is runner time over bare time (target ≤ 1.05), with
// target-met. Each module is a shell that works for 50 ms and writes one
// check.
func BenchmarkRunnerOverhead(b *testing.B) {
	dir := b.TempDir()
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(repo, 0o755)
	script := `sleep 0.05; echo '{"checks":[{"id":"a","verdict":"pass"}]}' > "$SRB_RESULT"`
	var mods []Module
	for i := range 10 {
		mods = append(mods, Module{ID: fmt.Sprintf("m%d", i), Weight: 1, Timeout: time.Minute, Dir: dir, Command: []string{"/bin/sh", "-c", script}})
	}
	s := &Suite{Task: "t", Dir: dir, Modules: mods}
	var bare, runner time.Duration
	reps := max(b.N, 5)
	b.ResetTimer()
	for i := range reps {
		bareRound := func() {
			t0 := time.Now()
			for _, m := range mods {
				cmd := exec.Command(m.Command[0], m.Command[1:]...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "SRB_RESULT="+filepath.Join(dir, "bare.json"))
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			bare += time.Since(t0)
		}
		runnerRound := func() {
			t1 := time.Now()
			r := &Runner{Repo: repo, Work: filepath.Join(dir, "work"), ResultPath: filepath.Join(dir, "behavioural.json")}
			st, err := r.Run(context.Background(), s)
			if err != nil || len(st.Checks) != len(mods) {
				b.Fatalf("runner: %v, %d checks", err, len(st.Checks))
			}
			runner += time.Since(t1)
		}
		if i%2 == 0 {
			bareRound()
			runnerRound()
		} else {
			runnerRound()
			bareRound()
		}
	}
	ratio := float64(runner) / float64(bare)
	met := ratio <= 1.05
	b.ReportMetric(float64(bare)/float64(reps*len(mods))/1e6, "bare-ms/module")
	b.ReportMetric(float64(runner)/float64(reps*len(mods))/1e6, "runner-ms/module")
	b.ReportMetric(ratio, "x-baseline")
	b.ReportMetric(float64(runner-bare)/float64(reps*len(mods))/1e6, "ms-overhead/module")
	b.ReportMetric(map[bool]float64{true: 1, false: 0}[met], "target-met")
	verdict := "met"
	if !met {
		verdict = "NOT met"
	}
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d rounds: runner overhead vs bare: %+.1f%% (%.2f ms a module): target <= 5%% %s (load average: %s)",
		reps, (ratio-1)*100, float64(runner-bare)/float64(reps*len(mods))/1e6, verdict, strings.Join(strings.Fields(string(load))[:3], " "))
}
