package submission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// write creates files under dir: path → content; a path ending in "*" is
// written executable (the "*" dropped).
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists dir as path → content ("*" appended to executable files).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		key := filepath.ToSlash(rel)
		if info.Mode().Perm()&0o100 != 0 {
			key += "*"
		}
		out[key] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stateA(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "statea")
	write(t, dir, map[string]string{
		"Makefile":            "all:\n",
		"configure*":          "#!/bin/sh\n",
		"src/a.c":             "int a;\n",
		"src/b.c":             "int b;\n",
		"src/keep.h":          "#define K 1\n",
		"build-aux/ltmain.sh": "x\n",
		"README":              "tally\n",
	})
	return dir
}

func TestApply(t *testing.T) {
	fx := filepath.Join(t.TempDir(), "port")
	write(t, fx, map[string]string{
		"delete.txt":             "# the old build\nMakefile\nconfigure\nsrc/*.c\nbuild-aux/\n\n",
		"overlay/CMakeLists.txt": "project(x)\n",
		"overlay/src/a.rs":       "fn a() {}\n",
		"overlay/README":         "tally, ported\n",
		"overlay/run.sh*":        "#!/bin/sh\n",
		"audit/review-2.json":    "[]",
		"audit/review-1.json":    "[]",
		"adversaries/a01.json":   "[]",
		"adjudicator.json":       "[]",
		"expect.json":            `{"score": 0, "stage1": "failed", "failed_modules": []}`,
		"about.txt":              "  a port  \n",
	})
	f, err := Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "port" || f.About != "a port" || f.Untouched {
		t.Errorf("Load: name %q about %q untouched %t", f.Name, f.About, f.Untouched)
	}
	if got := []string{filepath.Base(f.AuditScripts[0]), filepath.Base(f.AuditScripts[1])}; !cmp.Equal(got, []string{"review-1.json", "review-2.json"}) {
		t.Errorf("audit scripts in name order: %v", got)
	}
	if f.AdversaryScripts["a01"] != filepath.Join(fx, "adversaries", "a01.json") || f.AdjudicatorScript != filepath.Join(fx, "adjudicator.json") {
		t.Errorf("stage-3 scripts: %v %q", f.AdversaryScripts, f.AdjudicatorScript)
	}
	if f.Expect == nil || *f.Expect.Score != 0 || f.Expect.Stage1 != "failed" || f.Expect.FailedModules == nil {
		t.Errorf("expect: %+v", f.Expect)
	}

	dst := filepath.Join(t.TempDir(), "sub")
	a, err := f.Apply(stateA(t), dst)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"CMakeLists.txt": "project(x)\n",
		"README":         "tally, ported\n",
		"run.sh*":        "#!/bin/sh\n",
		"src/a.rs":       "fn a() {}\n",
		"src/keep.h":     "#define K 1\n",
	}
	if d := cmp.Diff(want, tree(t, dst)); d != "" {
		t.Errorf("applied tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Makefile", "build-aux", "configure", "src/a.c", "src/b.c"}, a.Deleted); d != "" {
		t.Errorf("deleted (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"CMakeLists.txt", "README", "run.sh", "src/a.rs"}, a.Written); d != "" {
		t.Errorf("written (-want +got):\n%s", d)
	}
	if _, err := f.Apply(stateA(t), dst); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("apply over an existing tree: %v", err)
	}
}

