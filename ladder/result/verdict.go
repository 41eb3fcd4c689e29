package result

import (
	"fmt"
	"math"
	"os"
	"reflect"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// ScoreSchema is the schema string of score.json (HARNESS.md §3.7).
const ScoreSchema = "swerefactor.score/1"

// Audit gate outcomes, Verdict.AuditGate (HARNESS.md §3.7).
const (
	GatePass   = "pass"
	GateFail   = "fail"
	GateNotRun = "not-run"
)

// ModuleScore is one behavioural module's row in a verdict (HARNESS.md
// §3.7). Rate is passed/scored over the module's scored checks (0 for a
// module that did not finish or scored nothing); Complete says whether every
// scored check passed, the row's whole contribution to the score.
// ScoredWeight is the COUNT of scored checks (the denominator of Rate), kept
// under its historical name. Note is the scorer's sentence about the rate,
// Notes the module's own about its run, Observations the summaries of a
// reporting module's weight-0 checks (at most 40, each at most 400
// characters, plus one overflow line).
type ModuleScore struct {
	ID           string
	Title        string
	Weight       float64
	Rate         float64
	Complete     bool
	Status       string
	ScoredWeight float64
	Passed       int
	Failed       int
	Errored      int
	Skipped      int
	Note         string
	Notes        []string
	Observations []string
}

func (m ModuleScore) pyDoc() object {
	notes := m.Notes
	if notes == nil {
		notes = []string{}
	}
	obs := m.Observations
	if obs == nil {
		obs = []string{}
	}
	return object{
		{"id", m.ID},
		{"title", m.Title},
		{"weight", py.Round(m.Weight, 6)},
		{"rate", py.Round(m.Rate, 6)},
		{"complete", m.Complete},
		{"status", m.Status},
		{"scored_weight", py.Round(m.ScoredWeight, 6)},
		{"checks", object{
			{"passed", m.Passed},
			{"failed", m.Failed},
			{"errored", m.Errored},
			{"skipped", m.Skipped},
		}},
		{"note", m.Note},
		{"notes", notes},
		{"observations", obs},
	}
}

// moduleScoreFromMap reads a module row as the earlier harness's from_dict
// does: complete defaults to rate ≥ 1 and scored_weight > 0 when absent,
// and a module's "required" is never read. Unlike the earlier harness it
// also reads scored_weight and notes back, so a re-read verdict renders as
// the original did.
func moduleScoreFromMap(m map[string]any) ModuleScore {
	checks := py.AsMap(m["checks"])
	rate := py.Num(getOr(m, "rate", 0.0))
	scored := py.Num(getOr(m, "scored_weight", 0.0))
	complete := rate >= 1 && scored > 0
	if v, ok := m["complete"]; ok {
		complete = py.Truthy(v)
	}
	var notes []string
	for _, n := range py.AsList(m["notes"]) {
		notes = append(notes, py.Str(n))
	}
	var obs []string
	for _, o := range py.AsList(m["observations"]) {
		obs = append(obs, py.Str(o))
	}
	return ModuleScore{
		ID:           py.Str(getOr(m, "id", "")),
		Title:        py.Str(getOr(m, "title", "")),
		Weight:       py.Num(getOr(m, "weight", 0.0)),
		Rate:         rate,
		Complete:     complete,
		Status:       py.Str(getOr(m, "status", "")),
		ScoredWeight: scored,
		Passed:       py.Int(getOr(checks, "passed", 0)),
		Failed:       py.Int(getOr(checks, "failed", 0)),
		Errored:      py.Int(getOr(checks, "errored", 0)),
		Skipped:      py.Int(getOr(checks, "skipped", 0)),
		Note:         py.Str(getOr(m, "note", "")),
		Notes:        notes,
		Observations: obs,
	}
}

// ReportedModules counts the rows of a module table that are a module that
// ran: rows whose status is not "unreached" (a row with no status counts, so
// verdicts written before seeding existed still read as measured).
// HARNESS.md §3.7 and bug 76.
func ReportedModules(rows []ModuleScore) int {
	n := 0
	for _, m := range rows {
		if m.Status != UnitUnreached {
			n++
		}
	}
	return n
}

// Verdict is the graded outcome of one submission, written as score.json
// with schema "swerefactor.score/1" (HARNESS.md §3.7).
//
// Score and MaxScore are points on the published scale (score 4 dp on the
// wire; reward = Score/MaxScore, 6 dp, 0 when MaxScore is 0).
// BehaviouralPoints and VerificationPoints are what each stage PAID (4 dp);
// BehaviouralRate is the weighted pass rate stage 2 measured (6 dp), paid
// or not. A verdict is valid exactly when HarnessError is empty.
//
// Unscored records stages that ran but were not counted, keyed by stage
// name; it is never an addend. Its entries are the earlier harness's
// dicts: for "behavioural" {points, would_be_points, rate, complete,
// blocked_by, harness_error, notes, modules ([]ModuleScore), status,
// counted:false}, for "verification" {points, models_total,
// models_survived, status, counted:false}, and for a reading that failed
// {error, note, status, counted:false}. Numbers in a verdict read from a
// file are json.Number.
type Verdict struct {
	Task                string
	Score               float64
	MaxScore            float64
	AuditGate           string // pass | fail | not-run
	BehaviouralPoints   float64
	BehaviouralRate     float64
	VerificationPoints  float64
	AdversariesTotal    int
	AdversariesSurvived int
	StagesRun           []string
	BlockedBy           string
	HarnessError        string
	Modules             []ModuleScore
	// UnscoredStages is one sentence per stage that ran and was discarded.
	UnscoredStages map[string]string
	// AuditFailures are {id, verdict, summary, detail (≤2000), evidence
	// (≤12)} for the failed (or undecided) required gates, at most 40.
	AuditFailures []map[string]any
	// VerificationBreaks are {adversary, summary, detail (≤2000), evidence
	// (≤8)} for the rounds that broke the submission, at most 24.
	VerificationBreaks []map[string]any
	Notes              []string
	Metadata           map[string]any
	Unscored           map[string]map[string]any
	// Harnesses is each stage's harness stamp plus {"stage": name}, in the
	// order the stages were read; copied verbatim when a verdict is read.
	Harnesses []map[string]any
}

// NewVerdict returns an empty verdict for task on a scale of maxScore
// points, with the audit gate not run and every collection non-nil.
func NewVerdict(task string, maxScore float64) *Verdict {
	return &Verdict{
		Task:               task,
		MaxScore:           maxScore,
		AuditGate:          GateNotRun,
		StagesRun:          []string{},
		Modules:            []ModuleScore{},
		UnscoredStages:     map[string]string{},
		AuditFailures:      []map[string]any{},
		VerificationBreaks: []map[string]any{},
		Notes:              []string{},
		Metadata:           map[string]any{},
		Unscored:           map[string]map[string]any{},
		Harnesses:          []map[string]any{},
	}
}

// Valid reports whether the number is about the submission: false exactly
// when the harness could not complete (HarnessError set).
func (v *Verdict) Valid() bool { return v.HarnessError == "" }

// Reward is the normalised headline, Score/MaxScore rounded to 6 decimal
// places, and 0 when MaxScore is 0.
func (v *Verdict) Reward() float64 {
	if v.MaxScore == 0 {
		return 0
	}
	return py.Round(v.Score/v.MaxScore, 6)
}

// Uncredited is the same map as Unscored under the name another branch of
// the earlier harness gave it; both names are written.
func (v *Verdict) Uncredited() map[string]map[string]any { return v.Unscored }

// Uncounted is Unscored in its third spelling, derived and never stored:
// per stage {ran: true, measured, points?, rate?, complete?, models_total?,
// models_survived?, status?, error?, modules (a COUNT), note?,
// stage_blocked_by?}. measured is false when the reading raised (an
// "error" key) or, for stage 2, when no module row reported (see
// [ReportedModules]). note is the entry's note, else its harness_error,
// else its last note (HARNESS.md §3.7; bugs 76, 79).
func (v *Verdict) Uncounted() map[string]map[string]any {
	out := map[string]map[string]any{}
	for stage, got := range v.Unscored {
		if got == nil {
			continue
		}
		_, hasErr := got["error"]
		measured := !hasErr
		rows, isRows := got["modules"].([]ModuleScore)
		if measured && stage == StageBehavioural {
			count := 0
			switch {
			case isRows:
				count = ReportedModules(rows)
			case got["modules"] != nil:
				count = py.Int(got["modules"])
			default:
				count = py.Int(got["module_count"])
			}
			measured = count != 0
		}
		view := map[string]any{"ran": true, "measured": measured}
		for _, k := range []string{"points", "rate", "complete", "models_total", "models_survived", "status", "error"} {
			if x, ok := got[k]; ok {
				view[k] = x
			}
		}
		switch {
		case isRows:
			view["modules"] = len(rows)
		case got["modules"] != nil:
			view["modules"] = got["modules"]
		default:
			if mc, ok := got["module_count"]; ok {
				view["modules"] = mc
			}
		}
		note := ""
		switch {
		case py.Truthy(got["note"]):
			note = py.Str(got["note"])
		case py.Truthy(got["harness_error"]):
			note = py.Str(got["harness_error"])
		default:
			if notes := py.AsList(got["notes"]); len(notes) > 0 {
				note = py.Str(notes[len(notes)-1])
			}
		}
		if note != "" {
			view["note"] = note
		}
		if py.Truthy(got["blocked_by"]) {
			view["stage_blocked_by"] = got["blocked_by"]
		}
		out[stage] = view
	}
	return out
}

var (
	unscoredOrder  = []string{"points", "would_be_points", "rate", "complete", "blocked_by", "harness_error", "notes", "modules", "models_total", "models_survived", "error", "note", "module_count", "status", "counted"}
	uncountedOrder = []string{"ran", "measured", "points", "rate", "complete", "models_total", "models_survived", "status", "error", "modules", "note", "stage_blocked_by"}
	failureOrder   = []string{"id", "verdict", "summary", "detail", "evidence"}
	breakOrder     = []string{"adversary", "summary", "detail", "evidence"}
	harnessOrder   = []string{"fingerprint", "orchestrator", "stage"}
	// citationOrder is the key order of an audit citation (HARNESS.md §3.6).
	citationOrder = []string{"path", "line", "quote", "note", "grounded", "ground_note"}
)

func orderedMaps[M ~map[string]any](list []M, order []string) []any {
	out := make([]any, 0, len(list))
	for _, m := range list {
		out = append(out, ordered{m: m, order: order})
	}
	return out
}

// withCitations writes the "evidence" list of an audit failure or a break
// with citation keys in the earlier harness's order.
func withCitations(list []map[string]any, order []string) []any {
	out := make([]any, 0, len(list))
	for _, m := range list {
		if ev := py.AsList(m["evidence"]); len(ev) > 0 {
			m = copyMap(m)
			items := make([]any, len(ev))
			for i, e := range ev {
				if em, ok := e.(map[string]any); ok {
					items[i] = ordered{m: em, order: citationOrder}
				} else {
					items[i] = e
				}
			}
			m["evidence"] = items
		}
		out = append(out, ordered{m: m, order: order})
	}
	return out
}

func orderedStages(m map[string]map[string]any, order []string) object {
	keys := sortedObject(func() map[string]any {
		x := make(map[string]any, len(m))
		for k, v := range m {
			x[k] = v
		}
		return x
	}(), nil)
	o := make(object, 0, len(keys))
	for _, f := range keys {
		o.add(f.k, ordered{m: f.v.(map[string]any), order: order})
	}
	return o
}

func (v *Verdict) pyDoc() object {
	gate := v.AuditGate
	if gate == "" {
		gate = GateNotRun
	}
	mods := make([]any, len(v.Modules))
	for i, m := range v.Modules {
		mods[i] = m
	}
	strs := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	unscoredStages := map[string]any{}
	for k, s := range v.UnscoredStages {
		unscoredStages[k] = s
	}
	meta := v.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	unscored := orderedStages(v.Unscored, unscoredOrder)
	return object{
		{"schema", ScoreSchema},
		{"task", v.Task},
		{"reward", v.Reward()},
		{"score", py.Round(v.Score, 4)},
		{"max_score", v.MaxScore},
		{"valid", v.Valid()},
		{"audit_gate", gate},
		{"behavioural", object{
			{"points", py.Round(v.BehaviouralPoints, 4)},
			{"rate", py.Round(v.BehaviouralRate, 6)},
			{"modules", mods},
		}},
		{"verification", object{
			{"points", py.Round(v.VerificationPoints, 4)},
			{"models_total", v.AdversariesTotal},
			{"models_survived", v.AdversariesSurvived},
			{"breaks", withCitations(v.VerificationBreaks, breakOrder)},
		}},
		{"stages_run", strs(v.StagesRun)},
		{"unscored_stages", unscoredStages},
		{"blocked_by", v.BlockedBy},
		{"harnesses", orderedMaps(v.Harnesses, harnessOrder)},
		{"harness_error", v.HarnessError},
		{"audit_failures", withCitations(v.AuditFailures, failureOrder)},
		{"notes", strs(v.Notes)},
		{"uncredited", unscored},
		{"metadata", meta},
		{"unscored", unscored},
		{"uncounted", orderedStages(v.Uncounted(), uncountedOrder)},
	}
}

// MarshalJSON writes score.json's shape with the earlier harness's field
// order and rounding; it does not validate ([Verdict.Write] does).
func (v *Verdict) MarshalJSON() ([]byte, error) { return marshalPy(v) }

// UnmarshalJSON reads score.json's shape (see [ParseVerdict]) without
// validating it against the JSON Schema.
func (v *Verdict) UnmarshalJSON(data []byte) error {
	doc, err := contract.DecodeStrict(contract.Score, data)
	if err != nil {
		return fmt.Errorf("parse verdict: %w", err)
	}
	got, err := verdictFromDoc(doc)
	if err != nil {
		return err
	}
	*v = *got
	return nil
}

// ParseVerdict reads score.json from data, validating it against the
// "score" JSON Schema first. It reads the discarded-stage record under any
// of its three spellings (unscored, uncredited, then uncounted, whose module
// count is kept as "module_count"), defaults a module row's complete to
// rate ≥ 1 and scored_weight > 0, never reads a module's required, and
// copies harnesses verbatim (HARNESS.md §3.7 from_dict; bug 79).
func ParseVerdict(data []byte) (*Verdict, error) {
	doc, err := contract.DecodeStrict(contract.Score, data)
	if err != nil {
		return nil, err
	}
	if err := contract.Validate(contract.Score, doc); err != nil {
		return nil, err
	}
	v, err := verdictFromDoc(doc)
	if err != nil {
		return nil, err
	}
	if err := v.consistent(doc); err != nil {
		return nil, err
	}
	return v, nil
}

// consistent rejects a verdict whose fields contradict each other, which
// no grader writes, naming the field:
//   - valid must be exactly "harness_error is empty", and a blocked_by that
//     only a harness fault sets (audit-missing, behavioural-error,
//     verification-incomplete, …) needs valid false;
//   - reward must be score / max_score (6 dp, 0 when max_score is 0);
//   - the score must be formula (4) of the paper over the stage points (0
//     unless the audit gate passed; else the two stages' points, capped at
//     max_score), to the 4 dp the file carries;
//   - a stage that paid points must be in stages_run, stage 2 only when
//     a weighted module row exists, every weighted one is complete and
//     the rate is 1; a row is complete only with status ok (or none, in
//     old files), a scored check, every scored check passing and rate 1;
//     stages_run names a stage
//     once; module rows name a module once, and none claims more passing
//     checks (rate × scored_weight) than it counts;
//   - models_survived cannot exceed models_total, breaks cannot exceed the
//     rounds that did not survive, and stage 3 pays nothing without a
//     survivor;
//   - a passed gate lists no audit failure (the earliest verdicts list none
//     for a failed one either, so that is not required);
//   - unscored and uncredited, when both are present, are the same record.
func (v *Verdict) consistent(doc any) error {
	raw, _ := doc.(map[string]any)
	bad := func(ptr, format string, args ...any) error {
		return &contract.ValidationError{Contract: contract.Score, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
	if b, ok := raw["valid"].(bool); ok && b != (v.HarnessError == "") {
		return bad("/valid", "valid is %v but harness_error is %q: a verdict is valid exactly when the grader completed", b, v.HarnessError)
	}
	if v.HarnessError == "" && faultBlocks[v.BlockedBy] {
		return bad("/blocked_by", "blocked_by is %q, which only a harness fault sets, but the verdict is valid", v.BlockedBy)
	}
	if r, ok := py.Float(raw["reward"]); ok && math.Abs(r-v.Reward()) > 1e-6 {
		return bad("/reward", "reward is %s but score / max_score is %s / %s = %s", py.Repr(r), py.Repr(v.Score), py.Repr(v.MaxScore), py.Repr(v.Reward()))
	}
	want := 0.0
	if v.AuditGate == GatePass {
		want = math.Min(v.BehaviouralPoints+v.VerificationPoints, v.MaxScore)
	}
	if math.Abs(v.Score-want) > 1e-3 {
		return bad("/score", "score is %s but the stages give %s (audit gate %s, stage 2 %s, stage 3 %s): the arithmetic of formula (4) does not close",
			py.Repr(v.Score), py.Repr(want), v.AuditGate, py.Repr(v.BehaviouralPoints), py.Repr(v.VerificationPoints))
	}
	ran := map[string]bool{}
	for i, st := range v.StagesRun {
		if ran[st] {
			return bad(fmt.Sprintf("/stages_run/%d", i), "stage %q is listed twice", st)
		}
		ran[st] = true
	}
	if v.BehaviouralPoints > 0 && !ran[StageBehavioural] {
		return bad("/behavioural/points", "stage 2 paid %s points but did not run (stages_run is %v)", py.Repr(v.BehaviouralPoints), v.StagesRun)
	}
	if v.VerificationPoints > 0 && !ran[StageVerification] {
		return bad("/verification/points", "stage 3 paid %s points but did not run (stages_run is %v)", py.Repr(v.VerificationPoints), v.StagesRun)
	}
	rows, weighted := map[string]int{}, 0
	for i, m := range v.Modules {
		at := fmt.Sprintf("/behavioural/modules/%d", i)
		if j, dup := rows[m.ID]; dup {
			return bad(at+"/id", "module %q is already the row /behavioural/modules/%d", m.ID, j)
		}
		rows[m.ID] = i
		if m.Rate*m.ScoredWeight > float64(m.Passed)+1e-3 {
			return bad(at+"/rate", "module %q has rate %s over %s scored check(s) but counts %d passing", m.ID, py.Repr(m.Rate), py.Repr(m.ScoredWeight), m.Passed)
		}
		if m.Complete && ((m.Status != "" && m.Status != UnitOK) || m.ScoredWeight <= 0 || float64(m.Passed) < m.ScoredWeight-1e-6 || m.Rate < 1-1e-6) {
			return bad(at+"/complete", "module %q is marked complete but has status %q, %d passing of %s scored check(s) and rate %s: complete means it finished and passed every scored check",
				m.ID, m.Status, m.Passed, py.Repr(m.ScoredWeight), py.Repr(m.Rate))
		}
		if m.Weight > 0 {
			weighted++
		}
		if v.BehaviouralPoints > 0 && m.Weight > 0 && !m.Complete {
			return bad(at+"/complete", "stage 2 paid %s points but module %q (weight %s) is not complete", py.Repr(v.BehaviouralPoints), m.ID, py.Repr(m.Weight))
		}
	}
	if v.BehaviouralPoints > 0 {
		// Stage 2 pays only when a weighted module exists and every
		// weighted one is complete, so the weighted mean rate is 1.
		if weighted == 0 {
			return bad("/behavioural/modules", "stage 2 paid %s points but no module row carries weight: nothing was measured to pay for", py.Repr(v.BehaviouralPoints))
		}
		if v.BehaviouralRate < 1-1e-6 {
			return bad("/behavioural/rate", "stage 2 paid %s points but its rate is %s: it pays only when every weighted module passed every scored check", py.Repr(v.BehaviouralPoints), py.Repr(v.BehaviouralRate))
		}
	}
	if v.AdversariesSurvived > v.AdversariesTotal {
		return bad("/verification/models_survived", "%d of %d models survived: more survivors than rounds", v.AdversariesSurvived, v.AdversariesTotal)
	}
	if n := len(v.VerificationBreaks); n > v.AdversariesTotal-v.AdversariesSurvived {
		return bad("/verification/breaks", "%d break(s) listed but only %d of %d round(s) did not survive", n, v.AdversariesTotal-v.AdversariesSurvived, v.AdversariesTotal)
	}
	if v.VerificationPoints > 0 && v.AdversariesSurvived == 0 {
		return bad("/verification/points", "stage 3 paid %s points but no model survived", py.Repr(v.VerificationPoints))
	}
	if v.AuditGate == GatePass && len(v.AuditFailures) > 0 {
		return bad("/audit_failures", "the audit gate passed but %d required check(s) are listed as failed", len(v.AuditFailures))
	}
	if a, ok := raw["unscored"]; ok {
		if b, ok := raw["uncredited"]; ok && !reflect.DeepEqual(a, b) {
			return bad("/uncredited", "uncredited and unscored are two spellings of one record, and they differ")
		}
	}
	return nil
}

// faultBlocks are the blocked_by ids only a harness fault sets (each comes
// with a harness_error).
var faultBlocks = map[string]bool{
	"audit-missing": true, "audit-error": true, "audit-empty": true, "audit-undecided": true,
	"behavioural-missing": true, "behavioural-error": true, "behavioural-empty": true, "behavioural-weights": true,
	"verification-missing": true, "verification-error": true, "verification-incomplete": true,
}

// ReadVerdict reads and validates the score.json at path (see
// [ParseVerdict]). A schema violation is a *contract.ValidationError with File
// set to path, wrapped with the operation.
func ReadVerdict(path string) (*Verdict, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read verdict: %w", err)
	}
	v, err := ParseVerdict(data)
	if err != nil {
		return nil, fmt.Errorf("read verdict %s: %w", path, withFile(err, path))
	}
	return v, nil
}

// Write validates the verdict against the "score" JSON Schema and writes it
// to path atomically (a ".tmp-*.json" file in the same directory, then a
// rename), creating the directory if needed.
func (v *Verdict) Write(path string) error {
	data, err := v.marshalValid(path)
	if err != nil {
		return err
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("write verdict: %w", err)
	}
	return nil
}

func (v *Verdict) marshalValid(path string) ([]byte, error) {
	data, err := marshalPy(v)
	if err != nil {
		return nil, fmt.Errorf("write verdict %s: %w", path, err)
	}
	if err := contract.ValidateBytes(contract.Score, data); err != nil {
		return nil, fmt.Errorf("write verdict %s: %w", path, withFile(err, path))
	}
	return data, nil
}

func verdictFromDoc(doc any) (*Verdict, error) {
	raw, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parse verdict: the document is not a JSON object")
	}
	fn := py.AsMap(raw["behavioural"])
	adv := py.AsMap(raw["verification"])
	v := NewVerdict(py.Str(getOr(raw, "task", "")), py.Num(getOr(raw, "max_score", 100.0)))
	v.Score = py.Num(getOr(raw, "score", 0.0))
	v.AuditGate = py.Str(getOr(raw, "audit_gate", GateNotRun))
	v.BehaviouralPoints = py.Num(getOr(fn, "points", 0.0))
	v.BehaviouralRate = py.Num(getOr(fn, "rate", 0.0))
	v.VerificationPoints = py.Num(getOr(adv, "points", 0.0))
	v.AdversariesTotal = py.Int(getOr(adv, "models_total", 0))
	v.AdversariesSurvived = py.Int(getOr(adv, "models_survived", 0))
	for _, s := range py.AsList(raw["stages_run"]) {
		v.StagesRun = append(v.StagesRun, py.Str(s))
	}
	for k, s := range py.AsMap(raw["unscored_stages"]) {
		v.UnscoredStages[k] = py.Str(s)
	}
	v.BlockedBy = py.Str(getOr(raw, "blocked_by", ""))
	v.HarnessError = py.Str(getOr(raw, "harness_error", ""))
	for _, m := range py.AsList(fn["modules"]) {
		if row, ok := m.(map[string]any); ok {
			v.Modules = append(v.Modules, moduleScoreFromMap(row))
		}
	}
	for _, f := range py.AsList(raw["audit_failures"]) {
		if m, ok := f.(map[string]any); ok {
			v.AuditFailures = append(v.AuditFailures, m)
		}
	}
	for _, b := range py.AsList(adv["breaks"]) {
		if m, ok := b.(map[string]any); ok {
			v.VerificationBreaks = append(v.VerificationBreaks, m)
		}
	}
	for _, n := range py.AsList(raw["notes"]) {
		v.Notes = append(v.Notes, py.Str(n))
	}
	if m := py.AsMap(raw["metadata"]); m != nil {
		v.Metadata = m
	}
	v.Unscored = unscoredFromRaw(raw)
	for _, h := range py.AsList(raw["harnesses"]) {
		if m, ok := h.(map[string]any); ok {
			v.Harnesses = append(v.Harnesses, m)
		}
	}
	return v, nil
}

// unscoredFromRaw reads the discarded-stage record under whichever of its
// three names is present; module rows become []ModuleScore.
func unscoredFromRaw(raw map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	got := py.AsMap(raw["unscored"])
	if len(got) == 0 {
		got = py.AsMap(raw["uncredited"])
	}
	if len(got) > 0 {
		for stage, e := range got {
			entry, ok := e.(map[string]any)
			if !ok {
				continue
			}
			entry = copyMap(entry)
			if list, ok := entry["modules"].([]any); ok {
				entry["modules"] = moduleRows(list)
			}
			out[stage] = entry
		}
		return out
	}
	for stage, e := range py.AsMap(raw["uncounted"]) {
		entry, ok := e.(map[string]any)
		if !ok {
			continue
		}
		entry = copyMap(entry)
		mods, present := entry["modules"]
		delete(entry, "modules")
		if list, ok := mods.([]any); ok {
			entry["modules"] = moduleRows(list)
		} else if present && mods != nil {
			entry["module_count"] = mods
		}
		if m, ok := entry["measured"].(bool); ok && !m {
			if _, has := entry["error"]; !has {
				msg := any("the stage result could not be read")
				if py.Truthy(entry["note"]) {
					msg = entry["note"]
				}
				entry["error"] = msg
			}
		}
		delete(entry, "measured")
		delete(entry, "ran")
		if sb, ok := entry["stage_blocked_by"]; ok {
			entry["blocked_by"] = sb
			delete(entry, "stage_blocked_by")
		}
		if _, ok := entry["counted"]; !ok {
			entry["counted"] = false
		}
		out[stage] = entry
	}
	return out
}

func moduleRows(list []any) []ModuleScore {
	rows := make([]ModuleScore, 0, len(list))
	for _, m := range list {
		if row, ok := m.(map[string]any); ok {
			rows = append(rows, moduleScoreFromMap(row))
		}
	}
	return rows
}
