package suite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// A submission whose program starts many small processes, each holding
// a little memory, past the stage container's memory limit makes the
// kernel's OOM killer choose the largest process of the container: srb's
// helper (Docker drops CAP_SYS_RESOURCE, so nothing in the container can
// be exempted). The helper's exec then ends with 137 mid-suite. When the
// container's memory cgroup counted an OOM kill and its use reached its
// own limit meanwhile, that is the submission's failure (the stage ran:
// status ok, the finished modules kept, the rest unreached and charged),
// never ErrContainerFault, which would make the verdict invalid at the
// submission's choice. Every other early end stays a fault of the grader.
func TestHelperKilledAtMemoryLimitIsTheSubmissions(t *testing.T) {
	unknown := engine.LimitHits{OOMKills: -1, MemoryPeak: -1, PidsMax: -1}
	for _, c := range []struct {
		name     string
		exit     int
		hits     engine.LimitHits // what LimitHits says once the helper ended
		theirs   bool             // the submission's failure, not a fault
		contains string           // in the fault's reason
	}{
		{"oom kill at the container's limit", 137, engine.LimitHits{OOMKilled: true, OOMKills: 10, MemoryPeak: 256 << 20, PidsMax: 88}, true, ""},
		{"oom kill a page batch under the limit", 137, engine.LimitHits{OOMKilled: true, OOMKills: 1, MemoryPeak: 256<<20 - 128<<10}, true, ""},
		{"oom kill, the peak unknown", 137, engine.LimitHits{OOMKilled: true, OOMKills: 2, MemoryPeak: -1, PidsMax: -1}, true, ""},
		{"counters unknown, the engine's OOM flag", 137, engine.LimitHits{OOMKilled: true, OOMKills: -1, MemoryPeak: -1, PidsMax: -1}, true, ""},
		{"killed without an OOM kill", 137, engine.LimitHits{MemoryPeak: 256 << 20}, false, "the container ended mid-suite (exit 137"},
		{"oom kill with the container well under its limit (the host's OOM killer)", 137, engine.LimitHits{OOMKilled: true, OOMKills: 1, MemoryPeak: 100 << 20}, false, "the container ended mid-suite (exit 137"},
		{"counters unknown, no OOM flag", 137, unknown, false, "the container ended mid-suite (exit 137"},
		{"another fault beside an oom kill", 70, engine.LimitHits{OOMKilled: true, OOMKills: 1, MemoryPeak: 256 << 20}, false, "the helper could not run the suite (exit 70)"},
		{"a crash beside an oom kill", 2, engine.LimitHits{OOMKilled: true, OOMKills: 1, MemoryPeak: 256 << 20}, false, "the container ended mid-suite (exit 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := runKilled(t, c.exit, c.hits)
			if st == nil {
				t.Fatalf("no stage result: %v", err)
			}
			var statuses []string
			for _, u := range st.Units {
				statuses = append(statuses, u.ID+" "+u.Status)
			}
			if got := strings.Join(statuses, ", "); got != "build ok, counts unreached, usage unreached" {
				t.Errorf("units %s, want build's result kept and the rest unreached", got)
			}
			if len(st.Checks) != 2 {
				t.Errorf("checks %v, want build's two kept", st.Checks)
			}
			reason, _ := st.Metadata["memory_limit_killed"].(string)
			if c.theirs {
				if err != nil || st.Status != result.StatusOK || st.Metadata["error"] != nil {
					t.Fatalf("error %v, status %s, metadata error %v; want the stage ran (the submission's failure)", err, st.Status, st.Metadata["error"])
				}
				for _, want := range []string{"reached its memory limit (256 MiB", "the kernel's OOM killer killed srb's helper (exit 137)",
					"the 1 module(s) that finished are kept, 2 are unreached"} {
					if !strings.Contains(reason, want) {
						t.Errorf("metadata memory_limit_killed %q lacks %q", reason, want)
					}
				}
				if !containsNote(st.Notes, reason) {
					t.Errorf("notes %q lack the reason", st.Notes)
				}
				return
			}
			if !errors.Is(err, ErrContainerFault) || st.Status != result.StatusError || reason != "" {
				t.Fatalf("error %v, status %s, memory_limit_killed %q; want ErrContainerFault and status error", err, st.Status, reason)
			}
			if e, _ := st.Metadata["error"].(string); !strings.Contains(e, c.contains) {
				t.Errorf("metadata error %q, want %q", e, c.contains)
			}
		})
	}
}

