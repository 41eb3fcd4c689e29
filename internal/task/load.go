package task

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"

	"github.com/swe-refactor-bench/srb/schema"
)

// Load reads dir/task.cue, checks it against the schema's #Task and
// decodes it. It returns the task and nil, or nil and every schema problem
// found (never just the first), each with its file:line:col, field path
// and a message saying how to fix it. An unknown or misspelt key names
// the nearest known key.
func Load(dir string) (*Task, []Problem) {
	return LoadWith(dir, LoadOptions{})
}

// LoadWith is [Load] with options.
func LoadWith(dir string, o LoadOptions) (*Task, []Problem) {
	file := filepath.Join(dir, FileName)
	src, err := os.ReadFile(file)
	if err != nil {
		msg := fmt.Sprintf("cannot read the task: %v", err)
		if errors.Is(err, fs.ErrNotExist) {
			msg = fmt.Sprintf("no %s in %s: a task folder holds its declaration in %s (srb new scaffolds one)", FileName, dir, FileName)
		}
		return nil, []Problem{{Rule: RuleTaskFolder, File: file, Msg: msg}}
	}
	ctx := cuecontext.New()
	tv := ctx.CompileBytes(src, cue.Filename(file))
	if err := tv.Err(); err != nil {
		return nil, syntaxProblems(file, err)
	}
	// A task these bytes gave this build before, with no problem, is read
	// from the memo (LoadOptions.Memo) instead of being unified and decoded.
	memo := loadMemoPath(o.Memo, src)
	t := recallLoad(memo)
	if t == nil {
		sch := ctx.CompileBytes(schema.TaskCUE(), cue.Filename("schema/task.cue"))
		if err := sch.Err(); err != nil && !sch.Exists() {
			// The embedded schema is part of srb; failing to compile it is a bug.
			panic(fmt.Sprintf("srb's embedded task schema does not compile: %v", err))
		}
		def := sch.LookupPath(cue.ParsePath("#Task"))
		v := def.Unify(tv)
		t = &Task{Dir: dir, File: file, source: tv, def: def}
		if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
			ps := schemaProblems(t, v, err)
			if len(ps) == 0 {
				ps = []Problem{{Rule: RuleSchema, File: file, Msg: err.Error()}}
			}
			SortProblems(ps)
			return nil, ps
		}
		if err := v.Decode(t); err != nil {
			ps := schemaProblems(t, v, err)
			if len(ps) == 0 {
				// A value CUE accepts that Go cannot hold (a number too large
				// for its field): never a task without a problem.
				ps = []Problem{{Rule: RuleSchema, File: file, Msg: fmt.Sprintf("a value does not fit its field: %v", err)}}
			}
			return nil, ps
		}
		memoLoad(memo, t)
	}
	t.Dir, t.File, t.source, t.def = dir, file, tv, cue.Value{}
	if p := noAdversaries(t); p != nil {
		return nil, []Problem{*p}
	}
	if len(t.Verification.FaultExitCodes) == 0 {
		t.Verification.FaultExitCodes = DefaultFaultExitCodes()
	}
	return t, nil
}

// noAdversaries is the zero-adversaries rule (docs/SCHEMA.md,
// "no-adversaries"): a policy of verification_models: 0 is refused. srb's
// ladder has one shape, audit, behavioural, verification, and formula (4)
// pays stage 3 per surviving adversary; a task with none would pass
// validation and then stop at the ladder (the adjudicator's credential is
// asked for, and a verification stage with no round is a harness fault).
// Refusing it here, where every command loads the task, means it never
// validates and then fails: validate, lint, ladder and score all exit 2 on
// it.
func noAdversaries(t *Task) *Problem {
	if t.Scoring.VerificationModels != 0 {
		return nil
	}
	return &Problem{Rule: RuleNoAdversaries, Pos: t.Pos("scoring.verification_models"), File: t.File, Path: "scoring.verification_models",
		Msg: "verification_models is 0: a task must declare at least one adversary; srb's ladder always runs stage 3 (formula (4) pays it per survivor), so a behavioural-only policy would validate and then fail at grading; declare adversaries (the published policy has 6)"}
}

// DefaultFaultExitCodes are 64–78, the sysexits codes (HARNESS.md §4.3):
// a candidate exiting with one of them says the tree could not be tested.
func DefaultFaultExitCodes() []int {
	codes := make([]int, 0, 15)
	for c := 64; c <= 78; c++ {
		codes = append(codes, c)
	}
	return codes
}

