package kinds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// TruthProblem is one way a module's truth file does not fit the task it
// is graded for: its provenance does not match the task's current pins,
// a provenance field is missing or empty, or an observation a module
// checks was never recorded. A grader must not compare a submission with
// such truth (docs/LADDER.md "Ground truth and its provenance").
type TruthProblem struct {
	// File is the truth file (truth/<module>.json under the task folder).
	File string
	// Line is the 1-based line of Field in File, or 0 when the file has
	// no such line (the field is absent, or the file does not parse).
	Line int
	// Field is the JSON path of the field at fault ("provenance.state_a_sha256",
	// "observations[\"help/exit\"]"), or "" for the whole file.
	Field string
	// Module is the declared module the file is the truth of.
	Module string
	// Check is the check id (without the module prefix) whose observation
	// is missing, or "".
	Check string
	// Msg says what is wrong and how to fix it.
	Msg string
}

// CheckTruth checks the truth file of every declarative module of d (kind
// program has none) against the declaration: the file exists and reads,
// it is the truth of this task, module and kind, its provenance is
// complete (task commit, State A digest, srb's fingerprint, where it was
// recorded, the image digests of a container recording, the toolchains),
// its State A digest is d.StateA, its cases fingerprint is the module's
// current [Fingerprint], and it holds an observation for every check
// the module compares with the truth on any tree ([ExpectedChecks]).
//
// original is State A's tree, or "" when the caller has none: a corpus
// read from State A's tree (corpus.from "original") is then not
// enumerated, and its checks are left to the check-time guard (a check
// the truth lacks is a fault of the truth, never of the submission).
// Problems come in declared module order; nil means the truth fits.
func CheckTruth(d *behavioural.Declaration, original string) []TruthProblem {
	var out []TruthProblem
	for _, m := range d.Modules {
		if m.Kind == behavioural.KindProgram {
			continue
		}
		out = append(out, checkModuleTruth(d, m, original)...)
	}
	return out
}

func checkModuleTruth(d *behavioural.Declaration, m behavioural.DeclaredModule, original string) []TruthProblem {
	path := behavioural.TruthPath(d.TaskDir, m.ID)
	var out []TruthProblem
	lines := map[string]int{}
	add := func(field, check, format string, args ...any) {
		out = append(out, TruthProblem{File: path, Line: lines[field], Field: field, Module: m.ID, Check: check, Msg: fmt.Sprintf(format, args...)})
	}
	b, err := os.ReadFile(path)
	if err != nil {
		add("", "", "module %s has no truth file: run srb freeze %s to record it from State A", m.ID, d.Task)
		return out
	}
	lines = jsonFieldLines(b)
	if _, err := behavioural.ReadTruth(path); err != nil {
		add("", "", "module %s's truth does not read: %v: run srb freeze %s", m.ID, err, d.Task)
		return out
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		add("", "", "module %s's truth is not a JSON object: %v", m.ID, err)
		return out
	}
	var t behavioural.Truth
	_ = json.Unmarshal(b, &t)
	refreeze := "run srb freeze " + d.Task + " to re-record it"
	if t.Task != d.Task {
		add("task", "", "recorded for task %q, not %s: %s", t.Task, d.Task, refreeze)
	}
	if t.Module != m.ID || t.Kind != m.Kind {
		add("module", "", "recorded for module %q of kind %q, not %s of kind %s: %s", t.Module, t.Kind, m.ID, m.Kind, refreeze)
	}
	provenanceProblems(raw, t.Provenance, d, add, refreeze)
	fp, err := Fingerprint(m.Kind, m.Params, d.TaskDir)
	switch {
	case err != nil:
		add("cases_fingerprint", "", "module %s's cases cannot be fingerprinted: %v", m.ID, err)
	case t.CasesFingerprint == "":
		add("cases_fingerprint", "", "no cases fingerprint: the truth does not say which cases it was recorded for: %s", refreeze)
	case t.CasesFingerprint != fp:
		add("cases_fingerprint", "", "module %s's cases changed since the truth was recorded (cases fingerprint %.12s, recorded %.12s): %s", m.ID, fp, t.CasesFingerprint, refreeze)
		return out // its observations are of other cases: not listed one by one
	}
	if _, ok := raw["observations"]; !ok || t.Observations == nil {
		add("observations", "", "no observations: %s", refreeze)
		return out
	}
	want, err := ExpectedChecks(m.Kind, m.Params, d.TaskDir, original, configurationNames(d), &t)
	if err != nil {
		add("", "", "module %s's checks cannot be listed: %v", m.ID, err)
		return out
	}
	for _, id := range want {
		if _, ok := t.Observations[id]; !ok {
			field := "observations[" + strconv.Quote(id) + "]"
			lines[field] = lines["observations"]
			add(field, id, "module %s checks %s, and the truth has no observation of it (a correct port would be charged for it): %s", m.ID, id, refreeze)
		}
	}
	return out
}

