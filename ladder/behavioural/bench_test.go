package behavioural

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRunnerOverhead runs a suite of ten modules through the runner
// (contract environment, process groups, reaping, a validated atomic
// checkpoint after each module) and the same ten commands bare, one
// after the other, in the same iteration; x-baseline is runner time over
// bare time (target ≤ 1.05). Each module is a shell that works for 50 ms
// and writes one check.
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
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
		t1 := time.Now()
		r := &Runner{Repo: repo, Work: filepath.Join(dir, "work"), ResultPath: filepath.Join(dir, "behavioural.json")}
		st, err := r.Run(context.Background(), s)
		if err != nil || len(st.Checks) != len(mods) {
			b.Fatalf("runner: %v, %d checks", err, len(st.Checks))
		}
		runner += time.Since(t1)
	}
	ratio := float64(runner) / float64(bare)
	b.ReportMetric(ratio, "x-baseline")
	b.ReportMetric(float64(runner-bare)/float64(b.N*len(mods))/1e6, "ms-overhead/module")
	verdict := "met"
	if ratio > 1.05 {
		verdict = "NOT met"
	}
	b.Logf("runner overhead vs bare: %+.1f%%: target <= 5%% %s", (ratio-1)*100, verdict)
}
