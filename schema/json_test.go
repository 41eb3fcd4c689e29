package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/swe-refactor-bench/srb/schema"
)

// contracts are the JSON contracts srb reads or writes. The transcript
// record has no constant in schema.go yet, hence the literal.
var contracts = []string{
	schema.ImagesLock,
	schema.ModuleResult,
	schema.Reward,
	schema.Score,
	schema.StageResult,
	schema.Telemetry,
	"transcript-record",
}

func TestNamesListsExactlyTheContracts(t *testing.T) {
	want := slices.Clone(contracts)
	slices.Sort(want)
	if got := schema.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
}

func TestEverySchemaCompiles(t *testing.T) {
	for _, name := range schema.Names() {
		t.Run(name, func(t *testing.T) {
			raw, err := schema.JSONSchema(name)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			top, ok := doc.(map[string]any)
			if !ok {
				t.Fatalf("top level is %T, want an object", doc)
			}
			if got := top["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %v, want draft 2020-12", got)
			}
			if got, want := top["$id"], "https://srb.invalid/json/"+name+".json"; got != want {
				t.Errorf("$id = %v, want %s", got, want)
			}
			for _, key := range []string{"title", "description"} {
				if s, _ := top[key].(string); strings.TrimSpace(s) == "" {
					t.Errorf("%s is missing or empty", key)
				}
			}
			// Compiled on its own, so a broken schema is reported by name
			// rather than through the package's shared compile.
			c := jsonschema.NewCompiler()
			url := "srb:/json/" + name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Fatalf("does not compile: %v", err)
			}
			// And through the package, which is what callers use.
			if err := schema.Validate(name, map[string]any{}); err != nil {
				var ve *schema.ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("Validate returned %T (%v), want nil or *ValidationError", err, err)
				}
			}
		})
	}
}

// TestEveryPropertyIsDescribed holds the schemas to their own documentation
// rule: every named or patterned property says what it means.
func TestEveryPropertyIsDescribed(t *testing.T) {
	for _, name := range schema.Names() {
		raw, err := schema.JSONSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var walk func(ptr string, node any)
		walk = func(ptr string, node any) {
			switch n := node.(type) {
			case map[string]any:
				for _, kw := range []string{"properties", "patternProperties"} {
					props, ok := n[kw].(map[string]any)
					if !ok {
						continue
					}
					for prop, sub := range props {
						m, _ := sub.(map[string]any)
						if d, _ := m["description"].(string); strings.TrimSpace(d) == "" {
							t.Errorf("%s: %s/%s/%s has no description", name, ptr, kw, prop)
						}
					}
				}
				for k, v := range n {
					walk(ptr+"/"+k, v)
				}
			case []any:
				for i, v := range n {
					walk(ptr+"/"+strconv.Itoa(i), v)
				}
			}
		}
		walk("", doc)
	}
}

// TestValidDocuments validates every fixture under testdata/valid/<contract>:
// a .json file is one document, a .jsonl file one document per line.
func TestValidDocuments(t *testing.T) {
	for _, name := range contracts {
		t.Run(name, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("testdata", "valid", name, "*"))
			if err != nil {
				t.Fatal(err)
			}
			docs := 0
			for _, file := range files {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				switch filepath.Ext(file) {
				case ".json":
					docs++
					if err := schema.ValidateBytes(name, data); err != nil {
						t.Errorf("%s: %v", file, err)
					}
				case ".jsonl":
					sc := bufio.NewScanner(bytes.NewReader(data))
					sc.Buffer(nil, 1<<20)
					for line := 1; sc.Scan(); line++ {
						docs++
						if err := schema.ValidateBytes(name, sc.Bytes()); err != nil {
							t.Errorf("%s:%d: %v", file, line, err)
						}
					}
					if err := sc.Err(); err != nil {
						t.Fatal(err)
					}
				default:
					t.Errorf("%s: unexpected fixture (want .json or .jsonl)", file)
				}
			}
			if docs < 3 {
				t.Errorf("%d valid document(s) for %s, want at least 3", docs, name)
			}
		})
	}
}

