// Package task loads a task folder (tasks/<id>/task.cue and the files it
// names) into typed Go values and runs srb's static rules over it.
//
// The CUE schema (schema/task.cue) closes every struct, types every field
// strictly and states the invariants CUE can state; the Go rules in this
// package check what spans files (prompts, the instruction, the folder
// layout). Every problem names its rule, file:line:col and field.
package task

import (
	"encoding/json"
	"path/filepath"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// FileName is the name of a task's CUE document inside its folder.
const FileName = "task.cue"

// Arg is how a hint names the task as an srb argument: its bare id when the
// id finds its folder (the folder is tasks/ID, or ID itself, relative to the
// working folder, as srb resolves an id), else its folder as given to [Load]
// (a task made with srb new --dir elsewhere is elsewhere/ID, not ID).
func (t *Task) Arg() string {
	d := filepath.Clean(t.Dir)
	if t.Dir == "" || d == t.ID || d == filepath.Join("tasks", t.ID) {
		return t.ID
	}
	return d
}

// Task is one loaded, schema-checked task declaration. Field names follow
// the CUE document (docs/SCHEMA.md); defaults are already applied.
type Task struct {
	ID           string         `json:"id"`
	Class        string         `json:"class"`
	Title        string         `json:"title"`
	BudgetHours  int            `json:"budget_hours"`
	StateA       StateA         `json:"state_a"`
	StateB       StateB         `json:"state_b"`
	Instruction  string         `json:"instruction"`
	Artifacts    Artifacts      `json:"artifacts"`
	Agent        Agent          `json:"agent"`
	Audit        Audit          `json:"audit"`
	Behavioural  Behavioural    `json:"behavioural"`
	Verification Verification   `json:"verification"`
	Images       Images         `json:"images"`
	Timeouts     Timeouts       `json:"timeouts"`
	Limits       Limits         `json:"limits"`
	Scoring      Scoring        `json:"scoring"`
	Metadata     map[string]any `json:"metadata,omitempty"`

	// Dir is the task folder as given to [Load]; File is Dir/task.cue.
	Dir  string `json:"-"`
	File string `json:"-"`

	// source is the task file compiled alone: its positions are the
	// author's lines, which is what problems cite.
	source cue.Value
	// def is the schema's #Task, kept while the task's problems are
	// explained (an unknown key in one of several struct alternatives is
	// looked up in the alternative whose kind the author wrote).
	def cue.Value
}

// StateA is the frozen upstream release (HARNESS.md §6.1 "States").
type StateA struct {
	Project  string `json:"project"`
	Version  string `json:"version"`
	Upstream string `json:"upstream"`
	License  string `json:"license"` // an SPDX expression
	Source   Source `json:"source"`
	// SHA256 is the hex sha256 of the canonical uncompressed tar of the
	// normalised archive; "" until srb fetch --pin writes it.
	SHA256 string `json:"sha256,omitempty"`
	Stack  string `json:"stack"`
	// LicenceReviews are nested licence files the author reviewed by hand
	// because srb does not know their text (rule license-found): each
	// names the file, the sha256 of its bytes and the SPDX id it was read
	// as, and srb publishes that id for the file's folder.
	LicenceReviews []LicenceReview `json:"licence_reviews,omitempty"`
}

// LicenceReview is one licence file of State A reviewed by hand: Path
// (relative to State A's top folder), SHA256 (of the file's bytes, so a
// changed file is reviewed again), License (the SPDX expression its terms
// are) and Why (what the file is and how it was read).
type LicenceReview struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	License string `json:"license"`
	Why     string `json:"why"`
}

