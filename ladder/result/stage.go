package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// StageSchema is the schema string of a stage-result envelope
// (HARNESS.md §3.6).
const StageSchema = "swerefactor.stage-result/1"

// The three stage names, in ladder order (HARNESS.md §3.6).
const (
	StageAudit        = "audit"
	StageBehavioural  = "behavioural"
	StageVerification = "verification"
)

// StageNames returns the three stage names in ladder order.
func StageNames() []string {
	return []string{StageAudit, StageBehavioural, StageVerification}
}

// Stage statuses: whether the stage RAN, never whether the submission
// passed (HARNESS.md §3.6). Writers emit StatusSkip for a disabled stage; a
// reader maps it, like anything but "ok", to StatusError.
const (
	StatusOK    = "ok"
	StatusError = "error"
	StatusSkip  = "skip"
)

// Unit statuses (HARNESS.md §3.6). UnitUnreached is the one a module never
// writes about itself: the suite seeds it for every declared module before
// the first one starts. A reader maps an unknown status to StatusError.
const (
	UnitOK        = "ok"
	UnitError     = "error"
	UnitTimeout   = "timeout"
	UnitSkip      = "skip"
	UnitUnreached = "unreached"
)

// Check verdicts (HARNESS.md §3.6). A reader maps an unknown verdict, in any
// case, to VerdictError: a broken producer is not a pass.
const (
	VerdictPass  = "pass"
	VerdictFail  = "fail"
	VerdictError = "error"
	VerdictSkip  = "skip"
)

// TimeLayout is the layout of started_at: "%Y-%m-%dT%H:%M:%SZ" in UTC.
const TimeLayout = "2006-01-02T15:04:05Z"

// Check is one atomic verdict of a stage (HARNESS.md §3.6).
//
// Weight is one bit: a check with weight ≤ 0 does not score (an
// observation); any positive weight is one scored check. Required belongs to
// the audit stage, where it marks a gate. DurationSec is seconds, nil when
// unmeasured. On the wire, weight is rounded to 6 decimal places and
// duration_sec to 3, and required, unit, detail, evidence, duration_sec and
// metadata are written only when set.
type Check struct {
	ID          string
	Verdict     string // pass | fail | error | skip
	Summary     string
	Weight      float64
	Required    bool
	Unit        string
	Detail      string
	Evidence    []map[string]any
	DurationSec *float64
	Metadata    map[string]any
}

// OK reports whether the check passed.
func (c Check) OK() bool { return c.Verdict == VerdictPass }

// Judged reports whether the check reached a verdict at all (verdict ≠
// skip). It is for reporting only: a skip still counts in [Pooled]'s
// denominator.
func (c Check) Judged() bool { return c.Verdict != VerdictSkip }

func (c Check) pyDoc() object {
	o := object{
		{"id", c.ID},
		{"verdict", c.Verdict},
		{"summary", c.Summary},
		{"weight", py.Round(c.Weight, 6)},
	}
	if c.Required {
		o.add("required", true)
	}
	if c.Unit != "" {
		o.add("unit", c.Unit)
	}
	if c.Detail != "" {
		o.add("detail", c.Detail)
	}
	if len(c.Evidence) > 0 {
		o.add("evidence", orderedMaps(c.Evidence, citationOrder))
	}
	if c.DurationSec != nil {
		o.add("duration_sec", py.Round(*c.DurationSec, 3))
	}
	if len(c.Metadata) > 0 {
		o.add("metadata", c.Metadata)
	}
	return o
}

// Unit is a named group of checks: one behavioural module, one audit area,
// one verification round (HARNESS.md §3.6). Weight is the unit's relative
// share of its stage (6 dp on the wire); Status says whether it ran.
type Unit struct {
	ID          string
	Title       string
	Weight      float64
	Status      string // ok | error | timeout | skip | unreached
	Summary     string
	DurationSec *float64
	Metadata    map[string]any
}

