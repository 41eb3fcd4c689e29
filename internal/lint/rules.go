package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// checker holds one task, its files read once, and the report.
type checker struct {
	t        *task.Task
	r        *Report
	cueLines []string
	doc      *doc // the instruction; nil when it cannot be read
	surfaces map[string]int
	allowBy  map[string][]int // surface id → allow items naming it
}

func newChecker(t *task.Task) *checker {
	c := &checker{t: t, surfaces: map[string]int{}, allowBy: map[string][]int{}}
	instr := filepath.Join(t.Dir, filepath.FromSlash(t.Instruction))
	c.r = &Report{Dir: t.Dir, Task: t, Instruction: instr}
	if b, err := os.ReadFile(t.File); err == nil {
		c.cueLines = strings.Split(string(b), "\n")
	}
	if b, err := os.ReadFile(instr); err == nil {
		c.doc = newDoc(b)
	} else {
		c.r.Findings = append(c.r.Findings, Finding{Rule: task.RuleFileExists, Severity: Error,
			Msg:       fmt.Sprintf("cannot read the instruction %s, so the scope cannot be checked against it: %v", t.Instruction, err),
			Locations: []Location{c.at("instruction")}})
	}
	v := t.Verification
	for i, s := range v.Surfaces {
		if _, ok := c.surfaces[s.ID]; !ok {
			c.surfaces[s.ID] = i
		}
	}
	for i, a := range v.Scope.Allow {
		for _, s := range a.Surfaces {
			if _, ok := c.surfaces[s]; ok && !slices.Contains(c.allowBy[s], i) {
				c.allowBy[s] = append(c.allowBy[s], i)
			}
		}
	}
	return c
}

// at is the location of the CUE path p in task.cue. A list element is
// shown at its id, which names it, rather than at its opening brace.
func (c *checker) at(p string) Location {
	pos := c.t.Pos(p)
	if strings.HasSuffix(p, "]") {
		pos = c.t.Pos(p + ".id")
	}
	l := Location{File: c.t.File, Field: p, Pos: pos}
	if pos.IsValid() {
		l.Line, l.Column = pos.Line(), pos.Column()
		if l.Line <= len(c.cueLines) {
			l.Quote = trimQuote(c.cueLines[l.Line-1])
		}
	}
	return l
}

// atLine is line n of the instruction.
func (c *checker) atLine(n int, note string) Location {
	l := Location{File: c.r.Instruction, Line: n, Note: note}
	if c.doc != nil && n > 0 && n <= len(c.doc.lines) {
		l.Quote = trimQuote(c.doc.lines[n-1])
	}
	return l
}

func (c *checker) add(rule string, locs []Location, format string, args ...any) {
	r, _ := ruleOf(rule)
	c.r.Findings = append(c.r.Findings, Finding{Rule: rule, Severity: r.Severity, Msg: fmt.Sprintf(format, args...), Locations: locs})
}

// promisedAt is the related location showing where the instruction
// promises surface id, when it does.
func (c *checker) promisedAt(id string) []Location {
	i, ok := c.surfaces[id]
	if !ok || c.doc == nil {
		return nil
	}
	for _, p := range c.t.Verification.Surfaces[i].Mentions {
		if line, ok := c.doc.find(p); ok {
			return []Location{c.atLine(line, fmt.Sprintf("the instruction promises %s here (%q)", id, p))}
		}
	}
	return nil
}

func (c *checker) surfaceIDs() []string {
	var ids []string
	for _, s := range c.t.Verification.Surfaces {
		ids = append(ids, s.ID)
	}
	return ids
}

func (c *checker) unknownSurface(at, id string) {
	hint := ""
	if s := task.Suggest(id, c.surfaceIDs()); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	declared := "none are declared"
	if ids := c.surfaceIDs(); len(ids) > 0 {
		declared = "declared: " + strings.Join(ids, ", ")
	}
	c.add(RuleSurfaceRef, []Location{c.at(at)}, "surface %q is not declared in verification.surfaces (%s)%s", id, declared, hint)
}

