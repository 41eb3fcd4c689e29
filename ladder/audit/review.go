package audit

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// SubmitTool is the name of the review's submit tool.
const SubmitTool = "submit_review"

// Verdict words a review may send.
const (
	Pass = "pass"
	Fail = "fail"
)

// SubmitSpec returns the submit_review tool for gates (HARNESS.md
// §4.1.4): {summary, gates: [{id, verdict pass|fail, confidence 0..1,
// reasoning, evidence: [{path "<root>:<rel>", line ≥ 1, quote, note}]}]}.
func SubmitSpec(gates []Gate) models.ToolSpec {
	ids := make([]any, len(gates))
	names := make([]string, len(gates))
	for i, g := range gates {
		ids[i], names[i] = g.ID, g.ID
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return models.ToolSpec{
		Name: SubmitTool,
		Description: "Record your review. Give exactly one verdict -- 'pass' or 'fail' -- for each gate id, and cite file evidence for every 'fail'. " +
			"Each citation is checked against the submission's tree as it was submitted: it must name a file of the workspace root (not a folder, not State A's tree), a line number, " +
			"and a quote of that line (more than a word of boilerplate) found within three lines of it. A citation that does not check out is discarded, " +
			"and a 'fail' with no surviving citation is counted as a 'pass'. Call this once, when you have finished looking.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"summary": str("Two or three sentences: what the submission did, and whether the migration is real."),
				"gates": map[string]any{
					"type":        "array",
					"description": "One entry per gate. Gate ids: " + strings.Join(names, ", ") + ".",
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"id": map[string]any{"type": "string", "enum": ids},
							"verdict": map[string]any{"type": "string", "enum": []any{Pass, Fail},
								"description": "'fail' only with evidence that checks out; 'pass' otherwise, including where you could not establish the problem you suspected. There is no third answer: an unevidenced 'fail' is counted as 'pass'."},
							"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
							"reasoning":  str("What you found, in terms of what the code does. Name the mechanism, not the pattern you matched."),
							"evidence": map[string]any{
								"type": "array",
								"items": map[string]any{
									"type": "object",
									"properties": map[string]any{
										"path":  str("The file, as the reading tools take it: '<root>:<relative path>', e.g. 'workspace:src/app.js'. This whole field is the location: put it here, and do not split the root out of it."),
										"line":  map[string]any{"type": "integer", "minimum": 1},
										"quote": str("The cited line of the submission, or a distinctive part of it: code that shows the problem, not a bare keyword or licence name."),
										"note":  str("Why this line shows what you say it shows."),
									},
									"required": []any{"path", "line", "quote"},
								},
							},
						},
						"required": []any{"id", "verdict", "reasoning"},
					},
				},
			},
			"required": []any{"summary", "gates"},
		},
	}
}

// pathAliases are keys other than "path" a review has put a citation's
// location under; each is honoured only when its value carries the
// "<root>:" separator (HARNESS.md §7 bugs 39–41).
var pathAliases = []string{"root", "file", "location"}

