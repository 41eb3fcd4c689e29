package behavioural

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// ErrRefused is wrapped when freezing is refused: State A does not
// reproduce its own truth.
var ErrRefused = errors.New("freeze refused")

// Freezer records truth from State A and runs the identity run. Runner's
// Repo and Original are State A; its Work and ResultPath are replaced per
// run (record, identity-1, identity-2 under Work).
type Freezer struct {
	Runner     Runner
	Decl       *Declaration
	Helper     []string
	Provenance Provenance
	// RunStage, when set, runs each of the three runs instead of Runner
	// (srb freeze in the stage images): name is "record", "identity-1" or
	// "identity-2", truthDir the staged truth (identity runs). The record
	// run must leave each module's observations at
	// <Runner.Work>/record/<module>/observations.json.
	RunStage func(ctx context.Context, name, mode, truthDir string) (*result.Stage, error)
}

// FreezeReport is what a freeze did.
type FreezeReport struct {
	// Record is the record run's stage result; Identity the two identity
	// runs' (nil when not reached).
	Record   *result.Stage
	Identity [2]*result.Stage
	// Written are the truth files written into the task folder.
	Written []string
	// Flaky are check ids whose verdict differed between the identity
	// runs; Failing the checks that did not pass, per identity run.
	Flaky   []string
	Failing [2][]string
}

func (f *Freezer) run(ctx context.Context, name, mode, truthDir string) (*result.Stage, error) {
	if f.RunStage != nil {
		return f.RunStage(ctx, name, mode, truthDir)
	}
	r := f.Runner
	r.Work = filepath.Join(f.Runner.Work, name)
	r.ResultPath = filepath.Join(f.Runner.Work, name+".json")
	s, err := f.Decl.Suite(mode, r.Work, truthDir, f.Helper)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, s)
}

// Freeze records every declarative module on State A into a staging
// folder, runs the identity run twice against it, and only when every
// module reached 1.0 both times replaces the task's truth/ with it. A
// refusal wraps [ErrRefused] and names the failing and flaky checks.
func (f *Freezer) Freeze(ctx context.Context) (*FreezeReport, error) {
	rep := &FreezeReport{}
	staged := filepath.Join(f.Runner.Work, "truth")
	st, err := f.run(ctx, "record", ModeRecord, "")
	rep.Record = st
	if err != nil {
		return rep, fmt.Errorf("freeze: record: %w", err)
	}
	if bad := Incomplete(st); len(bad) > 0 {
		if f := unitFaults(st); f != nil {
			return rep, fmt.Errorf("freeze: recording State A did not complete: %w", f)
		}
		return rep, fmt.Errorf("freeze: %w: recording State A did not complete: %s", ErrRefused, strings.Join(bad, "; "))
	}
	files, err := f.writeTruth(st, staged)
	if err != nil {
		return rep, err
	}
	for i := range 2 {
		st, err := f.run(ctx, fmt.Sprintf("identity-%d", i+1), ModeIdentity, staged)
		rep.Identity[i] = st
		if err != nil {
			return rep, fmt.Errorf("freeze: identity run %d: %w", i+1, err)
		}
		rep.Failing[i] = Incomplete(st)
	}
	rep.Flaky = flaky(rep.Identity[0], rep.Identity[1])
	if len(rep.Failing[0]) > 0 || len(rep.Failing[1]) > 0 || len(rep.Flaky) > 0 {
		var parts []string
		for i, bad := range rep.Failing {
			if len(bad) > 0 {
				parts = append(parts, fmt.Sprintf("identity run %d: %s", i+1, strings.Join(bad, "; ")))
			}
		}
		if len(rep.Flaky) > 0 {
			parts = append(parts, "flaky (differed between the two identity runs): "+strings.Join(rep.Flaky, ", "))
		}
		return rep, fmt.Errorf("freeze: %w: State A does not reproduce its own truth: %s", ErrRefused, strings.Join(parts, "; "))
	}
	dst := filepath.Join(f.Decl.TaskDir, TruthDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return rep, fmt.Errorf("freeze: %w", err)
	}
	keep := map[string]bool{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return rep, fmt.Errorf("freeze: %w", err)
		}
		out := filepath.Join(dst, filepath.Base(p))
		if err := writeFileAtomic(out, b); err != nil {
			return rep, fmt.Errorf("freeze: %w", err)
		}
		keep[filepath.Base(p)] = true
		rep.Written = append(rep.Written, out)
	}
	old, _ := filepath.Glob(filepath.Join(dst, "*.json"))
	for _, p := range old {
		if !keep[filepath.Base(p)] {
			_ = os.Remove(p) // the truth of a module no longer declared
		}
	}
	return rep, nil
}

