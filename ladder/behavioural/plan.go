package behavioural

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// The helper's modes.
const (
	// ModeRecord observes State A and writes observations; every
	// observation is a passing check ("recorded").
	ModeRecord = "record"
	// ModeIdentity checks State A against its own truth (freeze's
	// identity run).
	ModeIdentity = "identity"
	// ModeCheck checks a submission against the truth.
	ModeCheck = "check"
)

// Plan is what the runner hands the helper for one declarative module:
// the module's kind and parameters (the task's CUE params as JSON), the
// mode, and the build configurations as resolved for the tree under test.
// It is written to <work>/<module>/plan.json.
type Plan struct {
	Task   string          `json:"task"`
	Module string          `json:"module"`
	Kind   string          `json:"kind"`
	Mode   string          `json:"mode"`
	Params json.RawMessage `json:"params"`
	// TaskDir is the task folder inside the stage: params' data paths
	// (data/…) are relative to it.
	TaskDir string `json:"task_dir"`
	// Truth is this module's truth file (identity and check modes).
	Truth string `json:"truth,omitempty"`
	// Observations is where the helper writes what it observed.
	Observations string `json:"observations"`
	// Configurations are the build configurations as resolved for this
	// tree: State A's commands in record and identity, State B's (with
	// the configuration's args) in check.
	Configurations map[string]Build `json:"configurations"`
	// Helper is the argv prefix that runs the helper itself; tool
	// provenance wrappers call it.
	Helper []string `json:"helper"`
	// Env are the task's declared variables (behavioural.env), given to
	// every process of the tree under test on top of the allow-listed
	// environment.
	Env map[string]string `json:"env,omitempty"`
	// Jail, when set, is how the tree under test's processes are
	// isolated from the grader; nil runs them as the helper's own user.
	Jail *Jail `json:"jail,omitempty"`
}