// Source says where State A comes from. Kind is one of gomod, npm, debian,
// url, git, local; the other fields are that kind's parameters.
type Source struct {
	Kind    string `json:"kind"`
	Module  string `json:"module,omitempty"`  // gomod
	Package string `json:"package,omitempty"` // npm, debian, debian-binary
	Version string `json:"version,omitempty"` // gomod, npm, debian, debian-binary
	// Suite is, for debian, the Debian suite whose signed Sources index
	// lists Version when this system's release does not (e.g. trixie): the
	// system's mirrors for its own release are asked for that suite
	// instead. "" keeps the system's suites.
	Suite string `json:"suite,omitempty"`
	// Subdir is, for debian-binary, the folder of the installed files kept
	// as State A (slash-separated, relative); "" keeps them all.
	Subdir string `json:"subdir,omitempty"`
	URL    string `json:"url,omitempty"`    // url, git
	SHA256 string `json:"sha256,omitempty"` // url: the downloaded bytes
	Commit string `json:"commit,omitempty"` // git
	Path   string `json:"path,omitempty"`   // local: relative to the task folder
	// Limits overrides the bounds on unpacking this source's archive
	// (schema #Limits); nil, or a zero field, keeps the default.
	Limits *SourceLimits `json:"limits,omitempty"`
}

// SourceLimits is a source's `limits`: MaxBytes bounds the unpacked
// contents in bytes (hard links in full) and a url download, MaxFiles the
// entries, MaxRatio the contents as a multiple of the archive's size. Zero
// means the default (internal/archive's DefaultLimits).
type SourceLimits struct {
	MaxBytes int64 `json:"max_bytes,omitempty"`
	MaxFiles int   `json:"max_files,omitempty"`
	MaxRatio int64 `json:"max_ratio,omitempty"`
}

// StateB is the target stack.
type StateB struct {
	Stack      string            `json:"stack"`
	Toolchains map[string]string `json:"toolchains"` // name → exact version
	Build      [][]string        `json:"build"`      // argv lists, run in order
	// Detect is a clean relative path whose presence in the tree under
	// test selects Build; without it stage 2 builds the tree with the
	// configuration's Original commands. "" always selects Build.
	Detect string `json:"detect,omitempty"`
}

// Artifacts is the collection contract: what is taken from the workspace.
type Artifacts struct {
	Path    string   `json:"path"`
	Exclude []string `json:"exclude"`
}

// Agent is the agent phase. BudgetSec is budget_hours × 3600.
type Agent struct {
	Harness   string `json:"harness"`
	BudgetSec int    `json:"budget_sec"`
	Network   string `json:"network"`
	User      string `json:"user"`
}

// Model is one model position: model name, driver, reasoning effort.
type Model struct {
	Model   string         `json:"model"`
	Driver  string         `json:"driver"`
	Effort  string         `json:"effort"`
	Options map[string]any `json:"options,omitempty"`
}

// Audit is stage 1's declaration.
type Audit struct {
	Model
	Samples         int      `json:"samples"`
	Prompt          string   `json:"prompt"`
	AllowedCommands []string `json:"allowed_commands"`
	RunTimeoutSec   int      `json:"run_timeout_sec"`
	Gates           []Gate   `json:"gates"`
}

// Gate is one audit question; a required gate that fails scores the run 0.
type Gate struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Question string `json:"question"`
	Required bool   `json:"required"`
}

// Behavioural is stage 2's declaration.
type Behavioural struct {
	Configurations    map[string]Configuration `json:"configurations"`
	DefaultTimeoutSec int                      `json:"default_timeout_sec"`
	Env               map[string]string        `json:"env"`
	Modules           []Module                 `json:"modules"`
}

// Configuration is one named build configuration of the build ledger
// (docs/SCHEMA.md "behavioural"). Args are appended to the last of
// state_b.build's commands for a submission; Original builds State A with
// the old toolchain; Outputs (relative to the built tree) are what the
// ledger keeps, all of it when empty; Watch names the tools whose
// invocations are recorded while it builds.
type Configuration struct {
	About    string            `json:"about,omitempty"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Original [][]string        `json:"original"`
	Outputs  []string          `json:"outputs"`
	Watch    []string          `json:"watch"`
}

// Module is one behavioural module; Params holds the parameters of Kind,
// as exported from CUE (defaults applied). Their Go types are in
// ladder/behavioural/kinds; [Module.ParamsJSON] gives them to its Decode.
type Module struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	Weight     float64        `json:"weight"`
	TimeoutSec int            `json:"timeout_sec"`
	About      string         `json:"about"`
	Kind       string         `json:"kind"`
	Params     map[string]any `json:"params"`
}

// CommandCorpus is a command module's params.corpus as srb's static rules
// read it: From ("task", "" or "original"), Dir, Glob and Stage (the
// helper's CorpusParams; docs/SCHEMA.md).
type CommandCorpus struct {
	From, Dir, Glob, Stage string
}

// Corpus returns a command module's corpus; nil for another kind, a
// module without one, or params that do not decode (the kind's own
// decoding reports those).
func (m Module) Corpus() *CommandCorpus {
	if m.Kind != "command" || m.Params == nil {
		return nil
	}
	raw, err := m.ParamsJSON()
	if err != nil {
		return nil
	}
	var p struct {
		Corpus *CommandCorpus `json:"corpus"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	return p.Corpus
}

