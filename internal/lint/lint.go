// Package lint checks a task's stage-3 scope against its instruction: the
// promised surfaces, the allow and deny items that name them, the
// adversaries' directions and the mandatory denies (the paper's appendix
// A, "Draw the boundary for the verifiers"). A scope that forbids what the
// instruction promised makes the task unwinnable; one that allows what the
// instruction excluded makes it unloseable.
//
// Every [Finding] names its rule, a severity, a message saying how to fix
// it, and locations in task.cue (line, column, CUE path) and in the
// instruction (line), each with the line quoted. [WriteText], [WriteJSON]
// and [WriteSARIF] render reports; docs/AUTHORING.md explains the rules.
package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue/token"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Severity is how much a finding matters: an Error makes srb lint (and
// srb validate) exit 2; a Warning does so under --strict; Advice never does.
type Severity int

// The severities, most severe first.
const (
	Error Severity = iota
	Warning
	Advice
)

// String implements fmt.Stringer.
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "advice"
}

// sarifLevel is the SARIF 2.1.0 result level of s (§3.27.10).
func (s Severity) sarifLevel() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// Rule ids. docs/AUTHORING.md ("Writing a scope that lint accepts") and
// the Rules table of docs/SCHEMA.md describe each.
const (
	// RuleSurfaceUnmentioned: the instruction mentions none of a surface's phrases.
	RuleSurfaceUnmentioned = "surface-unmentioned"
	// RuleSurfaceRef: a scope item or carve-out names a surface not declared.
	RuleSurfaceRef = "surface-ref"
	// RuleAllowUnpromised: an allow item names no promised surface.
	RuleAllowUnpromised = "allow-unpromised"
	// RuleDenyPromised: a deny item covers a promised surface no allow item
	// names, without a justified carve-out (unwinnable).
	RuleDenyPromised = "deny-promised"
	// RuleSurfaceUnallowed: a promised surface no allow item covers.
	RuleSurfaceUnallowed = "surface-unallowed"
	// RuleAllowDenyConflict: a surface both allowed and denied without a carve-out.
	RuleAllowDenyConflict = "allow-deny-conflict"
	// RuleAdversaryDirections: directions are distinct allow items, and
	// exactly one adversary is unrestricted.
	RuleAdversaryDirections = "adversary-directions"
	// RuleMandatoryDenies: the mandatory denies are present.
	RuleMandatoryDenies = "mandatory-denies"
	// RuleInstructionChecks: the instruction quotes case ids, truth values
	// or module internals.
	RuleInstructionChecks = "instruction-checks"
	// RulePromiseUncaptured: an instruction sentence promises a behaviour
	// no surface captures.
	RulePromiseUncaptured = "promise-uncaptured"
	// RuleInstructionGraderPath: the instruction sends the agent to a
	// path only the grader has ([task.GraderPaths]).
	RuleInstructionGraderPath = "instruction-grader-path"
)

// Rule describes one lint rule.
type Rule struct {
	ID       string
	Severity Severity
	// Title says in one line what the rule checks.
	Title string
	// Help says how to fix what it reports.
	Help string
}

var rules = []Rule{
	{RuleSurfaceUnmentioned, Error, "every promised surface is mentioned in the instruction",
		"Promise the surface in the instruction, or list in mentions the phrase the instruction already uses for it."},
	{RuleSurfaceRef, Error, "scope items and carve-outs name declared surfaces",
		"Declare the surface in verification.surfaces, or correct the id; a carve-out names a surface its own item names."},
	{RuleAllowUnpromised, Error, "every allow item names a promised surface",
		"Name the surfaces the item is about; if the instruction promises nothing there, remove the item: adversaries would assert on something nobody promised."},
	{RuleDenyPromised, Error, "a deny item narrows a promised surface only with a justified carve-out",
		"Remove the surface from the deny item, or add carve_outs: [{surface, why}] saying in a sentence why that part is not promised."},
	{RuleSurfaceUnallowed, Warning, "every promised surface is covered by an allow item",
		"Add an allow item that names the surface, or drop the surface if stage 3 should not look there."},
	{RuleAllowDenyConflict, Error, "no surface is both allowed and denied without a carve-out",
		"Give the deny item a carve-out for the surface saying what part it excludes, or remove the surface from one side."},
	{RuleAdversaryDirections, Error, "directed adversaries take distinct allow items; exactly one is unrestricted",
		"Set each directed adversary's direction to a different allow item id; mark exactly one adversary unrestricted: true, with no direction."},
	{RuleMandatoryDenies, Error, "the mandatory denies are present",
		"Add deny items marked mandatory: tree-identity, state-a-wrong, timing, addresses and ordering (the last three unless a surface promises them)."},
	{RuleInstructionChecks, Error, "the instruction does not enumerate the checks",
		"State the requirement instead of quoting case ids, truth values or module files: an instruction that lists the tests is an instruction to satisfy them."},
	{RuleInstructionGraderPath, Error, "the instruction names no path only the grader has",
		"The agent's image never holds /tests, /truth, /opt/srb, /logs/verifier or /opt/original: State A is the first commit of the repository the agent works in (artifacts.path), so point there (git log, git show, git diff against it)."},
	{RulePromiseUncaptured, Advice, "instruction sentences that promise a behaviour are captured by a surface",
		"Declare a surface whose mentions include a phrase of the sentence, or reword it if stage 3 has nothing to check there."},
}