func (u Unit) pyDoc() object {
	o := object{
		{"id", u.ID},
		{"title", u.Title},
		{"weight", py.Round(u.Weight, 6)},
		{"status", u.Status},
	}
	if u.Summary != "" {
		o.add("summary", u.Summary)
	}
	if u.DurationSec != nil {
		o.add("duration_sec", py.Round(*u.DurationSec, 3))
	}
	if len(u.Metadata) > 0 {
		o.add("metadata", u.Metadata)
	}
	return o
}

// Stage is one stage's complete output, the envelope with schema
// "swerefactor.stage-result/1" that the scorer reads (HARNESS.md §3.6).
//
// Status is the stage's own: "ok", "error", or "skip" (written for a
// disabled stage, read back as "error"). StartedAt is UTC in [TimeLayout];
// DurationSec is seconds (3 dp on the wire). Harness is the provenance stamp
// ({"fingerprint": "<12 hex>"}, plus "orchestrator": "<12 hex>" when srb's
// in-image helper wrote the result for an srb (see [Stamp]), or empty), set
// once by [NewStage] or [NewOrchestratedStage] and copied verbatim by every
// reader: a result read off disk keeps the harness that wrote it
// (HARNESS.md §4.6, bug 86).
type Stage struct {
	Stage       string
	Task        string
	Status      string
	StartedAt   string
	DurationSec float64
	Harness     map[string]any
	Units       []Unit
	Checks      []Check
	Metadata    map[string]any
	Notes       []string
}

// NewStage returns an empty, ok result for stage of task, started at now,
// stamped with this harness's [Fingerprint] (an empty stamp when the
// fingerprint cannot be computed). It is [NewOrchestratedStage] with no
// orchestrator.
func NewStage(stage, task string, now time.Time) *Stage {
	return NewOrchestratedStage(stage, task, "", now)
}

// NewOrchestratedStage is [NewStage] for a program that grades a stage on
// behalf of the srb whose fingerprint is orchestrator: its stamp is
// [Stamp](orchestrator), so the result names both the program that wrote
// it and the srb build it graded for. It and NewStage are the only places
// srb stamps a stage; the stamp is never changed afterwards.
func NewOrchestratedStage(stage, task, orchestrator string, now time.Time) *Stage {
	return &Stage{
		Stage:     stage,
		Task:      task,
		Status:    StatusOK,
		StartedAt: now.UTC().Format(TimeLayout),
		Harness:   Stamp(orchestrator),
		Units:     []Unit{},
		Checks:    []Check{},
		Metadata:  map[string]any{},
		Notes:     []string{},
	}
}

// Failed returns the result of a stage that could not run at all, in the
// same shape as one that did: status "error", reason as its one note and as
// metadata["error"] (HARNESS.md §3.6, StageResult.failed).
func Failed(stage, task, reason string, now time.Time) *Stage {
	s := NewStage(stage, task, now)
	s.Status = StatusError
	s.Notes = append(s.Notes, reason)
	s.Metadata["error"] = reason
	return s
}

// Add appends c to the stage's checks.
func (s *Stage) Add(c Check) { s.Checks = append(s.Checks, c) }

// Note appends one note.
func (s *Stage) Note(text string) { s.Notes = append(s.Notes, text) }

// Unit returns the first unit called id, or nil.
func (s *Stage) Unit(id string) *Unit {
	for i := range s.Units {
		if s.Units[i].ID == id {
			return &s.Units[i]
		}
	}
	return nil
}

// ChecksOf returns the checks whose Unit is unitID, in order.
func (s *Stage) ChecksOf(unitID string) []Check {
	var out []Check
	for _, c := range s.Checks {
		if c.Unit == unitID {
			out = append(out, c)
		}
	}
	return out
}

func (s *Stage) pyDoc() object {
	units := make([]any, len(s.Units))
	for i, u := range s.Units {
		units[i] = u
	}
	checks := make([]any, len(s.Checks))
	for i, c := range s.Checks {
		checks[i] = c
	}
	harness := s.Harness
	if harness == nil {
		harness = map[string]any{}
	}
	meta := s.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	notes := s.Notes
	if notes == nil {
		notes = []string{}
	}
	return object{
		{"schema", StageSchema},
		{"stage", s.Stage},
		{"task", s.Task},
		{"status", s.Status},
		{"started_at", s.StartedAt},
		{"duration_sec", py.Round(s.DurationSec, 3)},
		{"harness", harness},
		{"units", units},
		{"checks", checks},
		{"metadata", meta},
		{"notes", notes},
	}
}

