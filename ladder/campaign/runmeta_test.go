package campaign

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestRunMetaResolve: run.json beside the submission is read, the flags
// win over it field by field, the task's class is recorded, and the whole
// lands in the verdict's metadata.run as campaign reads it back.
func TestRunMetaResolve(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "repo")
	p := RunMetaPath(sub, "")
	if p != filepath.Join(dir, "run.json") {
		t.Fatalf("run.json for %s is looked for at %s", sub, p)
	}
	if err := os.WriteFile(p, []byte(`{"model": "m1", "effort": "high", "agent": "codex", "agent_version": "0.146.0",
  "attempt": 2, "seed": 7, "gateway": "eu"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := RunMetaFlags{Effort: "xhigh", Meta: []string{"gateway=us", "note=a=b"}}
	if err := flags.Check(); err != nil {
		t.Fatal(err)
	}
	m, known, err := ResolveRunMeta(flags, p, "language")
	if err != nil || !known {
		t.Fatalf("resolve: %v %v", known, err)
	}
	want := RunMeta{Model: "m1", Effort: "xhigh", Agent: "codex", AgentVersion: "0.146.0", Attempt: 2, TaskClass: "language",
		Operator: map[string]string{"seed": "7", "gateway": "us", "note": "a=b"}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if m.ConfigName() != "m1-xhigh" {
		t.Errorf("configuration %q", m.ConfigName())
	}
	v := result.NewVerdict("lang90-tally-c-to-go", 100)
	RecordRunMeta(m)(v)
	got := v.Metadata["run"].(map[string]any)
	if got["model"] != "m1" || got["attempt"] != 2 || got["task_class"] != "language" || got["operator"].(map[string]any)["gateway"] != "us" {
		t.Errorf("metadata.run = %v", got)
	}

	// No run.json and no flags: only the class is known.
	m, known, err = ResolveRunMeta(RunMetaFlags{}, filepath.Join(dir, "none", "run.json"), "build")
	if err != nil || known || m.TaskClass != "build" {
		t.Errorf("absent run.json: %+v %v %v", m, known, err)
	}
}

// TestRunMetaRefusesBadInput: a run.json a campaign could misread is
// refused naming its file, line and field, and so are malformed flags.
func TestRunMetaRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"not json", "{\n\"model\": \"m\",\n oops}", "run.json:3: not JSON"},
		{"two values", `{"model": "m"} {"model": "n"}`, "more than one JSON value"},
		{"array", `["m"]`, "want one JSON object"},
		{"model type", "{\n  \"agent\": \"a\",\n  \"model\": 5\n}", `run.json:3: field "model": want a string, got 5`},
		{"attempt", `{"attempt": 0}`, `field "attempt": want a whole number from 1`},
		{"attempt fraction", `{"attempt": 1.5}`, `field "attempt": want a whole number from 1`},
		{"class forged", `{"task_class": "build"}`, `field "task_class": want nothing: srb records it itself`},
		{"nested", `{"cost": {"usd": 3}}`, `field "cost": want a string, number or boolean`},
		{"bad key", `{"a b": "x"}`, `field "a b": a key is a letter`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"), "run.json")
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(c.body), 0o644)
		_, _, err := ResolveRunMeta(RunMetaFlags{}, p, "")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want an error naming %s and %q", c.name, err, p, c.want)
		}
	}
	// A run.json that is a link (say, into the tree the agent wrote) is refused.
	inTree := filepath.Join(dir, "repo", "claims.json")
	_ = os.MkdirAll(filepath.Dir(inTree), 0o755)
	_ = os.WriteFile(inTree, []byte(`{"model": "the-best-model"}`), 0o644)
	link := filepath.Join(dir, "run.json")
	if err := os.Symlink(inTree, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ResolveRunMeta(RunMetaFlags{}, link, ""); err == nil || !strings.Contains(err.Error(), "never a link") {
		t.Errorf("a linked run.json: %v", err)
	}
	big := filepath.Join(dir, "big", "run.json")
	_ = os.MkdirAll(filepath.Dir(big), 0o755)
	_ = os.WriteFile(big, []byte(`{"note": "`+strings.Repeat("x", 70<<10)+`"}`), 0o644)
	if _, _, err := ResolveRunMeta(RunMetaFlags{}, big, ""); err == nil || !strings.Contains(err.Error(), "more than the 65536") {
		t.Errorf("a large run.json: %v", err)
	}
	for _, f := range []RunMetaFlags{{Meta: []string{"novalue"}}, {Meta: []string{"model=x"}}, {Meta: []string{"=x"}}, {Attempt: -1}} {
		if err := f.Check(); err == nil {
			t.Errorf("%+v: accepted", f)
		}
	}
}
