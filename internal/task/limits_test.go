package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimitsDefaultsAndBounds(t *testing.T) {
	r := Validate("../../testdata/tasks/lang90-tally-c-to-go")
	if r.Task == nil {
		t.Fatal("fixture not decoded")
	}
	if got := r.Task.Limits; got != (Limits{Pids: 1024, MemoryMiB: 8192}) {
		t.Errorf("default limits %+v, want 1024 processes, 8192 MiB, no disk limit", got)
	}
	// A task that sets them gets them; one below the floor is refused.
	src, err := os.ReadFile("../../testdata/tasks/lang90-tally-c-to-go/task.cue")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		add  string
		want Limits
		bad  bool
	}{
		{"limits: {pids: 256, memory_mib: 2048, disk_mib: 10240}", Limits{Pids: 256, MemoryMiB: 2048, DiskMiB: 10240}, false},
		{"limits: pids: 8", Limits{}, true},
		{"limits: cpus: 4", Limits{Pids: 1024, MemoryMiB: 8192, CPUs: 4}, false},
		{"limits: cpus: 0", Limits{}, true},
		{"limits: cpus: 1.5", Limits{}, true},
	} {
		dir := filepath.Join(t.TempDir(), "lang90-tally-c-to-go")
		if err := os.CopyFS(dir, os.DirFS("../../testdata/tasks/lang90-tally-c-to-go")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "task.cue"), []byte(string(src)+"\n"+c.add+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := Validate(dir)
		if c.bad {
			field := "limits." + strings.Fields(strings.TrimPrefix(c.add, "limits: "))[0]
			field = strings.TrimSuffix(field, ":")
			found := false
			for _, p := range r.Problems {
				found = found || strings.Contains(p.Format(""), field)
			}
			if !found {
				t.Errorf("%s: no problem naming %s: %+v", c.add, field, r.Problems)
			}
			continue
		}
		if r.Task == nil || r.Task.Limits != c.want {
			t.Errorf("%s: limits %+v, want %+v (problems %+v)", c.add, r.Task, c.want, r.Problems)
		}
	}
}