// TestEnvelopeIsAModuleResult: a module may write a full stage-result
// envelope to $SRB_RESULT, so every valid envelope is a valid module result.
func TestEnvelopeIsAModuleResult(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "valid", schema.StageResult, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.ValidateBytes(schema.ModuleResult, data); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// edit changes one fixture so that it breaks exactly one rule.
type edit struct {
	op    string // "set" or "delete"
	path  string // JSON pointer of the value to set or delete
	value string // JSON text, for "set"
}

func set(path, value string) edit { return edit{"set", path, value} }
func del(path string) edit        { return edit{op: "delete", path: path} }

type invalidCase struct {
	name     string
	contract string
	base     string // fixture under testdata/valid/<contract>; "" means doc is the whole document
	doc      string
	edits    []edit
	pointer  string // the exact JSON pointer Validate must report
}

var invalidCases = []invalidCase{
	// stage-result
	{name: "unit status outside the vocabulary", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/units/0/status", `"running"`)}, pointer: "/units/0/status"},
	{name: "verdict not lower-case as written", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/checks/2/verdict", `"PASS"`)}, pointer: "/checks/2/verdict"},
	{name: "started_at missing", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{del("/started_at")}, pointer: ""},
	{name: "started_at not UTC to the second", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/started_at", `"2026-07-30T09:12:44.5+00:00"`)}, pointer: "/started_at"},
	{name: "unknown key on a unit", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/units/1/rate", `1`)}, pointer: "/units/1"},
	{name: "unknown key on the envelope", contract: schema.StageResult, base: "audit-gate.json",
		edits: []edit{set("/verdict", `"pass"`)}, pointer: ""},
	{name: "fingerprint not 12 hex", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/harness/fingerprint", `"8815A3A68B15"`)}, pointer: "/harness/fingerprint"},
	{name: "orchestrator not 12 hex", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/harness/orchestrator", `"8815a3a68b1"`)}, pointer: "/harness/orchestrator"},
	{name: "unknown key in the harness stamp", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/harness/helper", `"3c0f51e9a2d4"`)}, pointer: "/harness"},
	{name: "stage outside the vocabulary", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/stage", `"scan"`)}, pointer: "/stage"},
	{name: "required written as false", contract: schema.StageResult, base: "audit-gate.json",
		edits: []edit{set("/checks/2/required", `false`)}, pointer: "/checks/2/required"},
	{name: "evidence item not an object", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/checks/2/evidence/1", `"see spec section 6.2"`)}, pointer: "/checks/2/evidence/1"},
	{name: "negative check weight", contract: schema.StageResult, base: "behavioural-partial.json",
		edits: []edit{set("/checks/0/weight", `-1`)}, pointer: "/checks/0/weight"},
	{name: "check without summary", contract: schema.StageResult, base: "verification-rounds.json",
		edits: []edit{del("/checks/1/summary")}, pointer: "/checks/1"},
	{name: "metadata not an object", contract: schema.StageResult, base: "disabled-skip.json",
		edits: []edit{set("/metadata", `[]`)}, pointer: "/metadata"},

	// module-result: only what cannot be read, or would break a later reader
	{name: "top level a string", contract: schema.ModuleResult, doc: `"pass"`, pointer: ""},
	{name: "top level a number", contract: schema.ModuleResult, doc: `3`, pointer: ""},
	{name: "top level null", contract: schema.ModuleResult, doc: `null`, pointer: ""},
	{name: "checks a string", contract: schema.ModuleResult, base: "checks-object.json",
		edits: []edit{set("/checks", `"spec/0042 pass"`)}, pointer: "/checks"},
	{name: "checks a number", contract: schema.ModuleResult, base: "checks-object.json",
		edits: []edit{set("/checks", `1`)}, pointer: "/checks"},
	{name: "checks a map of checks", contract: schema.ModuleResult, base: "status-error.json",
		edits: []edit{set("/checks", `{"a": {"verdict": "pass"}}`)}, pointer: "/checks"},
	{name: "check metadata a string", contract: schema.ModuleResult, base: "checks-object.json",
		edits: []edit{set("/checks/1/metadata", `"fast"`)}, pointer: "/checks/1/metadata"},
	{name: "check metadata a non-empty list in a bare list", contract: schema.ModuleResult, base: "bare-list-lenient.json",
		edits: []edit{set("/7/metadata", `["slow"]`)}, pointer: "/7/metadata"},
	{name: "notes a number", contract: schema.ModuleResult, base: "envelope.json",
		edits: []edit{set("/notes", `5`)}, pointer: "/notes"},

	// score
	{name: "harnesses orchestrator not 12 hex", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/harnesses/1/orchestrator", `"helper"`)}, pointer: "/harnesses/1/orchestrator"},
	{name: "audit_gate outside the vocabulary", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/audit_gate", `"passed"`)}, pointer: "/audit_gate"},
	{name: "blocked_by outside the vocabulary", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/blocked_by", `"audit-timeout"`)}, pointer: "/blocked_by"},
	{name: "valid as a number", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/valid", `1`)}, pointer: "/valid"},
	{name: "negative check count", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/behavioural/modules/0/checks/passed", `-1`)}, pointer: "/behavioural/modules/0/checks/passed"},
	{name: "module status outside the vocabulary", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/behavioural/modules/1/status", `"crashed"`)}, pointer: "/behavioural/modules/1/status"},
	{name: "reward on the 100-point scale", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/reward", `90`)}, pointer: "/reward"},
	{name: "models_total missing", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{del("/verification/models_total")}, pointer: "/verification"},
	{name: "unscored entry counted", contract: schema.Score, base: "audit-fail-stage2-uncounted.json",
		edits: []edit{set("/unscored/behavioural/counted", `true`)}, pointer: "/unscored/behavioural/counted"},
	{name: "audit failure with a pass verdict", contract: schema.Score, base: "audit-fail-stage2-uncounted.json",
		edits: []edit{set("/audit_failures/0/verdict", `"pass"`)}, pointer: "/audit_failures/0/verdict"},
	{name: "uncounted modules as rows", contract: schema.Score, base: "audit-fail-stage2-uncounted.json",
		edits: []edit{set("/uncounted/behavioural/modules", `[]`)}, pointer: "/uncounted/behavioural/modules"},
	{name: "a stage run twice", contract: schema.Score, base: "full-marks-but-one.json",
		edits: []edit{set("/stages_run", `["audit", "audit"]`)}, pointer: "/stages_run"},
	{name: "unknown top-level key", contract: schema.Score, base: "publish-error.json",
		edits: []edit{set("/passed", `false`)}, pointer: ""},

	// images-lock
	{name: "image digest not sha256", contract: schema.ImagesLock, base: "fixture-four-images.json",
		edits: []edit{set("/images/audit/digest", `"sha256:4B1F"`)}, pointer: "/images/audit/digest"},
	{name: "stage outside the four", contract: schema.ImagesLock, base: "fixture-four-images.json",
		edits: []edit{set("/images/build", `{"digest": "sha256:4b1feb951dda848b42df7d31c52c526f7df05d1f857ba1e4e28e2746e1320409", "llb": "sha256:614bbc3c1d95365027b9a2520d800048738d60f9bc682c0f2285cde018794940", "inputs": {"base": "sha256:5fe2410ef377c5a0718229ac02eab0551844655ea18b929db4f47c5bd31597e3"}}`)}, pointer: "/images"},
	{name: "input without about", contract: schema.ImagesLock, base: "fixture-four-images.json",
		edits: []edit{del("/inputs/helper/about")}, pointer: "/inputs/helper"},
	{name: "unknown input name", contract: schema.ImagesLock, base: "fixture-four-images.json",
		edits: []edit{set("/images/agent/inputs/compiler", `"sha256:5fe2410ef377c5a0718229ac02eab0551844655ea18b929db4f47c5bd31597e3"`)}, pointer: "/images/agent/inputs"},
	{name: "wrong format version", contract: schema.ImagesLock, base: "audit-only-dirty.json",
		edits: []edit{set("/schema", `"srb.images-lock/2"`)}, pointer: "/schema"},
	{name: "source_date_epoch as a string", contract: schema.ImagesLock, base: "registry-base.json",
		edits: []edit{set("/source_date_epoch", `"946684800"`)}, pointer: "/source_date_epoch"},
	// reward
	{name: "valid as a boolean", contract: schema.Reward, base: "full-marks-but-one.json",
		edits: []edit{set("/valid", `true`)}, pointer: "/valid"},
	{name: "rate as a string", contract: schema.Reward, base: "full-marks-but-one.json",
		edits: []edit{set("/stage2_rate", `"1.0"`)}, pointer: "/stage2_rate"},
	{name: "fixed key missing", contract: schema.Reward, base: "publish-error.json",
		edits: []edit{del("/harnesses_distinct")}, pointer: ""},
	{name: "module flag not 0/1", contract: schema.Reward, base: "full-marks-but-one.json",
		edits: []edit{set("/module_build_ran", `2`)}, pointer: "/module_build_ran"},
	{name: "module count fractional", contract: schema.Reward, base: "full-marks-but-one.json",
		edits: []edit{set("/module_symbols_passed", `1.5`)}, pointer: "/module_symbols_passed"},
	{name: "module key empty", contract: schema.Reward, base: "behavioural-incomplete.json",
		edits: []edit{set("/module__rate", `0.5`)}, pointer: ""},
	{name: "adversary flag not 0/1", contract: schema.Reward, base: "full-marks-but-one.json",
		edits: []edit{set("/adversary_a02_abi_survived", `-1`)}, pointer: "/adversary_a02_abi_survived"},
	{name: "reward above 1", contract: schema.Reward, base: "audit-fail-stage2-uncounted.json",
		edits: []edit{set("/reward", `1.5`)}, pointer: "/reward"},

	// telemetry
	{name: "credits as text", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{set("/stage1/0/credits", `"n/a"`)}, pointer: "/stage1/0/credits"},
	{name: "credits omitted instead of null", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{del("/stage3/0/credits")}, pointer: "/stage3/0"},
	{name: "round outcome a verdict", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{set("/stage3/1/outcome", `"pass"`)}, pointer: "/stage3/1/outcome"},
	{name: "schema version", contract: schema.Telemetry, base: "empty.json",
		edits: []edit{set("/schema", `"swerefactor.telemetry/2"`)}, pointer: "/schema"},
	{name: "negative calls", contract: schema.Telemetry, base: "gate-failed-no-stage3.json",
		edits: []edit{set("/stage1/0/calls", `-1`)}, pointer: "/stage1/0/calls"},
	{name: "verdict fields leak into a row", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{set("/stage1/1/votes", `{}`)}, pointer: "/stage1/1"},
	{name: "adjudicator decision a verdict", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{set("/stage3/0/adjudicator/decision", `"fail"`)}, pointer: "/stage3/0/adjudicator/decision"},
	{name: "adjudicator tokens omitted instead of null", contract: schema.Telemetry, base: "full-run.json",
		edits: []edit{del("/stage3/0/adjudicator/input_tokens")}, pointer: "/stage3/0/adjudicator"},

	// transcript-record
	{name: "no timestamp", contract: "transcript-record", doc: `{"kind": "user", "text": "x"}`, pointer: ""},
	{name: "timestamp as text", contract: "transcript-record", doc: `{"t": "1786000000.1", "kind": "user", "text": "x"}`, pointer: "/t"},
	{name: "unknown kind", contract: "transcript-record", doc: `{"t": 1786000000.1, "kind": "thought", "text": "x"}`, pointer: "/kind"},
	{name: "turn numbered from 0", contract: "transcript-record",
		doc: `{"t": 1786000000.1, "kind": "assistant", "turn": 0, "text": "", "stop_reason": null, "tool_calls": []}`, pointer: "/turn"},
	{name: "tool record without result_bytes", contract: "transcript-record",
		doc: `{"t": 1786000000.1, "kind": "tool", "name": "read_file", "arguments": {}, "result": "x"}`, pointer: ""},
	{name: "stop reason outside the vocabulary", contract: "transcript-record",
		doc: `{"t": 1786000000.1, "kind": "stop", "reason": "done"}`, pointer: "/reason"},
	{name: "tool call without arguments", contract: "transcript-record",
		doc:     `{"t": 1786000000.1, "kind": "assistant", "turn": 1, "text": "", "stop_reason": null, "tool_calls": [{"name": "read_file"}]}`,
		pointer: "/tool_calls/0"},
	{name: "a JSONL line holding a list", contract: "transcript-record", doc: `[]`, pointer: ""},
}

func TestInvalidDocuments(t *testing.T) {
	perContract := map[string]int{}
	for _, tc := range invalidCases {
		perContract[tc.contract]++
		t.Run(tc.contract+"/"+tc.name, func(t *testing.T) {
			data := []byte(tc.doc)
			if tc.base != "" {
				data = edited(t, filepath.Join("testdata", "valid", tc.contract, tc.base), tc.edits)
			}
			err := schema.ValidateBytes(tc.contract, data)
			if err == nil {
				t.Fatalf("accepted:\n%s", data)
			}
			var ve *schema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is %T (%v), want *schema.ValidationError", err, err)
			}
			if ve.Contract != tc.contract {
				t.Errorf("Contract = %q, want %q", ve.Contract, tc.contract)
			}
			if ve.Pointer != tc.pointer {
				t.Errorf("Pointer = %q, want %q (msg: %s)", ve.Pointer, tc.pointer, ve.Msg)
			}
			t.Log(err)
			if strings.TrimSpace(ve.Msg) == "" {
				t.Errorf("Msg is empty")
			}
		})
	}
	for _, name := range contracts {
		if perContract[name] < 4 {
			t.Errorf("%d invalid case(s) for %s, want at least 4", perContract[name], name)
		}
	}
}

// edited returns the fixture at file with edits applied, as JSON.
func edited(t *testing.T, file string, edits []edit) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	// Each edit must change something that was valid, so the fixture itself
	// is checked first: a failure below is then the edit's doing.
	if err := schema.ValidateBytes(filepath.Base(filepath.Dir(file)), data); err != nil {
		t.Fatalf("base fixture is not valid: %v", err)
	}
	for _, e := range edits {
		var val any
		if e.op == "set" {
			if err := json.Unmarshal([]byte(e.value), &val); err != nil {
				t.Fatalf("edit %s: value %q: %v", e.path, e.value, err)
			}
		}
		doc = apply(t, doc, splitPointer(e.path), e.op, val)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, tok := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return toks
}

func apply(t *testing.T, node any, toks []string, op string, val any) any {
	t.Helper()
	if len(toks) == 0 {
		if op == "delete" {
			t.Fatal("cannot delete the root")
		}
		return val
	}
	head, rest := toks[0], toks[1:]
	switch n := node.(type) {
	case map[string]any:
		if len(rest) == 0 && op == "delete" {
			if _, ok := n[head]; !ok {
				t.Fatalf("delete: no key %q", head)
			}
			delete(n, head)
			return n
		}
		child, ok := n[head]
		if !ok && len(rest) > 0 {
			t.Fatalf("no key %q", head)
		}
		n[head] = apply(t, child, rest, op, val)
		return n
	case []any:
		i, err := strconv.Atoi(head)
		if err != nil || i < 0 || i >= len(n) {
			t.Fatalf("bad index %q into a list of %d", head, len(n))
		}
		if len(rest) == 0 && op == "delete" {
			return append(n[:i], n[i+1:]...)
		}
		n[i] = apply(t, n[i], rest, op, val)
		return n
	default:
		t.Fatalf("cannot descend into %T at %q", node, head)
		return nil
	}
}