// provenanceProblems checks a truth file's provenance block: present,
// every field filled in, and State A's digest the task's current pin.
func provenanceProblems(raw map[string]json.RawMessage, p behavioural.Provenance, d *behavioural.Declaration,
	add func(field, check, format string, args ...any), refreeze string) {
	pr, ok := raw["provenance"]
	var fields map[string]json.RawMessage
	if !ok || json.Unmarshal(pr, &fields) != nil || fields == nil {
		add("provenance", "", "no provenance: the truth does not say what it was recorded from (task commit, State A digest, images, toolchains, srb): %s", refreeze)
		return
	}
	empty := func(key string) bool {
		v, ok := fields[key]
		return !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) || bytes.Equal(bytes.TrimSpace(v), []byte(`""`))
	}
	for _, key := range []string{"task_commit", "state_a_sha256", "srb", "where"} {
		if empty(key) {
			add("provenance."+key, "", "provenance.%s is missing or empty: %s", key, refreeze)
		}
	}
	if empty("toolchains") {
		add("provenance.toolchains", "", "provenance.toolchains is missing: %s", refreeze)
	}
	if !empty("where") && p.Where != "host" && p.Where != "container" {
		add("provenance.where", "", "provenance.where is %q, not host or container: %s", p.Where, refreeze)
	}
	if p.Where == "container" {
		for _, stage := range []string{"behavioural", "verification"} {
			if p.Images[stage] == "" {
				add("provenance.images", "", "recorded in containers, and provenance.images has no %s image digest: %s", stage, refreeze)
			}
		}
	}
	if p.StateA != "" && d.StateA != "" && p.StateA != d.StateA {
		add("provenance.state_a_sha256", "", "recorded from State A %.19s, and the task now pins %.19s (state_a.sha256): the truth is of another archive: %s", p.StateA, d.StateA, refreeze)
	}
}

