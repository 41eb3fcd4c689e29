package scoring

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// The blocked_by vocabulary: the rung that stopped the ladder (HARNESS.md
// §3.7). Empty means nothing stopped it.
const (
	BlockedAuditMissing           = "audit-missing"
	BlockedAuditError             = "audit-error"
	BlockedAuditEmpty             = "audit-empty"
	BlockedAuditGate              = "audit-gate"
	BlockedAuditUndecided         = "audit-undecided"
	BlockedBehaviouralMissing     = "behavioural-missing"
	BlockedBehaviouralError       = "behavioural-error"
	BlockedBehaviouralEmpty       = "behavioural-empty"
	BlockedBehaviouralWeights     = "behavioural-weights"
	BlockedBehaviouralIncomplete  = "behavioural-incomplete"
	BlockedVerificationMissing    = "verification-missing"
	BlockedVerificationError      = "verification-error"
	BlockedVerificationIncomplete = "verification-incomplete"
)

// Metadata keys the scorer writes on a verdict (HARNESS.md §3.7), besides
// the stages' own metadata under "audit", "behavioural" and
// "verification".
const (
	MetaAuditUndecided                = "audit_undecided"
	MetaVerificationMissing           = "verification_missing"
	MetaBehaviouralMeasuredNotCounted = "behavioural_measured_not_counted"
	MetaBehaviouralMeasuredPoints     = "behavioural_measured_points"
	MetaBehaviouralMeasuredRate       = "behavioural_measured_rate"
	MetaBehaviouralWouldHaveBlocked   = "behavioural_would_have_blocked"
)

const (
	maxObservations  = 40
	observationChars = 400
	sharedCauseMin   = 3
	sharedCauseChars = 400
	maxAuditFailures = 40
	maxBreaks        = 24
	maxNamed         = 6
	failureDetailCut = 2000
	failureEvidence  = 12
	breakEvidence    = 8
)

// Stages are the stage results a ladder grades. A nil result means no file
// was found. Declared lists the stages the task declares; it separates a
// stage that is missing (declared, no file) from one never asked for. nil
// means "grade what is here", the shape every by-hand and report-only
// grading uses; the production callers must pass it (bug 7).
type Stages struct {
	Audit        *result.Stage
	Behavioural  *result.Stage
	Verification *result.Stage
	Declared     []string
}

func (s Stages) declares(stage string) bool {
	for _, d := range s.Declared {
		if d == stage {
			return true
		}
	}
	return false
}

// Grade runs the ladder over the stage results that exist and returns the
// verdict (HARNESS.md §4.4; the paper's formula (4)):
//
//	score = [stage 1 passed] × (B·[stage 2 complete] + P·survivors·[stage 2 complete])
//
// with B = p.BehaviouralPoints and P = p.PointsPerSurvivedModel, stage 3
// capped at p.VerificationPoints and the total at p.MaxScore; under the
// published policy the reachable scores are 0, 40, 50, 60, 70, 80, 90, 100.
//
// A stage that did not run is not a stage that failed: an absent, errored
// or undecided stage sets HarnessError (valid false) and BlockedBy, never a
// lower score. A stage that ran above the rung where the ladder stopped is
// graded into a throwaway verdict and recorded in Unscored (and its
// spellings) and UnscoredStages, never added to the score (bugs 71–79).
// Grade never panics on a result it is only annotating: a failed reading
// becomes a note.
func Grade(task string, stages Stages, p Policy) *result.Verdict {
	v := result.NewVerdict(task, p.MaxScore)

	if !gradeAudit(stages.Audit, v) {
		// The ladder stops and the score is 0; stages that ran above it are
		// recorded, all three writers unconditionally (bug 73).
		reportBehaviouralOnly(stages.Behavioural, v, p)
		recordUnscored(v, p, stages.Behavioural, stages.Verification)
		for _, st := range []struct {
			name string
			res  *result.Stage
		}{{result.StageBehavioural, stages.Behavioural}, {result.StageVerification, stages.Verification}} {
			if line := summariseUnscored(st.res); line != "" {
				v.UnscoredStages[st.name] = line
			}
		}
		return v
	}

	if !gradeBehavioural(stages.Behavioural, v, p) {
		recordUnscored(v, p, nil, stages.Verification)
		v.Score = v.BehaviouralPoints
		if line := summariseUnscored(stages.Verification); line != "" {
			v.UnscoredStages[result.StageVerification] = line
		}
		return v
	}

	gradeVerification(stages.Verification, v, p, stages.declares(result.StageVerification))
	v.Score = v.BehaviouralPoints + v.VerificationPoints
	if v.Score > p.MaxScore {
		v.Score = p.MaxScore
	}
	return v
}