// runKilled runs a three-module suite in a Fake container with a 256 MiB
// limit whose helper writes the stage result after the first module and
// then ends with exit; the container's LimitHits say hits from then on
// (zero before).
func runKilled(t *testing.T, exit int, hits engine.LimitHits) (*result.Stage, error) {
	t.Helper()
	eng := &engine.Fake{ExecFunc: func(_ context.Context, fc *engine.FakeContainer, _ engine.ExecSpec) (*engine.Result, error) {
		st := result.NewStage(result.StageBehavioural, "fixture", time.Now())
		st.Units = []result.Unit{
			{ID: "build", Weight: 1, Status: result.UnitOK, Metadata: map[string]any{}},
			{ID: "counts", Weight: 1, Status: result.UnitUnreached, Metadata: map[string]any{}},
			{ID: "usage", Weight: 1, Status: result.UnitUnreached, Metadata: map[string]any{}},
		}
		st.Add(result.Check{ID: "build/a", Unit: "build", Verdict: result.VerdictPass, Summary: "built", Weight: 1})
		st.Add(result.Check{ID: "build/b", Unit: "build", Verdict: result.VerdictPass, Summary: "built", Weight: 1})
		if err := st.Write(fc.Path(ResultsPath + "/" + result.StageBehavioural + ".json")); err != nil {
			return nil, err
		}
		fc.Hits = hits
		return &engine.Result{ExitCode: exit}, nil
	}}
	decl := &behavioural.Declaration{Task: "fixture", Modules: []behavioural.DeclaredModule{{ID: "build"}, {ID: "counts"}, {ID: "usage"}}}
	cs := &Container{Engine: eng, Image: &Image{Stage: result.StageBehavioural, Ref: "sha256:fake", Tag: "srb/fixture:behavioural"},
		Decl: decl, Mode: behavioural.ModeCheck, Repo: t.TempDir(), Budget: time.Minute,
		Result: filepath.Join(t.TempDir(), "behavioural.json"), Limits: engine.Limits{Pids: 1024, Memory: 256 << 20}}
	st, err := cs.Run(context.Background())
	if st != nil {
		// What the caller reads is what Run wrote.
		if _, rerr := os.Stat(cs.Result); rerr != nil {
			t.Errorf("the stage result was not written: %v", rerr)
		}
	}
	return st, err
}

func containsNote(notes []string, s string) bool {
	for _, n := range notes {
		if n == s {
			return true
		}
	}
	return false
}

// The OOM killer may choose the submission's processes rather than the
// helper (it cannot be kept from it where the container's root lacks
// CAP_SYS_RESOURCE): the helper finishes, exit 0, every module ran, and
// the result still says the limit was reached and how many processes the
// kernel killed. Without an OOM kill, or with one well under the limit
// (the machine's own OOM killer), nothing is said.
func TestOOMKillOfTheSubmissionsProcessesIsRecorded(t *testing.T) {
	for _, c := range []struct {
		name string
		hits engine.LimitHits
		want string
	}{
		{"three processes killed at the limit", engine.LimitHits{OOMKilled: true, OOMKills: 3, MemoryPeak: 256 << 20},
			"the stage container reached its memory limit (256 MiB, the task's limits.memory_mib) and the kernel's OOM killer killed 3 of the submission's processes: the checks of what they ran failed, as a program that runs out of memory fails; every module ran"},
		{"no OOM kill", engine.LimitHits{MemoryPeak: 256 << 20}, ""},
		{"an OOM kill well under the limit", engine.LimitHits{OOMKilled: true, OOMKills: 1, MemoryPeak: 10 << 20}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := runKilled(t, 0, c.hits)
			if err != nil || st == nil || st.Status != result.StatusOK || st.Metadata["error"] != nil {
				t.Fatalf("error %v, stage %+v; want the stage ran", err, st)
			}
			reason, _ := st.Metadata["memory_limit_killed"].(string)
			if reason != c.want {
				t.Errorf("memory_limit_killed %q, want %q", reason, c.want)
			}
			if c.want != "" && !containsNote(st.Notes, c.want) {
				t.Errorf("notes %q lack the reason", st.Notes)
			}
		})
	}
}