// configurationNames are d's configuration names, sorted.
func configurationNames(d *behavioural.Declaration) []string {
	names := make([]string, 0, len(d.Configurations))
	for n := range d.Configurations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ExpectedChecks returns, sorted, the check ids a module of kind with
// params compares with its truth whatever tree it runs on: what the
// declaration alone determines (each case and aspect of a command module,
// each exchange and aspect of an http module, each configuration's builds
// and outputs, each install step, library, digest step and file, each
// provenance rule) plus what the truth itself implies (an install tree's
// "path:<p>" for every p its recorded "paths" lists; t may be nil).
// Checks compared with a corpus's expected-output file instead of the
// truth are not listed. taskDir is the task folder; original is State A's
// tree ("" leaves a corpus read from it unlisted); configurations are
// the declared configuration names (a build module with none listed
// builds them all). Kind program has none.
func ExpectedChecks(kind string, params json.RawMessage, taskDir, original string, configurations []string, t *behavioural.Truth) ([]string, error) {
	var ids []string
	switch kind {
	case behavioural.KindProgram:
		return nil, nil
	case "build":
		var p BuildParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		names := p.Configurations
		if len(names) == 0 {
			names = configurations
		}
		for _, n := range names {
			ids = append(ids, n+"/builds", n+"/outputs")
		}
	case "command":
		var k commandKind
		if err := Decode(params, &k.CommandParams); err != nil {
			return nil, err
		}
		if k.Corpus != nil && k.Corpus.From == "original" && original == "" {
			k.Corpus = nil
		}
		scratch, err := os.MkdirTemp("", "srb-cases-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(scratch)
		cases, err := k.cases(taskDir, original, scratch)
		if err != nil {
			return nil, err
		}
		aspects := k.Compare
		if len(aspects) == 0 {
			aspects = []string{"stdout", "stderr", "exit", "files"}
		}
		for _, c := range cases {
			for _, a := range aspects {
				switch {
				case a == "stdout" && c.expect != nil, a == "files" && len(c.Produces) == 0:
				default:
					ids = append(ids, c.ID+"/"+a)
				}
			}
		}
	case "http":
		var p HTTPParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		aspects := p.Compare
		if len(aspects) == 0 {
			aspects = []string{"status", "headers", "body", "length"}
		}
		for _, x := range p.Exchanges {
			for _, a := range aspects {
				ids = append(ids, x.ID+"/"+a)
			}
		}
	case "tree":
		var p TreeParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		for i := range p.Install {
			ids = append(ids, fmt.Sprintf("install-%d/exit", i+1))
		}
		ids = append(ids, "paths")
		if t != nil {
			for _, path := range recordedPaths(t) {
				ids = append(ids, "path:"+path)
			}
		}
	case "symbols":
		var p SymbolsParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		ids = append(ids, p.Libraries...)
	case "digests":
		var p DigestsParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		for i := range p.Steps {
			ids = append(ids, fmt.Sprintf("step-%d/exit", i+1))
		}
		ids = append(ids, p.Files...)
	case "provenance":
		var p ProvenanceParams
		if err := Decode(params, &p); err != nil {
			return nil, err
		}
		for _, r := range p.Rules {
			ids = append(ids, r.ID)
		}
	default:
		return nil, fmt.Errorf("unknown module kind %q", kind)
	}
	sort.Strings(ids)
	return slices.Compact(ids), nil
}

// recordedPaths is the "paths" observation of an install tree's truth.
func recordedPaths(t *behavioural.Truth) []string {
	list, _ := t.Observations["paths"].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// openEnded reports whether check id of a module of kind is one whose
// presence depends on the tree under test rather than on the declaration
// or the truth: an install tree's "path:<p>" for a p State A's recorded
// "paths" does not list. The truth cannot hold it, so its absence there is
// the submission's difference from State A, not a gap in the truth.
func openEnded(kind, id string, t *behavioural.Truth) bool {
	if kind != "tree" || !strings.HasPrefix(id, "path:") {
		return false
	}
	return !slices.Contains(recordedPaths(t), strings.TrimPrefix(id, "path:"))
}

// jsonFieldLines maps the top-level keys of a JSON object document, and
// the keys of its "provenance" object ("provenance.<key>"), to the 1-based
// line each key is written on. A document that does not parse maps what
// was read before the error.
func jsonFieldLines(b []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(b))
	line := func() int { return bytes.Count(b[:min(int(dec.InputOffset()), len(b))], []byte("\n")) + 1 }
	// value reads one value; prefix is its path ("" for the document).
	var value func(prefix string, depth int) bool
	value = func(prefix string, depth int) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		switch d {
		case '{':
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := tok.(string)
				path := key
				if prefix != "" {
					path = prefix + "." + key
				}
				if depth == 0 || (depth == 1 && prefix == "provenance") {
					if _, seen := out[path]; !seen {
						out[path] = line()
					}
				}
				if !value(path, depth+1) {
					return false
				}
			}
		case '[':
			for dec.More() {
				if !value(prefix, depth+1) {
					return false
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	value("", 0)
	return out
}