// MarshalJSON writes the envelope with the earlier harness's field order
// and rounding. It does not validate; [Stage.Write] does.
func (s *Stage) MarshalJSON() ([]byte, error) { return marshalPy(s) }

// UnmarshalJSON reads an envelope with the earlier harness's leniency (see
// [ParseStage]); it does not validate against the JSON Schema.
func (s *Stage) UnmarshalJSON(data []byte) error {
	doc, err := contract.DecodeStrict(contract.StageResult, data)
	if err != nil {
		return fmt.Errorf("parse stage result: %w", err)
	}
	got, err := stageFromDoc(doc)
	if err != nil {
		return err
	}
	*s = *got
	return nil
}

// ParseStage reads a stage-result envelope from data, validating it against
// the "stage-result" JSON Schema first. Reading follows the earlier
// harness's from_dict: an unknown stage is an error; a status other than
// "ok" reads as "error"; unknown unit statuses and check verdicts read as
// "error"; an unparsable weight reads as 1 and a negative one as 0;
// harness is copied verbatim, never re-stamped.
func ParseStage(data []byte) (*Stage, error) {
	doc, err := contract.DecodeStrict(contract.StageResult, data)
	if err != nil {
		return nil, err
	}
	if err := contract.Validate(contract.StageResult, doc); err != nil {
		return nil, err
	}
	st, err := stageFromDoc(doc)
	if err != nil {
		return nil, err
	}
	// Ids name rows in the verdict and keys in reward.json: two units or
	// two checks with one id would be counted twice (two survivors from
	// one adversary). No grader writes them.
	seen := map[string]int{}
	for i, u := range st.Units {
		if j, ok := seen[u.ID]; ok {
			return nil, &contract.ValidationError{Contract: contract.StageResult, Pointer: fmt.Sprintf("/units/%d/id", i),
				Msg: fmt.Sprintf("unit id %q is already used by /units/%d", u.ID, j)}
		}
		seen[u.ID] = i
	}
	seen = map[string]int{}
	for i, c := range st.Checks {
		if j, ok := seen[c.ID]; ok {
			return nil, &contract.ValidationError{Contract: contract.StageResult, Pointer: fmt.Sprintf("/checks/%d/id", i),
				Msg: fmt.Sprintf("check id %q is already used by /checks/%d", c.ID, j)}
		}
		seen[c.ID] = i
	}
	if err := st.consistent(doc.(map[string]any)); err != nil {
		return nil, err
	}
	return st, nil
}