// evidencePath returns the file an evidence entry cites, or "".
func evidencePath(raw any) string {
	m, ok := raw.(map[string]any)
	if !ok {
		return ""
	}
	if s, ok := m["path"].(string); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	for _, k := range pathAliases {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" && strings.Contains(s, ":") {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// CheckSubmission returns the sentence that sends a submit_review payload
// back to the model, or "" to accept it (HARNESS.md §4.1.4): no gates; a
// declared gate missing; a verdict other than pass or fail (naming the
// offending ids and values); a fail with no evidence, or whose evidence all
// lacks a usable path (naming the fields it sent). The loop re-asks as
// often as it takes.
func CheckSubmission(payload map[string]any, gates []Gate) string {
	entries, _ := payload["gates"].([]any)
	var ids []string
	for _, g := range gates {
		ids = append(ids, g.ID)
	}
	if len(entries) == 0 {
		return "Your submission had no gate verdicts. Send it again with one entry per gate id: " + strings.Join(ids, ", ")
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok {
			seen[fmt.Sprint(m["id"])] = true
		}
	}
	var missing []string
	for _, g := range gates {
		if !seen[g.ID] {
			missing = append(missing, g.ID)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("Missing a verdict for: %s. Every gate needs one, and the only two answers are 'pass' and 'fail' -- where you could not establish a problem, that is 'pass'. Send the whole submission again.", strings.Join(missing, ", "))
	}
	var bad []string
	var fails []map[string]any
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		v, _ := m["verdict"].(string)
		switch v {
		case Pass:
		case Fail:
			fails = append(fails, m)
		default:
			bad = append(bad, fmt.Sprintf("%v (sent %s)", m["id"], repr(m["verdict"])))
		}
	}
	if len(bad) > 0 {
		return "These verdicts are not one of the two allowed answers: " + strings.Join(bad, "; ") +
			". Use 'fail' where you can cite evidence that checks out, and 'pass' everywhere else -- including gates you could not settle. Send the whole submission again."
	}
	var unevidenced, unusable []string
	for _, m := range fails {
		items, _ := m["evidence"].([]any)
		if len(items) == 0 {
			unevidenced = append(unevidenced, fmt.Sprint(m["id"]))
			continue
		}
		usable := false
		keys := map[string]bool{}
		for _, it := range items {
			if evidencePath(it) != "" {
				usable = true
			}
			if im, ok := it.(map[string]any); ok {
				for k := range im {
					keys[k] = true
				}
			}
		}
		if !usable {
			names := sortedKeys(keys)
			sent := "no fields"
			if len(names) > 0 {
				sent = strings.Join(names, ", ")
			}
			unusable = append(unusable, fmt.Sprintf("%v (sent %s)", m["id"], sent))
		}
	}
	if len(unevidenced) == 0 && len(unusable) == 0 {
		return ""
	}
	lines := []string{"A fail has to point at a line someone else can look up."}
	if len(unevidenced) > 0 {
		lines = append(lines, "No evidence at all: "+strings.Join(unevidenced, ", ")+".")
	}
	if len(unusable) > 0 {
		lines = append(lines, "Evidence naming no file: "+strings.Join(unusable, "; ")+".")
	}
	lines = append(lines, `Put the location in a field called "path", spelled "<root>:<relative path>" the way the reading tools take it -- for example "workspace:main.go". Either cite it that way or change the verdict, then send the whole submission again.`)
	return strings.Join(lines, " ")
}

// Citation is one piece of evidence and whether it survived the re-check.
// Line 0 means none was given.
type Citation struct {
	Path       string
	Line       int
	Quote      string
	Note       string
	Grounded   bool
	GroundNote string
}

// Map returns the citation as the stage records it (HARNESS.md §3.6):
// path, line (when given), quote and note (each ≤ 400 characters, when
// given), grounded and ground_note.
func (c Citation) Map() map[string]any {
	m := map[string]any{"path": c.Path}
	if c.Line != 0 {
		m["line"] = c.Line
	}
	if c.Quote != "" {
		m["quote"] = runeCut(c.Quote, 400)
	}
	if c.Note != "" {
		m["note"] = runeCut(c.Note, 400)
	}
	m["grounded"] = c.Grounded
	m["ground_note"] = c.GroundNote
	return m
}

// Vote is one review's answer on one gate. Downgraded says which
// defaults-to-pass rule turned it into a pass, "" when the review argued
// for its verdict.
type Vote struct {
	Gate       string
	Verdict    string
	Confidence float64
	Reasoning  string
	Citations  []Citation
	Downgraded string
}

func (v Vote) grounded() int {
	n := 0
	for _, c := range v.Citations {
		if c.Grounded {
			n++
		}
	}
	return n
}

// ParseVote reads one gate entry of a payload into a vote, grounding each
// citation with [GroundCitation] on tb, which must read the trees as they
// were submitted (never a copy a review's commands could change); ok is
// false for an entry whose id is not a declared gate. An unrecognised
// verdict word and a fail with no grounded citation become pass, with the
// reason, naming each citation and why it did not ground, in Downgraded
// (HARNESS.md §4.1.5).
func ParseVote(entry map[string]any, gates []Gate, tb *agent.Toolbox) (Vote, bool) {
	id := fmt.Sprint(entry["id"])
	known := false
	for _, g := range gates {
		known = known || g.ID == id
	}
	if !known {
		return Vote{}, false
	}
	raw, _ := entry["verdict"].(string)
	v := Vote{Gate: id, Verdict: raw}
	if raw != Pass && raw != Fail {
		word := "(none)"
		if raw != "" {
			word = fmt.Sprintf("%q", raw)
		}
		v.Verdict = Pass
		v.Downgraded = fmt.Sprintf("sent verdict %s, which is not one of pass/fail; counted as a pass rather than a failure", word)
	}
	if f, ok := entry["confidence"].(float64); ok {
		v.Confidence = f
	}
	v.Reasoning, _ = entry["reasoning"].(string)
	items, _ := entry["evidence"].([]any)
	pathless := 0
	for _, it := range items {
		p := evidencePath(it)
		if p == "" {
			pathless++
			continue
		}
		m := it.(map[string]any)
		c := Citation{Path: p}
		switch n := m["line"].(type) {
		case float64:
			if n == float64(int(n)) && n >= 1 {
				c.Line = int(n)
			}
		case int:
			c.Line = max(0, n)
		case string:
			fmt.Sscanf(n, "%d", &c.Line)
		}
		c.Quote, _ = m["quote"].(string)
		c.Note, _ = m["note"].(string)
		c.Grounded, c.GroundNote = GroundCitation(tb, c.Path, c.Line, c.Quote)
		v.Citations = append(v.Citations, c)
	}
	if v.Verdict == Fail && v.grounded() == 0 {
		reason := "no citations"
		switch {
		case len(v.Citations) > 0:
			var why []string
			for _, c := range v.Citations {
				why = append(why, c.Path+": "+c.GroundNote)
			}
			reason = fmt.Sprintf("%d citation(s), none grounded in the submission: %s", len(v.Citations), runeCut(strings.Join(why, "; "), 600))
		case pathless > 0:
			reason = fmt.Sprintf("%d evidence entry(s), none naming a file", pathless)
		}
		v.Verdict = Pass
		v.Downgraded = fmt.Sprintf("reported fail but the evidence did not check out (%s); counted as a pass rather than a failure", reason)
	}
	return v, true
}

// SubmissionRoot is the toolbox root holding the submission's tree: the
// only tree a citation can ground a verdict about the submission in.
const SubmissionRoot = "workspace"

// MinQuoteChars is the fewest letters and digits a quote must hold to
// ground a citation.
const MinQuoteChars = 3

// boilerplate are words that, alone or only with one another, say nothing
// about what a submission does: licence names and their notice words,
// comment markers, and keywords every program of a language has. A quote
// made of nothing else grounds nothing.
var boilerplate = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		mit isc bsd gpl lgpl agpl mpl epl cddl apache unlicense unlicensed cc cc0 by sa nc nd zlib wtfpl
		bsl boost artistic psf python postgresql ofl eupl osl afl ncsa x11 hpnd public domain
		spdx license licence licensed licenses identifier copyright c all rights reserved or and
		only later clause new simplified revised version v see the a of to in for with under is
		todo fixme xxx note hack
		package import imports include require requires use using module namespace export exports from
		func function fn def sub proc return returns end begin do done then fi esac else if elif
		main class struct public private protected static final const var let void int char
		true false nil null none undefined self this`) {
		boilerplate[w] = true
	}
}

// TrivialQuote says why quote cannot ground a citation, or "" when it
// can: after trimming it must hold at least [MinQuoteChars] letters or
// digits, at least one letter, and a word that is not [boilerplate] (a
// bare licence name such as "MIT", "SPDX-License-Identifier: Apache-2.0",
// "return nil" or "}" ground nothing).
func TrivialQuote(quote string) string {
	q := strings.TrimSpace(quote)
	if q == "" {
		return "no quote"
	}
	alnum, letters := 0, 0
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range q {
		switch {
		case unicode.IsLetter(r):
			alnum++
			letters++
			cur = append(cur, r)
		case unicode.IsDigit(r):
			alnum++
			flush()
		default:
			flush()
		}
	}
	flush()
	switch {
	case alnum < MinQuoteChars || letters == 0:
		return fmt.Sprintf("the quote %q is too short to show anything (fewer than %d letters or digits, or no letter)", runeCut(q, 40), MinQuoteChars)
	}
	for _, w := range words {
		if !boilerplate[w] {
			return ""
		}
	}
	return fmt.Sprintf("the quote %q holds only licence or boilerplate words", runeCut(q, 60))
}

// GroundCitation re-checks one citation of a review against tb, which
// holds the submission as the root [SubmissionRoot]: the citation grounds
// only when its quote is not trivial ([TrivialQuote]) and
// [agent.Toolbox.GroundLine] finds it at or near the cited line of an
// existing regular file of the submission's tree. A folder, a path with no
// line or quote, a note alone, and a line of State A's tree ground nothing.
// It returns whether the citation holds and why not ("verified" when it
// does).
func GroundCitation(tb *agent.Toolbox, path string, line int, quote string) (bool, string) {
	ok, note := tb.GroundLine(SubmissionRoot, path, line, quote)
	if !ok {
		return false, note
	}
	if why := TrivialQuote(quote); why != "" {
		return false, why
	}
	return true, note
}

func repr(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func runeCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
