package behavioural

import (
	"errors"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestFreezeFaults: a fault observed on State A is never ground truth. A
// case's timeout, signal or failure to start, an exchange without a
// response, an unreadable library and State A not building are the
// task's faults (ErrRefused: exit 2); a case folder that could not be
// prepared, or a module killed by a signal, the harness's
// (ErrHarnessFault: exit 1). Behaviour that merely looks like a fault in
// another aspect (a program printing "timeout") is not one.
func TestFreezeFaults(t *testing.T) {
	obs := func(module, kind string, values map[string]any) *Observations {
		return &Observations{Module: module, Kind: kind, Values: values}
	}
	task := []*Observations{
		obs("usage", "command", map[string]any{"hang/exit": "timeout", "crash/exit": "signal SIGSEGV", "gone/exit": "could not start: no such file",
			"ok/exit": 0.0, "ok/stdout": "timeout", "hang/stdout": ""}),
		obs("web", "http", map[string]any{"root/status": "no response: connection refused"}),
		obs("abi", "symbols", map[string]any{"lib/libt.so": "unreadable: no such file"}),
		obs("build", "build", map[string]any{"default/builds": false, "default/outputs": []any{}}),
	}
	err := observedFaults(task)
	if err == nil {
		t.Fatal("faults were accepted as ground truth")
	}
	want := "a fault is never ground truth (State A faults in the task's own cases): module usage, check crash/exit: signal SIGSEGV; " +
		"module usage, check gone/exit: could not start: no such file; module usage, check hang/exit: timeout; " +
		"module web, check root/status: no response: connection refused; module abi, check lib/libt.so: unreadable: no such file; " +
		"module build, check default/builds: State A did not build"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if !errors.Is(err, ErrRefused) || errors.Is(err, ErrHarnessFault) {
		t.Errorf("task faults: Is(ErrRefused) %v, Is(ErrHarnessFault) %v", errors.Is(err, ErrRefused), errors.Is(err, ErrHarnessFault))
	}
	harness := observedFaults([]*Observations{obs("usage", "command", map[string]any{"a/exit": "could not prepare: disk full", "b/exit": "timeout"})})
	if harness == nil || !errors.Is(harness, ErrHarnessFault) || errors.Is(harness, ErrRefused) {
		t.Errorf("a harness fault: %v", harness)
	}
	if f := observedFaults([]*Observations{obs("usage", "command", map[string]any{"ok/exit": 2.0, "ok/stderr": "signal SIGSEGV"})}); f != nil {
		t.Errorf("behaviour taken for a fault: %v", f)
	}

	st := result.NewStage(result.StageBehavioural, "t", time.Now())
	st.Units = []result.Unit{
		{ID: "usage", Status: result.UnitOK},
		{ID: "slow", Status: result.UnitTimeout, Summary: "exceeded its 60s budget"},
	}
	if f := unitFaults(st); f == nil || !errors.Is(f, ErrRefused) || f.Error() != "a fault is never ground truth (State A faults in the task's own cases): module slow: timeout: exceeded its 60s budget" {
		t.Errorf("module timeout: %v", f)
	}
	st.Units = append(st.Units, result.Unit{ID: "killed", Status: result.UnitError, Summary: "killed by signal 9 (SIGKILL) and wrote no checks",
		Metadata: map[string]any{"signal": "killed"}})
	if f := unitFaults(st); f == nil || !errors.Is(f, ErrHarnessFault) {
		t.Errorf("a module killed by a signal: %v", f)
	}
}