// writeTruth turns the record run's observations into truth files.
func (f *Freezer) writeTruth(st *result.Stage, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("freeze: %w", err)
	}
	tool := map[string]string{}
	var obs []*Observations
	for _, dm := range f.Decl.Modules {
		if dm.Kind == KindProgram {
			continue
		}
		var o Observations
		p := filepath.Join(f.Runner.Work, "record", dm.ID, "observations.json")
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("freeze: module %s left no observations: %w", dm.ID, err)
		}
		if err := jsonUnmarshal(b, &o); err != nil {
			return nil, fmt.Errorf("freeze: module %s: %w", dm.ID, err)
		}
		maps.Copy(tool, o.Toolchains)
		obs = append(obs, &o)
	}
	if fe := observedFaults(obs); fe != nil {
		return nil, fmt.Errorf("freeze: %w", fe)
	}
	prov := f.Provenance
	if prov.Images == nil {
		prov.Images = map[string]string{}
	}
	prov.Toolchains = map[string]string{}
	maps.Copy(prov.Toolchains, f.Provenance.Toolchains)
	maps.Copy(prov.Toolchains, tool)
	if prov.SRB == "" {
		prov.SRB = result.Fingerprint()
	}
	var files []string
	for _, o := range obs {
		t := Truth{Schema: TruthSchema, Task: f.Decl.Task, Module: o.Module, Kind: o.Kind, Provenance: prov,
			CasesFingerprint: o.CasesFingerprint, Observations: o.Values}
		p := filepath.Join(dir, o.Module+".json")
		if err := WriteJSON(p, t); err != nil {
			return nil, fmt.Errorf("freeze: %w", err)
		}
		files = append(files, p)
	}
	return files, nil
}