func syntaxProblems(file string, err error) []Problem {
	var ps []Problem
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		ps = append(ps, Problem{Rule: RuleSyntax, Pos: e.Position(), File: file, Msg: fmt.Sprintf(format, args...)})
	}
	if len(ps) == 0 {
		ps = append(ps, Problem{Rule: RuleSyntax, File: file, Msg: err.Error()})
	}
	return ps
}

// cueErr is one CUE error taken apart.
type cueErr struct {
	path []string // without the leading #Task
	pos  token.Pos
	msg  string
}

var (
	reDisjunction = regexp.MustCompile(`^(\d+) errors? in empty disjunction:?$`)
	reConflict    = regexp.MustCompile(`^conflicting values (.+?) and (.+?)(?: \(mismatched types (\w+) and (\w+)\))?$`)
	reInvalid     = regexp.MustCompile(`^invalid value (.*) \((does not satisfy|out of bound) (.*)\)(?:: (.*))?$`)
	reMinMax      = regexp.MustCompile(`list\.(Min|Max)Items`)
)

// schemaProblems turns CUE's evaluation errors into problems: one per
// field, with the position in the task file, and messages rewritten so
// they say how to fix the task rather than how the evaluator failed.
func schemaProblems(t *Task, v cue.Value, err error) []Problem {
	var raw []cueErr
	for _, e := range cueerrors.Errors(err) {
		path := e.Path()
		if len(path) > 0 && path[0] == "#Task" {
			path = path[1:]
		}
		format, args := e.Msg()
		raw = append(raw, cueErr{path: path, pos: pickPos(t.File, e), msg: fmt.Sprintf(format, args...)})
	}
	// Group by path, in first-seen order: a disjunction reports one error
	// per alternative and they belong together.
	var order []string
	groups := map[string][]cueErr{}
	for _, r := range raw {
		k := strings.Join(r.path, "\x00")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	// A wrong module kind makes every one of its params "not allowed":
	// that is noise once the kind itself is reported.
	badKind := map[string]bool{}
	for _, k := range order {
		p := groups[k][0].path
		if len(p) > 0 && p[len(p)-1] == "kind" {
			badKind[strings.Join(p[:len(p)-1], "\x00")] = true
		}
	}
	// One struct of several chosen by its kind (a State A source: debian,
	// gomod, local, …): when the author's kind names an alternative and
	// that alternative failed on another field (an unknown key), every
	// other alternative's "kind must be X" is noise, and only the other
	// field is reported.
	for _, k := range order {
		p := groups[k][0].path
		if len(p) == 0 || p[len(p)-1] != "kind" || !alternatives(groups[k]) {
			continue
		}
		parent := strings.Join(p[:len(p)-1], "\x00") + "\x00"
		for _, o := range order {
			// A wrong kind makes every param "not allowed" (badKind above):
			// those are not the other field.
			if o != k && strings.HasPrefix(o, parent) && !strings.HasPrefix(o, parent+"params\x00") {
				delete(groups, k)
				break
			}
		}
	}
	var ps, hidden []Problem
	seen := map[string]bool{}
	for _, k := range order {
		g, ok := groups[k]
		if !ok {
			continue
		}
		p := g[0].path
		if i := indexOf(p, "params"); i > 0 && badKind[strings.Join(p[:i], "\x00")] {
			continue
		}
		prob := explain(t, v, g)
		if prob.Msg == "" {
			continue
		}
		key := prob.Path + "\x00" + prob.Msg
		if seen[key] {
			continue
		}
		seen[key] = true
		if hiddenPath(prob.Path) {
			// The schema's own bookkeeping (verification._models copies
			// scoring.verification_models): a consequence of the field the
			// author wrote, reported there.
			hidden = append(hidden, prob)
			continue
		}
		ps = append(ps, prob)
	}
	if len(ps) == 0 {
		for _, h := range hidden {
			h.Path = visiblePath(h.Path)
			h.Msg = strings.ReplaceAll(h.Msg, "_|_ ", "")
			ps = append(ps, h)
		}
	}
	return ps
}

// alternatives reports whether a group is one field's conflicts with
// each alternative of a disjunction (two or more "conflicting values a
// and b" with no type mismatch).
func alternatives(g []cueErr) bool {
	n := 0
	for _, e := range g {
		if reDisjunction.MatchString(e.msg) {
			continue
		}
		c := reConflict.FindStringSubmatch(e.msg)
		if c == nil || c[3] != "" {
			return false
		}
		n++
	}
	return n >= 2
}

// hiddenPath reports whether a CUE path names a hidden field (a segment
// starting with "_"), which the author never writes.
func hiddenPath(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' }) {
		if strings.HasPrefix(seg, "_") {
			return true
		}
	}
	return false
}

