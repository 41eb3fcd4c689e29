package task

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue/token"
)

// Problem is one thing wrong with a task's configuration. Every problem
// names the rule that found it, where (file, line, column) and which field
// (a CUE path such as "audit.gates[0].id"), and says how to fix it.
type Problem struct {
	Rule string    // a rule id, one of the Rule* constants
	Pos  token.Pos // in the task file or another file of the task; may be NoPos
	File string    // the file when Pos is NoPos (e.g. a missing prompt)
	Line int       // a line in File when Pos is NoPos (0: none)
	Path string    // the CUE path of the field, "" when the problem is about a file
	Msg  string    // what is wrong and how to fix it
}

// Note is an observation validate reports beside problems: counts,
// margins, things taken as declared. Notes never change the exit code.
type Note struct {
	Rule string
	Msg  string
}

// Where returns "file:line:col" (or "file:line", or "file") for p, with
// the file relative to base when base is not "".
func (p Problem) Where(base string) string {
	file, line, col := p.File, p.Line, 0
	if p.Pos.IsValid() {
		file, line, col = p.Pos.Filename(), p.Pos.Line(), p.Pos.Column()
	}
	if base != "" && file != "" {
		if rel, err := filepath.Rel(base, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	switch {
	case file == "":
		return "-"
	case line > 0 && col > 0:
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	case line > 0:
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// Error formats p as "file:line:col: path: message [rule]".
func (p Problem) Error() string {
	return p.format("")
}

func (p Problem) format(base string) string {
	var sb strings.Builder
	sb.WriteString(p.Where(base))
	sb.WriteString(": ")
	if p.Path != "" {
		sb.WriteString(p.Path)
		sb.WriteString(": ")
	}
	sb.WriteString(p.Msg)
	sb.WriteString(" [")
	sb.WriteString(p.Rule)
	sb.WriteString("]")
	return sb.String()
}

// Format is like Error with the file made relative to base.
func (p Problem) Format(base string) string { return p.format(base) }

// SortProblems orders problems by file, line, column, then rule and
// message, so output is stable.
func SortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		af, al, ac := a.loc()
		bf, bl, bc := b.loc()
		if af != bf {
			return af < bf
		}
		if al != bl {
			return al < bl
		}
		if ac != bc {
			return ac < bc
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Msg < b.Msg
	})
}

func (p Problem) loc() (string, int, int) {
	if p.Pos.IsValid() {
		return p.Pos.Filename(), p.Pos.Line(), p.Pos.Column()
	}
	return p.File, p.Line, 0
}

// Rule ids. Each rule is documented in docs/SCHEMA.md ("Rules").
const (
	// RuleTaskFolder: the folder or its task.cue cannot be read.
	RuleTaskFolder = "task-folder"
	// RuleSyntax: task.cue is not valid CUE.
	RuleSyntax = "cue-syntax"
	// RulePackage: the task file is not in package srb.
	RulePackage = "cue-package"
	// RuleSchema: a value does not satisfy the schema (type, bound, invariant).
	RuleSchema = "schema"
	// RuleUnknownField: a key the schema does not know (structs are closed).
	RuleUnknownField = "unknown-field"
	// RuleMissingField: a required key is absent or not concrete.
	RuleMissingField = "missing-field"
	// RuleQuotedValue: a number or boolean written as a string.
	RuleQuotedValue = "quoted-value"
	// RuleScoring: the scoring policy's arithmetic does not close.
	RuleScoring = "scoring-arithmetic"
	// RuleAdversaryCount: adversaries ≠ scoring.verification_models.
	RuleAdversaryCount = "adversary-count"
	// RuleNoAdversaries: scoring.verification_models is 0 (no stage 3).
	RuleNoAdversaries = "no-adversaries"
	// RuleUnrestricted: not exactly one unrestricted adversary.
	RuleUnrestricted = "adversary-unrestricted"
	// RuleRequiredGate: no gate is required.
	RuleRequiredGate = "required-gate"
	// RuleWeights: module weights are all zero.
	RuleWeights = "module-weights"
	// RuleAgentBudget: agent.budget_sec disagrees with budget_hours.
	RuleAgentBudget = "agent-budget"
	// RuleDuplicateID: two gates, modules or adversaries share an id.
	RuleDuplicateID = "duplicate-id"
	// RulePromptGates: a gate the audit prompt never mentions.
	RulePromptGates = "prompt-gates"
	// RulePlaceholder: a {{placeholder}} srb does not know.
	RulePlaceholder = "prompt-placeholder"
	// RuleFileExists: a file or program the task names does not exist.
	RuleFileExists = "file-exists"
	// RuleCandidateCommand: the candidate program or a file it names is a
	// relative path (a bare program name on PATH is fine).
	RuleCandidateCommand = "candidate-command"
	// RuleScope: no scope declared for stage 3.
	RuleScope = "scope-declared"
	// RuleModelDriver: a model's driver does not speak its family's dialect.
	RuleModelDriver = "model-driver"
	// RuleInstructionFigures: the instruction quotes a figure the policy contradicts.
	RuleInstructionFigures = "instruction-figures"
	// RuleLadderBudget: stage timeouts exceed the verifier ceiling.
	RuleLadderBudget = "ladder-budget"
	// RuleLayout: the task folder mixes programs and data.
	RuleLayout = "layout"
	// RuleCounts: notes only — how many gates, modules, adversaries.
	RuleCounts = "counts"
	// RuleScaffoldTODO: a line srb new marked TODO(srb new) is still there.
	RuleScaffoldTODO = "scaffold-todo"
	// RuleProvenanceWatch: a provenance rule names a tool its
	// configuration does not watch (the module would fail at freeze and
	// at every stage-2 run).
	RuleProvenanceWatch = "provenance-watch"
	// RuleTruth: a truth file (truth/<module>.json) does not fit the task:
	// provenance missing, empty or of another State A, cases changed, an
	// observation a module checks not recorded, another task or module.
	RuleTruth = "truth"
)
