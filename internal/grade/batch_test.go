package grade

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
)

// TestResolveDrivers: a flag beats its environment variable, which beats
// --driver, then SRB_DRIVER, then a fixture's script (scripted), then the
// task's own driver (no override).
func TestResolveDrivers(t *testing.T) {
	fx := &submission.Fixture{Name: "f", AuditScripts: []string{"/f/audit/1.json", "/f/audit/2.json"},
		AdversaryScripts: map[string]string{"a01": "/f/adversaries/a01.json"}, AdjudicatorScript: "/f/adjudicator.json"}
	env := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, c := range []struct {
		name          string
		flags         DriverFlags
		lookup        func(string) (string, bool)
		fixture       *submission.Fixture
		audit, adjud  pipeline.Driver
		advAll, adv01 pipeline.Driver
	}{
		{name: "task's own", lookup: env()},
		{name: "fixture scripts", lookup: env(), fixture: fx,
			audit: pipeline.Driver{Driver: models.DriverScripted, Scripts: fx.AuditScripts},
			adjud: pipeline.Driver{Driver: models.DriverScripted, Scripts: []string{"/f/adjudicator.json"}},
			adv01: pipeline.Driver{Driver: models.DriverScripted, Scripts: []string{"/f/adversaries/a01.json"}}},
		{name: "environment beats the fixture", lookup: env("SRB_DRIVER", "openai", "SRB_AUDIT_MODEL", "gpt-x"), fixture: fx,
			audit: pipeline.Driver{Driver: models.DriverOpenAI, Model: "gpt-x"}, adjud: pipeline.Driver{Driver: models.DriverOpenAI},
			advAll: pipeline.Driver{Driver: models.DriverOpenAI}, adv01: pipeline.Driver{Driver: models.DriverOpenAI}},
		{name: "flag beats environment", lookup: env("SRB_AUDIT_DRIVER", "openai"), flags: DriverFlags{AuditDriver: "anthropic", AdversaryScripts: []string{"a01=/x.json"}},
			audit: pipeline.Driver{Driver: models.DriverAnthropic}, adv01: pipeline.Driver{Driver: models.DriverScripted, Scripts: []string{"/x.json"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := ResolveDrivers(c.flags, c.lookup, c.fixture)
			got := []pipeline.Driver{d.Audit, d.Adjudicator, d.Adversary, d.Adversaries["a01"]}
			want := []pipeline.Driver{c.audit, c.adjud, c.advAll, c.adv01}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("audit, adjudicator, every adversary, a01 (-want +got):\n%s", d)
			}
		})
	}
}

func TestPrefixWriter(t *testing.T) {
	var buf bytes.Buffer
	w := &prefixWriter{w: &buf, prefix: "a: "}
	w.Write([]byte("one\ntw"))
	w.Write([]byte("o\nthree"))
	if got := buf.String(); got != "a: one\na: two\n" {
		t.Errorf("before Flush: %q", got)
	}
	w.Flush()
	if got := buf.String(); got != "a: one\na: two\na: three\n" {
		t.Errorf("after Flush: %q", got)
	}
}

// TestPlan: one submission's results are the folder itself, several get
// one folder each by name, and two with one name are refused.
func TestPlan(t *testing.T) {
	dir := t.TempDir()
	runs, err := Plan([]string{filepath.Join(dir, "a")}, nil, "out")
	if err != nil || len(runs) != 1 || runs[0].Name != "a" || runs[0].Tree != filepath.Join(dir, "a") || runs[0].Results != "out" {
		t.Fatalf("one submission: %+v %v", runs, err)
	}
	runs, err = Plan([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, nil, "out")
	if err != nil || len(runs) != 2 || runs[0].Results != filepath.Join("out", "a") || runs[1].Results != filepath.Join("out", "b") {
		t.Fatalf("two submissions: %+v %v", runs, err)
	}
	_, err = Plan([]string{filepath.Join(dir, "x", "repo"), filepath.Join(dir, "y", "repo")}, nil, "out")
	var clash *NameClashError
	if !errors.As(err, &clash) || clash.Name != "repo" || err.Error() != "two submissions are named repo: their results would share out/repo" {
		t.Errorf("two named repo: %v", err)
	}
}