// AuditPassesGate reports whether stage 1 passed, and one sentence for an
// operator ending in "[<blocked_by>]" when it did not. It grades a
// throwaway verdict with the same code [Grade] uses, so "may stage 3 run"
// and "will stage 3 be paid" cannot disagree. p is unused (the gate reads
// checks, not figures) and taken so both gate questions have one shape;
// task defaults to the result's own.
func AuditPassesGate(r *result.Stage, p Policy, task string) (bool, string) {
	_ = p
	if task == "" && r != nil {
		task = r.Task
	}
	scratch := result.NewVerdict(task, 0)
	if gradeAudit(r, scratch) {
		return true, "stage 1 passed every required gate"
	}
	why := scratch.HarnessError
	if why == "" {
		var named []string
		for i, f := range scratch.AuditFailures {
			if i == maxNamed {
				break
			}
			if id, _ := f["id"].(string); id != "" {
				named = append(named, id)
			}
		}
		why = fmt.Sprintf("the audit gate failed on %d required check(s): %s",
			len(scratch.AuditFailures), strings.Join(named, ", "))
	}
	return false, why + " [" + scratch.BlockedBy + "]"
}

// BehaviouralReachesGate reports whether stage 2 would let the ladder reach
// stage 3 (every scored check of every weighted module passed), the points
// stage 2 would be paid, and one sentence for an operator ending in
// "[<blocked_by>]" when it would not. Like [AuditPassesGate] it grades a
// throwaway verdict with [Grade]'s own code.
func BehaviouralReachesGate(r *result.Stage, p Policy, task string) (bool, float64, string) {
	if r == nil {
		return false, 0, "stage 2 has produced no result file"
	}
	if task == "" {
		task = r.Task
	}
	scratch := result.NewVerdict(task, p.MaxScore)
	reached := gradeBehavioural(r, scratch, p)
	points := scratch.BehaviouralPoints
	if reached {
		// Worth, not paid: the verdict pays stage 2 only when the audit
		// gate passed too, and this sentence is printed before it is known
		// (issue 16: stderr said "paid 40 of 40" beside a verdict of 0).
		return true, points, fmt.Sprintf("stage 2 passed every scored check, worth %s of %s points (paid only when the audit gate passes too)",
			py.FormatG(points), py.FormatG(p.BehaviouralPoints))
	}
	why := scratch.HarnessError
	if why == "" {
		why = fmt.Sprintf("stage 2 did not pass every scored check, so none of its %s points are paid; the modules passed %.4f of their weighted checks",
			py.FormatG(p.BehaviouralPoints), scratch.BehaviouralRate)
	}
	return false, points, why + " [" + scratch.BlockedBy + "]"
}

// --- stage 1 ---------------------------------------------------------

func recordHarness(r *result.Stage, v *result.Verdict, stage string) {
	if len(r.Harness) == 0 {
		return
	}
	h := make(map[string]any, len(r.Harness)+1)
	for k, x := range r.Harness {
		h[k] = x
	}
	h["stage"] = stage
	v.Harnesses = append(v.Harnesses, h)
}

// enterStage records that stage ran: its name in stages_run, a copy of
// its metadata and its harness fingerprint.
func enterStage(r *result.Stage, v *result.Verdict, stage string) {
	v.StagesRun = append(v.StagesRun, stage)
	v.Metadata[stage] = copyMeta(r.Metadata)
	recordHarness(r, v, stage)
}

func copyMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	return out
}

// stageErrorText is the earlier harness's `metadata.error or "; ".join(notes)
// or default`.
func stageErrorText(r *result.Stage, def string) string {
	if e, ok := r.Metadata["error"]; ok && py.Truthy(e) {
		return py.Str(e)
	}
	if s := strings.Join(r.Notes, "; "); s != "" {
		return s
	}
	return def
}

// carryNotes carries a stage's own notes onto the verdict, prefixed with
// its label, blank ones skipped and duplicates dropped (bugs 80, 81).
func carryNotes(label string, r *result.Stage, v *result.Verdict) {
	for _, n := range r.Notes {
		text := strings.TrimSpace(n)
		line := label + ": " + text
		if text != "" && !slices.Contains(v.Notes, line) {
			v.Notes = append(v.Notes, line)
		}
	}
}

func failure(c result.Check) map[string]any {
	return map[string]any{
		"id":       c.ID,
		"verdict":  c.Verdict,
		"summary":  c.Summary,
		"detail":   py.Head(c.Detail, failureDetailCut),
		"evidence": firstEvidence(c, failureEvidence),
	}
}

// firstEvidence is c's first n evidence items, as a JSON array.
func firstEvidence(c result.Check, n int) []any {
	ev := c.Evidence
	if len(ev) > n {
		ev = ev[:n]
	}
	out := make([]any, len(ev))
	for i, e := range ev {
		out[i] = e
	}
	return out
}

func ids(checks []result.Check, n int) string {
	var out []string
	for i, c := range checks {
		if i == n {
			break
		}
		out = append(out, c.ID)
	}
	return strings.Join(out, ", ")
}