// Build is one named configuration, resolved: the commands that build it
// in a copy of the tree, their environment, the outputs the ledger keeps,
// and the tools whose invocations are recorded while it builds.
type Build struct {
	Commands [][]string `json:"commands"`
	// Source says what Commands are: SourceStateB or SourceOriginal.
	Source  string            `json:"source,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Outputs []string          `json:"outputs,omitempty"`
	Watch   []string          `json:"watch,omitempty"`
	// Detect, when set, is state_b.detect: a tree under test that lacks
	// this relative path is built with Original instead of Commands.
	Detect   string     `json:"detect,omitempty"`
	Original [][]string `json:"original,omitempty"`
}

// What built a configuration (LedgerEntry.Built, Build.Source).
const (
	// SourceStateB is state_b.build with the configuration's args.
	SourceStateB = "state-b"
	// SourceOriginal is the configuration's original commands (State A's
	// build with the old toolchain).
	SourceOriginal = "original"
)

// Select returns the commands that build tree and what they are: Original
// (SourceOriginal) when Detect is set and tree lacks it, else Commands
// (Source, SourceStateB when unset), with a sentence saying why.
func (b Build) Select(tree string) (cmds [][]string, source, why string) {
	source = b.Source
	if source == "" {
		source = SourceStateB
	}
	if b.Detect == "" {
		return b.Commands, source, ""
	}
	if _, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(b.Detect))); err != nil {
		return b.Original, SourceOriginal, fmt.Sprintf("the tree has no %s (state_b.detect): built with the configuration's original commands", b.Detect)
	}
	return b.Commands, source, fmt.Sprintf("the tree has %s (state_b.detect): built with state_b.build", b.Detect)
}

// ReadPlan reads a plan file.
func ReadPlan(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("read plan %s: %w", path, err)
	}
	return &p, nil
}

// Observations is what the helper observed in one module: a value per
// check id (already normalised), the fingerprint of the cases that
// produced them, and the versions of the tools it saw.
type Observations struct {
	Module           string            `json:"module"`
	Kind             string            `json:"kind"`
	CasesFingerprint string            `json:"cases_fingerprint"`
	Values           map[string]any    `json:"values"`
	Toolchains       map[string]string `json:"toolchains,omitempty"`
}

// TruthSchema is the schema string of a truth file.
const TruthSchema = "srb.truth/1"

// Truth is one module's ground truth, recorded from State A: tasks/<id>/
// truth/<module>.json. CasesFingerprint covers the module's parameters and
// every data file they read, so a case edited without re-recording is
// noticed on the next check (HARNESS.md §7 bug 106).
type Truth struct {
	Schema           string         `json:"schema"`
	Task             string         `json:"task"`
	Module           string         `json:"module"`
	Kind             string         `json:"kind"`
	Provenance       Provenance     `json:"provenance"`
	CasesFingerprint string         `json:"cases_fingerprint"`
	Observations     map[string]any `json:"observations"`
}

// Provenance says where a truth file came from (ARCHITECTURE principle 5).
type Provenance struct {
	// TaskCommit is the commit of the task folder when recorded ("" outside git).
	TaskCommit string `json:"task_commit"`
	// StateA is the pinned State A digest (state_a.sha256).
	StateA string `json:"state_a_sha256"`
	// Images are stage image digests by stage; empty for a host run.
	Images map[string]string `json:"images"`
	// Toolchains are the versions of the tools that built State A.
	Toolchains map[string]string `json:"toolchains"`
	// SRB is the recording srb's fingerprint (result.Fingerprint).
	SRB string `json:"srb"`
	// Where is "host" or "container".
	Where string `json:"where"`
}

// TruthDir is the name of the truth folder inside a task folder.
const TruthDir = "truth"

// TruthPath returns the truth file of module id in taskDir.
func TruthPath(taskDir, id string) string {
	return filepath.Join(taskDir, TruthDir, id+".json")
}

// ReadTruth reads a truth file.
func ReadTruth(path string) (*Truth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read truth: %w", err)
	}
	var t Truth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("read truth %s: %w", path, err)
	}
	if t.Schema != TruthSchema {
		return nil, fmt.Errorf("read truth %s: schema %q, not %q", path, t.Schema, TruthSchema)
	}
	return &t, nil
}

// WriteJSON writes v as indented JSON with sorted map keys and a trailing
// newline to path, atomically.
func WriteJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes())
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	name := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// LedgerDir is the ledger's folder inside $SRB_SUITE_WORK.
const LedgerDir = "ledger"

// ErrNotInLedger is wrapped when a module asks for a configuration no
// build module built.
var ErrNotInLedger = errors.New("not in the build ledger")

// Ledger is the build ledger in suite work: <dir>/<configuration>/ holds
// entry.json, the built tree (tree/) and the tool log (tools.jsonl). The
// build module writes each configuration once; other modules only read.
type Ledger struct{ Dir string }

// LedgerEntry is one configuration in the ledger.
type LedgerEntry struct {
	Configuration string `json:"configuration"`
	// OK is false when the build failed; Summary says why.
	OK      bool   `json:"ok"`
	Summary string `json:"summary,omitempty"`
	// Tree is the built tree; Outputs the declared outputs (relative to
	// Tree) a restore copies, all of it when empty.
	Tree    string   `json:"tree"`
	Outputs []string `json:"outputs,omitempty"`
	// Tools is the tool-provenance log (JSON lines), "" when nothing was
	// watched.
	Tools string `json:"tools,omitempty"`
	// Built says which commands built it: SourceStateB or SourceOriginal.
	Built string `json:"built,omitempty"`
	// Imported marks an entry built elsewhere and imported before the
	// suite started (srb freeze's identity run: State A built with the old
	// toolchain in the verification image); the build module reports it
	// instead of building.
	Imported bool `json:"imported,omitempty"`
}

// Entry returns the configuration's folder.
func (l Ledger) Entry(name string) string { return filepath.Join(l.Dir, name) }

// Put records e atomically.
func (l Ledger) Put(e LedgerEntry) error {
	return WriteJSON(filepath.Join(l.Entry(e.Configuration), "entry.json"), e)
}

// Get returns the entry of configuration name, or an error wrapping
// [ErrNotInLedger] that names it.
func (l Ledger) Get(name string) (LedgerEntry, error) {
	b, err := os.ReadFile(filepath.Join(l.Entry(name), "entry.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return LedgerEntry{}, fmt.Errorf("configuration %q is %w: no earlier build module built it (a configuration is never rebuilt silently; list it in the build module's configurations)", name, ErrNotInLedger)
	}
	if err != nil {
		return LedgerEntry{}, fmt.Errorf("ledger: %w", err)
	}
	var e LedgerEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return LedgerEntry{}, fmt.Errorf("ledger entry %s: %w", name, err)
	}
	return e, nil
}

// Names lists the configurations in the ledger, sorted.
func (l Ledger) Names() []string {
	ents, _ := os.ReadDir(l.Dir)
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(l.Dir, e.Name(), "entry.json")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