func TestUntouched(t *testing.T) {
	fx := filepath.Join(t.TempDir(), "untouched")
	write(t, fx, map[string]string{"untouched": ""})
	f, err := Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	sa := stateA(t)
	dst := filepath.Join(t.TempDir(), "sub")
	if _, err := f.Apply(sa, dst); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tree(t, sa), tree(t, dst)); d != "" {
		t.Errorf("untouched differs from State A (-want +got):\n%s", d)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"empty", map[string]string{"about.txt": "x"}, "no overlay/, no delete.txt and no untouched marker"},
		{"both", map[string]string{"untouched": "", "delete.txt": "a\n"}, "marked untouched and also has"},
		{"absolute", map[string]string{"delete.txt": "ok\n/etc/passwd\n"}, "delete.txt:2: \"/etc/passwd\" is not a path inside the tree"},
		{"dotdot", map[string]string{"delete.txt": "a/../../b\n"}, "delete.txt:1: \"a/../../b\" leaves the tree"},
		{"glob", map[string]string{"delete.txt": "[a\n"}, "delete.txt:1: \"[a\": syntax error in pattern"},
		{"expect-key", map[string]string{"untouched": "", "expect.json": `{"scor": 1}`}, `unknown field "scor"`},
		{"expect-stage", map[string]string{"untouched": "", "expect.json": `{"stage3": "skipped"}`}, `stage3 is "skipped"; it is ran or not-run`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := filepath.Join(t.TempDir(), c.name)
			write(t, fx, c.files)
			_, err := Load(fx)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"matches-nothing", map[string]string{"delete.txt": "Makefile\n*.py\n"}, "delete.txt:2: \"*.py\" matches nothing in State A"},
		{"file-over-folder", map[string]string{"overlay/src": "x"}, "overlay file src would replace a folder of State A"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := filepath.Join(t.TempDir(), c.name)
			write(t, fx, c.files)
			f, err := Load(fx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Apply(stateA(t), filepath.Join(t.TempDir(), "sub"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Apply: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	b := func(x bool) *bool { return &x }
	o := Observed{Score: 0, Valid: true, Stage1: "failed", Stage2Ran: true, Stage2Rate: 0.95, Stage2Complete: false, Stage3: "not-run", FailedModules: []string{"usage"}}
	met := &Expect{Score: f(0), Valid: b(true), Stage1: "failed", Stage2Rate: f(0.95), Stage2Complete: b(false), Stage3: "not-run", FailedModules: []string{"usage"}}
	if got := met.Check(o); len(got) != 0 {
		t.Errorf("a met expectation: %v", got)
	}
	unmet := &Expect{Score: f(40), Stage1: "passed", Stage2Rate: f(1), Stage2Complete: b(true), Stage3: "ran", FailedModules: []string{}}
	want := []string{
		"score: want 40, got 0",
		"stage1: want passed, got failed",
		"stage2_rate: want 1, got 0.950000",
		"stage2_complete: want true, got false",
		"stage3: want ran, got not-run",
		"failed_modules: want [], got [usage]",
	}
	if d := cmp.Diff(want, unmet.Check(o)); d != "" {
		t.Errorf("unmet (-want +got):\n%s", d)
	}
	var none *Expect
	if got := none.Check(o); got != nil {
		t.Errorf("nil expectation: %v", got)
	}
}

func TestObserve(t *testing.T) {
	v := result.NewVerdict("t", 100)
	v.AuditGate = result.GatePass
	v.StagesRun = []string{result.StageAudit, result.StageBehavioural}
	v.BehaviouralRate = 0.5
	v.BlockedBy = "behavioural-incomplete"
	v.Modules = []result.ModuleScore{{ID: "b", Weight: 1, Complete: false}, {ID: "a", Weight: 1, Complete: false}, {ID: "ok", Weight: 1, Complete: true}, {ID: "notes", Weight: 0}}
	got := Observe(v)
	want := Observed{Score: 0, Valid: true, Stage1: "passed", Stage2Ran: true, Stage2Rate: 0.5, Stage2Complete: false, Stage3: "not-run", FailedModules: []string{"a", "b"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Observe (-want +got):\n%s", d)
	}
}

// TestObserveErroredStage2: a stage 2 that errored, counted or not, says
// why, and an expectation about stage 2 reports that rather than a rate.
func TestObserveErroredStage2(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	audit := result.NewStage(result.StageAudit, "t", now)
	audit.Add(result.Check{ID: "gate", Verdict: result.VerdictFail, Weight: 1, Required: true})
	beh := result.Failed(result.StageBehavioural, "t", "the truth of 13 module(s) is missing", now)
	for _, c := range []struct {
		name  string
		audit *result.Stage
	}{{"uncounted (stage 1 failed)", audit}, {"counted (stage 1 missing)", nil}} {
		t.Run(c.name, func(t *testing.T) {
			v := scoring.Grade("t", scoring.Stages{Audit: c.audit, Behavioural: beh, Declared: []string{"audit", "behavioural"}}, scoring.Published())
			o := Observe(v)
			if c.audit != nil && !strings.Contains(o.Stage2Error, "the truth of 13 module(s) is missing") {
				t.Errorf("Stage2Error %q", o.Stage2Error)
			}
			one, yes := 1.0, true
			got := (&Expect{Stage2Rate: &one, Stage2Complete: &yes}).Check(o)
			if c.audit != nil && (len(got) != 1 || !strings.HasPrefix(got[0], "stage 2 did not complete: ")) {
				t.Errorf("Check: %q", got)
			}
			if len(got) == 0 {
				t.Errorf("an errored stage 2 met an expectation of 1.0: %+v", o)
			}
		})
	}
}

// A variant names its base and holds only what it changes: its tree is
// the base's tree with its own delete.txt and overlay/ applied on top.
func TestBase(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "port"), map[string]string{
		"delete.txt":             "Makefile\nsrc/*.c\n",
		"overlay/CMakeLists.txt": "project(tally)\nadd_link_options(-Wl,-z,now)\n",
		"overlay/src/a.rs":       "fn a() {}\n",
	})
	write(t, filepath.Join(root, "no-now"), map[string]string{
		"base":                   "port\n",
		"delete.txt":             "src/a.rs\n",
		"overlay/CMakeLists.txt": "project(tally)\n",
	})
	f, err := Load(filepath.Join(root, "no-now"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Base == nil || f.Base.Name != "port" {
		t.Fatalf("Base = %+v, want the fixture port", f.Base)
	}
	dst := filepath.Join(t.TempDir(), "sub")
	a, err := f.Apply(stateA(t), dst)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"configure*":          "#!/bin/sh\n",
		"src/keep.h":          "#define K 1\n",
		"build-aux/ltmain.sh": "x\n",
		"README":              "tally\n",
		"CMakeLists.txt":      "project(tally)\n",
	}
	if d := cmp.Diff(want, tree(t, dst)); d != "" {
		t.Errorf("the variant's tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"src/a.rs"}, a.Deleted); d != "" {
		t.Errorf("deleted by the variant itself (-want +got):\n%s", d)
	}

	// A delete line that matches nothing in the base says so.
	write(t, filepath.Join(root, "stale"), map[string]string{"base": "port\n", "delete.txt": "Makefile\n"})
	s, err := Load(filepath.Join(root, "stale"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(stateA(t), filepath.Join(t.TempDir(), "sub")); err == nil || !strings.Contains(err.Error(), `"Makefile" matches nothing in its base port`) {
		t.Errorf("a stale delete line on a base: %v", err)
	}

	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"nothing-changed", map[string]string{"base": "port\n"}, "it has a base, so it must change it"},
		{"untouched", map[string]string{"base": "port\n", "untouched": ""}, "it has a base, so it must change it"},
		{"path", map[string]string{"base": "../port\n", "delete.txt": "x\n"}, `"../port" is not the name of a sibling fixture`},
		{"missing", map[string]string{"base": "nope\n", "delete.txt": "x\n"}, "nope"},
	} {
		dir := filepath.Join(root, c.name)
		write(t, dir, c.files)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	write(t, filepath.Join(root, "c1"), map[string]string{"base": "c2\n", "delete.txt": "x\n"})
	write(t, filepath.Join(root, "c2"), map[string]string{"base": "c1\n", "delete.txt": "x\n"})
	if _, err := Load(filepath.Join(root, "c1")); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a cycle of bases: %v", err)
	}
}
