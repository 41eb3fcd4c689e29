package task

import (
	"encoding/json"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// truth: once a task is frozen (truth/ holds a truth file), the truth of
// every declarative module must fit the task as it is now
// (kinds.CheckTruth): its provenance complete, recorded from the State A
// the task pins and for the module's current cases, and holding every
// observation the module checks. Each problem names the truth file, the
// line and the JSON field. A task not frozen yet gets a note.
func (v *validator) truth() {
	d, ok := v.declaration()
	if !ok {
		return
	}
	if frozen, _ := filepath.Glob(filepath.Join(d.TaskDir, behavioural.TruthDir, "*.json")); len(frozen) == 0 {
		for _, m := range d.Modules {
			if m.Kind != behavioural.KindProgram {
				v.note(RuleTruth, "not frozen yet: no %s/ (srb freeze %s records the modules' truth from State A)", behavioural.TruthDir, v.t.Arg())
				return
			}
		}
		return
	}
	for _, p := range checkTruth(d, v.truthMemo) {
		v.r.Problems = append(v.r.Problems, Problem{Rule: RuleTruth, File: p.File, Line: p.Line, Path: p.Field, Msg: p.Msg})
	}
}

// declaration is the part of the task's stage-2 declaration truth is
// checked against; ok is false when a module's params do not export
// (the schema rules report that).
func (v *validator) declaration() (*behavioural.Declaration, bool) {
	t := v.t
	d := &behavioural.Declaration{Task: t.ID, TaskDir: t.Dir, StateA: t.StateA.SHA256, Configurations: map[string]behavioural.Configuration{}}
	for name := range t.Behavioural.Configurations {
		d.Configurations[name] = behavioural.Configuration{}
	}
	for _, m := range t.Behavioural.Modules {
		raw, err := m.ParamsJSON()
		if err != nil {
			return nil, false
		}
		d.Modules = append(d.Modules, behavioural.DeclaredModule{ID: m.ID, Kind: m.Kind, Params: json.RawMessage(raw)})
	}
	return d, true
}
