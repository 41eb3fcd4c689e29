package result_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// BenchmarkStageCheckpoint writes a stage result of ten modules and 200
// checks the two ways a runner does: as a checkpoint between modules
// (atomic, not synced or validated) and as the stage's last write
// (validated, synced), interleaved in each iteration, and reports the
// time of each and their ratio: the per-module cost the runner no longer
// pays.
func BenchmarkStageCheckpoint(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "behavioural.json")
	st := result.NewStage(result.StageBehavioural, "t", time.Unix(0, 0).UTC())
	for i := range 10 {
		id := fmt.Sprintf("m%d", i)
		st.Units = append(st.Units, result.Unit{ID: id, Title: id, Weight: 1, Status: result.UnitOK})
		for j := range 20 {
			st.Checks = append(st.Checks, result.Check{ID: fmt.Sprintf("%s/c%d", id, j), Unit: id, Verdict: result.VerdictPass, Weight: 1})
		}
	}
	var cp, full time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := st.WriteCheckpoint(p); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := st.Write(p); err != nil {
			b.Fatal(err)
		}
		cp += t1.Sub(t0)
		full += time.Since(t1)
	}
	b.ReportMetric(float64(cp)/float64(b.N)/1e6, "ms/checkpoint")
	b.ReportMetric(float64(full)/float64(b.N)/1e6, "ms/final-write")
	b.ReportMetric(float64(full)/float64(cp), "final/checkpoint")
}
