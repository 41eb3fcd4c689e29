// Package telemetry projects what a run's grading models cost — time,
// calls, tokens and credits per stage-1 review and per stage-3 round — out
// of its score.json into one flat telemetry.json (schema
// swerefactor.telemetry/1, HARNESS.md §3.9). It reports cost, never
// verdicts: a reader who wants the decision reads score.json.
package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/schema/contract"
)

// Schema is the telemetry contract's schema string.
const Schema = "swerefactor.telemetry/1"

// File is the name of the file Write produces in a run folder.
const File = "telemetry.json"

// Telemetry is one run's grading cost. Stage 1 and stage 3 stay separate
// lists: a total over both would average a six-model stage-3 spend into a
// figure that belongs to none of the models involved.
type Telemetry struct {
	Schema string   `json:"schema"`
	Task   string   `json:"task"`
	Model  string   `json:"model"` // score.json's metadata.run.model, else the run folder's parent's name
	Run    string   `json:"run"`   // the run folder's name
	Stage1 []Review `json:"stage1"`
	Stage3 []Round  `json:"stage3"`
}

// Review is one stage-1 review's cost. Values are copied verbatim from
// score.json; a value it lacks is null (credits null is "not reported",
// never 0).
type Review struct {
	Index        any `json:"index"`
	Driver       any `json:"driver"`
	Model        any `json:"model"`
	ElapsedSec   any `json:"elapsed_sec"`
	Calls        any `json:"calls"`
	InputTokens  any `json:"input_tokens"`
	OutputTokens any `json:"output_tokens"`
	Credits      any `json:"credits"`
}

// Round is one stage-3 round's cost and outcome: the adversary's model's
// usage, and apart from it (another model, so never summed into it) the
// adjudicator's, nil (null) when the round made no claim the adjudicator
// was asked to rule on.
type Round struct {
	Adversary    any           `json:"adversary"`
	Driver       any           `json:"driver"`
	Model        any           `json:"model"`
	Outcome      any           `json:"outcome"`
	ElapsedSec   any           `json:"elapsed_sec"`
	Calls        any           `json:"calls"`
	InputTokens  any           `json:"input_tokens"`
	OutputTokens any           `json:"output_tokens"`
	Credits      any           `json:"credits"`
	Adjudicator  *Adjudication `json:"adjudicator"`
}

// Adjudication is what ruling on one round's claim cost: the adjudicator
// model's driver, model, the decision (upheld, rejected, invalid or
// undecided; included so the cost reads against it), wall-clock seconds of
// its conversation, calls, tokens and credits, each null when the stage
// did not record it.
type Adjudication struct {
	Driver       any `json:"driver"`
	Model        any `json:"model"`
	Decision     any `json:"decision"`
	ElapsedSec   any `json:"elapsed_sec"`
	Calls        any `json:"calls"`
	InputTokens  any `json:"input_tokens"`
	OutputTokens any `json:"output_tokens"`
	Credits      any `json:"credits"`
}

// Grading projects the reviews (metadata.audit.samples[]) and rounds
// (metadata.verification.rounds[], each with its adjudication's usage) of
// a decoded score.json. Numbers keep
// their spelling (decode score.json with json.Number).
func Grading(score map[string]any) (stage1 []Review, stage3 []Round) {
	md, _ := score["metadata"].(map[string]any)
	obj := func(m map[string]any, k string) map[string]any { x, _ := m[k].(map[string]any); return x }
	list := func(m map[string]any, k string) []any { x, _ := m[k].([]any); return x }
	stage1, stage3 = []Review{}, []Round{}
	for _, s := range list(obj(md, "audit"), "samples") {
		sm, _ := s.(map[string]any)
		u := obj(sm, "usage")
		stage1 = append(stage1, Review{sm["index"], u["driver"], u["model"], sm["elapsed_sec"], u["calls"], u["input_tokens"], u["output_tokens"], u["credits"]})
	}
	for _, r := range list(obj(md, "verification"), "rounds") {
		rm, _ := r.(map[string]any)
		u := obj(rm, "usage")
		row := Round{rm["adversary"], u["driver"], u["model"], rm["outcome"], rm["elapsed_sec"], u["calls"], u["input_tokens"], u["output_tokens"], u["credits"], nil}
		// An adjudication that called the adjudicator records its usage;
		// one decided on the runs alone (or that could not start one)
		// cost no model call and has none.
		if adj := obj(rm, "adjudication"); adj != nil {
			if au := obj(adj, "usage"); au != nil {
				row.Adjudicator = &Adjudication{au["driver"], au["model"], adj["decision"], adj["elapsed_sec"], au["calls"], au["input_tokens"], au["output_tokens"], au["credits"]}
			}
		}
		stage3 = append(stage3, row)
	}
	return stage1, stage3
}

// ForRun builds the telemetry of runDir, a <task>/<model>/<run> folder
// holding score.json: task from the verdict (else the folder two up),
// model and run from the folder names. A missing score.json is an error
// wrapping fs.ErrNotExist.
func ForRun(runDir string) (*Telemetry, error) {
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(abs, "score.json")
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("telemetry: no score.json in %s: %w", abs, err)
		}
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", p, err)
	}
	// The model is the one the run records (srb ladder's metadata.run,
	// from run.json or --run-model); a run folder's parent may name a
	// configuration instead (<task>/<configuration>/<run>), so its name
	// is used only when the run records none.
	if t.Model == "" {
		t.Model = filepath.Base(filepath.Dir(abs))
	}
	t.Run = filepath.Base(abs)
	if t.Task == "" {
		t.Task = filepath.Base(filepath.Dir(filepath.Dir(abs)))
	}
	return t, nil
}

// Parse projects the reviews and rounds of a score.json's bytes into a
// Telemetry with Task set from the verdict ("" when it has none), Model
// from its metadata.run.model ("" when it has none) and Run empty. The verdict need not be complete (telemetry reads
// only the usage it records), but it must be one JSON object with no key
// written twice at any depth: a second "rounds" or "usage" could hide a
// cost. Numbers keep their spelling.
func Parse(score []byte) (*Telemetry, error) {
	doc, err := contract.DecodeStrict(contract.Score, score)
	if err != nil {
		return nil, err
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, &contract.ValidationError{Contract: contract.Score, Msg: "not a JSON object"}
	}
	t := &Telemetry{Schema: Schema}
	t.Task, _ = m["task"].(string)
	if meta, ok := m["metadata"].(map[string]any); ok {
		if run, ok := meta["run"].(map[string]any); ok {
			t.Model, _ = run["model"].(string)
		}
	}
	t.Stage1, t.Stage3 = Grading(m)
	return t, nil
}

// Marshal renders t as indented JSON with a trailing newline, validated
// against the telemetry contract (schema/contract/json/telemetry.json).
func (t *Telemetry) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	if err := contract.ValidateBytes(contract.Telemetry, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	return buf.Bytes(), nil
}

// Write writes runDir/telemetry.json atomically and returns its path.
func Write(runDir string) (string, error) {
	t, err := ForRun(runDir)
	if err != nil {
		return "", err
	}
	b, err := t.Marshal()
	if err != nil {
		return "", err
	}
	out := filepath.Join(runDir, File)
	tmp, err := os.CreateTemp(runDir, ".tmp-*.json")
	if err != nil {
		return "", fmt.Errorf("telemetry: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return "", fmt.Errorf("telemetry: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("telemetry: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", fmt.Errorf("telemetry: %w", err)
	}
	return out, os.Rename(tmp.Name(), out)
}
