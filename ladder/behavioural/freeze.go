package behavioural

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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
