package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// A module's stdout.log in the behavioural container can hold what the
// submission's program printed (a program module that passes its output
// through): its copy to the results folder is bounded by ModuleLogCopyLimit,
// so a submission that prints a terabyte (here a sparse file past the
// bound) cannot fill the grader's disk; result.json and a log within the
// bound are copied as they are.
func TestCopyModulesBounded(t *testing.T) {
	eng := &engine.Fake{}
	s, err := eng.Start(context.Background(), engine.Spec{Image: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	c := eng.Containers()[0]
	for _, id := range []string{"loud", "quiet"} {
		dir := c.Path(WorkPath + "/" + id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"checks":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(c.Path(WorkPath+"/quiet/stdout.log"), []byte("fine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(c.Path(WorkPath + "/loud/stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(ModuleLogCopyLimit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var logged []string
	modules := t.TempDir()
	cs := &Container{Modules: modules, Decl: &behavioural.Declaration{Modules: []behavioural.DeclaredModule{{ID: "loud"}, {ID: "quiet"}}},
		Log: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
	cs.copyModules(context.Background(), s, t.TempDir())
	if st, err := os.Stat(filepath.Join(modules, "loud", "stdout.log")); err == nil {
		t.Errorf("the loud module's log was copied out whole: %d bytes", st.Size())
	}
	for _, p := range []string{"loud/result.json", "quiet/result.json", "quiet/stdout.log"} {
		if _, err := os.Stat(filepath.Join(modules, p)); err != nil {
			t.Errorf("%s was not copied: %v", p, err)
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "module loud: copying stdout.log out") || !strings.Contains(logged[0], "more than") {
		t.Errorf("logged %q, want one line saying the loud log is past its bound", logged)
	}
}