// gradeAudit decides the gate and reports whether stage 2 may run
// (HARNESS.md §4.4 grade_audit).
func gradeAudit(r *result.Stage, v *result.Verdict) bool {
	if r == nil {
		v.AuditGate = result.GateNotRun
		v.HarnessError = "the audit stage produced no result file"
		v.BlockedBy = BlockedAuditMissing
		return false
	}
	enterStage(r, v, result.StageAudit)

	if r.Status != result.StatusOK {
		v.AuditGate = result.GateNotRun
		v.HarnessError = stageErrorText(r, "the audit stage reported status=error")
		v.BlockedBy = BlockedAuditError
		return false
	}

	carryNotes("stage 1", r, v)

	requested, okR := py.IsInt(r.Metadata["samples_requested"])
	usable, okU := py.IsInt(r.Metadata["samples_usable"])
	if okR && okU && 0 < usable && usable < requested {
		v.Notes = append(v.Notes, fmt.Sprintf(
			"stage 1 ran on a reduced quorum: %d of %d reviews completed, and carried every gate verdict below",
			usable, requested))
	}

	var required, failures, errored []result.Check
	for _, c := range r.Checks {
		if c.Required {
			required = append(required, c)
		}
	}
	if len(required) == 0 {
		v.AuditGate = result.GateNotRun
		v.HarnessError = "the audit result declares no required checks; a gate that cannot fail is not a gate"
		v.BlockedBy = BlockedAuditEmpty
		return false
	}
	for _, c := range required {
		switch c.Verdict {
		case result.VerdictFail:
			failures = append(failures, c)
		case result.VerdictError:
			errored = append(errored, c)
		}
	}
	// A decided failure is read before an undecided check (bug 38).
	if len(failures) > 0 {
		v.AuditFailures = []map[string]any{}
		for i, c := range failures {
			if i == maxAuditFailures {
				break
			}
			v.AuditFailures = append(v.AuditFailures, failure(c))
		}
		v.AuditGate = result.GateFail
		v.BlockedBy = BlockedAuditGate
		v.Notes = append(v.Notes, fmt.Sprintf(
			"audit gate failed on %d required check(s); score is 0 and no later stage can earn anything",
			len(failures)))
		if len(errored) > 0 {
			undecided := make([]any, len(errored))
			for i, c := range errored {
				undecided[i] = c.ID
			}
			v.Metadata[MetaAuditUndecided] = undecided
			v.Notes = append(v.Notes, fmt.Sprintf(
				"%d further required check(s) could not be decided (%s); the gate is already decided by the failure(s) above, so this did not affect the outcome and does not call for a re-run",
				len(errored), ids(errored, maxNamed)))
		}
		return false
	}
	if len(errored) > 0 {
		v.AuditGate = result.GateNotRun
		v.HarnessError = fmt.Sprintf("%d required audit check(s) could not be decided: %s",
			len(errored), ids(errored, maxNamed))
		v.BlockedBy = BlockedAuditUndecided
		v.AuditFailures = []map[string]any{}
		for i, c := range errored {
			if i == maxAuditFailures {
				break
			}
			v.AuditFailures = append(v.AuditFailures, failure(c))
		}
		return false
	}
	v.AuditFailures = []map[string]any{}
	v.AuditGate = result.GatePass
	return true
}

// --- stage 2 ---------------------------------------------------------

// chargedStatus: module statuses whose zero is charged and worded as a
// measurement or an absence; anything else is "dead" (HARNESS.md §4.4).
func chargedStatus(s string) bool {
	return s == result.UnitOK || s == result.UnitTimeout || s == result.UnitUnreached
}

func clipObservation(text string) string {
	flat := strings.Join(strings.Fields(text), " ")
	if runeLen(flat) <= observationChars {
		return flat
	}
	return py.Head(flat, observationChars-3) + "..."
}

// sharedCause is the module note naming a cause most of its failing
// checks share (bug 82): among failing or erroring weighted checks (skips
// excluded), at least 3 and at least two thirds with one summary, else one
// final clause after ": ".
func sharedCause(checks []result.Check) string {
	var lines []string
	for _, c := range checks {
		if c.Judged() && !c.OK() && c.Weight > 0 {
			lines = append(lines, strings.Join(strings.Fields(c.Summary), " "))
		}
	}
	if len(lines) < sharedCauseMin {
		return ""
	}
	dominant := func(keys []string) (string, int) {
		tally := map[string]int{}
		var order []string
		for _, k := range keys {
			if k == "" {
				continue
			}
			if _, seen := tally[k]; !seen {
				order = append(order, k)
			}
			tally[k]++
		}
		best, hits := "", 0
		for _, k := range order {
			if tally[k] > hits {
				best, hits = k, tally[k]
			}
		}
		if best == "" || hits < sharedCauseMin || float64(hits) < float64(len(lines))*(2.0/3.0) {
			return "", 0
		}
		return best, hits
	}
	if whole, hits := dominant(lines); whole != "" {
		return py.Head(fmt.Sprintf("%d of %d failing checks report the same thing: %s", hits, len(lines), whole), sharedCauseChars)
	}
	clauses := make([]string, len(lines))
	for i, ln := range lines {
		if j := strings.LastIndex(ln, ": "); j >= 0 {
			clauses[i] = ln[j+2:]
		}
	}
	if clause, hits := dominant(clauses); clause != "" {
		return py.Head(fmt.Sprintf("%d of %d failing checks end on the same cause: %s", hits, len(lines), clause), sharedCauseChars)
	}
	return ""
}