// consistent refuses a stage result whose parts contradict each other,
// which no grader writes: a behavioural check that names no unit of the
// stage (the scorer would never count it), a verification round whose
// unit is not its own id, and summary counts in metadata (modules,
// modules_ok, modules_unreached, checks, checks_passed; adversaries,
// survived, broken, errored) or round records (metadata.rounds, which
// reward.json reads) that disagree with the units and checks. A count or
// record that is absent, or is neither a whole number nor a list (counted
// by its length), is not checked: the earliest results lack them.
func (s *Stage) consistent(raw map[string]any) error {
	bad := func(ptr, format string, args ...any) error {
		return &contract.ValidationError{Contract: contract.StageResult, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
	meta := py.AsMap(raw["metadata"])
	count := func(key string, want int, what string) error {
		v, ok := meta[key]
		if !ok {
			return nil
		}
		n, isInt := py.IsInt(v)
		if list, isList := v.([]any); isList {
			// A list of ids counts by its length.
			n, isInt = len(list), true
		}
		if isInt && n != want {
			return bad("/metadata/"+key, "metadata.%s is %s but the file holds %d %s", key, py.Str(v), want, what)
		}
		return nil
	}
	switch s.Stage {
	case StageBehavioural:
		units := map[string]bool{}
		ok, unreached := 0, 0
		for _, u := range s.Units {
			units[u.ID] = true
			switch u.Status {
			case UnitOK:
				ok++
			case UnitUnreached:
				unreached++
			}
		}
		passed := 0
		for i, c := range s.Checks {
			if !units[c.Unit] {
				return bad(fmt.Sprintf("/checks/%d/unit", i), "check %q names unit %q, which is not a unit of this stage: its verdict would never be counted", c.ID, c.Unit)
			}
			if c.OK() {
				passed++
			}
		}
		for _, k := range []struct {
			key  string
			n    int
			what string
		}{{"modules", len(s.Units), "unit(s)"}, {"modules_ok", ok, "unit(s) with status ok"},
			{"modules_unreached", unreached, "unreached unit(s)"}, {"checks", len(s.Checks), "check(s)"},
			{"checks_passed", passed, "passing check(s)"}} {
			if err := count(k.key, k.n, k.what); err != nil {
				return err
			}
		}
	case StageVerification:
		rounds := Rounds(s)
		byID := map[string]Check{}
		survived, broken, errored := 0, 0, 0
		for _, c := range rounds {
			byID[c.ID] = c
			switch c.Verdict {
			case VerdictPass:
				survived++
			case VerdictFail:
				broken++
			default:
				errored++
			}
		}
		for i, c := range s.Checks {
			if k, _ := c.Metadata["kind"].(string); k == "round" && c.Unit != "" && c.Unit != c.ID {
				return bad(fmt.Sprintf("/checks/%d/unit", i), "round %q names unit %q: a round's unit is its adversary, its own id", c.ID, c.Unit)
			}
		}
		for _, k := range []struct {
			key  string
			n    int
			what string
		}{{"adversaries", len(rounds), "round(s)"}, {"survived", survived, "surviving round(s)"},
			{"broken", broken, "broken round(s)"}, {"errored", errored, "round(s) that did not complete"}} {
			if err := count(k.key, k.n, k.what); err != nil {
				return err
			}
		}
		recs, has := meta["rounds"]
		if !has {
			return nil
		}
		list, isList := recs.([]any)
		if !isList {
			return bad("/metadata/rounds", "metadata.rounds is not a list")
		}
		if len(list) != len(rounds) {
			return bad("/metadata/rounds", "metadata.rounds records %d round(s) but the file holds %d round check(s)", len(list), len(rounds))
		}
		recorded := map[string]bool{}
		for i, e := range list {
			m, _ := e.(map[string]any)
			id := ""
			if py.Truthy(m["adversary"]) {
				id = py.Str(m["adversary"])
			} else if py.Truthy(m["id"]) {
				id = py.Str(m["id"])
			}
			at := fmt.Sprintf("/metadata/rounds/%d", i)
			c, ok := byID[id]
			if !ok || recorded[id] {
				return bad(at+"/adversary", "round record %q matches no round check, or repeats one", id)
			}
			recorded[id] = true
			want := map[string]string{VerdictPass: "survived", VerdictFail: "broken"}[c.Verdict]
			got := py.Str(getOr(m, "outcome", ""))
			if (want != "" || got == "survived" || got == "broken") && got != want {
				return bad(at+"/outcome", "round %q is recorded as %q but its check's verdict is %q", id, got, c.Verdict)
			}
		}
	}
	return nil
}

// Rounds returns the verification rounds of a verification stage result,
// in order: the checks whose metadata.kind is "round", or, in a result
// that marks none, every check that names a unit (HARNESS.md §4.4).
func Rounds(s *Stage) []Check {
	var rounds []Check
	for _, c := range s.Checks {
		if k, ok := c.Metadata["kind"].(string); ok && k == "round" {
			rounds = append(rounds, c)
		}
	}
	if len(rounds) == 0 {
		for _, c := range s.Checks {
			if c.Unit != "" {
				rounds = append(rounds, c)
			}
		}
	}
	return rounds
}

// ReadStage reads and validates the stage result at path (see
// [ParseStage]). A schema violation is a *contract.ValidationError with File
// set to path, wrapped with the operation.
func ReadStage(path string) (*Stage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read stage result: %w", err)
	}
	s, err := ParseStage(data)
	if err != nil {
		return nil, fmt.Errorf("read stage result %s: %w", path, withFile(err, path))
	}
	return s, nil
}

// Write validates the envelope against the "stage-result" JSON Schema and
// writes it to path atomically (a ".tmp-*.json" file in the same directory,
// then a rename), creating the directory if needed.
func (s *Stage) Write(path string) error {
	data, err := marshalPy(s)
	if err != nil {
		return fmt.Errorf("write stage result %s: %w", path, err)
	}
	if err := contract.ValidateBytes(contract.StageResult, data); err != nil {
		return fmt.Errorf("write stage result %s: %w", path, withFile(err, path))
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("write stage result: %w", err)
	}
	return nil
}

// WriteCheckpoint writes s to path atomically (a temporary file renamed
// over path) without syncing it or validating it: for the checkpoints a
// runner writes while a stage runs, which a reader re-validates and which
// a crash may lose (the stage is then re-run). The stage's last write
// must be [Stage.Write], which validates and syncs.
func (s *Stage) WriteCheckpoint(path string) error {
	data, err := s.CheckpointBytes()
	if err != nil {
		return fmt.Errorf("write stage result %s: %w", path, err)
	}
	return WriteCheckpointBytes(path, data)
}

// CheckpointBytes is what [Stage.WriteCheckpoint] writes, encoded now:
// for a runner that writes it later, or elsewhere (in the background),
// while s goes on changing.
func (s *Stage) CheckpointBytes() ([]byte, error) { return marshalPy(s) }

// WriteCheckpointBytes writes data ([Stage.CheckpointBytes]) to path as
// [Stage.WriteCheckpoint] does: atomically, not synced.
func WriteCheckpointBytes(path string, data []byte) error {
	if err := writeAtomicNoSync(path, data); err != nil {
		return fmt.Errorf("write stage result: %w", err)
	}
	return nil
}

// withFile sets File on a schema validation error.
func withFile(err error, path string) error {
	var ve *contract.ValidationError
	if errors.As(err, &ve) && ve.File == "" {
		ve.File = path
	}
	return err
}

func stageFromDoc(doc any) (*Stage, error) {
	raw, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parse stage result: the document is not a JSON object")
	}
	stage := strings.ToLower(py.Str(getOr(raw, "stage", "")))
	switch stage {
	case StageAudit, StageBehavioural, StageVerification:
	default:
		return nil, fmt.Errorf("parse stage result: unknown stage %s; expected one of %s",
			pyQuoteRepr(stage), strings.Join(StageNames(), ", "))
	}
	status := StatusError
	if strings.ToLower(py.Str(getOr(raw, "status", StatusOK))) == StatusOK {
		status = StatusOK
	}
	started := py.Str(raw["started_at"])
	if !py.Truthy(raw["started_at"]) {
		started = time.Now().UTC().Format(TimeLayout)
	}
	dur := 0.0
	if py.Truthy(raw["duration_sec"]) {
		f, ok := py.Float(raw["duration_sec"])
		if !ok {
			return nil, fmt.Errorf("parse stage result: duration_sec is not a number")
		}
		dur = f
	}
	s := &Stage{
		Stage:       stage,
		Task:        py.Str(getOr(raw, "task", "")),
		Status:      status,
		StartedAt:   started,
		DurationSec: dur,
		Harness:     copyMap(py.AsMap(raw["harness"])),
		Units:       []Unit{},
		Checks:      []Check{},
		Metadata:    copyMap(py.AsMap(raw["metadata"])),
		Notes:       []string{},
	}
	for _, u := range py.AsList(raw["units"]) {
		if m, ok := u.(map[string]any); ok {
			s.Units = append(s.Units, unitFromMap(m))
		}
	}
	for _, c := range py.AsList(raw["checks"]) {
		if m, ok := c.(map[string]any); ok {
			s.Checks = append(s.Checks, checkFromMap(m))
		}
	}
	for _, n := range py.AsList(raw["notes"]) {
		s.Notes = append(s.Notes, py.Str(n))
	}
	return s, nil
}

