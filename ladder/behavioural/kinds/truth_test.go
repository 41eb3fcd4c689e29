package kinds

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// freezeTask freezes a task like decl's (no symbols module, and only the
// build, cmd, install, digests and prov modules, to keep it quick) on its
// shell-script State A under a temporary folder of t, and returns the
// declaration.
func freezeTask(t *testing.T) *behavioural.Declaration {
	t.Helper()
	root := t.TempDir()
	taskDir, original := filepath.Join(root, "task"), filepath.Join(root, "a")
	d := decl(t, taskDir, false)
	d.Modules = slices.DeleteFunc(d.Modules, func(m behavioural.DeclaredModule) bool { return m.ID == "web" || m.ID == "install-opaque" })
	for i, m := range d.Modules {
		if m.ID == "install" {
			// A tree whose extra file a submission can ask for (variant b).
			d.Modules[i].Params = raw(map[string]any{"install": [][]string{{"/bin/sh", "-c",
				"mkdir -p ${PREFIX}/bin && cp prog ${PREFIX}/bin/ && ln -s prog ${PREFIX}/bin/alias && if grep -q b variant; then cp prog ${PREFIX}/bin/extra; fi"}}})
		}
	}
	d.StateA = "sha256:aaaa"
	stateA(t, original, false)
	fz := &behavioural.Freezer{
		Runner: behavioural.Runner{Repo: original, Original: original, Work: filepath.Join(root, "freeze")},
		Decl:   d, Helper: []string{os.Args[0]},
		Provenance: behavioural.Provenance{TaskCommit: "0123abcd", StateA: d.StateA, Where: "host"},
	}
	if _, err := fz.Freeze(context.Background()); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	return d
}

// originalOf is the State A tree freezeTask made beside d's task folder.
func originalOf(d *behavioural.Declaration) string {
	return filepath.Join(filepath.Dir(d.TaskDir), "a")
}

// copyTask returns a private copy of frozen's task folder under a
// temporary folder of t (State A stays shared), and that folder.
func copyTask(t *testing.T, frozen *behavioural.Declaration) (*behavioural.Declaration, string) {
	t.Helper()
	root := t.TempDir()
	taskDir := filepath.Join(root, "task")
	if err := os.CopyFS(taskDir, os.DirFS(frozen.TaskDir)); err != nil {
		t.Fatal(err)
	}
	d := *frozen
	d.TaskDir = taskDir
	d.Modules = slices.Clone(frozen.Modules)
	return &d, root
}

// editTruth rewrites module id's truth file through edit (on its JSON
// object).
func editTruth(t *testing.T, d *behavioural.Declaration, id string, edit func(m map[string]any)) {
	t.Helper()
	p := behavioural.TruthPath(d.TaskDir, id)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if err := behavioural.WriteJSON(p, m); err != nil {
		t.Fatal(err)
	}
}

