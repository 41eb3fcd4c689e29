package verification

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// A candidate that leaves setsid'd and double-forked processes behind on
// --host (engine.Local): they are gone when Execute returns, and the run
// says reaped.
func TestHostCandidateLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		os.MkdirAll(dir+"/"+d, 0o755)
		os.WriteFile(dir+"/"+d+"/f", []byte("x"), 0o644)
	}
	mark := "srbcontaintest" + strconv.FormatInt(time.Now().UnixNano(), 36)
	h := hostContainer(t, []string{"/bin/sh", "-c", `sh "$SRB_CANDIDATE"`, "sh"}, func(cfg *ContainerConfig) {
		cfg.Original, cfg.Submission, cfg.Timeout = dir+"/a", dir+"/b", 20*time.Second
		cfg.Env = []string{"PATH=/usr/bin:/bin", "MARK=" + mark}
	})
	c := &Candidate{Name: "leaver", Filename: "leaver.sh",
		Code: "setsid sh -c 'sleep 300 & sleep 300' &\n( sleep 300 & ) &\nsleep 0.2\nexit 0\n"}
	run := h.Execute(context.Background(), c, RoleSubmission)
	if !run.Passed || !run.Reaped {
		t.Errorf("run %+v: want passed and reaped", run)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if bytes.Contains(b, []byte(mark)) {
			t.Errorf("process %s outlived the candidate run", e.Name())
		}
	}
}

func TestLimitHit(t *testing.T) {
	for _, c := range []struct {
		before, after engine.LimitHits
		want          string
	}{
		{engine.LimitHits{}, engine.LimitHits{}, ""},
		{engine.LimitHits{PidsMax: 3}, engine.LimitHits{PidsMax: 3}, ""},
		{engine.LimitHits{PidsMax: 3}, engine.LimitHits{PidsMax: 9}, "pids"},
		{engine.LimitHits{}, engine.LimitHits{OOMKilled: true, OOMKills: 1, PidsMax: 1}, "memory,pids"},
		{engine.LimitHits{OOMKills: -1, PidsMax: -1}, engine.LimitHits{OOMKilled: true, OOMKills: -1, PidsMax: -1}, "memory"},
	} {
		if got := limitHit(c.before, c.after); got != c.want {
			t.Errorf("limitHit(%+v, %+v) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
	if m := (CandidateRun{LimitHit: "pids"}).Map(); m["limit_hit"] != "pids" {
		t.Errorf("map %v lacks limit_hit", m)
	}
	if _, ok := (CandidateRun{}).Map()["limit_hit"]; ok {
		t.Error("limit_hit recorded for a run that reached nothing")
	}
}