// visiblePath cuts a CUE path before its first hidden segment.
func visiblePath(p string) string {
	if i := strings.Index(p, "._"); i >= 0 {
		return p[:i]
	}
	return p
}

func indexOf(p []string, s string) int {
	for i, x := range p {
		if x == s {
			return i
		}
	}
	return -1
}

// pickPos prefers a position in the task file over one in the schema.
func pickPos(file string, e cueerrors.Error) token.Pos {
	for _, p := range cueerrors.Positions(e) {
		if p.Filename() == file {
			return p
		}
	}
	return token.NoPos
}

// cuePath renders path elements as a CUE path: a.b[0].c.
func cuePath(p []string) string {
	var sb strings.Builder
	for _, el := range p {
		if _, err := strconv.Atoi(el); err == nil {
			sb.WriteString("[" + el + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(el)
	}
	return sb.String()
}

func explain(t *Task, v cue.Value, g []cueErr) Problem {
	path := cuePath(g[0].path)
	pos := token.NoPos
	for _, e := range g {
		if e.pos.IsValid() {
			pos = e.pos
			break
		}
	}
	if !pos.IsValid() {
		pos = t.Pos(path)
	}
	prob := Problem{Rule: RuleSchema, Pos: pos, File: t.File, Path: path}
	last := ""
	if n := len(g[0].path); n > 0 {
		last = g[0].path[n-1]
	}

	// Collect the informative messages: drop the disjunction header and,
	// inside a disjunction, the "conflicting values <default> and x" lines
	// when a more specific reason exists.
	var msgs []string
	disj := alternatives(g)
	for _, e := range g {
		if reDisjunction.MatchString(e.msg) {
			disj = true
			continue
		}
		msgs = append(msgs, e.msg)
	}
	if disj {
		var alts []string
		var got string
		var other []string
		lit := ""
		if uv := t.source.LookupPath(cue.ParsePath(path)); uv.Exists() && uv.IsConcrete() {
			lit = fmt.Sprint(uv)
		}
		for _, m := range msgs {
			if c := reConflict.FindStringSubmatch(m); c != nil && c[3] == "" {
				a, b := c[1], c[2]
				if a == lit && b != lit {
					a, b = b, a
				}
				alts = append(alts, a)
				got = b
				continue
			}
			other = append(other, m)
		}
		// A bound the value breaks says more than the default it differs
		// from, and an alternative that names a type (number) more than a
		// default's literal (1): "must be a number", not "a whole number".
		rank := func(m string) int {
			c := reConflict.FindStringSubmatch(m)
			switch {
			case c == nil:
				return 0
			case typeWord[c[1]] || typeWord[c[2]]:
				return 1
			}
			return 2
		}
		sort.SliceStable(other, func(i, j int) bool { return rank(other[i]) < rank(other[j]) })
		switch {
		case len(other) > 0:
			msgs = other
		case len(alts) > 0 && last == "kind" && len(g[0].path) > 2 && g[0].path[len(g[0].path)-3] == "modules":
			// CUE lists only some of the kinds; name them all.
			prob.Msg = fmt.Sprintf("%s is not a module kind srb knows (known: %s)", got, strings.Join(moduleKinds(v), ", "))
			return prob
		case len(alts) > 0:
			sort.Strings(alts)
			prob.Msg = fmt.Sprintf("%s is not one of %s", got, strings.Join(alts, ", "))
			return prob
		}
	}
	if len(msgs) == 0 {
		return Problem{}
	}
	m := msgs[0]

	switch {
	case strings.HasPrefix(m, "invalid interpolation"):
		return Problem{} // a consequence of another field's problem (class)
	case strings.HasPrefix(m, "incompatible list lengths (0 and"):
		prob.Msg = fmt.Sprintf("%s is empty: list at least one", last)
		return prob
	case m == "field not allowed":
		prob.Rule = RuleUnknownField
		prob.Msg = fmt.Sprintf("unknown field %q", last)
		known := allowedFields(v, g[0].path[:len(g[0].path)-1])
		// Inside a kind's alternative (a source's limits) the value lists
		// the author's own fields, the unknown one among them, not the
		// schema's.
		if len(known) == 0 || slices.Contains(known, last) {
			known = alternativeFields(t, g[0].path[:len(g[0].path)-1])
		}
		if s := suggest(last, known); s != "" {
			prob.Msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return prob
	case strings.HasPrefix(m, "incomplete value") || strings.Contains(m, "field is required but not present") ||
		strings.HasPrefix(m, "non-concrete value"):
		prob.Rule = RuleMissingField
		prob.Msg = fmt.Sprintf("%s is required and has no value: declare it (docs/SCHEMA.md describes it)", last)
		if !pos.IsValid() {
			prob.Pos = t.Pos(path)
		}
		return prob
	}

	if c := reConflict.FindStringSubmatch(m); c != nil {
		want, got, wantType, gotType := c[1], c[2], c[3], c[4]
		// CUE orders the operands as it met them; the author's value is
		// the one written in the task file.
		if uv := t.source.LookupPath(cue.ParsePath(path)); uv.Exists() && uv.IsConcrete() {
			lit := fmt.Sprint(uv)
			if lit == want && lit != got {
				want, got, wantType, gotType = got, want, gotType, wantType
			}
			if wantType != "" {
				gotType = kindName(uv.Kind())
			}
		}
		if wantType == "bool" || wantType == "int" {
			want = wantType
		}
		switch {
		case gotType == "string" && (wantType == "int" || wantType == "float" || wantType == "number" || wantType == "bool"):
			prob.Rule = RuleQuotedValue
			prob.Msg = fmt.Sprintf("must be %s, not the string %s: write it without quotes", article(wantType), got)
		case wantType == "int" && gotType == "float":
			prob.Msg = fmt.Sprintf("must be a whole number, not %s", got)
		case wantType == "string" && (gotType == "int" || gotType == "float" || gotType == "number" || gotType == "bool"):
			prob.Msg = fmt.Sprintf("must be a string, not %s: quote it", got)
		case gotType == "null":
			prob.Msg = fmt.Sprintf("must be %s, not null", article(wantType))
		case wantType != "" && (gotType == "struct" || gotType == "list"):
			prob.Msg = fmt.Sprintf("must be %s, not %s", article(wantType), article(gotType))
		case wantType != "":
			prob.Msg = fmt.Sprintf("must be %s, not %s (%s)", article(wantType), gotType, clip(got, 60))
		default:
			prob.Msg = fmt.Sprintf("must be %s, not %s", clip(want, 60), clip(got, 60))
		}
		if last == "kind" && len(g[0].path) > 2 && g[0].path[len(g[0].path)-3] == "modules" {
			prob.Msg = fmt.Sprintf("%s is not a module kind srb knows (known: %s)", got, strings.Join(moduleKinds(v), ", "))
		}
		switch path {
		case "scoring.max_score":
			prob.Rule = RuleScoring
			prob.Msg = fmt.Sprintf("max_score is %s but behavioural_points + verification_points = %s: the policy's points must add up to the maximum", got, want)
		case "scoring.verification_points":
			prob.Rule = RuleScoring
			prob.Msg = fmt.Sprintf("verification_points is %s but points_per_survived_model × verification_models = %s", got, want)
		case "agent.budget_sec":
			prob.Rule = RuleAgentBudget
			prob.Msg = fmt.Sprintf("budget_sec is %s but budget_hours × 3600 = %s: set budget_hours and leave budget_sec out", got, want)
		}
		return prob
	}

	if c := reInvalid.FindStringSubmatch(m); c != nil {
		val, kind, bound, detail := c[1], c[2], c[3], c[4]
		switch {
		case path == "audit._required":
			prob.Path = "audit.gates"
			prob.Pos = t.Pos("audit.gates")
			prob.Rule = RuleRequiredGate
			prob.Msg = "no gate is required: mark at least one gate required: true (a gate that cannot fail is not a gate)"
		case path == "verification.adversaries" && reMinMax.MatchString(bound):
			prob.Rule = RuleAdversaryCount
			prob.Msg = adversaryCountMsg(t, v)
		case path == "verification._unrestricted":
			prob.Path = "verification.adversaries"
			prob.Pos = t.Pos("verification.adversaries")
			prob.Rule = RuleUnrestricted
			n := countTrue(v, "verification.adversaries", "unrestricted")
			prob.Msg = fmt.Sprintf("%d adversaries are marked unrestricted: exactly one must be (unrestricted: true), the rest take a direction", n)
		case path == "behavioural._weights" || last == "_weights":
			prob.Rule = RuleWeights
			prob.Path = "behavioural.modules"
			prob.Pos = t.Pos("behavioural.modules")
			prob.Msg = "the module weights sum to 0: give at least one module a weight above 0 (weight 0 reports without judging)"
		case path == "id":
			prob.Msg = fmt.Sprintf("%s must be <class prefix><2 digits>-<slug>, and the prefix of class %q is %q", val, classOf(v), prefixOf(v))
		case strings.HasPrefix(bound, "strings.MinRunes(1)"):
			prob.Msg = "must not be empty"
		case path == "state_b.detect" && (strings.HasPrefix(bound, "!~") || strings.HasPrefix(bound, "=~")):
			prob.Msg = fmt.Sprintf("%s is not a clean relative path (relative; no \".\", \"..\" or empty segment; no trailing \"/\"): write it as the tree under test names it, e.g. \"go.mod\"", val)
		case strings.HasPrefix(bound, "!~") && strings.Contains(bound, `\\.\\.`):
			prob.Msg = fmt.Sprintf("%s must not contain \"..\": paths stay inside the task folder", val)
		case strings.HasPrefix(bound, "=~"):
			if len(val) > 60 {
				val = "value"
			}
			prob.Msg = fmt.Sprintf("%s does not match the pattern %s", val, strings.TrimPrefix(bound, "=~"))
		default:
			if len(val) > 60 {
				val = "value"
			}
			if kind == "out of bound" {
				prob.Msg = fmt.Sprintf("%s is out of bound %s", val, bound)
			} else {
				prob.Msg = fmt.Sprintf("%s does not satisfy %s", val, bound)
			}
			if detail != "" {
				prob.Msg += ": " + detail
			}
		}
		return prob
	}
	prob.Msg = m
	return prob
}

// typeWord holds the names CUE's conflict messages use for a type.
var typeWord = map[string]bool{"int": true, "float": true, "number": true, "string": true, "bool": true, "null": true, "struct": true, "list": true}

// kindName names a CUE kind the way CUE's messages do.
func kindName(k cue.Kind) string {
	switch k {
	case cue.IntKind:
		return "int"
	case cue.FloatKind:
		return "float"
	case cue.NumberKind:
		return "number"
	case cue.StringKind:
		return "string"
	case cue.BoolKind:
		return "bool"
	case cue.NullKind:
		return "null"
	case cue.StructKind:
		return "struct"
	case cue.ListKind:
		return "list"
	}
	return k.String()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func article(kind string) string {
	switch kind {
	case "int":
		return "a whole number"
	case "float", "number":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "list":
		return "a list"
	case "struct":
		return "a struct"
	}
	return kind
}

// moduleKinds lists the kinds of #ModuleKinds in the schema.
func moduleKinds(v cue.Value) []string {
	var out []string
	it, err := v.Context().CompileBytes(schema.TaskCUE()).LookupPath(cue.ParsePath("#ModuleKinds")).Fields()
	if err != nil {
		return nil
	}
	for it.Next() {
		out = append(out, it.Selector().Unquoted())
	}
	sort.Strings(out)
	return out
}

func adversaryCountMsg(t *Task, v cue.Value) string {
	n := listLen(t.source.LookupPath(cue.ParsePath("verification.adversaries")))
	want, _ := v.LookupPath(cue.ParsePath("scoring.verification_models")).Int64()
	per, _ := v.LookupPath(cue.ParsePath("scoring.points_per_survived_model")).Float64()
	gap := int64(n) - want
	if gap < 0 {
		return fmt.Sprintf("%d adversaries declared but scoring.verification_models is %d: %s of the verification points (%s per missing adversary) could never be contested; declare %d more",
			n, want, fmtNum(float64(-gap)*per), fmtNum(per), -gap)
	}
	return fmt.Sprintf("%d adversaries declared but scoring.verification_models is %d: the policy pays for %d survivors (%s points in all), so %d would run for nothing; remove %d or raise verification_models",
		n, want, want, fmtNum(float64(want)*per), gap, gap)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func listLen(v cue.Value) int {
	it, err := v.List()
	if err != nil {
		return 0
	}
	n := 0
	for it.Next() {
		n++
	}
	return n
}

func countTrue(v cue.Value, list, field string) int {
	it, err := v.LookupPath(cue.ParsePath(list)).List()
	if err != nil {
		return 0
	}
	n := 0
	for it.Next() {
		if b, err := it.Value().LookupPath(cue.ParsePath(field)).Bool(); err == nil && b {
			n++
		}
	}
	return n
}

func classOf(v cue.Value) string {
	s, _ := v.LookupPath(cue.ParsePath("class")).String()
	return s
}

func prefixOf(v cue.Value) string {
	prefixes := map[string]string{"language": "lang", "framework": "fw", "platform": "pf", "build": "build"}
	return prefixes[classOf(v)]
}

// allowedFields lists the regular and optional field names of the struct
// at path in v (the schema unified with the task).
func allowedFields(v cue.Value, path []string) []string {
	sel := make([]cue.Selector, 0, len(path))
	for _, el := range path {
		if i, err := strconv.Atoi(el); err == nil {
			sel = append(sel, cue.Index(i))
		} else {
			sel = append(sel, cue.Str(el))
		}
	}
	return fieldNames(v.LookupPath(cue.MakePath(sel...)))
}

// fieldNames lists the names of v's fields, optional ones included; nil
// when v is no struct.
func fieldNames(v cue.Value) []string {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var names []string
	for it.Next() {
		names = append(names, it.Selector().Unquoted())
	}
	return names
}

// alternativeFields lists the fields of the schema struct at path when
// that struct is, or lies inside, one of several structs chosen by kind (a
// State A source, and its limits): the fields at path of the alternative
// whose kind the author wrote at the nearest level of path that has one,
// or nil.
func alternativeFields(t *Task, path []string) []string {
	if !t.def.Exists() {
		return nil
	}
	for k := len(path); k >= 0; k-- {
		kind := t.source.LookupPath(cue.ParsePath(cuePath(append(append([]string(nil), path[:k]...), "kind"))))
		if !kind.Exists() {
			continue
		}
		// Unified with the author's kind alone, the disjunction resolves
		// to the one alternative of that kind.
		lit, err := kind.String()
		if err != nil {
			return nil
		}
		alt := t.def.LookupPath(cue.MakePath(schemaSelectors(path[:k])...)).FillPath(cue.ParsePath("kind"), lit)
		// The alternative's optional fields (a source's limits?) are
		// reached through its field list.
		for _, el := range path[k:] {
			alt = optionalField(alt, el)
		}
		return fieldNames(alt)
	}
	return nil
}

// optionalField is the field name of the struct v, optional or not (an
// element of a list when name is an index), or a value that does not exist.
func optionalField(v cue.Value, name string) cue.Value {
	if _, err := strconv.Atoi(name); err == nil {
		return v.LookupPath(cue.MakePath(cue.AnyIndex))
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return cue.Value{}
	}
	for it.Next() {
		if it.Selector().Unquoted() == name {
			return it.Value()
		}
	}
	return cue.Value{}
}

// schemaSelectors are the selectors of path in the schema, where a list
// index is any element of the list.
func schemaSelectors(path []string) []cue.Selector {
	sel := make([]cue.Selector, 0, len(path))
	for _, el := range path {
		if _, err := strconv.Atoi(el); err == nil {
			sel = append(sel, cue.AnyIndex)
		} else {
			sel = append(sel, cue.Str(el))
		}
	}
	return sel
}

// Suggest returns the name in known closest to s, or "" when none is
// close enough (the rule behind "did you mean …?" messages).
func Suggest(s string, known []string) string { return suggest(s, known) }

// suggest returns the known name closest to s, or "" when none is close:
// similarity = 1 − edit distance / longer length, at least 0.6 (the
// cutoff the earlier harness used with difflib, HARNESS.md §3).
func suggest(s string, known []string) string {
	best, bestScore := "", 0.0
	for _, k := range known {
		if k == s {
			continue
		}
		n := max(len(s), len(k))
		if n == 0 {
			continue
		}
		score := 1 - float64(editDistance(s, k))/float64(n)
		if score > bestScore || (score == bestScore && k < best) {
			best, bestScore = k, score
		}
	}
	if bestScore >= 0.6 {
		return best
	}
	return ""
}

// editDistance is the Damerau (optimal string alignment) distance, so a
// swapped pair of letters ("wieght") costs one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