// getOr is Python's dict.get(key, def): the stored value, even null, when
// the key is present.
func getOr(m map[string]any, key string, def any) any {
	if v, ok := m[key]; ok {
		return v
	}
	return def
}

// pyQuoteRepr is Python's repr() of a str, close enough for messages.
func pyQuoteRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

func weightOf(m map[string]any) float64 {
	w, ok := py.Float(getOr(m, "weight", 1.0))
	switch {
	case !ok || math.IsInf(w, 0):
		// Unparsable reads as 1 (the earlier harness). srb also reads an
		// infinite weight as 1, since JSON cannot carry one back out.
		return 1
	case math.IsNaN(w) || w < 0:
		return 0 // max(0.0, w) in Python
	}
	return w
}

func durationOf(v any) *float64 {
	f, ok := py.Float(v)
	if !ok {
		return nil
	}
	return &f
}

func checkFromMap(raw map[string]any) Check {
	verdict := strings.ToLower(py.Str(getOr(raw, "verdict", VerdictError)))
	switch verdict {
	case VerdictPass, VerdictFail, VerdictError, VerdictSkip:
	default:
		verdict = VerdictError
	}
	id := "<unnamed>"
	if py.Truthy(raw["id"]) {
		id = py.Str(raw["id"])
	} else if py.Truthy(raw["name"]) {
		id = py.Str(raw["name"])
	}
	var evidence []map[string]any
	if ev := raw["evidence"]; py.Truthy(ev) {
		list, isList := ev.([]any)
		if !isList {
			evidence = []map[string]any{{"note": py.Str(ev)}}
		}
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				evidence = append(evidence, m)
			} else {
				evidence = append(evidence, map[string]any{"note": py.Str(e)})
			}
		}
	}
	return Check{
		ID:          id,
		Verdict:     verdict,
		Summary:     py.Str(getOr(raw, "summary", "")),
		Weight:      weightOf(raw),
		Required:    py.Truthy(raw["required"]),
		Unit:        py.Str(getOr(raw, "unit", "")),
		Detail:      py.Str(getOr(raw, "detail", "")),
		Evidence:    evidence,
		DurationSec: durationOf(raw["duration_sec"]),
		Metadata:    copyMap(py.AsMap(raw["metadata"])),
	}
}