func (c *checker) surfaceRefs() {
	sc := c.t.Verification.Scope
	for i, a := range sc.Allow {
		for j, s := range a.Surfaces {
			if _, ok := c.surfaces[s]; !ok {
				c.unknownSurface(fmt.Sprintf("verification.scope.allow[%d].surfaces[%d]", i, j), s)
			}
		}
	}
	for i, d := range sc.Deny {
		for j, s := range d.Surfaces {
			if _, ok := c.surfaces[s]; !ok {
				c.unknownSurface(fmt.Sprintf("verification.scope.deny[%d].surfaces[%d]", i, j), s)
			}
		}
		for k, co := range d.CarveOuts {
			at := fmt.Sprintf("verification.scope.deny[%d].carve_outs[%d].surface", i, k)
			if _, ok := c.surfaces[co.Surface]; !ok {
				c.unknownSurface(at, co.Surface)
				continue
			}
			if !slices.Contains(d.Surfaces, co.Surface) {
				c.add(RuleSurfaceRef, []Location{c.at(at)}, "deny item %q carves out surface %q but does not name it in surfaces: add %q to its surfaces, or remove the carve-out", d.ID, co.Surface, co.Surface)
			}
		}
	}
}

func (c *checker) allowUnpromised() {
	for i, a := range c.t.Verification.Scope.Allow {
		if len(a.Surfaces) > 0 {
			continue // unknown ids are surface-ref's
		}
		c.add(RuleAllowUnpromised, []Location{c.at(fmt.Sprintf("verification.scope.allow[%d]", i))},
			"allow item %q names no promised surface: adversaries could assert on something nobody promised; add surfaces: [ids] (declared: %s), or remove the item",
			a.ID, orNone(c.surfaceIDs()))
	}
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// minWhyWords is how long a carve-out's why must be to count as a
// justification rather than a label.
const minWhyWords = 5

// denies checks each deny item's promised surfaces: without a justified
// carve-out it is unwinnable (deny-promised) or, when an allow item names
// the same surface, a contradiction (allow-deny-conflict).
func (c *checker) denies() {
	allow := c.t.Verification.Scope.Allow
	for i, d := range c.t.Verification.Scope.Deny {
		for j, s := range d.Surfaces {
			if _, ok := c.surfaces[s]; !ok {
				continue
			}
			at := fmt.Sprintf("verification.scope.deny[%d].surfaces[%d]", i, j)
			k := slices.IndexFunc(d.CarveOuts, func(co task.CarveOut) bool { return co.Surface == s })
			if k >= 0 {
				if n := len(strings.Fields(d.CarveOuts[k].Why)); n < minWhyWords {
					c.add(RuleDenyPromised, []Location{c.at(fmt.Sprintf("verification.scope.deny[%d].carve_outs[%d].why", i, k))},
						"the carve-out of %q from surface %q does not justify itself (%d word(s)): say in a sentence (at least %d words) why that part of %s is not promised", d.ID, s, n, minWhyWords, s)
				}
				continue
			}
			if as := c.allowBy[s]; len(as) > 0 {
				locs := []Location{c.at(at)}
				for _, a := range as {
					l := c.at(fmt.Sprintf("verification.scope.allow[%d]", a))
					l.Note = fmt.Sprintf("allow item %q names %s too", allow[a].ID, s)
					locs = append(locs, l)
				}
				c.add(RuleAllowDenyConflict, locs,
					"surface %q is both allowed and denied (deny item %q) without a carve-out: the adjudicator gets two answers; add carve_outs: [{surface: %q, why: \"…\"}] saying what part the deny excludes, or remove %q from one side",
					s, d.ID, s, s)
				continue
			}
			c.add(RuleDenyPromised, append([]Location{c.at(at)}, c.promisedAt(s)...),
				"deny item %q covers promised surface %q without a carve-out: forbidding what the instruction promised makes the task unwinnable; remove %q from its surfaces, or add carve_outs: [{surface: %q, why: \"…\"}]",
				d.ID, s, s, s)
		}
	}
}

func (c *checker) surfaceUnallowed() {
	for i, s := range c.t.Verification.Surfaces {
		if len(c.allowBy[s.ID]) > 0 || c.surfaces[s.ID] != i {
			continue
		}
		c.add(RuleSurfaceUnallowed, append([]Location{c.at(fmt.Sprintf("verification.surfaces[%d]", i))}, c.promisedAt(s.ID)...),
			"promised surface %q is covered by no allow item: nobody will look there; add an allow item with surfaces: [%q]", s.ID, s.ID)
	}
}

func (c *checker) adversaryDirections() {
	v := c.t.Verification
	if len(v.Adversaries) == 0 {
		return
	}
	var allowIDs []string
	for _, a := range v.Scope.Allow {
		allowIDs = append(allowIDs, a.ID)
	}
	first := map[string]string{}
	var unrestricted []string
	for i, a := range v.Adversaries {
		at := fmt.Sprintf("verification.adversaries[%d]", i)
		if a.Unrestricted {
			unrestricted = append(unrestricted, a.ID)
			if a.Direction != "" {
				c.add(RuleAdversaryDirections, []Location{c.at(at + ".direction")},
					"adversary %s is unrestricted but has direction %q: the unrestricted adversary takes none (say where to start in focus)", a.ID, a.Direction)
			}
			continue
		}
		switch {
		case a.Direction == "":
			c.add(RuleAdversaryDirections, []Location{c.at(at)},
				"adversary %s has no direction: set direction to the id of the allow item it spends its round on (allow items: %s)", a.ID, orNone(allowIDs))
		case !slices.Contains(allowIDs, a.Direction):
			hint := ""
			if s := task.Suggest(a.Direction, allowIDs); s != "" {
				hint = fmt.Sprintf("; did you mean %q?", s)
			}
			c.add(RuleAdversaryDirections, []Location{c.at(at + ".direction")},
				"adversary %s's direction %q is not an allow item (allow items: %s)%s", a.ID, a.Direction, orNone(allowIDs), hint)
		default:
			if prev, ok := first[a.Direction]; ok {
				c.add(RuleAdversaryDirections, []Location{c.at(at + ".direction")},
					"adversary %s takes direction %q, as %s does: directed adversaries spend their rounds on distinct allow items", a.ID, a.Direction, prev)
				continue
			}
			first[a.Direction] = a.ID
		}
	}
	if len(unrestricted) != 1 {
		c.add(RuleAdversaryDirections, []Location{c.at("verification.adversaries")},
			"%d adversaries are unrestricted (%s): exactly one must be, with no direction; the rest each take an allow item", len(unrestricted), orNone(unrestricted))
	}
}

// mandatory lists the mandatory denies and what each one is for.
var mandatory = []struct{ id, what, why string }{
	{"tree-identity", "the identity of the tree under test", "a candidate that detects which tree it runs against establishes nothing about the migration"},
	{"state-a-wrong", "behaviour State A also gets wrong", "a break State A shares is not a regression"},
	{"timing", "timing", "run time differs between any two builds"},
	{"addresses", "memory addresses", "addresses differ between any two runs"},
	{"ordering", "unspecified ordering", "an order nobody specified may differ without anything being wrong"},
}

func (c *checker) mandatoryDenies() {
	v := c.t.Verification
	at := "verification.scope.deny"
	if len(v.Scope.Deny) == 0 {
		at = "verification.scope"
	}
	for _, m := range mandatory {
		var promisedBy []string
		for _, s := range v.Surfaces {
			if slices.Contains(s.Promises, m.id) {
				promisedBy = append(promisedBy, s.ID)
			}
		}
		found := false
		for i, d := range v.Scope.Deny {
			if !slices.Contains(d.Mandatory, m.id) {
				continue
			}
			found = true
			for _, s := range promisedBy {
				carved := slices.ContainsFunc(d.CarveOuts, func(co task.CarveOut) bool { return co.Surface == s })
				if !carved {
					c.add(RuleMandatoryDenies, append([]Location{c.at(fmt.Sprintf("verification.scope.deny[%d].mandatory", i))}, c.promisedAt(s)...),
						"deny item %q denies %s, but surface %q promises it: drop %q from its mandatory list, or name %q with a carve-out", d.ID, m.what, s, m.id, s)
				}
			}
		}
		if found || len(promisedBy) > 0 {
			continue
		}
		c.add(RuleMandatoryDenies, []Location{c.at(at)},
			"no deny item covers %s (%s): add {id: %q, text: %q, mandatory: [%q]}%s",
			m.what, m.why, m.id, m.what, m.id, incidentalHint(m.id))
	}
}

func incidentalHint(id string) string {
	if id == "timing" || id == "addresses" || id == "ordering" {
		return fmt.Sprintf(", or, if a surface does promise it, list %q in that surface's promises", id)
	}
	return ""
}