// ParamsJSON returns the module's params as JSON, the form the helper
// reads.
func (m Module) ParamsJSON() ([]byte, error) {
	if m.Params == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(m.Params)
}

// Verification is stage 3's declaration.
type Verification struct {
	Prompt               string      `json:"prompt"`
	CandidateCommand     []string    `json:"candidate_command"`
	CandidateTimeoutSec  int         `json:"candidate_timeout_sec"`
	WarmCommand          []string    `json:"warm_command"`
	WarmTimeoutSec       int         `json:"warm_timeout_sec"`
	WarmUpTimeoutSec     int         `json:"warm_up_timeout_sec"`
	RunTimeoutSec        int         `json:"run_timeout_sec"`
	AllowedCommands      []string    `json:"allowed_commands"`
	Surfaces             []Surface   `json:"surfaces"`
	Scope                Scope       `json:"scope"`
	Reruns               int         `json:"reruns"`
	RequireDeterministic bool        `json:"require_deterministic"`
	NetworkAllowed       bool        `json:"network_allowed"`
	FaultExitCodes       []int       `json:"fault_exit_codes"`
	Adversaries          []Adversary `json:"adversaries"`
	Adjudicator          Model       `json:"adjudicator"`
}

// Surface is one promised surface (docs/AUTHORING.md): what the
// instruction promises, and the phrases that show it there.
type Surface struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Mentions []string `json:"mentions"`
	// Promises lists incidental properties ("timing", "addresses",
	// "ordering") the surface does promise.
	Promises []string `json:"promises"`
}

// Scope is stage 3's allow and deny lists.
type Scope struct {
	Allow []AllowItem `json:"allow"`
	Deny  []DenyItem  `json:"deny"`
}

// AllowItem is one direction adversaries may take; Surfaces are the ids
// of the surfaces it is about.
type AllowItem struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Surfaces []string `json:"surfaces"`
}

// DenyItem is one thing adversaries may not assert on. CarveOuts justify
// each promised surface it narrows; Mandatory names the mandatory denies
// it stands for ("tree-identity", "state-a-wrong", "timing", "addresses",
// "ordering").
type DenyItem struct {
	ID        string     `json:"id"`
	Text      string     `json:"text"`
	Surfaces  []string   `json:"surfaces"`
	CarveOuts []CarveOut `json:"carve_outs"`
	Mandatory []string   `json:"mandatory"`
}

// CarveOut says why a deny item may narrow the promised surface Surface.
type CarveOut struct {
	Surface string `json:"surface"`
	Why     string `json:"why"`
}

// Adversary is one stage-3 model. Direction is the id of an allow item
// ("" for the unrestricted adversary); Focus is optional prose.
type Adversary struct {
	Model
	ID           string `json:"id"`
	BudgetSec    int    `json:"budget_sec"`
	Direction    string `json:"direction,omitempty"`
	Focus        string `json:"focus,omitempty"`
	Unrestricted bool   `json:"unrestricted"`
}

// Images declares the base filesystem and the four stage images
// (docs/SCHEMA.md "images"); internal/image compiles them.
type Images struct {
	// SourceDateEpoch is SOURCE_DATE_EPOCH, in seconds, for every layer srb adds.
	SourceDateEpoch int64      `json:"source_date_epoch"`
	Base            Base       `json:"base"`
	Stacks          Stacks     `json:"stacks"`
	Agent           StageImage `json:"agent"`
	Audit           StageImage `json:"audit"`
	Behavioural     StageImage `json:"behavioural"`
	Verification    StageImage `json:"verification"`
}