// TestCheckTruth: freshly frozen truth fits; each way truth can stop
// fitting the task (an observation a module checks dropped, provenance
// absent or emptied, State A re-pinned, cases edited, another module's
// file) is one problem naming file, line, field, module and check.
func TestCheckTruth(t *testing.T) {
	frozen := freezeTask(t)
	original := originalOf(frozen)
	if ps := CheckTruth(frozen, original); len(ps) != 0 {
		t.Fatalf("fresh truth: %+v", ps)
	}
	type want struct{ module, field, check, msg string }
	for _, tc := range []struct {
		name   string
		break_ func(d *behavioural.Declaration)
		want   []want
	}{
		{"observation dropped", func(d *behavioural.Declaration) {
			editTruth(t, d, "cmd", func(m map[string]any) { delete(m["observations"].(map[string]any), "fail/exit") })
		}, []want{{"cmd", `observations["fail/exit"]`, "fail/exit", "module cmd checks fail/exit, and the truth has no observation of it"}}},
		{"install path listed, not recorded", func(d *behavioural.Declaration) {
			editTruth(t, d, "install", func(m map[string]any) { delete(m["observations"].(map[string]any), "path:bin/alias") })
		}, []want{{"install", `observations["path:bin/alias"]`, "path:bin/alias", "module install checks path:bin/alias"}}},
		{"no provenance", func(d *behavioural.Declaration) {
			editTruth(t, d, "digests", func(m map[string]any) { delete(m, "provenance") })
		}, []want{{"digests", "provenance", "", "no provenance"}}},
		{"empty task commit", func(d *behavioural.Declaration) {
			editTruth(t, d, "digests", func(m map[string]any) { m["provenance"].(map[string]any)["task_commit"] = "" })
		}, []want{{"digests", "provenance.task_commit", "", "provenance.task_commit is missing or empty"}}},
		{"container without images", func(d *behavioural.Declaration) {
			editTruth(t, d, "digests", func(m map[string]any) { m["provenance"].(map[string]any)["where"] = "container" })
		}, []want{
			{"digests", "provenance.images", "", "no behavioural image digest"},
			{"digests", "provenance.images", "", "no verification image digest"},
		}},
		{"State A re-pinned", func(d *behavioural.Declaration) { d.StateA = "sha256:bbbb" }, nil},
		{"cases edited", func(d *behavioural.Declaration) {
			tree(t, d.TaskDir, map[string]string{"data/corpus/c.txt": "delta\n"})
		}, nil},
		{"another module's truth", func(d *behavioural.Declaration) {
			editTruth(t, d, "digests", func(m map[string]any) { m["module"] = "cmd" })
		}, []want{{"digests", "module", "", `recorded for module "cmd" of kind "digests"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := copyTask(t, frozen)
			tc.break_(d)
			ps := CheckTruth(d, original)
			switch tc.name {
			case "State A re-pinned":
				// Every declarative module's truth is of the old archive.
				if len(ps) != len(d.Modules) {
					t.Fatalf("got %d problems for %d modules: %+v", len(ps), len(d.Modules), ps)
				}
				for _, p := range ps {
					if p.Field != "provenance.state_a_sha256" || p.Line == 0 || !strings.Contains(p.Msg, "recorded from State A sha256:aaaa, and the task now pins sha256:bbbb") {
						t.Errorf("problem %+v", p)
					}
				}
				return
			case "cases edited":
				// data/ is in every declarative module's cases fingerprint
				// (one line each: the stale observations are not listed).
				if len(ps) != len(d.Modules) || !slices.ContainsFunc(ps, func(p TruthProblem) bool {
					return p.Module == "cmd" && p.Field == "cases_fingerprint" && strings.Contains(p.Msg, "module cmd's cases changed")
				}) {
					t.Fatalf("problems %+v", ps)
				}
				return
			}
			if len(ps) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %+v", len(ps), len(tc.want), ps)
			}
			for i, w := range tc.want {
				p := ps[i]
				if p.Module != w.module || p.Field != w.field || p.Check != w.check || !strings.Contains(p.Msg, w.msg) ||
					filepath.Base(p.File) != w.module+".json" || p.Line == 0 && w.field != "provenance" {
					t.Errorf("problem %d = %+v, want %+v", i, p, w)
				}
			}
		})
	}
}

// TestTruthGapAtCheckTime: a truth lacking an observation the module
// checks makes the stage a configuration fault (status error,
// config_error, naming module and check) when the correct port is
// checked, never a failed or errored check that pays 0. An extra file a
// submission installs (an install-tree path State A never had) stays the
// submission's failure: it cannot turn its own 0 into an invalid verdict.
func TestTruthGapAtCheckTime(t *testing.T) {
	frozen := freezeTask(t)
	original := originalOf(frozen)
	d, root := copyTask(t, frozen)
	check := func(name, sub string) *result.Stage {
		t.Helper()
		work := filepath.Join(root, name)
		s, err := d.Suite(behavioural.ModeCheck, work, filepath.Join(d.TaskDir, behavioural.TruthDir), []string{os.Args[0]})
		if err != nil {
			t.Fatal(err)
		}
		st, err := (&behavioural.Runner{Repo: sub, Original: original, Work: work}).Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	editTruth(t, d, "cmd", func(m map[string]any) { delete(m["observations"].(map[string]any), "fail/exit") })
	st := check("gap", original)
	if st.Status != result.StatusError || st.Metadata["config_error"] != true {
		t.Fatalf("status %s, metadata %v", st.Status, st.Metadata)
	}
	if msg, _ := st.Metadata["error"].(string); !strings.Contains(msg, "the truth of module cmd (truth/cmd.json) has no observation of fail/exit") {
		t.Errorf("error = %q", msg)
	}

	// Truth whole again; the submission installs one more file.
	d, root = copyTask(t, frozen)
	sub := filepath.Join(root, "sub")
	stateA(t, sub, false)
	tree(t, sub, map[string]string{"variant": "b"})
	st = check("extra", sub)
	if st.Status != result.StatusOK || st.Metadata["config_error"] != nil {
		t.Fatalf("an extra installed file made the stage %s (%v)", st.Status, st.Metadata["error"])
	}
	var got []string
	for _, c := range st.Checks {
		if !c.OK() {
			got = append(got, c.ID+" "+c.Verdict)
		}
	}
	if !slices.Contains(got, "install/path:bin/extra fail") || !slices.Contains(got, "install/paths fail") {
		t.Errorf("failing checks = %v, want install/path:bin/extra and install/paths failed", got)
	}
}
