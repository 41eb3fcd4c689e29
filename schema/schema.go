// Package schema holds srb's contracts: the CUE schema of a task (task.cue,
// package srb) and the JSON Schemas (draft 2020-12) of every file srb reads
// or writes (json/*.json). Both are embedded so the srb binary needs no
// files beside it; authors can also use the CUE files with the cue tool.
package schema

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FS holds the embedded JSON Schemas, "json/<name>.json".
//
//go:embed json/*.json
var FS embed.FS

// taskCUE is task.cue, apart from FS: a program that reads only the JSON
// Schemas (srb's in-image helper) then links none of it, so editing the
// task schema does not change the helper's bytes, nor the digests of the
// stage images that carry it.
//
//go:embed task.cue
var taskCUE []byte

// Names of the JSON contracts, each the base name of a file in json/.
const (
	// StageResult is the stage-result envelope, schema string
	// "swerefactor.stage-result/1" (HARNESS.md §3.6).
	StageResult = "stage-result"
	// ModuleResult is what a behavioural module writes to $SRB_RESULT
	// (HARNESS.md §3.5): an envelope, {"checks": [...]}, or a bare list.
	ModuleResult = "module-result"
	// Score is score.json, schema string "swerefactor.score/1" (HARNESS.md §3.7).
	Score = "score"
	// Reward is reward.json: a flat object of numbers (HARNESS.md §3.8).
	Reward = "reward"
	// Telemetry is telemetry.json, schema "swerefactor.telemetry/1" (HARNESS.md §3.9).
	Telemetry = "telemetry"
	// ImagesLock is a task's image lockfile, tasks/<id>/images.lock,
	// schema string "srb.images-lock/1" (docs/OPERATIONS.md).
	ImagesLock = "images-lock"
	// TranscriptRecord is one line of a JSONL transcript (HARNESS.md §3.10).
	TranscriptRecord = "transcript-record"
)

// Names returns the names of every embedded JSON Schema, sorted.
func Names() []string {
	entries, err := fs.Glob(FS, "json/*.json")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(path.Base(e), ".json"))
	}
	sort.Strings(names)
	return names
}

// JSONSchema returns the bytes of the JSON Schema called name (one of
// [Names]); an unknown name is an error listing the known ones.
func JSONSchema(name string) ([]byte, error) {
	b, err := FS.ReadFile("json/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no JSON Schema called %q; known: %s", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// TaskCUE returns the CUE schema of a task (schema/task.cue).
func TaskCUE() []byte {
	return append([]byte(nil), taskCUE...)
}

// ValidationError says why a document does not satisfy a contract. Pointer
// is the RFC 6901 JSON pointer of the offending value ("" is the root).
type ValidationError struct {
	Contract string // the contract name, e.g. "stage-result"
	Pointer  string // JSON pointer into the document
	Msg      string // what is wrong there
	File     string // the file read or written, when known
}

// Error implements error.
func (e *ValidationError) Error() string {
	where := e.Contract
	if e.File != "" {
		where = e.File + " (" + e.Contract + ")"
	}
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: at %s: %s", where, p, e.Msg)
}

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

func compileAll() {
	c := jsonschema.NewCompiler()
	compiled = map[string]*jsonschema.Schema{}
	for _, n := range Names() {
		b, _ := JSONSchema(n)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		if err := c.AddResource("srb:/json/"+n+".json", doc); err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
	}
	for _, n := range Names() {
		s, err := c.Compile("srb:/json/" + n + ".json")
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		compiled[n] = s
	}
}

// Validate checks the decoded JSON document doc (as produced by
// encoding/json into any, or [jsonschema.UnmarshalJSON]) against the
// contract name. It returns nil, or a *[ValidationError] naming the JSON
// pointer of the deepest offending value.
func Validate(name string, doc any) error {
	compileOnce.Do(compileAll)
	if compileErr != nil {
		return compileErr
	}
	s, ok := compiled[name]
	if !ok {
		return fmt.Errorf("no JSON Schema called %q; known: %s", name, strings.Join(Names(), ", "))
	}
	err := s.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	leaf := deepest(ve)
	msg := leaf.ErrorKind.LocalizedString(printer)
	return &ValidationError{Contract: name, Pointer: pointer(leaf.InstanceLocation), Msg: msg}
}

// ValidateBytes decodes data as JSON and validates it like [Validate]. A
// document that is not JSON is a *[ValidationError] at the root, and one
// with a repeated object key is one at the object holding it (see
// [DuplicateKey]).
func ValidateBytes(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &ValidationError{Contract: name, Msg: "not JSON: " + err.Error()}
	}
	if err := DuplicateKey(name, data); err != nil {
		return err
	}
	return Validate(name, doc)
}

// deepest follows the first cause chain to the most specific error, which
// carries the most useful pointer.
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := e
	var walk func(*jsonschema.ValidationError)
	walk = func(x *jsonschema.ValidationError) {
		if len(x.InstanceLocation) > len(best.InstanceLocation) ||
			(len(x.InstanceLocation) == len(best.InstanceLocation) && len(x.Causes) == 0 && len(best.Causes) > 0) {
			best = x
		}
		for _, c := range x.Causes {
			walk(c)
		}
	}
	walk(e)
	return best
}

func pointer(loc []string) string {
	var sb strings.Builder
	for _, tok := range loc {
		sb.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		tok = strings.ReplaceAll(tok, "/", "~1")
		sb.WriteString(tok)
	}
	return sb.String()
}
