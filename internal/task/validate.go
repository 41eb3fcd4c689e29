package task

import (
	"bytes"
	"cuelang.org/go/cue/ast"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Report is the outcome of validating one task folder: every problem at
// once, and notes (counts, margins) beside them. Task is nil when the
// schema rejected the declaration.
type Report struct {
	Dir      string
	Task     *Task
	Problems []Problem
	Notes    []Note
}

// OK reports whether validation found no problem.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Validate loads the task in dir and runs every static rule on it. Rules
// that need the schema-checked task run only when the schema accepts it;
// the schema's problems are then the whole report.
func Validate(dir string) *Report {
	return validate(dir, ValidateOptions{})
}

func validate(dir string, o ValidateOptions) *Report {
	r := &Report{Dir: dir}
	t, ps := LoadWith(dir, LoadOptions{Memo: o.LoadMemo})
	if len(ps) > 0 {
		r.Problems = ps
		return r
	}
	r.Task = t
	v := &validator{t: t, r: r, truthMemo: o.TruthMemo}
	for _, rule := range []func(){
		v.packageClause,
		v.duplicateIDs,
		v.filesExist,
		v.promptGates,
		v.promptPlaceholders,
		v.candidateCommand,
		v.scopeDeclared,
		v.modelDrivers,
		v.instructionFigures,
		v.ladderBudget,
		v.layout,
		v.counts,
		v.imagesDistinct, v.imagesLackInstalled, v.imagesMustHave, v.imagesExactVersions,
		v.scaffoldTODO,
		v.provenanceWatch,
		v.truth,
	} {
		rule()
	}
	SortProblems(r.Problems)
	return r
}

type validator struct {
	t         *Task
	r         *Report
	truthMemo string // ValidateOptions.TruthMemo
}

func (v *validator) problem(rule, path, format string, args ...any) {
	v.r.Problems = append(v.r.Problems, Problem{Rule: rule, Pos: v.t.Pos(path), File: v.t.File, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) fileProblem(rule, file string, line int, format string, args ...any) {
	v.r.Problems = append(v.r.Problems, Problem{Rule: rule, File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) note(rule, format string, args ...any) {
	v.r.Notes = append(v.r.Notes, Note{Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

// path resolves a task-relative path.
func (v *validator) path(rel string) string { return filepath.Join(v.t.Dir, filepath.FromSlash(rel)) }

// packageClause: a task file is in package srb, so the cue tool can vet it
// beside schema/task.cue.
func (v *validator) packageClause() {
	f, ok := v.t.source.Source().(*ast.File)
	if !ok {
		return
	}
	switch name := f.PackageName(); name {
	case "srb":
	case "":
		v.fileProblem(RulePackage, v.t.File, 1, "the task file has no package clause: begin it with `package srb` so the cue tool vets it beside schema/task.cue")
	default:
		v.fileProblem(RulePackage, v.t.File, 1, "the task file is in package %s: write `package srb` so the cue tool vets it beside schema/task.cue", name)
	}
}

func (v *validator) duplicateIDs() {
	check := func(list string, ids []string) {
		first, keys := map[string]int{}, map[string]int{}
		for i, id := range ids {
			if j, ok := first[id]; ok {
				v.problem(RuleDuplicateID, fmt.Sprintf("%s[%d].id", list, i), "id %q is already used by %s[%d]: ids name results and must be unique", id, list, j)
				continue
			}
			first[id] = i
			// reward.json names results by result.RewardKey: two ids that
			// differ only in punctuation would share its keys, and one
			// result's figures would overwrite the other's.
			k := result.RewardKey(id)
			if j, ok := keys[k]; ok {
				v.problem(RuleDuplicateID, fmt.Sprintf("%s[%d].id", list, i), "id %q gives the reward.json key %q that %s[%d] (%q) gives: ids must differ in more than punctuation", id, k, list, j, ids[j])
				continue
			}
			keys[k] = i
		}
	}
	var g, m, a []string
	for _, x := range v.t.Audit.Gates {
		g = append(g, x.ID)
	}
	for _, x := range v.t.Behavioural.Modules {
		m = append(m, x.ID)
	}
	for _, x := range v.t.Verification.Adversaries {
		a = append(a, x.ID)
	}
	check("audit.gates", g)
	check("behavioural.modules", m)
	check("verification.adversaries", a)
	var sf []string
	for _, x := range v.t.Verification.Surfaces {
		sf = append(sf, x.ID)
	}
	check("verification.surfaces", sf)
	// Allow and deny items share one namespace: directions name allow items.
	first := map[string]string{}
	for i, x := range v.t.Verification.Scope.Allow {
		at := fmt.Sprintf("verification.scope.allow[%d]", i)
		if prev, ok := first[x.ID]; ok {
			v.problem(RuleDuplicateID, at+".id", "id %q is already used by %s: scope item ids are unique across allow and deny", x.ID, prev)
			continue
		}
		first[x.ID] = at
	}
	for i, x := range v.t.Verification.Scope.Deny {
		at := fmt.Sprintf("verification.scope.deny[%d]", i)
		if prev, ok := first[x.ID]; ok {
			v.problem(RuleDuplicateID, at+".id", "id %q is already used by %s: scope item ids are unique across allow and deny", x.ID, prev)
			continue
		}
		first[x.ID] = at
	}
}

// looksLikeFile reports whether an argv token names a file: it has no
// shell metacharacters or spaces, is not a flag, and contains a slash or
// a dot-extension (HARNESS.md §4.3 launch check).
func looksLikeFile(tok string) bool {
	if tok == "" || strings.HasPrefix(tok, "-") || strings.ContainsAny(tok, " \t\"'$;|&<>()=") {
		return false
	}
	if strings.Contains(tok, "/") {
		return true
	}
	ext := filepath.Ext(tok)
	return len(ext) > 1 && len(ext) < len(tok)
}

// inTask describes what is wrong with the task-relative path rel as a
// file (wantDir false) or folder (wantDir true), or returns "" when it is
// one. Paths are resolved inside the task folder (os.Root): a link that
// leads out of it is refused, since images are built from the folder.
func (v *validator) inTask(rel string, wantDir bool) string {
	root, err := os.OpenRoot(v.t.Dir)
	if err != nil {
		return fmt.Sprintf("cannot be checked: %v", err)
	}
	defer root.Close()
	st, err := root.Stat(filepath.FromSlash(filepath.Clean(rel)))
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		if _, lerr := root.Lstat(filepath.FromSlash(filepath.Clean(rel))); lerr == nil {
			return "is a link to nothing"
		}
		return "does not exist in the task folder"
	case err != nil && strings.Contains(err.Error(), "escapes"):
		return "leads outside the task folder (a link): the stage images are built from the task folder alone"
	case err != nil:
		return fmt.Sprintf("cannot be read: %v", err)
	case wantDir && !st.IsDir():
		return "is a file, not a folder"
	case !wantDir && st.IsDir():
		return "is a folder, not a file"
	case !wantDir && !st.Mode().IsRegular():
		return "is not a regular file"
	}
	return ""
}

func (v *validator) filesExist() {
	t := v.t
	for _, f := range []struct{ path, what, rel string }{
		{"instruction", "the instruction file", t.Instruction},
		{"audit.prompt", "the audit prompt", t.Audit.Prompt},
		{"verification.prompt", "the verification prompt", t.Verification.Prompt},
	} {
		if why := v.inTask(f.rel, false); why != "" {
			v.problem(RuleFileExists, f.path, "%s %s %s", f.what, f.rel, why)
		}
	}
	if s := t.StateA.Source; s.Kind == "local" {
		p := s.Path
		if !filepath.IsAbs(p) {
			p = v.path(p)
		}
		if _, err := os.Stat(p); err != nil {
			v.problem(RuleFileExists, "state_a.source.path", "the local State A source %s does not exist (resolved to %s)", s.Path, p)
		}
	}
	for i, m := range t.Behavioural.Modules {
		if m.Kind != "program" {
			continue
		}
		dir, _ := m.Params["dir"].(string)
		at := fmt.Sprintf("behavioural.modules[%d].params", i)
		if why := v.inTask(dir, true); why != "" {
			v.problem(RuleFileExists, at+".dir", "module %s: its folder %s %s", m.ID, dir, why)
			continue
		}
		cmd, _ := m.Params["command"].([]any)
		for j, a := range cmd {
			tok, _ := a.(string)
			if j == 0 && !strings.Contains(tok, "/") {
				continue // a program on the stage image's PATH
			}
			if !looksLikeFile(tok) || filepath.IsAbs(tok) {
				continue // absolute paths live in the stage image
			}
			if why := v.inTask(path.Join(dir, tok), false); why != "" {
				v.problem(RuleFileExists, fmt.Sprintf("%s.command[%d]", at, j), "module %s: %s in %s %s (commands run in the module's folder)", m.ID, tok, dir, why)
			}
		}
	}
	v.commandInputs()
}

// commandInputs checks the task-folder inputs of the command modules, which
// the helper would otherwise fail on only at freeze or in stage 2: each
// case's stdin_file is a file of the task folder, and a corpus read from
// the task folder has its dir and at least one file matching its glob
// there. (A corpus read from State A is checked against State A's files
// when the archive is at hand: internal/source, stateACorpora.)
func (v *validator) commandInputs() {
	for i, m := range v.t.Behavioural.Modules {
		if m.Kind != "command" || m.Params == nil {
			continue
		}
		raw, err := m.ParamsJSON()
		if err != nil {
			continue
		}
		var p struct {
			Cases []struct {
				ID        string `json:"id"`
				StdinFile string `json:"stdin_file"`
			} `json:"cases"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue // the kind's own decoding reports it
		}
		at := fmt.Sprintf("behavioural.modules[%d].params", i)
		for j, c := range p.Cases {
			if c.StdinFile == "" {
				continue
			}
			if why := v.inTask(c.StdinFile, false); why != "" {
				v.problem(RuleFileExists, fmt.Sprintf("%s.cases[%d].stdin_file", at, j), "module %s, case %s: its stdin_file %s %s", m.ID, c.ID, c.StdinFile, why)
			}
		}
		if c := m.Corpus(); c != nil && (c.From == "" || c.From == "task") && c.Dir != "" {
			if why := v.inTask(c.Dir, true); why != "" {
				v.problem(RuleFileExists, at+".corpus.dir", "module %s: its corpus folder %s %s", m.ID, c.Dir, why)
				continue
			}
			if c.Glob != "" {
				if !corpusMatchesBelow(v.path(c.Dir), c.Glob) {
					v.problem(RuleFileExists, at+".corpus.glob", "module %s: no file of its corpus folder %s matches %q: the module would have no case", m.ID, c.Dir, c.Glob)
				}
			}
		}
	}
}

// corpusMatchesBelow reports whether a regular file anywhere under dir has
// a name matching glob, as the command kind's corpus walks its folder
// (subfolders included, the glob matched against each file's name).
func corpusMatchesBelow(dir, glob string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			if ok, _ := path.Match(glob, d.Name()); ok {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

var rePlaceholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]*)\s*\}\}`)

// KnownPlaceholders are the {{names}} srb renders into prompts
// (HARNESS.md §4.1.3, plus scope for stage 3).
var KnownPlaceholders = []string{"commands", "findings", "gates", "original", "roots", "scope", "submission", "task", "workspace"}

func (v *validator) readPrompt(rel string) []byte {
	b, err := os.ReadFile(v.path(rel))
	if err != nil {
		return nil // reported by filesExist
	}
	return b
}

func (v *validator) promptGates() {
	b := v.readPrompt(v.t.Audit.Prompt)
	if b == nil {
		return
	}
	if rePlaceholder.Match(b) {
		for _, m := range rePlaceholder.FindAllSubmatch(b, -1) {
			if string(m[1]) == "gates" {
				return
			}
		}
	}
	for i, g := range v.t.Audit.Gates {
		// The id as a whole token: "at" is not asked by "what".
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(g.ID) + `($|[^A-Za-z0-9_-])`)
		if !re.Match(b) {
			v.problem(RulePromptGates, fmt.Sprintf("audit.gates[%d].id", i), "gate %s is never asked: the audit prompt %s neither mentions it nor has {{gates}}", g.ID, v.t.Audit.Prompt)
		}
	}
}

func (v *validator) promptPlaceholders() {
	known := map[string]bool{}
	for _, k := range KnownPlaceholders {
		known[k] = true
	}
	for _, rel := range []string{v.t.Audit.Prompt, v.t.Verification.Prompt} {
		b := v.readPrompt(rel)
		if b == nil {
			continue
		}
		for i, text := range strings.Split(string(b), "\n") {
			line := i + 1
			for _, m := range rePlaceholder.FindAllStringSubmatch(text, -1) {
				if !known[m[1]] {
					hint := ""
					if s := suggest(m[1], KnownPlaceholders); s != "" {
						hint = fmt.Sprintf("; did you mean {{%s}}?", s)
					}
					v.fileProblem(RulePlaceholder, v.path(rel), line, "unknown placeholder %s would reach the model verbatim (known: %s)%s", m[0], strings.Join(KnownPlaceholders, ", "), hint)
				}
			}
		}
	}
}

// VerificationAssets is where the verification image holds the task's
// asset folders; on this machine they are the task folder's.
const VerificationAssets = "/tests/verification"

// AssetDirs are the task folders the verification image holds under
// VerificationAssets (internal/image copies exactly these).
var AssetDirs = []string{"modules", "data", "truth"}

// CandidateAssetProblem says what is wrong with a candidate-command
// argument a that names a path under VerificationAssets, given the task
// folder taskDir: it is outside the asset folders the image holds, or the
// task folder has no such file. It returns "" for a fine argument and for
// one that names no such path. validate and stage 3's launch check both
// use it, so the two cannot drift.
func CandidateAssetProblem(a, taskDir string) string {
	rel, ok := strings.CutPrefix(a, VerificationAssets+"/")
	if !ok || strings.ContainsAny(a, " \t\n'\"$;|&<>()") {
		return ""
	}
	rel = path.Clean(rel)
	top, _, _ := strings.Cut(rel, "/")
	if !slices.Contains(AssetDirs, top) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Sprintf("candidate command argument %s is not in the verification image: only the task's %s folders are copied under %s",
			a, strings.Join(AssetDirs, ", "), VerificationAssets)
	}
	if _, err := os.Stat(filepath.Join(taskDir, filepath.FromSlash(rel))); err != nil {
		return fmt.Sprintf("candidate command argument %s does not exist: the task folder has no %s", a, rel)
	}
	return ""
}

// scriptExts are the extensions of scripts a task ships, which are never
// on the verification image's PATH.
var scriptExts = []string{".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl"}

// candidateCommand checks verification.candidate_command and, by the same
// rule, verification.warm_command: both run in the verification image.
func (v *validator) candidateCommand() {
	v.imageCommand("candidate_command", v.t.Verification.CandidateCommand)
	v.imageCommand("warm_command", v.t.Verification.WarmCommand)
}

func (v *validator) imageCommand(field string, cmd []string) {
	for i, tok := range cmd {
		at := fmt.Sprintf("verification.%s[%d]", field, i)
		if msg := CandidateAssetProblem(tok, v.t.Dir); msg != "" {
			v.problem(RuleCandidateCommand, at, "%s; fix the path (a task file F is %s/F in the image) so stage 3 does not fail after the whole stage's spend", msg, VerificationAssets)
			continue
		}
		if i == 0 {
			switch {
			case strings.Contains(tok, "/") && !filepath.IsAbs(tok):
				v.problem(RuleCandidateCommand, at, "the candidate program %s is relative: candidates run in a working tree, so name it by its absolute path inside the verification image", tok)
			case !strings.Contains(tok, "/") && slices.Contains(scriptExts, filepath.Ext(tok)):
				v.problem(RuleCandidateCommand, at, "the candidate program %s is a bare file name: the stage looks it up on the verification image's PATH, where the task's files are not; name it by its absolute path (e.g. %s/modules/<id>/%s)", tok, VerificationAssets, tok)
			}
			continue
		}
		if looksLikeFile(tok) && !strings.HasPrefix(tok, "/") {
			v.problem(RuleCandidateCommand, at, "%s is a relative path: candidates run in a copy of the tree under test, where it does not exist; use its absolute path inside the verification image (%s)", tok, v.imagePathHint(tok))
		}
	}
}

// imagePathHint suggests where the task file a relative candidate-command
// word means is in the verification image: the task's modules/ and data/
// are at VerificationAssets, so a word naming one of their files is that
// file there; any other word gets the shape of such a path.
func (v *validator) imagePathHint(tok string) string {
	rel := path.Clean(filepath.ToSlash(tok))
	if strings.HasPrefix(rel, "modules/") || strings.HasPrefix(rel, "data/") {
		if st, err := os.Stat(filepath.Join(v.t.Dir, filepath.FromSlash(rel))); err == nil && !st.IsDir() {
			return VerificationAssets + "/" + rel
		}
	}
	return "e.g. " + VerificationAssets + "/modules/<id>/" + path.Base(rel) + ", with the file in the task's modules/<id>/"
}

func (v *validator) scopeDeclared() {
	s := v.t.Verification.Scope
	if len(s.Allow) == 0 && len(s.Deny) == 0 {
		v.problem(RuleScope, "verification.scope", "no scope is declared: list what adversaries may assert on (allow) and what they may not (deny)")
	}
}

// Dialect returns the driver a model name's family speaks ("anthropic",
// "openai") or "" when the name implies none (HARNESS.md §2 item 7).
func Dialect(model string) string {
	switch {
	case strings.HasPrefix(model, "claude-"):
		return "anthropic"
	case strings.HasPrefix(model, "gpt-"), strings.HasPrefix(model, "o1-"), strings.HasPrefix(model, "o3-"), strings.HasPrefix(model, "o4-"):
		return "openai"
	}
	return ""
}

func (v *validator) modelDrivers() {
	type pos struct {
		path string
		m    Model
	}
	ps := []pos{{"audit", v.t.Audit.Model}, {"verification.adjudicator", v.t.Verification.Adjudicator}}
	for i, a := range v.t.Verification.Adversaries {
		ps = append(ps, pos{fmt.Sprintf("verification.adversaries[%d]", i), a.Model})
	}
	used := map[string]bool{}
	for _, p := range ps {
		used[p.m.Driver] = true
		if p.m.Driver == "command" || p.m.Driver == "scripted" {
			continue
		}
		d := Dialect(p.m.Model)
		if d == "" {
			v.note(RuleModelDriver, "%s: model %s implies no dialect; taken as declared (driver %s)", p.path, p.m.Model, p.m.Driver)
			continue
		}
		if d != p.m.Driver {
			v.problem(RuleModelDriver, p.path+".driver", "model %s speaks the %s dialect but the driver is %s: write driver: %q", p.m.Model, d, p.m.Driver, d)
		}
	}
	var ds []string
	for d := range used {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	v.note(RuleModelDriver, "drivers in use: %s", strings.Join(ds, ", "))
}

const figure = `([0-9][0-9,]*(?:\.[0-9]+)?)`

var (
	reShare      = regexp.MustCompile(figure + `\s+of\s+(?:the\s+)?` + figure + `\s+points`)
	reFullMarks  = regexp.MustCompile(figure + `\s+of\s+(?:its\s+|all\s+)?` + figure + `\b`)
	reParagraph  = regexp.MustCompile(`\n\s*\n`)
	reAdversary  = regexp.MustCompile(`(?i)\b(?:([0-9]+)|(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))\s+(?:independent\s+)?(?:adversaries|adversary|models)\b`)
	rePerAdv     = regexp.MustCompile(figure + `\s+points?,\s+for\s+` + figure)
	wordNumerals = map[string]float64{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
)

func parseFigure(s string) float64 {
	f, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return f
}

func same(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// instructionFigures checks the ladder figures an instruction quotes
// against the scoring policy, in the four sentence shapes the corpus uses
// (HARNESS.md §2 item 16): a stage's share of the whole ("40 of the 100
// points"), the full-marks entry condition ("all 40 of its 40"), the
// number of adversaries ("six independent adversaries"), and a
// per-adversary figure multiplied out ("10 points, for 60"). Pass counts
// ("1200 of 1277") and inventories do not match these shapes; tables,
// code blocks and HTML are not read ([readProse]).
func (v *validator) instructionFigures() {
	raw, err := os.ReadFile(v.path(v.t.Instruction))
	if err != nil {
		return // reported by filesExist
	}
	file := v.path(v.t.Instruction)
	// The figures are read in the instruction's running text (Markdown
	// parsed: emphasis, links and character references are not part of a
	// number; code blocks, HTML and tables are not sentences).
	pr := readProse(raw)
	flat := pr.text
	lineOf := func(off int) int {
		if off < len(pr.lineAt) {
			return pr.lineAt[off]
		}
		return 1
	}
	p := v.t.Scoring
	claims := 0
	stages := []struct {
		name   string
		points float64
	}{{"stage 1", 0}, {"stage 2", p.BehaviouralPoints}, {"stage 3", p.VerificationPoints}}
	for _, m := range reShare.FindAllStringSubmatchIndex(flat, -1) {
		part, whole := parseFigure(flat[m[2]:m[3]]), parseFigure(flat[m[4]:m[5]])
		claims++
		named := stageNamed(sentenceAround(flat, m[0], m[1]))
		switch {
		case named > 0 && same(whole, stages[named-1].points) && whole != 0:
			// "30 of the 40 points of stage 2": a share of the stage's own points.
		case !same(whole, p.MaxScore):
			v.fileProblem(RuleInstructionFigures, file, lineOf(m[0]), "the instruction says %s of the %s points, but the policy's max_score is %s (stage 2 pays %s, stage 3 %s): fix the figure or the scoring block",
				flat[m[2]:m[3]], flat[m[4]:m[5]], fmtNum(p.MaxScore), fmtNum(p.BehaviouralPoints), fmtNum(p.VerificationPoints))
		case named > 0 && !same(part, stages[named-1].points):
			v.fileProblem(RuleInstructionFigures, file, lineOf(m[0]), "the instruction says %s is worth %s of the %s points, but the policy pays %s for %s: fix the figure or the scoring block",
				stages[named-1].name, flat[m[2]:m[3]], flat[m[4]:m[5]], fmtNum(stages[named-1].points), stages[named-1].name)
		case named == 0 && !same(part, p.BehaviouralPoints) && !same(part, p.VerificationPoints) && !same(part, p.MaxScore):
			v.fileProblem(RuleInstructionFigures, file, lineOf(m[0]), "the instruction says %s of the %s points, but the policy pays %s for stage 2 and %s for stage 3: fix the figure or the scoring block",
				flat[m[2]:m[3]], flat[m[4]:m[5]], fmtNum(p.BehaviouralPoints), fmtNum(p.VerificationPoints))
		}
	}
	for _, m := range reFullMarks.FindAllStringSubmatchIndex(flat, -1) {
		lo, hi := parseFigure(flat[m[2]:m[3]]), parseFigure(flat[m[4]:m[5]])
		if !same(lo, hi) {
			continue // a pass count or an inventory
		}
		if countOfThings(flat[m[1]:]) {
			continue // "all 652 of its 652 spec examples": a count, not points
		}
		window := strings.ToLower(flat[max(0, m[0]-200):min(len(flat), m[1]+200)])
		if !strings.Contains(window, "full marks") && !strings.Contains(window, "stage 3") {
			continue
		}
		claims++
		if !same(lo, p.BehaviouralPoints) {
			v.fileProblem(RuleInstructionFigures, file, lineOf(m[0]), "the instruction states the stage-3 entry condition as %s of %s, but stage 2 pays %s and full marks is all of it",
				flat[m[2]:m[3]], flat[m[4]:m[5]], fmtNum(p.BehaviouralPoints))
		}
	}
	off := 0
	for _, para := range splitKeep(flat) {
		start := off
		off += len(para.text) + para.sep
		if !strings.Contains(strings.ToLower(para.text), "adversar") {
			continue
		}
		for _, m := range reAdversary.FindAllStringSubmatchIndex(para.text, -1) {
			var n float64
			if m[2] >= 0 {
				n = parseFigure(para.text[m[2]:m[3]])
			} else {
				n = wordNumerals[strings.ToLower(para.text[m[4]:m[5]])]
			}
			claims++
			if !same(n, float64(p.VerificationModels)) {
				v.fileProblem(RuleInstructionFigures, file, lineOf(start+m[0]), "the instruction says %q, but the policy declares verification_models = %d; every adversary the prose invents or drops is %s points an agent budgets against wrongly",
					para.text[m[0]:m[1]], p.VerificationModels, fmtNum(p.PointsPerSurvivedModel))
			}
		}
	}
	for _, m := range rePerAdv.FindAllStringSubmatchIndex(flat, -1) {
		each, total := parseFigure(flat[m[2]:m[3]]), parseFigure(flat[m[4]:m[5]])
		if !same(each, p.PointsPerSurvivedModel) {
			continue
		}
		claims++
		if !same(total, p.VerificationPoints) {
			v.fileProblem(RuleInstructionFigures, file, lineOf(m[0]), "the instruction multiplies %s points per adversary out to %s, but the policy pays %s for stage 3 (%d × %s)",
				flat[m[2]:m[3]], flat[m[4]:m[5]], fmtNum(p.VerificationPoints), p.VerificationModels, fmtNum(p.PointsPerSurvivedModel))
		}
	}
	if claims == 0 {
		v.note(RuleInstructionFigures, "%s quotes no ladder figures, so none were checked against the scoring policy", v.t.Instruction)
	} else {
		v.note(RuleInstructionFigures, "%s quotes %d ladder figure(s)", v.t.Instruction, claims)
	}
}

// reNextWords is the run of words after a figure, up to the end of the
// clause.
var reNextWords = regexp.MustCompile(`^[ \t\n]*([A-Za-z][A-Za-z-]*(?:[ \t\n]+[A-Za-z][A-Za-z-]*){0,3})`)

// countOfThings reports whether the words after a figure name what it
// counts and it is not points or marks ("spec examples", "cases"): such a
// figure is a count, not a score.
func countOfThings(after string) bool {
	m := reNextWords.FindStringSubmatch(after)
	if m == nil {
		return false
	}
	words := strings.Fields(strings.ToLower(m[1]))
	for _, w := range words {
		if strings.HasPrefix(w, "point") || w == "marks" || w == "mark" {
			return false
		}
	}
	// Words that continue the sentence rather than name a thing.
	switch words[0] {
	case "and", "or", "is", "are", "to", "for", "in", "on", "at", "with", "then", "so", "but", "of", "the", "a", "an", "full", "behavioural", "stage":
		return false
	}
	return true
}

// sentenceAround is the sentence of text that holds [lo, hi): from the
// last full stop, blank line or list item before it to the next after.
func sentenceAround(text string, lo, hi int) string {
	start := 0
	for _, sep := range []string{". ", ".\n", "! ", "? ", "\n\n", "\n- ", "\n* "} {
		if i := strings.LastIndex(text[:lo], sep); i >= 0 && i+len(sep) > start {
			start = i + len(sep)
		}
	}
	end := len(text)
	for _, sep := range []string{". ", ".\n", "! ", "? ", "\n\n"} {
		if i := strings.Index(text[hi:], sep); i >= 0 && hi+i+1 < end {
			end = hi + i + 1
		}
	}
	return text[start:end]
}

// reStage finds the stage a sentence names: "stage 2", "stage-3", or the
// stage's name.
var reStage = regexp.MustCompile(`(?i)\bstage[ -]([123])\b|\b(audit|behavioural|behavioral|verification)\b`)

// stageNamed is the one stage (1, 2 or 3) sentence names, or 0 when it
// names none or several.
func stageNamed(sentence string) int {
	found := 0
	for _, m := range reStage.FindAllStringSubmatch(sentence, -1) {
		n := 0
		switch strings.ToLower(m[2]) {
		case "audit":
			n = 1
		case "behavioural", "behavioral":
			n = 2
		case "verification":
			n = 3
		default:
			n = int(m[1][0] - '0')
		}
		if found != 0 && found != n {
			return 0
		}
		found = n
	}
	return found
}

type paragraph struct {
	text string
	sep  int // bytes of separator after it
}

func splitKeep(s string) []paragraph {
	var out []paragraph
	for {
		loc := reParagraph.FindStringIndex(s)
		if loc == nil {
			return append(out, paragraph{text: s})
		}
		out = append(out, paragraph{text: s[:loc[0]], sep: loc[1] - loc[0]})
		s = s[loc[1]:]
	}
}

func (v *validator) ladderBudget() {
	to := v.t.Timeouts
	sum := to.Audit + to.Behavioural + to.Verification
	shape := fmt.Sprintf("%d + %d + %d", to.Audit, to.Behavioural, to.Verification)
	if sum > to.Verifier {
		v.problem(RuleLadderBudget, "timeouts.verifier", "the verifier ceiling is %d s but the stages declare %s = %d s, %d s more: the verifier would be killed mid-ladder, and a stage with no result costs a re-run; raise timeouts.verifier to at least %d",
			to.Verifier, shape, sum, sum-to.Verifier, sum)
		return
	}
	v.note(RuleLadderBudget, "ladder budget %s = %d s inside a %d s verifier ceiling (%d s spare)", shape, sum, to.Verifier, to.Verifier-sum)
}

// Layout of a task folder (docs/SCHEMA.md "Task folder layout"):
// programs live under modules/, data under data/ (read-only inputs) and
// truth/ (ground truth, written by srb freeze), prompts under prompts/.
// Data folders hold no programs; programs' folders hold no payloads.
var (
	layoutTop = map[string]bool{
		FileName: true, "README.md": true, "prompts": true, "modules": true,
		"data": true, "truth": true, "images.lock": true, ".gitignore": true,
	}
	dataDirs      = []string{"data", "truth", "prompts"}
	payloadSuffix = []string{".tar", ".gz", ".tgz", ".xz", ".zst", ".bz2", ".zip", ".jar", ".bin", ".whl"}
)

func (v *validator) layout() {
	entries, err := os.ReadDir(v.t.Dir)
	if err != nil {
		v.fileProblem(RuleLayout, v.t.Dir, 0, "cannot list the task folder: %v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if layoutTop[name] || name == strings.SplitN(filepath.ToSlash(filepath.Clean(v.t.Instruction)), "/", 2)[0] {
			continue
		}
		v.fileProblem(RuleLayout, filepath.Join(v.t.Dir, name), 0, "%s does not belong at the top of a task folder: programs go in modules/, read-only inputs in data/, prompts in prompts/ (allowed at the top: task.cue, %s, README.md, images.lock, .gitignore, and the folders modules/, data/, truth/, prompts/)", name, v.t.Instruction)
	}
	for _, d := range dataDirs {
		root := filepath.Join(v.t.Dir, d)
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if why := programReason(p, e); why != "" {
				v.fileProblem(RuleLayout, p, 0, "%s is a program inside %s/ (%s), which holds data only: move it under modules/, or, if it is data, %s", rel(v.t.Dir, p), d, why, programFix[why])
			}
			return nil
		})
	}
	for i, m := range v.t.Behavioural.Modules {
		if dir, _ := m.Params["dir"].(string); m.Kind == "program" && dir != "" && !strings.HasPrefix(filepath.ToSlash(filepath.Clean(dir))+"/", "modules/") {
			v.problem(RuleLayout, fmt.Sprintf("behavioural.modules[%d].params.dir", i), "module %s lives in %s; module programs live under modules/ (e.g. modules/%s)", m.ID, dir, m.ID)
		}
	}
	v.assetLinks()
	_ = filepath.WalkDir(filepath.Join(v.t.Dir, "modules"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		for _, s := range payloadSuffix {
			if strings.HasSuffix(strings.ToLower(e.Name()), s) {
				v.fileProblem(RuleLayout, p, 0, "%s is a payload inside modules/, which holds programs: move it to data/", rel(v.t.Dir, p))
				break
			}
		}
		return nil
	})
}

// assetDirs are the task folders srb build copies into the behavioural
// and verification images, each alone, under /tests/<stage>/ (as
// internal/image.AssetDirs).
var assetDirs = []string{"modules", "data", "truth"}

// assetLinks refuses an asset folder that is a link, and a link inside
// one that leads out of it (absolute, relative, or through another link,
// resolved as the kernel would by [os.Root]): the images hold each folder
// alone, so such a link leads elsewhere there, or nowhere, while it works
// on the host. Links that stay inside, even to nothing, are the same in
// the images and are kept.
func (v *validator) assetLinks() {
	for _, d := range assetDirs {
		top := filepath.Join(v.t.Dir, d)
		fi, err := os.Lstat(top)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(top)
			v.fileProblem(RuleLayout, top, 0, "%s/ is a link (to %s): the images would hold the link, not the folder; make it a folder of the task", d, target)
			continue
		}
		_ = LinksLeaving(top, func(p, target string) error {
			v.fileProblem(RuleLayout, p, 0, "%s is a link to %s, which leads out of %s/: the images hold %s/ alone, so it would not lead there; copy what it names into the task", rel(v.t.Dir, p), target, d, d)
			return nil
		})
	}
}

// LinksLeaving calls visit(path, target) for each symbolic link under dir
// that leads out of it (absolute, relative, or through another link,
// resolved as the kernel would by [os.Root]), in lexical order, and stops
// at the first error visit returns. Links that stay inside, even to
// nothing or in a loop, are not visited. A dir that cannot be opened is
// its error.
func LinksLeaving(dir string, visit func(path, target string) error) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.Type()&fs.ModeSymlink == 0 {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		_, serr := root.Stat(r)
		if serr == nil || errors.Is(serr, fs.ErrNotExist) || errors.Is(serr, syscall.ELOOP) || !strings.Contains(serr.Error(), "escapes") {
			return nil
		}
		target, _ := os.Readlink(p)
		return visit(p, target)
	})
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// isProgram: an executable bit, a #! line, or an ELF header.
// programFix says, for each reason programReason gives, how a data file
// stops being one.
var programFix = map[string]string{
	"executable bit": "clear its executable bit",
	"#! line":        "remove its #! line (a file a command reads or runs with an interpreter named in the argv needs none)",
	"ELF executable": "keep it out of the task (a compiled program is not data)",
}

// programReason says why the regular file p looks like a program: its
// executable bit, a #! first line, or an ELF header; "" when it does not.
func programReason(p string, e fs.DirEntry) string {
	info, err := e.Info()
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	if info.Mode().Perm()&0o111 != 0 {
		return "executable bit"
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.Read(head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("#!")):
		return "#! line"
	case bytes.Equal(head, []byte("\x7fELF")):
		return "ELF executable"
	}
	return ""
}

func (v *validator) counts() {
	req := 0
	for _, g := range v.t.Audit.Gates {
		if g.Required {
			req++
		}
	}
	v.note(RuleCounts, "%d gate(s), %d required; %d sample(s) vote on each", len(v.t.Audit.Gates), req, v.t.Audit.Samples)
	sum := 0.0
	for _, m := range v.t.Behavioural.Modules {
		sum += m.Weight
	}
	v.note(RuleCounts, "%d module(s), weights summing to %s; %d build configuration(s)", len(v.t.Behavioural.Modules), fmtNum(sum), len(v.t.Behavioural.Configurations))
	v.note(RuleCounts, "%d adversaries, %d rerun(s) per candidate, %d allow and %d deny scope item(s)", len(v.t.Verification.Adversaries), v.t.Verification.Reruns, len(v.t.Verification.Scope.Allow), len(v.t.Verification.Scope.Deny))
}

// ScaffoldMarker is what srb new writes on every line only the author can
// fill in (templates.Marker); rule scaffold-todo reports each one left.
const ScaffoldMarker = "TODO(srb new)"

// scaffoldTODO reports every line still carrying [ScaffoldMarker] and a
// colon (what to fill in follows it) in the
// task file, the instruction, the prompts and the text files under
// modules/ and data/: a scaffold does not validate until its author has
// filled in each one and deleted the marker.
// provenanceWatch is rule provenance-watch: every tool a provenance
// module's rule names ("*" aside) is watched by the configuration the
// module judges, the check the module itself makes first when it runs
// (kinds' provenance observe), so a task that srb freeze and every stage
// 2 would stop on fails validate instead.
func (v *validator) provenanceWatch() {
	for i, m := range v.t.Behavioural.Modules {
		if m.Kind != "provenance" {
			continue
		}
		b, err := m.ParamsJSON()
		if err != nil {
			continue
		}
		var p kinds.ProvenanceParams
		if json.Unmarshal(b, &p) != nil {
			continue
		}
		name := p.Configuration
		if name == "" {
			name = "default"
		}
		cfg, ok := v.t.Behavioural.Configurations[name]
		if !ok {
			continue // the schema names the configuration
		}
		for j, r := range p.Rules {
			for k, tool := range r.Tools {
				if tool != "*" && !slices.Contains(cfg.Watch, tool) {
					v.problem(RuleProvenanceWatch, fmt.Sprintf("behavioural.modules[%d].params.rules[%d].tools[%d]", i, j, k),
						"rule %s names tool %q, which configuration %s does not watch, so the module would stop at freeze and in every stage 2: add it to behavioural.configurations.%s.watch", r.ID, tool, name, name)
				}
			}
		}
	}
}

func (v *validator) scaffoldTODO() {
	files := []string{v.t.File, v.path(v.t.Instruction), v.path(v.t.Audit.Prompt), v.path(v.t.Verification.Prompt)}
	for _, d := range []string{"modules", "data"} {
		_ = filepath.WalkDir(v.path(d), func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if info, err := e.Info(); err == nil && info.Size() <= 1<<20 {
					files = append(files, p)
				}
			}
			return nil
		})
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(ScaffoldMarker+":")) {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			_, what, ok := strings.Cut(line, ScaffoldMarker+":")
			if !ok {
				continue
			}
			what = strings.TrimSpace(what)
			if what == "" {
				what = "fill this in"
			}
			v.fileProblem(RuleScaffoldTODO, f, i+1, "still as srb new scaffolded it: %s (then delete the %s note)", strings.TrimSuffix(what, "."), ScaffoldMarker)
		}
	}
}