func unitFromMap(raw map[string]any) Unit {
	status := strings.ToLower(py.Str(getOr(raw, "status", UnitOK)))
	switch status {
	case UnitOK, UnitError, UnitTimeout, UnitSkip, UnitUnreached:
	default:
		status = UnitError
	}
	id := "<unnamed>"
	if py.Truthy(raw["id"]) {
		id = py.Str(raw["id"])
	}
	return Unit{
		ID:          id,
		Title:       py.Str(getOr(raw, "title", "")),
		Weight:      weightOf(raw),
		Status:      status,
		Summary:     py.Str(getOr(raw, "summary", "")),
		DurationSec: durationOf(raw["duration_sec"]),
		Metadata:    copyMap(py.AsMap(raw["metadata"])),
	}
}

// Pooled returns the number of passing checks and the number of scored
// checks among checks: every check with weight > 0 counts once, whatever
// its weight, and a skip stays in the denominator and never passes
// (HARNESS.md §3.6 "pooled"; bug 64).
func Pooled(checks []Check) (passed, total int) {
	for _, c := range checks {
		if c.Weight <= 0 {
			continue
		}
		total++
		if c.OK() {
			passed++
		}
	}
	return passed, total
}

// Rate is passed/total over [Pooled], and 0 for an empty pool: nothing
// measured is not everything passing.
func Rate(checks []Check) float64 {
	p, t := Pooled(checks)
	if t == 0 {
		return 0
	}
	return float64(p) / float64(t)
}

var _ json.Marshaler = (*Stage)(nil)
