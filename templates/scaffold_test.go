package templates_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/templates"
)

var (
	todoComment = regexp.MustCompile(` *// TODO\(srb new\):.*`)
	todoLine    = regexp.MustCompile(`(?m)^TODO\(srb new\):.*\n\n?`)
)

// TestScaffoldValidates: for every class, a fresh scaffold fails validate
// with scaffold-todo problems (one per marked line) and state-a-pinned, and
// nothing else; once the marked lines are filled in (here: the markers
// deleted, keeping the examples) and State A pinned, it validates clean.
func TestScaffoldValidates(t *testing.T) {
	for _, class := range templates.Classes() {
		t.Run(class, func(t *testing.T) {
			id := templates.ClassPrefixes[class] + "07-example-migration"
			dir := filepath.Join(t.TempDir(), id)
			written, err := templates.Scaffold(dir, id, class)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"data/README.md", "data/corpus/example.txt", "instruction.md", "modules/candidate/run-candidate.sh", "modules/example/run.sh",
				"prompts/audit.txt", "prompts/verification.txt", "task.cue"}
			if d := cmp.Diff(want, written); d != "" {
				t.Errorf("written (-want +got):\n%s", d)
			}

			cache := &source.Cache{Dir: t.TempDir()}
			validate := func() []task.Problem {
				r := task.Validate(dir)
				if r.Task == nil {
					return r.Problems
				}
				ps, _ := source.Check(context.Background(), r.Task, cache)
				return append(r.Problems, ps...)
			}
			problems := validate()
			markers := 0
			for _, f := range []string{"task.cue", "instruction.md"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				markers += strings.Count(string(b), templates.Marker+":")
			}
			rules := map[string]int{}
			for _, p := range problems {
				rules[p.Rule]++
			}
			if d := cmp.Diff(map[string]int{task.RuleScaffoldTODO: markers, source.RulePinned: 1}, rules); d != "" || markers < 10 {
				t.Errorf("fresh scaffold: problems by rule (-want +got), %d markers:\n%s", markers, d)
			}

			for _, f := range []string{"task.cue", "instruction.md"} {
				p := filepath.Join(dir, f)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				b = todoComment.ReplaceAll(b, nil)
				b = todoLine.ReplaceAll(b, nil)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := source.Pin(filepath.Join(dir, "task.cue"), strings.Repeat("ab", 32)); err != nil {
				t.Fatal(err)
			}
			if ps := validate(); len(ps) > 0 {
				t.Errorf("filled-in scaffold does not validate:\n%v", ps)
			}
		})
	}
}

func TestScaffoldRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ id, class, want string }{
		{"lang01-x", "build", `id "lang01-x": class build takes the prefix "build", not "lang" (e.g. build01-x)`},
		{"build1-x", "build", `id "build1-x" must be <class prefix><2 digits>-<slug>`},
		{"Build01-X", "build", `must be <class prefix><2 digits>-<slug>`},
		{"fw01-x", "web", `class "web": the classes are build, framework, language, platform`},
	} {
		if _, err := templates.Scaffold(filepath.Join(dir, c.id), c.id, c.class); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Scaffold(%s, %s): %v, want %q", c.id, c.class, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, c.id)); err == nil {
			t.Errorf("Scaffold(%s, %s) wrote a folder", c.id, c.class)
		}
	}
	existing := filepath.Join(dir, "pf01-x")
	if err := os.MkdirAll(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := templates.Scaffold(existing, "pf01-x", "platform"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("over an existing folder: %v", err)
	}
	if entries, _ := os.ReadDir(existing); len(entries) != 0 {
		t.Errorf("wrote into an existing folder: %v", entries)
	}
}