func ruleOf(id string) (Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Location is one place a finding points at: a field of task.cue (Field
// is its CUE path, Pos its position) or a line of another file.
type Location struct {
	File   string    // the file, as the task was given (relative paths stay relative)
	Line   int       // 1-based; 0 when the whole file is meant
	Column int       // 1-based; 0 when unknown
	Field  string    // the CUE path in task.cue, "" for other files
	Pos    token.Pos // the CUE position when Field is set; may be NoPos
	Quote  string    // the text of Line, trimmed; "" when Line is 0
	Note   string    // what this location shows (related locations only)
}

// Finding is one thing lint reports. Locations[0] is where to fix it; the
// rest are related (the instruction line a surface is promised on, the
// allow item a deny contradicts).
type Finding struct {
	Rule      string
	Severity  Severity
	Msg       string
	Locations []Location
}

// Mention is where the instruction mentions a promised surface: Line and
// Phrase when found, Line 0 when none of its phrases occurs.
type Mention struct {
	Surface string
	Line    int
	Phrase  string
	Quote   string
}

// Report is the outcome of linting one task folder.
type Report struct {
	Dir string
	// Task is nil when the task did not load; Findings then hold the
	// loader's problems (errors, under their validate rule ids).
	Task        *task.Task
	Instruction string // the instruction's path ("" when the task did not load)
	Findings    []Finding
	Mentions    []Mention
}

// Name is the task's id, or the folder's name when it did not load.
func (r *Report) Name() string {
	if r.Task != nil {
		return r.Task.ID
	}
	return filepath.Base(r.Dir)
}

// Count returns how many findings have severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Failed reports whether r has an error, or with strict a warning.
func (r *Report) Failed(strict bool) bool {
	return r.Count(Error) > 0 || (strict && r.Count(Warning) > 0)
}

// Lint loads the task in dir and checks it. A task the schema rejects is
// reported with the loader's problems as error findings.
func Lint(dir string) *Report {
	t, ps := task.Load(dir)
	if len(ps) > 0 {
		r := &Report{Dir: dir}
		for _, p := range ps {
			loc := Location{File: p.File, Line: p.Line, Field: p.Path}
			if p.Pos.IsValid() {
				loc.File, loc.Line, loc.Column, loc.Pos = p.Pos.Filename(), p.Pos.Line(), p.Pos.Column(), p.Pos
			}
			loc.Quote = quoteLine(loc.File, loc.Line)
			r.Findings = append(r.Findings, Finding{Rule: p.Rule, Severity: Error, Msg: p.Msg, Locations: []Location{loc}})
		}
		return r
	}
	return Check(t)
}

// Check runs every lint rule on a loaded task. It reads the instruction
// and the task folder's modules/, truth/ and prompts/; an instruction that
// cannot be read is one file-exists error and the instruction rules are
// skipped.
func Check(t *task.Task) *Report {
	c := newChecker(t)
	c.surfaceRefs()
	c.allowUnpromised()
	c.denies()
	c.surfaceUnallowed()
	c.adversaryDirections()
	c.mandatoryDenies()
	if c.doc != nil {
		c.surfaceMentions()
		c.instructionChecks()
		c.graderPaths()
		c.promisesUncaptured()
	}
	sortFindings(c.r.Findings)
	return c.r
}

// Problems returns r's error findings as validate problems (srb validate
// runs lint's error rules). A missing instruction is left out: validate's
// file-exists rule reports it already.
func Problems(r *Report) []task.Problem {
	var ps []task.Problem
	for _, f := range r.Findings {
		if f.Severity != Error || f.Rule == task.RuleFileExists {
			continue
		}
		if _, ok := ruleOf(f.Rule); !ok {
			continue // a loader problem: validate has it already
		}
		l := f.Locations[0]
		ps = append(ps, task.Problem{Rule: f.Rule, Pos: l.Pos, File: l.File, Line: l.Line, Path: l.Field, Msg: f.Msg})
	}
	return ps
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Locations[0], fs[j].Locations[0]
		if a.File != b.File {
			return a.File > b.File // task.cue before instruction.md
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if fs[i].Rule != fs[j].Rule {
			return fs[i].Rule < fs[j].Rule
		}
		return fs[i].Msg < fs[j].Msg
	})
}

// quoteLine returns line n of file, trimmed, or "" when it cannot.
func quoteLine(file string, n int) string {
	if n <= 0 || file == "" {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n > len(lines) {
		return ""
	}
	return trimQuote(lines[n-1])
}

// trimQuote is one line of a file as a finding quotes it: trimmed, escaped
// (archive.EscapeText) and cut to 120 runes.
func trimQuote(s string) string {
	// Quoted lines include truth values, State A's own output: no control
	// character, bidi override or line separator of theirs reaches a
	// report as itself (archive.EscapeText; a quote holds no newline).
	s = archive.EscapeText(strings.TrimSpace(s))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