func moduleOwnNotes(u result.Unit) []string {
	raw := u.Metadata["notes"]
	var list []any
	switch x := raw.(type) {
	case nil:
		return []string{}
	case string:
		list = []any{x}
	case []string:
		for _, s := range x {
			list = append(list, s)
		}
	case []any:
		list = x
	default:
		if !py.Truthy(raw) {
			return []string{}
		}
		list = []any{raw}
	}
	out := []string{}
	for _, n := range list {
		if s := py.Str(n); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func scoreModule(u result.Unit, r *result.Stage) result.ModuleScore {
	checks := r.ChecksOf(u.ID)
	counts := map[string]int{}
	for _, c := range checks {
		counts[c.Verdict]++
	}
	passed, total := result.Pooled(checks)
	rate := 0.0
	if total > 0 {
		rate = float64(passed) / float64(total)
	}
	note := ""
	switch {
	case u.Status != result.UnitOK:
		rate = 0
		note = u.Summary
		if note == "" {
			note = "module status=" + u.Status
		}
	case total <= 0:
		rate = 0
		how := "it recorded no checks at all"
		if counts[result.VerdictSkip] > 0 {
			how = "every check declined as inapplicable"
		}
		if u.Weight <= 0 {
			note = fmt.Sprintf("reports only, by design -- weight zero, and %s, so it decides nothing", how)
		} else {
			note = fmt.Sprintf("module produced no scored checks despite carrying weight %s (%s); its 0.0 rate is charged to the submission and may not belong to it",
				py.FormatG(u.Weight), how)
		}
	}
	if note == "" && counts[result.VerdictSkip] > 0 {
		note = fmt.Sprintf("%d of %s scored check(s) did not run and are charged 0", counts[result.VerdictSkip], py.FormatG(float64(total)))
		if counts[result.VerdictSkip] >= total && total > 0 {
			note += " -- every check in this module declined, so its 0.0 is the absence of an artifact to measure rather than a measurement"
		}
	}
	if note == "" {
		note = sharedCause(checks)
	}
	observations := []string{}
	if total <= 0 {
		var recorded []result.Check
		for _, c := range checks {
			if c.Weight <= 0 && c.Summary != "" {
				recorded = append(recorded, c)
			}
		}
		for i, c := range recorded {
			if i == maxObservations {
				break
			}
			observations = append(observations, clipObservation(c.Summary))
		}
		if len(recorded) > maxObservations {
			observations = append(observations, fmt.Sprintf("(%d further observation(s) in results/behavioural.json)", len(recorded)-maxObservations))
		}
	}
	// A module's own weight-0 rows (a program module's findings that
	// decide nothing) are kept by the runner in unscored_findings: shown
	// here so score.json and srb report carry them, not only their count.
	findings := py.AsList(u.Metadata["unscored_findings"])
	for i, f := range findings {
		if len(observations) >= maxObservations {
			observations = append(observations, fmt.Sprintf("(%d further finding(s) in results/behavioural.json, unscored_findings)", len(findings)-i))
			break
		}
		fm := py.AsMap(f)
		text := py.Str(fm["id"]) + " (weight 0, " + py.Str(fm["verdict"]) + "): " + py.Str(fm["summary"])
		if d := py.Str(fm["detail"]); fm["detail"] != nil && d != "" {
			text += " -- " + d
		}
		observations = append(observations, clipObservation(text))
	}
	title := u.Title
	if title == "" {
		title = u.ID
	}
	return result.ModuleScore{
		ID:           u.ID,
		Title:        title,
		Weight:       u.Weight,
		Rate:         rate,
		Complete:     u.Status == result.UnitOK && total > 0 && passed >= total,
		Status:       u.Status,
		ScoredWeight: float64(total),
		Passed:       counts[result.VerdictPass],
		Failed:       counts[result.VerdictFail],
		Errored:      counts[result.VerdictError],
		Skipped:      counts[result.VerdictSkip],
		Note:         note,
		Notes:        moduleOwnNotes(u),
		Observations: observations,
	}
}

func andMore(n int) string {
	if n > maxNamed {
		return fmt.Sprintf(", and %d more", n-maxNamed)
	}
	return ""
}

// gradeBehavioural scores the modules and reports whether the
// verification stage may run (HARNESS.md §4.4 grade_behavioural).
func gradeBehavioural(r *result.Stage, v *result.Verdict, p Policy) bool {
	if r == nil {
		v.HarnessError = "the behavioural stage produced no result file"
		v.BlockedBy = BlockedBehaviouralMissing
		return false
	}
	enterStage(r, v, result.StageBehavioural)

	if r.Status != result.StatusOK {
		v.HarnessError = stageErrorText(r, "the behavioural stage reported status=error")
		v.BlockedBy = BlockedBehaviouralError
		return false
	}
	carryNotes("stage 2", r, v)
	if len(r.Units) == 0 {
		v.HarnessError = "the behavioural stage declared no modules"
		v.BlockedBy = BlockedBehaviouralEmpty
		return false
	}

	units := r.Units
	if p.Task != nil {
		var msg string
		if units, msg = declaredUnits(r, p.Task, v); msg != "" {
			v.HarnessError = msg
			v.BlockedBy = BlockedBehaviouralError
			return false
		}
	}
	scores := make([]result.ModuleScore, 0, len(units))
	for _, u := range units {
		scores = append(scores, scoreModule(u, r))
	}
	v.Modules = scores
	wsum := 0.0
	for _, m := range scores {
		wsum += m.Weight
	}
	if wsum <= 0 {
		v.HarnessError = "behavioural module weights sum to zero"
		v.BlockedBy = BlockedBehaviouralWeights
		return false
	}

	var overran, absent, dead []result.ModuleScore
	for _, m := range scores {
		switch {
		case m.Status == result.UnitTimeout:
			overran = append(overran, m)
		case m.Status == result.UnitUnreached:
			absent = append(absent, m)
		}
		if !chargedStatus(m.Status) {
			dead = append(dead, m)
		}
	}
	if len(overran) > 0 {
		var parts []string
		for i, m := range overran {
			if i == maxNamed {
				break
			}
			s := m.ID + " (weight " + py.FormatG(m.Weight)
			if m.Passed+m.Failed > 0 {
				s += fmt.Sprintf(", %d/%d recorded before the deadline", m.Passed, m.Passed+m.Failed)
			} else {
				s += ", recorded nothing"
			}
			parts = append(parts, s+")")
		}
		v.Notes = append(v.Notes, "behavioural module(s) exceeded the budget the task declares for them, so each scores zero and keeps its weight: "+
			strings.Join(parts, ", ")+andMore(len(overran))+
			" -- a budget overrun is charged to the submission, because the reference tree meets the same budget on the same machine")
	}
	if len(absent) > 0 {
		var parts []string
		for i, m := range absent {
			if i == maxNamed {
				break
			}
			parts = append(parts, m.ID+" (weight "+py.FormatG(m.Weight)+")")
		}
		v.Notes = append(v.Notes, fmt.Sprintf("the behavioural stage ended before %d of %d module(s) were reached, so each scores zero and keeps its weight: ", len(absent), len(scores))+
			strings.Join(parts, ", ")+andMore(len(absent))+
			" -- the stage clock is the task's own declaration and the reference tree completes the same suite well inside it, so the exhaustion is charged to the submission; the modules that did run are where it went")
	}
	if len(dead) > 0 {
		weighted := false
		var parts []string
		for i, m := range dead {
			if m.Weight > 0 {
				weighted = true
			}
			if i >= maxNamed {
				continue
			}
			s := m.ID + " (status " + m.Status
			if m.Weight > 0 {
				s += ", weight " + py.FormatG(m.Weight)
			}
			parts = append(parts, s+")")
		}
		tail := " -- these carry no weight, so the score is unaffected; their observations are simply absent from this report"
		if weighted {
			tail = " -- a module that did not finish has not measured the submission, so if this reproduces, the module or its image may be at fault rather than the tree under test"
		}
		v.Notes = append(v.Notes, "behavioural module(s) did not finish, so each scores zero and keeps its weight: "+
			strings.Join(parts, ", ")+andMore(len(dead))+tail)
	}

	acc := 0.0
	for _, m := range scores {
		acc += m.Weight * m.Rate
	}
	v.BehaviouralRate = acc / wsum

	var short []result.ModuleScore
	for _, m := range scores {
		if m.Weight > 0 && !m.Complete {
			short = append(short, m)
		}
	}
	if len(short) > 0 {
		v.BehaviouralPoints = 0
		v.BlockedBy = BlockedBehaviouralIncomplete
		sorted := append([]result.ModuleScore(nil), short...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Weight > sorted[j].Weight })
		var parts []string
		for i, m := range sorted {
			if i == maxNamed {
				break
			}
			s := fmt.Sprintf("%s (%d/%d", m.ID, m.Passed, m.Passed+m.Failed+m.Errored+m.Skipped)
			if m.Status != result.UnitOK {
				s += ", status " + m.Status
			}
			parts = append(parts, s+")")
		}
		v.Notes = append(v.Notes, fmt.Sprintf(
			"%d behavioural module(s) did not pass every scored check, so stage 2 pays none of its %s points and no verification points are available: %s%s -- the modules passed %.4f of their weighted checks, which is reported and not paid",
			len(short), py.FormatG(p.BehaviouralPoints), strings.Join(parts, ", "), andMore(len(short)), v.BehaviouralRate))
		return false
	}
	v.BehaviouralPoints = p.BehaviouralPoints
	return true
}

// declaredUnits matches the behavioural result's units with the task's
// modules: it returns the units in the result's order with the task's
// weights, or a harness-error sentence naming the modules the result
// lacks or holds without the task declaring them. A weight the result
// states differently is noted on v and not used.
func declaredUnits(r *result.Stage, d *Declaration, v *result.Verdict) ([]result.Unit, string) {
	want := map[string]float64{}
	for _, m := range d.Modules {
		want[m.ID] = m.Weight
	}
	have := map[string]bool{}
	var extra, missing, reweighed []string
	units := make([]result.Unit, 0, len(r.Units))
	for _, u := range r.Units {
		have[u.ID] = true
		w, ok := want[u.ID]
		if !ok {
			extra = append(extra, u.ID)
			continue
		}
		if py.Round(u.Weight, 6) != py.Round(w, 6) {
			reweighed = append(reweighed, fmt.Sprintf("%s (the result says %s, the task %s)", u.ID, py.FormatG(u.Weight), py.FormatG(w)))
		}
		u.Weight = w
		units = append(units, u)
	}
	for _, m := range d.Modules {
		if !have[m.ID] {
			missing = append(missing, m.ID)
		}
	}
	switch {
	case len(missing) > 0:
		return nil, fmt.Sprintf("the behavioural result lacks %d of the task's %d module(s): %s%s -- a stage result that does not cover the declared suite has not measured the submission; re-run the stage",
			len(missing), len(d.Modules), strings.Join(head(missing, maxNamed), ", "), andMore(len(missing)))
	case len(extra) > 0:
		return nil, fmt.Sprintf("the behavioural result holds %d module(s) the task does not declare: %s%s -- it is not this task's suite; re-run the stage",
			len(extra), strings.Join(head(extra, maxNamed), ", "), andMore(len(extra)))
	}
	if len(reweighed) > 0 {
		v.Notes = append(v.Notes, "graded with the task's module weights, not the result's: "+strings.Join(head(reweighed, maxNamed), ", ")+andMore(len(reweighed)))
	}
	return units, ""
}

func head(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// --- stage 3 ---------------------------------------------------------

// gradeVerification pays every adversary that failed to break the
// submission (HARNESS.md §4.4 grade_verification). expected says the task
// declares stage 3, so an absent result is the harness failing to run it.
func gradeVerification(r *result.Stage, v *result.Verdict, p Policy, expected bool) {
	if r == nil {
		v.Metadata[MetaVerificationMissing] = true
		if expected {
			v.HarnessError = fmt.Sprintf(
				"the verification stage was declared and the ladder reached it, but it produced no result file, so %s of the %s points were never contested",
				py.FormatG(p.VerificationPoints), py.FormatG(p.MaxScore))
			v.BlockedBy = BlockedVerificationMissing
			return
		}
		v.Notes = append(v.Notes, "the verification stage produced no result file; no stage-3 points were awarded")
		return
	}
	enterStage(r, v, result.StageVerification)
	// Before the status check, unlike stages 1 and 2 (bug 80).
	carryNotes("stage 3", r, v)

	if r.Status != result.StatusOK {
		msg := "the verification stage did not complete"
		if e, ok := r.Metadata["error"]; ok && py.Truthy(e) {
			msg += ": " + py.Str(e)
		} else if len(r.Notes) > 0 {
			msg += ": " + strings.Join(r.Notes, "; ")
		}
		v.HarnessError = msg
		v.BlockedBy = BlockedVerificationError
		v.Notes = append(v.Notes, "no stage-3 points were awarded, and the score is not published: a stage that could not run has established nothing about the submission")
		return
	}

	rounds := result.Rounds(r)
	var survived, broken, errored []result.Check
	for _, c := range rounds {
		switch c.Verdict {
		case result.VerdictPass:
			survived = append(survived, c)
		case result.VerdictFail:
			broken = append(broken, c)
		case result.VerdictError, result.VerdictSkip:
			errored = append(errored, c)
		}
	}
	name := func(c result.Check) string {
		if c.Unit != "" {
			return c.Unit
		}
		return c.ID
	}
	v.AdversariesTotal = len(rounds)
	v.AdversariesSurvived = len(survived)
	v.VerificationBreaks = []map[string]any{}
	for i, c := range broken {
		if i == maxBreaks {
			break
		}
		v.VerificationBreaks = append(v.VerificationBreaks, map[string]any{
			"adversary": name(c),
			"summary":   c.Summary,
			"detail":    py.Head(c.Detail, failureDetailCut),
			"evidence":  firstEvidence(c, breakEvidence),
		})
	}
	points := p.PointsPerSurvivedModel * float64(len(survived))
	if points > p.VerificationPoints {
		points = p.VerificationPoints
	}
	v.VerificationPoints = points

	if msg, blocked := roundsMatch(rounds, name, p); msg != "" {
		v.HarnessError = msg
		v.BlockedBy = blocked
		v.VerificationPoints = 0
		v.Notes = append(v.Notes, "no stage-3 points are published: the rounds in the verification result are not the rounds the task declares")
		return
	}
	if len(errored) > 0 {
		var names []string
		for i, c := range errored {
			if i == maxNamed {
				break
			}
			names = append(names, name(c))
		}
		v.Notes = append(v.Notes, fmt.Sprintf("%d verification round(s) could not be completed and paid nothing: %s",
			len(errored), strings.Join(names, ", ")))
		v.HarnessError = fmt.Sprintf(
			"%d of %d verification round(s) did not complete, so %s of the %s stage-3 points could not be contested: %s%s -- re-run the stage; an adversary that could not run has not demonstrated a defect, and must not be paid for as though it had found one",
			len(errored), len(rounds), py.FormatG(p.PointsPerSurvivedModel*float64(len(errored))),
			py.FormatG(p.VerificationPoints), strings.Join(names, ", "), andMore(len(errored)))
		v.BlockedBy = BlockedVerificationIncomplete
	}
}

// roundsMatch checks the rounds against what the task declares: with a
// declaration, exactly one round per declared adversary; without, exactly
// p.VerificationModels rounds. It returns a harness-error sentence and the
// blocked_by id when they differ: verification-incomplete for a missing
// round (never contested), verification-error for an extra or unknown one
// (refused, never paid).
func roundsMatch(rounds []result.Check, name func(result.Check) string, p Policy) (string, string) {
	if p.Task == nil {
		switch n := len(rounds); {
		case n < p.VerificationModels:
			return fmt.Sprintf("the verification result holds %d round(s) but the policy declares %d adversaries, so %s of the %s stage-3 points were never contested -- re-run the stage",
				n, p.VerificationModels, py.FormatG(p.PointsPerSurvivedModel*float64(p.VerificationModels-n)), py.FormatG(p.VerificationPoints)), BlockedVerificationIncomplete
		case n > p.VerificationModels:
			return fmt.Sprintf("the verification result holds %d round(s) but the policy declares %d adversaries: a round the policy does not declare is refused, not paid",
				n, p.VerificationModels), BlockedVerificationError
		}
		return "", ""
	}
	declared := map[string]bool{}
	for _, a := range p.Task.Adversaries {
		declared[a] = true
	}
	seen := map[string]bool{}
	var unknown, missing []string
	for _, c := range rounds {
		id := name(c)
		if !declared[id] || seen[id] {
			unknown = append(unknown, id)
		}
		seen[id] = true
	}
	for _, a := range p.Task.Adversaries {
		if !seen[a] {
			missing = append(missing, a)
		}
	}
	if len(unknown) > 0 {
		return fmt.Sprintf("the verification result holds %d round(s) the task does not declare: %s%s -- a round of an adversary the task does not name is refused, not paid; re-run the stage",
			len(unknown), strings.Join(head(unknown, maxNamed), ", "), andMore(len(unknown))), BlockedVerificationError
	}
	if len(missing) > 0 {
		return fmt.Sprintf("the verification result lacks %d of the task's %d adversaries: %s%s, so %s of the %s stage-3 points were never contested -- re-run the stage",
			len(missing), len(p.Task.Adversaries), strings.Join(head(missing, maxNamed), ", "), andMore(len(missing)),
			py.FormatG(p.PointsPerSurvivedModel*float64(len(missing))), py.FormatG(p.VerificationPoints)), BlockedVerificationIncomplete
	}
	return "", ""
}

// --- stages that ran above the rung that stopped the ladder -------------

// shadowBehavioural grades r into a throwaway verdict; a panic becomes the
// shadow's harness error (bug 74). It is a variable so a test can make the
// reading fail.
var shadowBehavioural = func(r *result.Stage, shadow *result.Verdict, p Policy) {
	gradeBehavioural(r, shadow, p)
}

// guard runs f and turns a panic into "panic: <value>".
func guard(f func()) (msg string) {
	defer func() {
		if x := recover(); x != nil {
			msg = fmt.Sprintf("panic: %v", x)
		}
	}()
	f()
	return ""
}

// reportBehaviouralOnly attaches a measured stage 2 to a verdict the audit
// gate already decided: module rows and the measured figures in metadata,
// never score, valid, blocked_by or stages_run (bugs 71, 72, 75).
func reportBehaviouralOnly(r *result.Stage, v *result.Verdict, p Policy) {
	if r == nil {
		return
	}
	shadow := result.NewVerdict(v.Task, p.MaxScore)
	if msg := guard(func() { shadowBehavioural(r, shadow, p) }); msg != "" {
		shadow.HarnessError = msg
	}
	if len(shadow.Modules) == 0 {
		if len(r.Metadata) > 0 {
			v.Metadata[result.StageBehavioural] = copyMeta(r.Metadata)
		}
		if shadow.HarnessError != "" {
			v.Notes = append(v.Notes, fmt.Sprintf(
				"stage 2 ran but its result could not be read (%s); it was not scored either way, the score is 0 by the audit gate",
				shadow.HarnessError))
		}
		return
	}
	v.Modules = shadow.Modules
	if m, ok := shadow.Metadata[result.StageBehavioural]; ok {
		v.Metadata[result.StageBehavioural] = m
	} else {
		v.Metadata[result.StageBehavioural] = map[string]any{}
	}
	v.Metadata[MetaBehaviouralMeasuredNotCounted] = true
	v.Metadata[MetaBehaviouralMeasuredPoints] = py.Round(shadow.BehaviouralPoints, 4)
	v.Metadata[MetaBehaviouralMeasuredRate] = py.Round(shadow.BehaviouralRate, 6)
	if shadow.BlockedBy != "" {
		v.Metadata[MetaBehaviouralWouldHaveBlocked] = shadow.BlockedBy
	}
}

// recordUnscored records what a later stage measured when the ladder
// stopped below it, through throwaway verdicts, and says so in a note
// (bugs 71, 73, 74, 76, 77).
func recordUnscored(v *result.Verdict, p Policy, behavioural, verification *result.Stage) {
	for _, st := range []struct {
		name string
		res  *result.Stage
	}{{result.StageBehavioural, behavioural}, {result.StageVerification, verification}} {
		if st.res == nil {
			continue
		}
		scratch := result.NewVerdict(v.Task, p.MaxScore)
		var entry map[string]any
		msg := guard(func() {
			if st.name == result.StageBehavioural {
				shadowBehavioural(st.res, scratch, p)
				modules := append([]result.ModuleScore{}, scratch.Modules...)
				notes := append([]string{}, scratch.Notes...)
				entry = map[string]any{
					"points":          py.Round(scratch.BehaviouralPoints, 4),
					"would_be_points": py.Round(scratch.BehaviouralPoints, 4),
					"rate":            py.Round(scratch.BehaviouralRate, 6),
					"complete":        scratch.BehaviouralPoints > 0,
					"blocked_by":      scratch.BlockedBy,
					"harness_error":   scratch.HarnessError,
					"notes":           notes,
					"modules":         modules,
				}
			} else {
				gradeVerification(st.res, scratch, p, false)
				entry = map[string]any{
					"points":          py.Round(scratch.VerificationPoints, 4),
					"models_total":    scratch.AdversariesTotal,
					"models_survived": scratch.AdversariesSurvived,
				}
			}
		})
		if msg != "" {
			entry = map[string]any{
				"error": msg,
				"note":  "the stage result could not be read: " + msg,
			}
		}
		entry["status"] = st.res.Status
		entry["counted"] = false
		v.Unscored[st.name] = entry

		pts := 0.0
		if x, ok := entry["points"].(float64); ok {
			pts = x
		}
		rate, hasRate := entry["rate"].(float64)
		if st.name == result.StageBehavioural {
			rows, _ := entry["modules"].([]result.ModuleScore)
			if result.ReportedModules(rows) == 0 {
				why := fmt.Sprintf(" (status=%s)", st.res.Status)
				if he, _ := entry["harness_error"].(string); he != "" {
					why = " (" + he + ")"
				}
				v.Notes = append(v.Notes, "stage "+st.name+" ran but measured nothing"+why+
					"; there is no rate to credit or withhold, and re-running the stage is what would produce one")
				continue
			}
		}
		figure := fmt.Sprintf("measured %.2f of its points", pts)
		if hasRate {
			figure = fmt.Sprintf("measured a %.4f weighted pass rate, worth %.2f points", rate, pts)
		}
		blocked := v.BlockedBy
		if blocked == "" {
			blocked = "earlier stage"
		}
		v.Notes = append(v.Notes, fmt.Sprintf("stage %s ran and %s, but the ladder stopped below it (%s); it is not counted",
			st.name, figure, blocked))
	}
}

// summariseUnscored is one line about a stage result the ladder discards;
// "" for none.
func summariseUnscored(r *result.Stage) string {
	if r == nil {
		return ""
	}
	if r.Status != result.StatusOK {
		return fmt.Sprintf("ran but did not complete (status=%s)", r.Status)
	}
	ok, failed, errored := 0, 0, 0
	for _, u := range r.Units {
		if u.Status == result.UnitOK {
			ok++
		}
	}
	for _, c := range r.Checks {
		switch c.Verdict {
		case result.VerdictFail:
			failed++
		case result.VerdictError:
			errored++
		}
	}
	return fmt.Sprintf("ran and completed: %d/%d module(s) ok, %d check(s), %d failed, %d errored, pass rate %.4f over its scored checks",
		ok, len(r.Units), len(r.Checks), failed, errored, result.Rate(r.Checks))
}

func runeLen(s string) int { return len([]rune(s)) }