// Incomplete lists, for a stage result, every module that did not finish
// ok ("module <id> <status>: <summary's first line>") and every scored
// check that did not pass ("<check>: <summary>"); empty when the stage
// reached 1.0 in every module (the identity run's bar, HARNESS.md §4.2).
func Incomplete(st *result.Stage) []string {
	var out []string
	for _, u := range st.Units {
		if u.Status != result.UnitOK {
			out = append(out, fmt.Sprintf("module %s %s: %s", u.ID, u.Status, firstLine(u.Summary)))
		}
	}
	for _, c := range st.Checks {
		if c.Weight > 0 && !c.OK() {
			out = append(out, fmt.Sprintf("%s: %s", c.ID, c.Summary))
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// flaky lists the check ids whose verdicts differ between a and b (a
// check present in only one run counts).
func flaky(a, b *result.Stage) []string {
	va, vb := map[string]string{}, map[string]string{}
	for _, c := range a.Checks {
		va[c.ID] = c.Verdict
	}
	for _, c := range b.Checks {
		vb[c.ID] = c.Verdict
	}
	var out []string
	for id, v := range va {
		if vb[id] != v {
			out = append(out, id)
		}
	}
	for id := range vb {
		if _, ok := va[id]; !ok {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// ErrHarnessFault is wrapped by a [FaultError] whose faults include one
// of the harness's own (a module killed by a signal, a result that does
// not read, a case whose folder could not be prepared): freezing could
// not run, and trying again may succeed (srb freeze exits 1).
var ErrHarnessFault = errors.New("the harness faulted")

// Fault is one observation of the record run that is a fault, not
// behaviour: it can never be ground truth, or a submission that faults
// the same way would pass the check.
type Fault struct {
	// Module is the module's id; Check the check id within it ("help/exit"),
	// "" for the whole module.
	Module, Check string
	// What is the observed fault: "timeout", "signal SIGSEGV", "could not
	// start: …", "no response: …", "unreadable: …", "did not build", or the
	// module's status and summary.
	What string
	// Harness is true when the fault is the harness's (the machine, the
	// helper) rather than the task's own configuration.
	Harness bool
}

// FaultError is why Freeze refused the record run: faults where ground
// truth was expected, each naming module and case. It wraps
// [ErrHarnessFault] when any fault is the harness's, else [ErrRefused]
// (the task's cases fault on State A: the task is wrong, exit 2).
type FaultError struct{ Faults []Fault }

// Error lists every fault: "module usage, check clock/exit: timeout; …".
func (e *FaultError) Error() string {
	parts := make([]string, 0, len(e.Faults))
	for _, f := range e.Faults {
		where := "module " + f.Module
		if f.Check != "" {
			where += ", check " + f.Check
		}
		parts = append(parts, where+": "+f.What)
	}
	whose := "State A faults in the task's own cases"
	if e.harness() {
		whose = "the harness faulted while recording"
	}
	return fmt.Sprintf("a fault is never ground truth (%s): %s", whose, strings.Join(parts, "; "))
}

func (e *FaultError) harness() bool {
	for _, f := range e.Faults {
		if f.Harness {
			return true
		}
	}
	return false
}

// Unwrap is [ErrHarnessFault] when a fault is the harness's, else
// [ErrRefused].
func (e *FaultError) Unwrap() error {
	if e.harness() {
		return ErrHarnessFault
	}
	return ErrRefused
}

// unitFaults is a *FaultError naming every module of the record run that
// did not finish ok (timeout: the task's budget; killed by a signal or a
// result that does not read: the harness's; any other error: the
// task's), or nil when every module finished.
func unitFaults(st *result.Stage) *FaultError {
	var fs []Fault
	for _, u := range st.Units {
		if u.Status == result.UnitOK {
			continue
		}
		_, signalled := u.Metadata["signal"]
		_, unreadable := u.Metadata["result_error"]
		fs = append(fs, Fault{Module: u.ID, What: u.Status + ": " + firstLine(u.Summary), Harness: signalled || unreadable})
	}
	if len(fs) == 0 {
		return nil
	}
	return &FaultError{Faults: fs}
}

// observedFaults is a *FaultError naming every observation of obs that is
// a fault rather than State A's behaviour, or nil. The values are the
// helper's renderings (kinds: statusText, the http and symbols kinds):
// on a process's status ("…/exit" checks) "timeout", "signal …" and
// "could not start: …" are the task's (its case hangs, crashes or names
// no program on State A), "could not prepare: …" the harness's; "no
// response: …" (an http exchange) and "unreadable: …" (a library) are
// the task's; a configuration whose "…/builds" is false means State A
// did not build, the task's.
func observedFaults(obs []*Observations) *FaultError {
	var fs []Fault
	for _, o := range obs {
		for _, id := range slices.Sorted(maps.Keys(o.Values)) {
			v := o.Values[id]
			if strings.HasSuffix(id, "/builds") && o.Kind == "build" {
				if ok, _ := v.(bool); !ok {
					fs = append(fs, Fault{Module: o.Module, Check: id, What: "State A did not build"})
				}
				continue
			}
			s, ok := v.(string)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(s, "no response: "), strings.HasPrefix(s, "unreadable: "):
				fs = append(fs, Fault{Module: o.Module, Check: id, What: firstLine(s)})
			case !strings.HasSuffix(id, "/exit"):
			case s == "timeout", strings.HasPrefix(s, "signal "), strings.HasPrefix(s, "could not start: "):
				fs = append(fs, Fault{Module: o.Module, Check: id, What: firstLine(s)})
			case strings.HasPrefix(s, "could not prepare: "):
				fs = append(fs, Fault{Module: o.Module, Check: id, What: firstLine(s), Harness: true})
			}
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return &FaultError{Faults: fs}
}
