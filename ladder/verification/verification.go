package verification

import (
	"context"
	cryptorand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/audit"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Round outcomes (HARNESS.md §4.3): survived pays, broken does not, error
// is a round that established nothing (re-run the stage).
const (
	OutcomeSurvived = "survived"
	OutcomeBroken   = "broken"
	OutcomeError    = "error"
)

// Adjudication decisions (HARNESS.md §4.3 "Adjudicator"). Only upheld is
// a break; undecided (the adjudicator could not be reached) makes the
// round an error.
const (
	DecisionUpheld    = "upheld"
	DecisionRejected  = "rejected"
	DecisionInvalid   = "invalid"
	DecisionUndecided = "undecided"
)

// Tool names of a round, and the adjudicator's one tool.
const (
	ToolTryTest = "try_test"
	ToolReport  = "report"
	ToolRule    = "rule"
)

// Adjudicator loop shape (HARNESS.md §7 bug 90): a short call that never
// resumes, so an outage ends it at once as undecided.
const (
	AdjudicatorMaxTurns   = 4
	AdjudicatorMaxResumes = 0
)

// ScopeItem is one allow or deny item of the task's scope, by id.
type ScopeItem struct {
	ID   string
	Text string
}

// Scope is what a candidate may assert on (Allow) and may not (Deny).
type Scope struct {
	Allow []ScopeItem
	Deny  []ScopeItem
}

// Item returns the allow item called id, if any.
func (s Scope) Item(id string) (ScopeItem, bool) {
	for _, it := range s.Allow {
		if it.ID == id {
			return it, true
		}
	}
	return ScopeItem{}, false
}

// Adversary is one round's model position as the stage needs it. Direction
// is the id of the allow item it spends its round on ("" when
// Unrestricted); Focus is prose appended to its opening; BudgetSec is its
// wall-clock budget (0: [agent.DefaultBudgetSec]).
type Adversary struct {
	ID           string
	Direction    string
	Focus        string
	Unrestricted bool
	BudgetSec    float64
}

// Config is one run of stage 3.
//
// Task is the task id; Prompt the task's verification prompt template
// (placeholders as stage 1's, plus {{scope}}; the SCOPE block is appended
// when the template has no {{scope}}). Reruns is how many times a claimed
// break must hold (≥ 1; with RequireDeterministic false, once). NewSandbox
// returns the round's sandbox (a new container, or a new scratch folder);
// NewDriver the adversary's model; NewAdjudicator the adjudicator's, per
// adjudication (nil: no adjudicator, and a scope with items rejects every
// claim). AllowedCommands and RunTimeout configure the toolbox's run tool.
// LogDir receives round-<adversary>.jsonl and
// adjudication-<adversary>-<candidate>.jsonl (stale ones are removed
// first, but for those a kept round names). Kept are finished rounds of
// an earlier run on the same inputs, by adversary id, which are not
// played again; Checkpoint receives the stage so far after each round;
// Metadata is merged into every stage result Run makes (the inputs'
// digests, say). MaxResumes is the adversaries' loop setting. Budget is the
// stage's overall clock (the task's timeouts.verification; 0: none): when
// it runs out, the round then running is stopped and it and every round
// not yet started end as errors, while every round that finished is kept.
// Now, Sleep and Rand replace the clock in tests.
type Config struct {
	Task                 string
	Prompt               string
	Scope                Scope
	Adversaries          []Adversary
	Reruns               int
	RequireDeterministic bool
	AllowedCommands      []string
	RunTimeout           time.Duration

	NewSandbox     func(ctx context.Context, adversary string) (Sandbox, error)
	NewDriver      func(a Adversary) (models.Driver, error)
	NewAdjudicator func() (models.Driver, error)

	LogDir string
	// Progress, when set, gets one line as each round starts and one as
	// it ends, with its outcome (agent.Announce), as it happens.
	Progress   io.Writer
	Kept       map[string]Kept
	Checkpoint func(*result.Stage) error
	Metadata   map[string]any
	MaxResumes *int
	Budget     time.Duration
	Now        func() time.Time
	Sleep      func(context.Context, time.Duration) error
	Rand       func() float64
}

// Adjudication is the decision on one claimed candidate. Reproduced is how
// many of the adjudicator's reruns of the submission failed while every
// State A rerun so far passed, of RerunsRequired ([reproduce]); InScope
// and ScopeReason are the adjudicator's ruling (nil when it did not rule);
// Error is why it could not.
type Adjudication struct {
	Decision       string
	Reason         string
	Reproduced     int
	RerunsRequired int
	InScope        *bool
	ScopeReason    string
	Error          string
	Transcript     string
	Usage          *models.Usage
	// ElapsedSec is the wall-clock seconds of the adjudicator's
	// conversation (0 when it was not called).
	ElapsedSec float64
}

// Map returns the adjudication as verification.json records it.
func (a *Adjudication) Map() map[string]any {
	m := map[string]any{
		"decision":        a.Decision,
		"reason":          runeCut(a.Reason, 2000),
		"reproduced":      a.Reproduced,
		"reruns_required": a.RerunsRequired,
	}
	if a.InScope != nil {
		m["in_scope"] = *a.InScope
		m["scope_reason"] = runeCut(a.ScopeReason, 2000)
	}
	if a.Error != "" {
		m["error"] = a.Error
	}
	if a.Transcript != "" {
		m["transcript"] = a.Transcript
	}
	if a.Usage != nil {
		m["usage"] = a.Usage.Map()
		m["elapsed_sec"] = round(a.ElapsedSec, 1)
	}
	return m
}

// Round is one adversary's round (HARNESS.md §3.6 "Round dict").
type Round struct {
	Adversary    Adversary
	Model        string
	Outcome      string
	Reason       string
	Loop         *agent.Result
	FilesRead    int
	Candidates   []*Candidate
	Claimed      string
	Claim        string
	Adjudication *Adjudication
	Error        string
	ElapsedSec   float64
	// UpkeepSec is the grader's own time in the round's candidate runs
	// (the sum of their [CandidateRun.UpkeepSec]), which the round's
	// budget does not count.
	UpkeepSec float64
	// SubmissionUpkeepSec is the part of UpkeepSec spent on the
	// submission's side; once it reaches the round's budget the side's
	// runs fail ([metered]).
	SubmissionUpkeepSec float64
	// SubmissionExcessSec is the sum of the submission's runs' time past
	// State A's latest run of the same candidate ([CandidateRun.ExcessSec]);
	// as much of it as the allowance leaves beside SubmissionUpkeepSec is
	// not the adversary's budget ([Round.excessCredit]).
	SubmissionExcessSec float64
}

// excessCredit is how much of the submission's excess time the round's
// budget does not count, for an allowance of allowance seconds: what the
// allowance leaves beside the side's upkeep, at most the excess. The
// side's upkeep and this credit together never pass the allowance, so a
// round lasts at most about twice its budget plus State A's upkeep; as the
// upkeep grows the credit shrinks and the adversary's clock pays again.
func (r *Round) excessCredit(allowance float64) float64 {
	return max(0, min(r.SubmissionExcessSec, allowance-r.SubmissionUpkeepSec))
}

// CandidateRuns counts the runs of every candidate of the round.
func (r *Round) CandidateRuns() int {
	n := 0
	for _, c := range r.Candidates {
		n += len(c.Runs)
	}
	return n
}

func (r *Round) candidate(name string) *Candidate {
	for _, c := range r.Candidates {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// activity is "read R file(s), C tool call(s), wrote K candidate(s)",
// zeros included (HARNESS.md §7 bug 98).
func (r *Round) activity() string {
	calls := 0
	if r.Loop != nil {
		calls = r.Loop.ToolCalls
	}
	return fmt.Sprintf("read %d file(s), %d tool call(s), wrote %d candidate(s)", r.FilesRead, calls, len(r.Candidates))
}

// Map returns the round as metadata.rounds[] records it: adversary,
// direction, model, outcome, reason ≤ 2000, candidates_written,
// tool_calls, tool_errors, resumes, elapsed_sec, usage, transcript,
// loop_outcome, error, candidate_names, candidates (every candidate with
// every run), upkeep_sec, submission_upkeep_sec and
// submission_excess_sec (1 dp) when measured,
// and for a claim: claimed,
// adjudication and candidate (the claimed one in full, with its code).
func (r *Round) Map() map[string]any {
	m := map[string]any{
		"adversary":          r.Adversary.ID,
		"direction":          r.Adversary.Direction,
		"model":              r.Model,
		"outcome":            r.Outcome,
		"reason":             runeCut(r.Reason, 2000),
		"candidates_written": len(r.Candidates),
		"tool_calls":         0,
		"tool_errors":        0,
		"resumes":            0,
		"elapsed_sec":        round(r.ElapsedSec, 1),
		"usage":              map[string]any{},
		"files_read":         r.FilesRead,
		"candidate_runs":     r.CandidateRuns(),
	}
	if r.UpkeepSec > 0 {
		m["upkeep_sec"] = round(r.UpkeepSec, 1)
	}
	if r.SubmissionUpkeepSec > 0 {
		m["submission_upkeep_sec"] = round(r.SubmissionUpkeepSec, 1)
	}
	if r.SubmissionExcessSec > 0 {
		m["submission_excess_sec"] = round(r.SubmissionExcessSec, 1)
	}
	if r.Loop != nil {
		m["tool_calls"], m["tool_errors"], m["resumes"] = r.Loop.ToolCalls, r.Loop.ToolErrors, r.Loop.Resumes
		m["usage"] = r.Loop.Usage.Map()
		m["transcript"] = r.Loop.Transcript
		m["loop_outcome"] = r.Loop.Outcome
	}
	if r.Error != "" {
		m["error"] = r.Error
	}
	names := make([]any, len(r.Candidates))
	all := make([]any, len(r.Candidates))
	for i, c := range r.Candidates {
		names[i] = c.Name
		all[i] = c.Map(false)
	}
	m["candidate_names"] = names
	m["candidates"] = all
	if r.Claimed != "" {
		m["claimed"] = r.Claimed
		if c := r.candidate(r.Claimed); c != nil {
			m["candidate"] = c.Map(true)
		}
	}
	if r.Adjudication != nil {
		m["adjudication"] = r.Adjudication.Map()
	}
	return m
}

// Kept is a round carried over from an earlier run of the stage on the
// same inputs (see [Config.Kept]): its record as metadata.rounds[] holds
// it, and its check and unit as the earlier verification.json holds them.
// Only a finished round (survived or broken) may be kept.
type Kept struct {
	Record map[string]any
	Check  result.Check
	Unit   result.Unit
}

// entry is one round of the stage result, played now or kept.
type entry struct {
	id      string
	outcome string
	reason  string
	runs    int
	record  map[string]any
	check   result.Check
	unit    result.Unit
}

// entryOf is a round just played as the stage result records it.
func entryOf(r *Round) entry {
	d := round(r.ElapsedSec, 3)
	unit := result.Unit{ID: r.Adversary.ID, Weight: 1, Status: result.UnitOK, DurationSec: &d}
	c := result.Check{ID: r.Adversary.ID, Unit: r.Adversary.ID, Weight: 1, Metadata: map[string]any{"kind": "round"}}
	if r.Adversary.Direction != "" {
		c.Metadata["direction"] = r.Adversary.Direction
	}
	switch r.Outcome {
	case OutcomeSurvived:
		c.Verdict, c.Summary = result.VerdictPass, runeCut(r.Reason, 1000)
	case OutcomeBroken:
		c.Verdict, c.Summary = result.VerdictFail, runeCut(r.Claim, 1000)
		if c.Summary == "" {
			c.Summary = r.Claimed
		}
		c.Detail = r.Reason
		if cand := r.candidate(r.Claimed); cand != nil {
			c.Evidence = breakEvidence(cand)
		}
	default:
		c.Verdict, c.Summary = result.VerdictError, runeCut(r.Reason, 1000)
		unit.Status = result.UnitError
		unit.Summary = runeCut(r.Reason, 1000)
	}
	return entry{id: r.Adversary.ID, outcome: r.Outcome, reason: r.Reason, runs: r.CandidateRuns(), record: r.Map(), check: c, unit: unit}
}

// keptEntry is a kept round as the stage result records it, marked
// metadata.rounds[].kept: true.
func keptEntry(id string, k Kept) entry {
	rec := maps.Clone(k.Record)
	rec["kept"] = true
	outcome, _ := rec["outcome"].(string)
	reason, _ := rec["reason"].(string)
	runs := 0
	if n, ok := rec["candidate_runs"].(float64); ok {
		runs = int(n)
	} else if n, ok := rec["candidate_runs"].(int); ok {
		runs = n
	}
	return entry{id: id, outcome: outcome, reason: reason, runs: runs, record: rec, check: k.Check, unit: k.Unit}
}

// Run plays every adversary's round, one after another, and returns the
// stage result (HARNESS.md §4.3 "Stage"): one unit and one check per
// round (id and unit the adversary id, kind "round", weight 1; survived is
// pass, broken fail, error error). When every round errored the stage
// status is error ("no verification round completed"); when some did, a
// note names them. Rounds in cfg.Kept are not played again: their earlier
// record stands (metadata.rounds[].kept, metadata.kept). After each round
// cfg.Checkpoint, when set, receives the stage so far (status error,
// metadata.partial: true, the rounds not yet finished missing), so a
// stage that is killed leaves its finished rounds behind. The error
// return is for a configuration that cannot run at all; everything a
// round does is recorded in the result.
func Run(ctx context.Context, cfg Config) (*result.Stage, error) {
	switch {
	case len(cfg.Adversaries) == 0:
		return nil, errors.New("verification: no adversaries")
	case cfg.NewSandbox == nil:
		return nil, errors.New("verification: no sandbox factory")
	case cfg.NewDriver == nil:
		return nil, errors.New("verification: no driver factory")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.Reruns < 1 {
		cfg.Reruns = 1
	}
	start := now()
	var notes []string
	if cfg.LogDir != "" {
		if err := removeStale(cfg.LogDir, cfg.Kept); err != nil {
			notes = append(notes, fmt.Sprintf("stale transcripts could not all be removed: %v", err))
		}
	}
	stageCtx := ctx
	if cfg.Budget > 0 {
		var cancel context.CancelFunc
		stageCtx, cancel = context.WithTimeout(ctx, cfg.Budget)
		defer cancel()
	}
	// stopped says why the stage cannot go on ("" while it can): its
	// budget ran out, or its caller stopped it.
	stopped := func() string {
		switch {
		case ctx.Err() != nil:
			return "the stage was stopped (" + ctx.Err().Error() + ")"
		case stageCtx.Err() != nil:
			return fmt.Sprintf("the stage's budget (timeouts.verification, %g s) ran out", cfg.Budget.Seconds())
		}
		return ""
	}
	var entries []entry
	cut := false // a round was cut short or never started
	for _, a := range cfg.Adversaries {
		if k, ok := cfg.Kept[a.ID]; ok {
			entries = append(entries, keptEntry(a.ID, k))
			continue
		}
		if why := stopped(); why != "" {
			r := &Round{Adversary: a, Outcome: OutcomeError, Reason: why + " before the round started"}
			r.Error = r.Reason
			entries = append(entries, entryOf(r))
			cut = true
			continue
		}
		t0 := now()
		end := agent.Announce(cfg.Progress, "verification: round "+a.ID, now)
		r := playRound(stageCtx, cfg, a, now)
		r.ElapsedSec = now().Sub(t0).Seconds()
		end(r.Outcome + ": " + r.Reason)
		if why := stopped(); why != "" {
			// Whatever the round concluded, it was cut short: an
			// unfinished round is an error (re-run), never a survival or
			// a break; what it did is kept on record.
			r.Outcome = OutcomeError
			r.Reason = fmt.Sprintf("%s during the round, so it did not finish (%s)", why, r.activity())
			r.Error = r.Reason
			cut = true
		}
		entries = append(entries, entryOf(r))
		if cfg.Checkpoint != nil && len(entries) < len(cfg.Adversaries) {
			partial := assemble(cfg, entries, notes, start, now)
			partial.Status = result.StatusError
			partial.Metadata["partial"] = true
			partial.Metadata["error"] = fmt.Sprintf("the stage has finished %d of its %d rounds (still running, or stopped before the rest)", len(entries), len(cfg.Adversaries))
			partial.Note(partial.Metadata["error"].(string) + "; re-running srb verification on this results folder plays only the rounds that did not finish")
			if err := cfg.Checkpoint(partial); err != nil {
				notes = append(notes, fmt.Sprintf("the stage so far could not be saved after round %s: %v", a.ID, err))
			}
		}
	}
	st := assemble(cfg, entries, notes, start, now)
	if cfg.Budget > 0 {
		st.Metadata["budget_sec"] = cfg.Budget.Seconds()
		if cut && ctx.Err() == nil {
			st.Metadata["budget_exhausted"] = true
			st.Note(fmt.Sprintf("the stage's budget (timeouts.verification, %g s) ran out; the rounds it cut short or never started are errors", cfg.Budget.Seconds()))
		}
	}
	return st, nil
}

// assemble builds the stage result from the rounds so far.
func assemble(cfg Config, entries []entry, notes []string, start time.Time, now func() time.Time) *result.Stage {
	st := result.NewStage(result.StageVerification, cfg.Task, start)
	for _, n := range notes {
		st.Note(n)
	}
	maps.Copy(st.Metadata, cfg.Metadata)
	var survived, broken, errored []string
	runs, kept := 0, 0
	records := make([]any, len(entries))
	for i, e := range entries {
		records[i] = e.record
		runs += e.runs
		if e.record["kept"] == true {
			kept++
		}
		switch e.outcome {
		case OutcomeSurvived:
			survived = append(survived, e.id)
		case OutcomeBroken:
			broken = append(broken, e.id)
		default:
			errored = append(errored, e.id)
		}
		st.Units = append(st.Units, e.unit)
		st.Add(e.check)
	}
	switch {
	case len(errored) == len(entries):
		st.Status = result.StatusError
		st.Note("no verification round completed")
		st.Metadata["error"] = "no verification round completed: " + firstReason(entries)
	case len(errored) > 0:
		st.Note(fmt.Sprintf("%d of %d rounds did not complete (%s); they pay nothing and are not counted as survivals",
			len(errored), len(entries), strings.Join(errored, ", ")))
	}
	allow := make([]any, len(cfg.Scope.Allow))
	for i, it := range cfg.Scope.Allow {
		allow[i] = it.Text
	}
	deny := make([]any, len(cfg.Scope.Deny))
	for i, it := range cfg.Scope.Deny {
		deny[i] = it.Text
	}
	st.Metadata["rounds"] = records
	st.Metadata["adversaries"] = len(entries)
	st.Metadata["survived"] = len(survived)
	st.Metadata["broken"] = len(broken)
	st.Metadata["errored"] = len(errored)
	st.Metadata["candidate_runs"] = runs
	if kept > 0 {
		st.Metadata["kept"] = kept
		st.Note(fmt.Sprintf("%d round(s) kept from an earlier run on the same inputs", kept))
	}
	st.Metadata["scope"] = map[string]any{"allow": allow, "deny": deny, "reruns": cfg.Reruns}
	st.DurationSec = now().Sub(start).Seconds()
	return st
}

// removeStale removes the transcripts of an earlier run from dir
// (round-*.jsonl, adjudication-*.jsonl), except those a kept round names.
func removeStale(dir string, kept map[string]Kept) error {
	keep := map[string]bool{}
	for _, k := range kept {
		if p, ok := k.Record["transcript"].(string); ok {
			keep[filepath.Clean(p)] = true
		}
		if adj, ok := k.Record["adjudication"].(map[string]any); ok {
			if p, ok := adj["transcript"].(string); ok {
				keep[filepath.Clean(p)] = true
			}
		}
	}
	var errs []error
	for _, pat := range []string{"round-*.jsonl", "adjudication-*.jsonl"} {
		matches, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if keep[filepath.Clean(m)] {
				continue
			}
			if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func firstReason(entries []entry) string {
	for _, e := range entries {
		if e.reason != "" {
			return e.id + ": " + e.reason
		}
	}
	return "no round said why"
}

// breakEvidence is what the scorer shows of a break: the candidate, its
// contract, and the submission's failing output.
func breakEvidence(c *Candidate) []map[string]any {
	ev := map[string]any{"candidate": c.Name, "filename": c.Filename}
	if c.Contract != "" {
		ev["contract"] = runeCut(c.Contract, 400)
	}
	if _, sub := c.latest(); sub != nil {
		ev["submission_exit"] = sub.ExitCode
		ev["submission_output"] = lastRunes(strings.TrimSpace(sub.Stdout+"\n"+sub.Stderr), 400)
	}
	return []map[string]any{ev}
}

// playRound runs one adversary's round (HARNESS.md §4.3 "Round outcome").
func playRound(ctx context.Context, cfg Config, a Adversary, now func() time.Time) *Round {
	r := &Round{Adversary: a}
	fail := func(reason string) *Round {
		r.Outcome, r.Reason = OutcomeError, reason
		if r.Error == "" {
			r.Error = reason
		}
		return r
	}
	drv, err := cfg.NewDriver(a)
	if err != nil {
		return fail("the round could not start: " + err.Error())
	}
	r.Model = drv.Model()
	inner, err := cfg.NewSandbox(ctx, a.ID)
	if err != nil {
		return fail("the round could not be given a clean tree: " + err.Error())
	}
	defer inner.Close()
	budget := a.BudgetSec
	if budget <= 0 {
		budget = agent.DefaultBudgetSec
	}
	sb := &metered{Sandbox: inner, r: r, allowance: budget, stateA: map[*Candidate]float64{}}
	if err := sb.Reset(ctx); err != nil {
		return fail("the round could not be given a clean tree: " + err.Error())
	}
	runner, getenv := sb.RunTool()
	tb, err := agent.NewToolbox(sb.Roots(),
		agent.ToolboxOptions{AllowedCommands: cfg.AllowedCommands, RunTimeout: cfg.RunTimeout, Runner: runner, Getenv: getenv})
	if err != nil {
		return fail("the round could not open its trees: " + err.Error())
	}
	defer tb.Close()

	transcript := ""
	if cfg.LogDir != "" {
		transcript = filepath.Join(cfg.LogDir, "round-"+fileSafe(a.ID)+".jsonl")
	}
	loop := agent.Run(ctx, agent.Config{
		Driver:  drv,
		System:  AdversarySystem,
		Opening: Opening(cfg, a, tb),
		Toolbox: tb,
		Extra:   []models.ToolSpec{TryTestSpec()},
		ExtraDispatch: func(ctx context.Context, name string, args map[string]any) string {
			return tryTest(ctx, sb, r, args)
		},
		Submit:    ReportSpec(),
		OnSubmit:  func(p map[string]any) string { return checkReport(r, p) },
		BudgetSec: a.BudgetSec,
		// The grader's steps around each run (a restore of a tree the
		// submission made large, say) are not the adversary's time.
		Uncounted: func() time.Duration {
			return time.Duration((r.UpkeepSec + r.excessCredit(budget)) * float64(time.Second))
		},
		MaxResumes: cfg.MaxResumes,
		Transcript: transcript,
		Now:        now,
		Sleep:      cfg.Sleep,
		Rand:       cfg.Rand,
	})
	r.Loop = loop
	r.FilesRead = len(tb.Reads())

	if loop.HarnessFault() {
		return fail("the adversary's conversation failed: " + loop.Error)
	}
	if why := harnessFault(r); why != "" {
		return fail(why)
	}
	if why := notAttacked(r); why != "" {
		return fail(why)
	}
	if !loop.OK() {
		r.Outcome = OutcomeSurvived
		r.Reason = fmt.Sprintf("survived: the round ended without a report (%s); %s", loop.Outcome, r.activity())
		return r
	}
	found, _ := loop.Payload["found"].(bool)
	if !found {
		notes, _ := loop.Payload["notes"].(string)
		r.Outcome = OutcomeSurvived
		r.Reason = "survived: " + r.activity()
		if notes = strings.TrimSpace(notes); notes != "" {
			r.Reason = fmt.Sprintf("survived: %s (%s)", runeCut(notes, 1500), r.activity())
		}
		return r
	}
	r.Claimed, _ = loop.Payload["candidate"].(string)
	r.Claim, _ = loop.Payload["claim"].(string)
	cand := r.candidate(r.Claimed)
	if c, _ := loop.Payload["contract"].(string); c != "" {
		cand.Contract = c
	}
	adj := adjudicate(ctx, cfg, sb, a, cand, r.Claim, now)
	r.Adjudication = adj
	switch adj.Decision {
	case DecisionUpheld:
		r.Outcome, r.Reason = OutcomeBroken, adj.Reason
	case DecisionUndecided:
		return fail(fmt.Sprintf("claimed %s, but the adjudication could not be completed: %s", r.Claimed, adj.Reason))
	default:
		r.Outcome = OutcomeSurvived
		r.Reason = fmt.Sprintf("survived: claimed %s, not upheld -- %s (%s)", r.Claimed, adj.Reason, r.activity())
	}
	return r
}

// metered is a round's [Sandbox] as the round uses it: every run's upkeep
// ([CandidateRun.UpkeepSec]) is added to the round's (which the
// adversary's budget does not count), and what the submission's side
// costs in upkeep is bounded. The grader's steps around the submission's
// runs (its warm-up and snapshot, each restore, each clearing) grow with
// what its build and its runs leave, each within a bound of its own, and
// they still run on the stage's clock (timeouts.verification), which is
// an invalid verdict when it runs out: a submission whose every restore
// takes most of its bound would make a round last as long as the
// adversary kept trying. Once the submission's side has cost the round
// allowance seconds (the round's budget), its later runs in the round, the
// adjudicator's reruns included, fail with the reason, exit -1, never a
// timeout or a harness error (as a restore past its bound does), so a
// round lasts at most about twice its budget.
//
// The submission's runs' own time past State A's is the round's too,
// within the same allowance: a submission's run of a candidate that takes
// longer than State A's latest run of the same candidate adds the
// difference ([CandidateRun.ExcessSec]) to the round's excess, which the
// adversary's budget does not count as far as the allowance left beside
// the side's upkeep goes ([Round.excessCredit]); past it the adversary's
// budget pays again. A program that sleeps whenever it sees
// stage 3 (its environment, the candidate user, the image's layout) spent
// the adversary's budget on a handful of candidates (290 s a call within a
// 300 s candidate timeout: twelve candidates of a 3,600 s round); now the
// adversary has about twice as many. The excess never fails the
// submission's runs: the candidate decides how long a run takes (a
// candidate that tells the trees apart by anything and sleeps on the
// submission's would spend the allowance and fail a correct port), so it
// only buys the adversary time, and the round still lasts at most about
// twice its budget plus the upkeep.
type metered struct {
	Sandbox
	r         *Round
	allowance float64
	// stateA is the duration of each candidate's latest State A run.
	stateA map[*Candidate]float64
}

// Execute implements [Sandbox].
func (m *metered) Execute(ctx context.Context, c *Candidate, role string) CandidateRun {
	if role == RoleSubmission && m.r.SubmissionUpkeepSec >= m.allowance {
		return CandidateRun{Target: role, ExitCode: -1, Stderr: fmt.Sprintf("the submission's tree cannot be tested: "+
			"putting its side back before its runs and clearing it after them has taken %.0f s of the grader's time in this round, "+
			"past the %.0f s (the round's budget) the submission's side may cost a round, so the run did not start",
			m.r.SubmissionUpkeepSec, m.allowance)}
	}
	run := m.Sandbox.Execute(ctx, c, role)
	m.r.UpkeepSec += run.UpkeepSec
	switch role {
	case RoleOriginal:
		m.stateA[c] = run.DurationSec
	case RoleSubmission:
		m.r.SubmissionUpkeepSec += run.UpkeepSec
		if a, ok := m.stateA[c]; ok && run.DurationSec > a {
			run.ExcessSec = run.DurationSec - a
			m.r.SubmissionExcessSec += run.ExcessSec
		}
	}
	return run
}

// notAttacked says why a round established nothing (HARNESS.md §4.3
// _not_attacked): most of its tool calls were refused, or no candidate run
// ever started. Zero tool calls alone is not such a round.
func notAttacked(r *Round) string {
	l := r.Loop
	if l.ToolCalls > 0 && float64(l.ToolErrors)/float64(l.ToolCalls) > 0.5 {
		return fmt.Sprintf("the toolbox was refusing it: %d of %d tool call(s) failed, so the round did not attack the submission", l.ToolErrors, l.ToolCalls)
	}
	total, never := 0, 0
	for _, c := range r.Candidates {
		for _, run := range c.Runs {
			total++
			if run.neverStarted() {
				never++
			}
		}
	}
	if total > 0 && never == total {
		return fmt.Sprintf("no candidate run ever started (%d run(s)): the candidate command could not be launched", total)
	}
	// A round whose candidates never tested both trees (every pair had a
	// fault code on State A's side, a timeout or a run srb could not carry out on one side
	// or the other) established nothing: a survival there would pay a
	// submission that cannot be tested.
	pairs, decided, faults, timeouts := 0, 0, 0, 0
	for _, c := range r.Candidates {
		for i := 0; i+1 < len(c.Runs); i += 2 {
			o, s := c.Runs[i], c.Runs[i+1]
			pairs++
			switch pairVerdict(&o, &s) {
			case CandidateInvalid:
				faults++
			case CandidateUndecided:
				timeouts++
			default:
				decided++
			}
		}
	}
	if pairs > 0 && decided == 0 {
		return fmt.Sprintf("no candidate tested both trees: of %d pair(s) of runs, %d had a fault code and %d a run that timed out or could not be carried out, so the round established nothing", pairs, faults, timeouts)
	}
	return ""
}

// harnessFault says why a round cannot count because srb itself could not
// carry out one of its candidate runs (the engine failed, say), or "".
func harnessFault(r *Round) string {
	for _, c := range r.Candidates {
		for _, run := range c.Runs {
			if run.Harness != "" {
				return fmt.Sprintf("srb could not carry out a run of candidate %s on the %s: %s", c.Name, run.Target, run.Harness)
			}
		}
	}
	return ""
}

var reFileSafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileSafe(s string) string {
	s = reFileSafe.ReplaceAllString(s, "_")
	if s == "" || s[0] == '.' {
		s = "_" + s
	}
	return s
}

func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// --- tools ----------------------------------------------------------------

// TryTestSpec is the try_test tool: write a candidate and run it on both
// trees.
func TryTestSpec() models.ToolSpec {
	return models.ToolSpec{
		Name: ToolTryTest,
		Description: "Write a candidate test and run it against both trees: first the original (State A), then the submission. " +
			"Reports PASS or FAIL per tree with exit status and time, and the end of the output. A candidate with the name of an earlier one replaces it. " +
			"This is the only way to execute a candidate.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":      map[string]any{"type": "string", "description": "a short name for the candidate (default candidate-N)"},
				"filename":  map[string]any{"type": "string", "description": "a bare file name for the code (default: the name)"},
				"code":      map[string]any{"type": "string", "description": "the candidate's complete source"},
				"rationale": map[string]any{"type": "string", "description": "what behaviour it checks and why the two trees should agree on it"},
			},
			"required": []any{"code"},
		},
	}
}

// ReportSpec is the report tool that ends a round.
func ReportSpec() models.ToolSpec {
	return models.ToolSpec{
		Name:        ToolReport,
		Description: "End the round. found=true names the candidate (by its try_test name) that passes on the original and fails on the submission; found=false says you found none. Call it once, at the end.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"found":     map[string]any{"type": "boolean", "description": "whether a candidate discriminates"},
				"candidate": map[string]any{"type": "string", "description": "the name of the discriminating candidate"},
				"claim":     map[string]any{"type": "string", "description": "one sentence: the behaviour the submission gets wrong"},
				"contract":  map[string]any{"type": "string", "description": "the promise, in the task's words, that the behaviour breaks"},
				"notes":     map[string]any{"type": "string", "description": "what you tried, when you found nothing"},
			},
			"required": []any{"found"},
		},
	}
}

var tryTestArgs = []string{"name", "filename", "code", "rationale"}

// tryTest handles one try_test call: it records the candidate and runs it
// on the original, then on the submission.
func tryTest(ctx context.Context, sb Sandbox, r *Round, args map[string]any) string {
	for k := range args {
		if !contains(tryTestArgs, k) {
			return fmt.Sprintf("ERROR: try_test takes no argument %q (valid: %s); nothing ran.", k, strings.Join(tryTestArgs, ", "))
		}
	}
	str := func(k string) (string, bool) {
		v, ok := args[k]
		if !ok || v == nil {
			return "", true
		}
		s, ok := v.(string)
		return s, ok
	}
	code, ok := str("code")
	if !ok {
		return "ERROR: code must be a string; nothing ran."
	}
	if strings.TrimSpace(code) == "" {
		return "ERROR: code was empty."
	}
	name, ok := str("name")
	if !ok {
		return "ERROR: name must be a string; nothing ran."
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = fmt.Sprintf("candidate-%d", len(r.Candidates)+1)
	}
	filename, ok := str("filename")
	if !ok {
		return "ERROR: filename must be a string; nothing ran."
	}
	filename = strings.TrimSpace(filename)
	if filename == "" {
		filename = fileSafe(name)
	}
	if strings.ContainsAny(filename, `/\`) || strings.HasPrefix(filename, ".") {
		return fmt.Sprintf("ERROR: filename %q must be a bare file name (no folder, not starting with a dot); nothing ran.", filename)
	}
	rationale, _ := str("rationale")
	c := r.candidate(name)
	if c == nil {
		c = &Candidate{Name: name}
		r.Candidates = append(r.Candidates, c)
	}
	// The same name replaces the code; the runs so far stay on record.
	c.Filename, c.Code, c.Rationale = filename, code, rationale
	orig := sb.Execute(ctx, c, RoleOriginal)
	c.Runs = append(c.Runs, orig)
	sub := sb.Execute(ctx, c, RoleSubmission)
	c.Runs = append(c.Runs, sub)
	return pairReport(c, orig, sub)
}

// checkReport is the report tool's check (HARNESS.md §4.3 on_report): a
// claim must name a candidate of this round whose latest runs
// discriminate. It returns a sentence for the model, or "" to accept.
func checkReport(r *Round, p map[string]any) string {
	found, ok := p["found"].(bool)
	if !ok {
		return "found must be true or false; nothing was recorded."
	}
	if !found {
		return ""
	}
	name, _ := p["candidate"].(string)
	c := r.candidate(strings.TrimSpace(name))
	if c == nil {
		var names []string
		for _, x := range r.Candidates {
			names = append(names, x.Name)
		}
		if len(names) == 0 {
			return "You have not written any candidate with try_test, so there is nothing to report as found; nothing was recorded."
		}
		return fmt.Sprintf("There is no candidate %q in this round (yours: %s); nothing was recorded.", name, strings.Join(names, ", "))
	}
	p["candidate"] = c.Name
	switch v := c.Verdict(); v {
	case CandidateDiscriminates:
		return ""
	case CandidateInvalid:
		return fmt.Sprintf("Candidate %s does not currently discriminate: in its latest runs a tree could not be tested (an infrastructure fault), which counts neither way. Nothing was recorded; report found=false if you have nothing else.", c.Name)
	case CandidateUndecided:
		return fmt.Sprintf("Candidate %s does not currently discriminate: in its latest runs a tree's run timed out or could not be carried out, which counts neither way (bound a hang yourself, with timeout, so that the candidate fails on its own). Nothing was recorded.", c.Name)
	default:
		return fmt.Sprintf("Candidate %s does not currently discriminate (its latest runs: %s); only a candidate that passes on the original and fails on the submission can be reported. Nothing was recorded.", c.Name, v)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --- adjudication -------------------------------------------------------

// adjudicate decides one claim (HARNESS.md §4.3 "Adjudicator"), mechanical
// checks first, then the scope ruling.
func adjudicate(ctx context.Context, cfg Config, sb Sandbox, a Adversary, c *Candidate, claim string, now func() time.Time) *Adjudication {
	need := 1
	if cfg.RequireDeterministic {
		need = cfg.Reruns
	}
	adj := &Adjudication{RerunsRequired: need}
	orig, sub := c.latest()
	if orig == nil || sub == nil {
		o, s := sb.Execute(ctx, c, RoleOriginal), sb.Execute(ctx, c, RoleSubmission)
		c.Runs = append(c.Runs, o, s)
		orig, sub = &c.Runs[len(c.Runs)-2], &c.Runs[len(c.Runs)-1]
	}
	if why := invalidPair(*orig, *sub); why != "" {
		adj.Decision, adj.Reason = DecisionInvalid, why
		if pairVerdict(orig, sub) == CandidateUndecided {
			adj.Decision = DecisionUndecided
		}
		return adj
	}
	if adj.Decision, adj.Reason = reproduce(ctx, cfg, sb, c, adj); adj.Decision != "" {
		return adj
	}
	mechanical := fmt.Sprintf("passes on the original and fails on the submission, reproduced %d/%d", adj.Reproduced, need)
	if len(cfg.Scope.Allow) == 0 && len(cfg.Scope.Deny) == 0 {
		adj.Decision, adj.Reason = DecisionUpheld, mechanical+", no scope rules declared"
		return adj
	}
	if cfg.NewAdjudicator == nil {
		adj.Decision, adj.Reason = DecisionRejected, mechanical+", but no adjudicator is configured to rule on the scope"
		return adj
	}
	drv, err := cfg.NewAdjudicator()
	if err != nil {
		adj.Decision, adj.Reason, adj.Error = DecisionUndecided, "the adjudicator could not be reached: "+err.Error(), err.Error()
		return adj
	}
	if cfg.LogDir != "" {
		adj.Transcript = filepath.Join(cfg.LogDir, "adjudication-"+fileSafe(a.ID)+"-"+fileSafe(c.Name)+".jsonl")
	}
	t0 := now()
	loop := agent.Run(ctx, agent.Config{
		Driver:     drv,
		System:     AdjudicatorSystem,
		Opening:    AdjudicatorPrompt(cfg.Task, cfg.Scope, c, claim),
		Submit:     RuleSpec(),
		OnSubmit:   checkRuling,
		MaxTurns:   AdjudicatorMaxTurns,
		MaxResumes: agent.Resumes(AdjudicatorMaxResumes),
		Transcript: adj.Transcript,
		Now:        now,
		Sleep:      cfg.Sleep,
		Rand:       cfg.Rand,
	})
	adj.ElapsedSec = now().Sub(t0).Seconds()
	u := loop.Usage
	adj.Usage = &u
	switch {
	case loop.HarnessFault():
		adj.Decision, adj.Error = DecisionUndecided, loop.Error
		adj.Reason = "the adjudicator could not be reached: " + loop.Error
	case !loop.OK():
		adj.Decision, adj.Reason = DecisionRejected, fmt.Sprintf("%s, but the adjudicator did not return a ruling (%s)", mechanical, loop.Outcome)
	default:
		in, _ := loop.Payload["in_scope"].(bool)
		reason, _ := loop.Payload["reason"].(string)
		adj.InScope, adj.ScopeReason = &in, reason
		if in {
			adj.Decision, adj.Reason = DecisionUpheld, mechanical+", within scope"
		} else {
			adj.Decision, adj.Reason = DecisionRejected, "out of scope: "+strings.TrimSpace(reason)
		}
	}
	return adj
}

// reproduce runs a claimed candidate again (HARNESS.md §4.3 reruns; need
// is adj.RerunsRequired: the task's reruns with require_deterministic, else
// 1): need runs of the submission and 2·need of State A, in an order drawn
// at random when the adjudication starts and known to nothing the graded
// side controls (crypto/rand; cfg.Rand in tests). The claimed pair of the
// round does not count: the adversary chose when to report it, and its
// try_test pair always runs State A first. A candidate that tells its runs
// apart by their place (a count it keeps in the machine's page cache, say:
// count-role) rather than by the tree's behaviour must guess the whole
// order to fail on every submission run and on no State A run: one chance
// in C(3·need, need), 84 for the default 3 and 3 for 1, where a fixed
// alternation let it win every time. The extra State A runs are what make
// the guess hard; they cost State A's time only.
//
// The break holds when every State A run passed and no submission run
// passed. On the submission's side a fault code (as
// [CandidateRun.untestableAgainst]) and a timeout count as its failure: the
// claimed pair already showed a failure that was no timeout, and a program
// that hangs once it is found (it can tell a rerun by "some run came
// before") must not turn its break into an undecided adjudication, a round
// error and an invalid verdict. On State A's side a timeout is the
// candidate's failure to pass (a candidate bounds its own hangs), never
// undecided: a candidate that hangs in the reruns would otherwise deny a
// correct port its verdict. It returns "" and sets adj.Reproduced to need
// when it held, or the decision and its reason at the first run that ends
// it: a State A run that faulted (invalid), failed or timed out (rejected),
// a submission run that passed (rejected), or a run srb could not carry
// out (undecided). adj.Reproduced is then how many runs of the submission
// failed while every State A run so far passed. The runs are appended to
// c.Runs in the order they ran, each with its place ([CandidateRun.Seq]).
func reproduce(ctx context.Context, cfg Config, sb Sandbox, c *Candidate, adj *Adjudication) (decision, reason string) {
	need := adj.RerunsRequired
	adj.Reproduced = 0
	for seq, role := range shuffledRoles(need, 2*need, cfg.Rand) {
		run := sb.Execute(ctx, c, role)
		run.Seq = seq + 1
		c.Runs = append(c.Runs, run)
		switch {
		case run.Harness != "":
			return DecisionUndecided, fmt.Sprintf("the break held %d time(s) of %d and then %s", adj.Reproduced, need, undecidedWhy(run))
		case role == RoleOriginal && run.Fault:
			return DecisionInvalid, fmt.Sprintf("the break held %d time(s) of %d and then the original tree could not be tested (exit %d), which is a fault of the harness or the tree rather than a verdict about behaviour", adj.Reproduced, need, run.ExitCode)
		case role == RoleOriginal && run.TimedOut:
			return DecisionRejected, fmt.Sprintf("the outcome is not stable: it held %d time(s) of %d required, then timed out on the original (a candidate bounds its own waits)", adj.Reproduced, need)
		case role == RoleOriginal && !run.Passed:
			return DecisionRejected, fmt.Sprintf("the outcome is not stable: it held %d time(s) of %d required, then failed on the original (exit %d)", adj.Reproduced, need, run.ExitCode)
		case role == RoleSubmission && run.Passed:
			return DecisionRejected, fmt.Sprintf("the outcome is not stable: it held %d time(s) of %d required, then passed on the submission", adj.Reproduced, need)
		case role == RoleSubmission:
			adj.Reproduced++
		}
	}
	return "", ""
}

// shuffledRoles returns a uniformly random order of sub runs of the
// submission and orig of State A, drawn from r (values in [0, 1)) when not
// nil, else from a generator seeded from crypto/rand.
func shuffledRoles(sub, orig int, r func() float64) []string {
	roles := make([]string, 0, sub+orig)
	for range sub {
		roles = append(roles, RoleSubmission)
	}
	for range orig {
		roles = append(roles, RoleOriginal)
	}
	pick := func(k int) int { return max(0, min(k-1, int(r()*float64(k)))) }
	if r == nil {
		var seed [32]byte
		cryptorand.Read(seed[:]) // never fails (crypto/rand's contract since Go 1.24)
		pick = mrand.New(mrand.NewChaCha8(seed)).IntN
	}
	for i := len(roles) - 1; i > 0; i-- {
		j := pick(i + 1)
		roles[i], roles[j] = roles[j], roles[i]
	}
	return roles
}

// invalidPair says why a pair of runs is no break, or "".
func invalidPair(orig, sub CandidateRun) string {
	switch pairVerdict(&orig, &sub) {
	case CandidateInvalid:
		var sides []string
		for _, r := range []CandidateRun{orig, sub} {
			if r.Fault {
				sides = append(sides, fmt.Sprintf("the %s tree could not be tested: the candidate command exited %d", r.Target, r.ExitCode))
			}
		}
		return strings.Join(sides, "; ") + ", which is a fault of the harness or the tree rather than a verdict about behaviour"
	case CandidateUndecided:
		return undecidedWhy(orig, sub)
	case CandidateBrokenTest:
		return fmt.Sprintf("broken test: it does not pass on the original (exit %d)", orig.ExitCode)
	case CandidateNoDifference:
		return "it passes on the submission too"
	}
	return ""
}

// undecidedWhy says why a pair of runs decides nothing: a run timed out
// or could not be carried out.
func undecidedWhy(runs ...CandidateRun) string {
	var sides []string
	for _, r := range runs {
		switch {
		case r.Harness != "":
			sides = append(sides, fmt.Sprintf("the run on the %s could not be carried out (%s)", r.Target, r.Harness))
		case r.TimedOut:
			sides = append(sides, fmt.Sprintf("the run on the %s timed out", r.Target))
		}
	}
	return strings.Join(sides, " and ") + ": undecided, which is neither a break nor a survival"
}

// RuleSpec is the adjudicator's one tool.
func RuleSpec() models.ToolSpec {
	return models.ToolSpec{
		Name:        ToolRule,
		Description: "Rule on the candidate: in_scope=true when what it asserts is behaviour the task promises (an allow item) and touches no deny item.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"in_scope": map[string]any{"type": "boolean"},
				"reason":   map[string]any{"type": "string", "description": "one or two sentences naming the scope item(s) that decide it"},
			},
			"required": []any{"in_scope", "reason"},
		},
	}
}

func checkRuling(p map[string]any) string {
	if _, ok := p["in_scope"].(bool); !ok {
		return "in_scope must be true or false; nothing was recorded."
	}
	if s, _ := p["reason"].(string); strings.TrimSpace(s) == "" {
		return "reason must say which scope item decides it; nothing was recorded."
	}
	return ""
}

// --- prompts ------------------------------------------------------------

// AdversarySystem is the adversary's system prompt.
const AdversarySystem = `You are testing a migration. Two source trees are in front of you: the original (State A) and a submission that claims to behave identically on the surfaces the task promises. Your job is to find an executable test that passes on the original and fails on the submission.

Read both trees, think about edges the rewrite may have missed, and run ideas with try_test, which runs a candidate on both trees and tells you what happened. The program under test runs as another user but may read what your candidate writes where it can reach (your working folder is open to it, and it can create files in /tmp first): keep the expected output in the candidate itself (a shell test on the whole output, such as [ "$out" = "..." ]) or in a file made with mktemp under $TMPDIR, never in a plain file of the working folder, at a fixed name in /tmp, or in another command's arguments. Only a candidate that passes on the original, fails on the submission, and does so every time counts, and only when what it asserts lies within the SCOPE below; a test that checks which tree it runs against, or anything the scope rules out, is rejected on sight.

When you are done, call report exactly once: found=true with the candidate's name and a one-sentence claim, or found=false with notes on what you tried. Reporting nothing found is the right answer for a sound port.`

// AdjudicatorSystem is the adjudicator's system prompt.
const AdjudicatorSystem = `You rule on whether a test that distinguishes two builds of a program asserts on behaviour the task promises. The test has already been shown to pass on the original and fail on the submission, repeatedly; you do not re-check that. Decide only the scope: is what it asserts a promised behaviour (one of the IN SCOPE items), or an incidental property (timing, addresses, ordering, the identity of the tree under test, anything OUT OF SCOPE)? The task's statements take precedence over your own view of what matters. A test that inspects which tree, binary or build it runs against is out of scope whatever it finds. Call rule once.`

// ScopeBlock renders the scope for an opening: "IN SCOPE" and "OUT OF
// SCOPE" bullet lists, each item "- [id] text".
func ScopeBlock(s Scope) string {
	var b strings.Builder
	b.WriteString("SCOPE\nIN SCOPE (a candidate may assert on these):\n")
	if len(s.Allow) == 0 {
		b.WriteString("- (none declared)\n")
	}
	for _, it := range s.Allow {
		fmt.Fprintf(&b, "- [%s] %s\n", it.ID, it.Text)
	}
	b.WriteString("OUT OF SCOPE (a candidate that asserts on these is rejected):\n")
	if len(s.Deny) == 0 {
		b.WriteString("- (none declared)\n")
	}
	for _, it := range s.Deny {
		fmt.Fprintf(&b, "- [%s] %s\n", it.ID, it.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Opening renders adversary a's opening message: the task's prompt with
// its placeholders filled ({{scope}} too), the SCOPE block when the
// prompt has no {{scope}}, where to spend the round (its direction and
// focus), its budget, the reruns rule and how paths are written.
func Opening(cfg Config, a Adversary, tb *agent.Toolbox) string {
	scope := ScopeBlock(cfg.Scope)
	tmpl := strings.ReplaceAll(cfg.Prompt, "{{scope}}", "\x00scope\x00")
	text := audit.Render(tmpl, audit.Values{
		Task:      cfg.Task,
		Original:  tb.RootDir("original"),
		Workspace: tb.RootDir("workspace"),
		Roots:     tb.Roots(),
		Commands:  tb.AllowedCommands(),
	})
	parts := []string{strings.TrimSpace(text)}
	if strings.Contains(text, "\x00scope\x00") {
		parts[0] = strings.ReplaceAll(parts[0], "\x00scope\x00", scope)
	} else {
		parts = append(parts, scope)
	}
	var where []string
	if a.Direction != "" {
		if it, ok := cfg.Scope.Item(a.Direction); ok {
			where = append(where, fmt.Sprintf("Your direction is [%s]: %s.", it.ID, it.Text))
		} else {
			where = append(where, fmt.Sprintf("Your direction is [%s].", a.Direction))
		}
	} else if a.Unrestricted {
		where = append(where, "Your direction is open: anything IN SCOPE.")
	}
	if a.Focus != "" {
		where = append(where, "Start with: "+a.Focus+".")
	}
	if len(where) > 0 {
		parts = append(parts, "WHERE TO SPEND THIS ROUND\n"+strings.Join(where, " ")+" This is an assignment, not a restriction: a break anywhere in scope counts.")
	}
	budget := a.BudgetSec
	if budget <= 0 {
		budget = agent.DefaultBudgetSec
	}
	need := 1
	if cfg.RequireDeterministic {
		need = max(1, cfg.Reruns)
	}
	parts = append(parts,
		fmt.Sprintf("You have %s of wall-clock time for this round.", humanDuration(budget)),
		reportRule(need),
		"Paths are written root:relative/path, where the part before the colon names a root (original or workspace).")
	return strings.Join(parts, "\n\n")
}

// reportRule is the prompt's sentence on what a reported candidate must
// do ([reproduce]): need more runs on the submission and 2·need on the
// original, in an order drawn at random.
func reportRule(need int) string {
	return fmt.Sprintf("A reported candidate is run again, %d more time(s) on the submission and %d on the original, in an order drawn at random that nothing in the trees can know, and must pass on the original and fail on the submission every time (a hang on the original is a failure to pass: bound your own waits); a test that tells the runs apart by anything but the tree's behaviour does not hold.", need, 2*need)
}

func humanDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(time.Second)
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d hour(s)", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minute(s)", d/time.Minute)
	}
	return d.String()
}

// reruns counts the adjudicator's reruns of c against role.
func (c *Candidate) reruns(role string) int {
	n := 0
	for _, r := range c.Runs {
		if r.Seq > 0 && r.Target == role {
			n++
		}
	}
	return n
}

// AdjudicatorPrompt is the adjudicator's opening: the scope, the
// candidate's name, claim, contract and code (≤ 20000 characters), the
// end of its output on both trees in the claimed pair, and, after the
// reruns, how many there were.
func AdjudicatorPrompt(task string, s Scope, c *Candidate, claim string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\n\n%s\n\n", task, ScopeBlock(s))
	fmt.Fprintf(&b, "CANDIDATE %s (%s)\nClaim: %s\nContract: %s\nRationale: %s\n\n", c.Name, c.Filename,
		strings.TrimSpace(claim), strings.TrimSpace(c.Contract), strings.TrimSpace(c.Rationale))
	fmt.Fprintf(&b, "--- code ---\n%s\n--- end of code ---\n", runeCut(c.Code, 20000))
	orig, sub := c.latest()
	for _, r := range []*CandidateRun{orig, sub} {
		if r == nil {
			continue
		}
		fmt.Fprintf(&b, "\nOn the %s: exit %d.\n%s\n", r.Target, r.ExitCode, lastRunes(strings.TrimSpace(r.Stdout+"\n"+r.Stderr), 1500))
	}
	if n := c.reruns(RoleSubmission); n > 0 {
		fmt.Fprintf(&b, "\nRerun %d more time(s) on the submission and %d on the original in an order drawn at random: it failed on the submission and passed on the original every time.\n", n, c.reruns(RoleOriginal))
	}
	b.WriteString("\nIs what this candidate asserts within the scope? Call rule.")
	return b.String()
}
