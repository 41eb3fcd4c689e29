// Package contract holds the JSON Schemas (draft 2020-12) of the result
// files srb's ladder reads and writes (json/*.json: a stage result, a
// behavioural module's result, score.json, reward.json, telemetry.json and
// a transcript record) and validates documents against them.
//
// It is apart from package schema (the CUE schema of a task, schema/task.cue,
// and the image lockfile's JSON Schema) on purpose: srb's in-image helper
// (cmd/srb-helper) links this package and not that one, so changing the task
// schema or the lockfile's format does not change the helper's bytes, nor
// the digests of the stage images that carry it. Only a change here (or in
// another package `go list -deps ./cmd/srb-helper` lists) does.
package contract

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

// FS holds the embedded result contracts, "json/<name>.json".
//
//go:embed json/*.json
var FS embed.FS

// Names of the result contracts, each the base name of a file in json/.
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
	// TranscriptRecord is one line of a JSONL transcript (HARNESS.md §3.10).
	TranscriptRecord = "transcript-record"
)

// Set is a set of JSON Schemas read from one folder of a file system, each
// "<dir>/<name>.json", compiled together (lazily, once) so that one may
// refer to another as "srb:/json/<name>.json". The zero value is not
// usable: make one with [NewSet].
type Set struct {
	fsys fs.FS
	dir  string

	once     sync.Once
	compiled map[string]*jsonschema.Schema
	err      error
}

// NewSet returns the set of the JSON Schemas in folder dir of fsys (every
// "*.json" file there, named by its base name without ".json").
func NewSet(fsys fs.FS, dir string) *Set {
	return &Set{fsys: fsys, dir: dir}
}

// results is the set of this package's contracts.
var results = NewSet(FS, "json")

// Names returns the names of every schema of s, sorted.
func (s *Set) Names() []string {
	entries, err := fs.Glob(s.fsys, path.Join(s.dir, "*.json"))
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

// Has reports whether s holds a schema called name.
func (s *Set) Has(name string) bool {
	_, err := fs.Stat(s.fsys, path.Join(s.dir, name+".json"))
	return err == nil
}

// JSONSchema returns the bytes of the schema called name (one of
// [Set.Names]); an unknown name is an error listing the known ones.
func (s *Set) JSONSchema(name string) ([]byte, error) {
	b, err := fs.ReadFile(s.fsys, path.Join(s.dir, name+".json"))
	if err != nil {
		return nil, fmt.Errorf("no JSON Schema called %q; known: %s", name, strings.Join(s.Names(), ", "))
	}
	return b, nil
}

func (s *Set) compile() {
	c := jsonschema.NewCompiler()
	s.compiled = map[string]*jsonschema.Schema{}
	for _, n := range s.Names() {
		b, _ := s.JSONSchema(n)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			s.err = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		if err := c.AddResource("srb:/json/"+n+".json", doc); err != nil {
			s.err = fmt.Errorf("schema %s: %w", n, err)
			return
		}
	}
	for _, n := range s.Names() {
		sch, err := c.Compile("srb:/json/" + n + ".json")
		if err != nil {
			s.err = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		s.compiled[n] = sch
	}
}

// Validate checks the decoded JSON document doc (as produced by
// encoding/json into any, or [jsonschema.UnmarshalJSON]) against the schema
// called name. It returns nil, or a *[ValidationError] naming the JSON
// pointer of the deepest offending value.
func (s *Set) Validate(name string, doc any) error {
	s.once.Do(s.compile)
	if s.err != nil {
		return s.err
	}
	sch, ok := s.compiled[name]
	if !ok {
		return fmt.Errorf("no JSON Schema called %q; known: %s", name, strings.Join(s.Names(), ", "))
	}
	err := sch.Validate(doc)
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

// ValidateBytes decodes data as JSON and validates it like [Set.Validate].
// A document that is not JSON is a *[ValidationError] at the root, and one
// with a repeated object key is one at the object holding it (see
// [DuplicateKey]).
func (s *Set) ValidateBytes(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &ValidationError{Contract: name, Msg: "not JSON: " + err.Error()}
	}
	if err := DuplicateKey(name, data); err != nil {
		return err
	}
	return s.Validate(name, doc)
}

// Names returns the names of every result contract, sorted.
func Names() []string { return results.Names() }

// JSONSchema returns the bytes of the result contract called name (one of
// [Names]); an unknown name is an error listing the known ones.
func JSONSchema(name string) ([]byte, error) { return results.JSONSchema(name) }

// Validate checks the decoded JSON document doc against the result contract
// name, like [Set.Validate].
func Validate(name string, doc any) error { return results.Validate(name, doc) }

// ValidateBytes decodes data as JSON and validates it against the result
// contract name, like [Set.ValidateBytes].
func ValidateBytes(name string, data []byte) error { return results.ValidateBytes(name, data) }

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
