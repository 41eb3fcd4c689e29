package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// updateGoldens reports whether SRB_UPDATE=1: the want sections of the
// case archives are then rewritten (one variable for every golden).
func updateGoldens() bool { return os.Getenv("SRB_UPDATE") == "1" }

// A lint case (testdata/cases/<rule>[-<variant>].txtar) is a minimal task
// pair: broken/ fires the rule, fixed/ is the same task mended and lints
// with no finding at all. Each task.cue holds only what lint reads;
// testdata/base.cue is appended to complete it. The want section lists
// the broken task's findings, one per line.

// loadCase writes the pair into a temporary folder and returns the two
// task folders.
func loadCase(t *testing.T, file string) (ar *txtar.Archive, broken, fixed string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join("testdata", "base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		if f.Name == "want" {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := f.Data
		if filepath.Base(f.Name) == "task.cue" {
			data = append(append(slices.Clone(data), '\n'), base...)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ar, filepath.Join(root, "broken"), filepath.Join(root, "fixed")
}

// compact renders findings one per line: severity rule where field, then
// the message indented below.
func compact(r *Report) string {
	var sb strings.Builder
	for _, f := range r.Findings {
		l := f.Locations[0]
		where := filepath.Base(l.File)
		if l.Line > 0 {
			where += fmt.Sprintf(":%d", l.Line)
		}
		if l.Column > 0 {
			where += fmt.Sprintf(":%d", l.Column)
		}
		if l.Field != "" {
			where += " " + l.Field
		}
		fmt.Fprintf(&sb, "%s %s %s\n\t%s\n", f.Severity, f.Rule, where, f.Msg)
	}
	return sb.String()
}

func caseFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no lint cases: %v", err)
	}
	return files
}

func caseRule(file string) string {
	name := strings.TrimSuffix(filepath.Base(file), ".txtar")
	for _, r := range rules {
		if name == r.ID || strings.HasPrefix(name, r.ID+"--") {
			return r.ID
		}
	}
	return ""
}

// TestCases: every rule fires on its broken task and the fixed task lints
// with no finding (both directions), and the broken task's findings match
// the want section.
func TestCases(t *testing.T) {
	for _, file := range caseFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			rule := caseRule(file)
			if rule == "" {
				t.Fatalf("%s names no rule: call it <rule>.txtar or <rule>--<variant>.txtar", file)
			}
			ar, broken, fixed := loadCase(t, file)
			rb := Lint(broken)
			if !slices.ContainsFunc(rb.Findings, func(f Finding) bool { return f.Rule == rule }) {
				t.Errorf("broken: %s does not fire; findings:\n%s", rule, compact(rb))
			}
			rf := Lint(fixed)
			if len(rf.Findings) > 0 {
				t.Errorf("fixed: want no finding, got:\n%s", compact(rf))
			}
			got := compact(rb)
			i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "want" })
			if i < 0 {
				t.Fatalf("no want section")
			}
			if want := string(ar.Files[i].Data); got != want {
				if updateGoldens() {
					ar.Files[i].Data = []byte(got)
					if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				t.Errorf("broken findings:\n got:\n%s want:\n%s", got, want)
			}
		})
	}
}

// TestEveryRuleHasACase keeps the corpus complete.
func TestEveryRuleHasACase(t *testing.T) {
	have := map[string]bool{}
	for _, f := range caseFiles(t) {
		have[caseRule(f)] = true
	}
	for _, r := range rules {
		if !have[r.ID] {
			t.Errorf("rule %s has no case in testdata/cases", r.ID)
		}
	}
}

// TestFixtureLintsClean: the fixture task lints with no finding and shows
// where each surface is promised.
func TestFixtureLintsClean(t *testing.T) {
	r := Lint(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	var b bytes.Buffer
	if err := WriteText(&b, []*Report{r}, ""); err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) > 0 {
		t.Errorf("the fixture task has %d finding(s):\n%s", len(r.Findings), b.String())
	}
	if len(r.Mentions) != 2 || r.Mentions[0].Line != 7 || r.Mentions[1].Line != 8 {
		t.Errorf("mentions = %+v, want counts at 7 and usage at 8", r.Mentions)
	}
}

// TestTasksLint lints every task under tasks/: a real task lands lint
// clean (no error or warning; advice is logged for review).
func TestTasksLint(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "tasks", "*", "task.cue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := Lint(dir)
			for _, f := range r.Findings {
				if f.Severity == Advice {
					t.Logf("advice: %s [%s]", f.Msg, f.Rule)
					continue
				}
				t.Errorf("%s: %s: %s [%s]", f.Locations[0].where(""), f.Severity, f.Msg, f.Rule)
			}
		})
	}
}
