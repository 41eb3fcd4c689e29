// Package schema holds srb's task-side contracts: the CUE schema of a task
// (task.cue, package srb) and the JSON Schema of a task's image lockfile
// (json/images-lock.json). Both are embedded so the srb binary needs no
// files beside it; authors can also use the CUE file with the cue tool.
//
// The result contracts (a stage result, a module result, score.json,
// reward.json, telemetry.json, a transcript record) are in
// [github.com/swe-refactor-bench/srb/schema/contract], which srb's in-image
// helper links. The helper does not link this package (`go list -deps
// ./cmd/srb-helper` shows it), so the task schema and the lockfile's format
// can change without moving any stage image's digest. This package answers
// for both sets ([Names], [JSONSchema], [Validate]), for `srb schema` and
// srb's own readers.
package schema

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/swe-refactor-bench/srb/schema/contract"
)

// FS holds the embedded task-side JSON Schemas, "json/<name>.json".
//
//go:embed json/*.json
var FS embed.FS

//go:embed task.cue
var taskCUE []byte

// taskSide is the set of this package's JSON Schemas.
var taskSide = contract.NewSet(FS, "json")

// Names of the JSON contracts: the result contracts of package contract
// (repeated here for srb's own readers), and the image lockfile.
const (
	// StageResult is [contract.StageResult].
	StageResult = contract.StageResult
	// ModuleResult is [contract.ModuleResult].
	ModuleResult = contract.ModuleResult
	// Score is [contract.Score].
	Score = contract.Score
	// Reward is [contract.Reward].
	Reward = contract.Reward
	// Telemetry is [contract.Telemetry].
	Telemetry = contract.Telemetry
	// TranscriptRecord is [contract.TranscriptRecord].
	TranscriptRecord = contract.TranscriptRecord
	// ImagesLock is a task's image lockfile, tasks/<id>/images.lock,
	// schema string "srb.images-lock/1" (docs/OPERATIONS.md).
	ImagesLock = "images-lock"
)

// ValidationError says why a document does not satisfy a contract; it is
// [contract.ValidationError].
type ValidationError = contract.ValidationError

// Names returns the names of every JSON Schema srb embeds (the result
// contracts and the task-side ones), sorted.
func Names() []string {
	names := append(contract.Names(), taskSide.Names()...)
	slices.Sort(names)
	return names
}

// JSONSchema returns the bytes of the JSON Schema called name (one of
// [Names]); an unknown name is an error listing the known ones.
func JSONSchema(name string) ([]byte, error) {
	return set(name).JSONSchema(name)
}

// Validate checks the decoded JSON document doc against the contract name
// (one of [Names]), like [contract.Set.Validate].
func Validate(name string, doc any) error {
	return set(name).Validate(name, doc)
}

// ValidateBytes decodes data as JSON and validates it against the contract
// name, like [contract.Set.ValidateBytes].
func ValidateBytes(name string, data []byte) error {
	return set(name).ValidateBytes(name, data)
}

// DuplicateKey is [contract.DuplicateKey].
func DuplicateKey(name string, data []byte) error { return contract.DuplicateKey(name, data) }

// DecodeStrict is [contract.DecodeStrict].
func DecodeStrict(name string, data []byte) (any, error) { return contract.DecodeStrict(name, data) }

// TaskCUE returns the CUE schema of a task (schema/task.cue).
func TaskCUE() []byte {
	return append([]byte(nil), taskCUE...)
}

// set is the set that holds name: the task side's when it has it, else the
// result contracts' (whose errors list all names for an unknown one).
func set(name string) interface {
	JSONSchema(string) ([]byte, error)
	Validate(string, any) error
	ValidateBytes(string, []byte) error
} {
	if taskSide.Has(name) {
		return taskSide
	}
	return allNames{}
}

// allNames answers for the result contracts, naming every embedded schema
// when name is unknown.
type allNames struct{}

// JSONSchema returns the result contract name's JSON Schema document;
// an unknown name is an error listing every schema srb embeds.
func (allNames) JSONSchema(name string) ([]byte, error) {
	b, err := contract.JSONSchema(name)
	if err != nil {
		return nil, unknown(name)
	}
	return b, nil
}

// Validate checks doc (decoded JSON) against the result contract name;
// an unknown name is an error listing every schema srb embeds.
func (allNames) Validate(name string, doc any) error {
	if !slices.Contains(contract.Names(), name) {
		return unknown(name)
	}
	return contract.Validate(name, doc)
}

// ValidateBytes checks data (JSON text) against the result contract name;
// an unknown name is an error listing every schema srb embeds.
func (allNames) ValidateBytes(name string, data []byte) error {
	if !slices.Contains(contract.Names(), name) {
		return unknown(name)
	}
	return contract.ValidateBytes(name, data)
}

func unknown(name string) error {
	return fmt.Errorf("no JSON Schema called %q; known: %s", name, strings.Join(Names(), ", "))
}