// Stacks names the old and the new stack's tools as capabilities, and
// the tools both use; the stage images' capability defaults derive from
// them (docs/SCHEMA.md "Capability defaults").
type Stacks struct {
	Old []string `json:"old"`
	New []string `json:"new"`
	// Shared are the tools both stacks use; by default, per debt class,
	// none (language) or every watched tool neither Old nor New names.
	Shared []string `json:"shared"`
}

// Base is the base filesystem: kind debootstrap (suite, mirror, packages,
// sha256: the tree digest) or registry (ref pinned by digest).
type Base struct {
	Kind     string   `json:"kind"`
	Suite    string   `json:"suite,omitempty"`
	Mirror   string   `json:"mirror,omitempty"`
	Packages []string `json:"packages,omitempty"`
	SHA256   string   `json:"sha256,omitempty"`
	Ref      string   `json:"ref,omitempty"`
}

// StageImage is what one stage image adds and what it must have and lack.
// A capability is a command ("gcc"), "pkg:NAME" or "path:/abs".
type StageImage struct {
	Packages []string `json:"packages"` // Debian, name=version
	Go       []string `json:"go"`       // Go toolchain versions
	NPM      []string `json:"npm"`      // name@version
	MustHave []string `json:"must_have"`
	MustLack []string `json:"must_lack"`
	// Observe lists old-stack commands kept in the image behind a
	// recording wrapper (capability by observation, not absence).
	Observe []string `json:"observe"`
}

// Stage returns the declaration of the stage image named name (agent,
// audit, behavioural, verification), or nil.
func (im *Images) Stage(name string) *StageImage {
	switch name {
	case "agent":
		return &im.Agent
	case "audit":
		return &im.Audit
	case "behavioural":
		return &im.Behavioural
	case "verification":
		return &im.Verification
	}
	return nil
}

// StageNames are the four stage images, in build order.
var StageNames = []string{"agent", "audit", "behavioural", "verification"}

// Timeouts are stage budgets and the verifier ceiling, in seconds.
type Timeouts struct {
	Audit        int `json:"audit"`
	Behavioural  int `json:"behavioural"`
	Verification int `json:"verification"`
	Verifier     int `json:"verifier"`
}

// Limits bound every stage container and the agent's (docs/SCHEMA.md
// "limits"): Pids processes at once, MemoryMiB and DiskMiB in MiB
// (DiskMiB 0: none), CPUs whole CPUs of CPU time (0: no cap).
type Limits struct {
	Pids      int64 `json:"pids"`
	MemoryMiB int64 `json:"memory_mib"`
	DiskMiB   int64 `json:"disk_mib,omitempty"`
	CPUs      int64 `json:"cpus,omitempty"`
}

// Scoring is the task's scoring policy (published: 100 / 40 / 60 / 6 / 10,
// formula (4) of the paper).
type Scoring struct {
	MaxScore               float64 `json:"max_score"`
	BehaviouralPoints      float64 `json:"behavioural_points"`
	VerificationPoints     float64 `json:"verification_points"`
	VerificationModels     int     `json:"verification_models"`
	PointsPerSurvivedModel float64 `json:"points_per_survived_model"`
}

// Pos returns the position in the task file of the value at the CUE path
// p (e.g. "audit.gates[1].id"), or of its nearest declared ancestor; the
// zero Pos when nothing of it is written in the file.
func (t *Task) Pos(p string) token.Pos {
	if !t.source.Exists() {
		return token.NoPos
	}
	for {
		v := t.source.LookupPath(cue.ParsePath(p))
		if v.Exists() {
			if pos := v.Pos(); pos.IsValid() {
				return pos
			}
		}
		i := lastSep(p)
		if i < 0 {
			return token.NoPos
		}
		p = p[:i]
	}
}

func lastSep(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return i
		}
	}
	return -1
}
