package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

func TestNewCmdLadder(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    LadderOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: LadderOptions{Task: "t", Submissions: []string{"s"}, Results: "r", Jobs: 1}},
		{args: []string{"t", "--submission", "a", "--submission-fixture", "f", "--submission", "b", "--results", "r", "--jobs", "3",
			"--driver", "scripted", "--audit-script", "x.json", "--adversary-script", "a01=y.json", "--adjudicator-script", "z.json",
			"--audit-model", "m", "--keep-work", "k", "--helper", "h", "--cache", "c", "--host"},
			want: LadderOptions{Task: "t", Submissions: []string{"a", "b"}, Fixtures: []string{"f"}, Results: "r", Jobs: 3, Driver: "scripted",
				AuditScripts: []string{"x.json"}, AdversaryScripts: []string{"a01=y.json"}, AdjudicatorScript: "z.json", AuditModel: "m", KeepWork: "k", Helper: "h", Cache: "c", Host: true}},
		{args: []string{"t", "--results", "r"}, wantErr: "--submission DIR or --submission-fixture DIR is required"},
		{args: []string{"t", "--submission", "s"}, wantErr: "--results DIR is required"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--jobs", "0"}, wantErr: "--jobs 0: at least 1"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--adjudicator-driver", "vertex"}, wantErr: "--adjudicator-driver vertex: known drivers are anthropic, command, openai, scripted"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--adversary-script", "=y.json"}, wantErr: "--adversary-script =y.json: write ID=FILE"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--helper", "h"}, wantErr: "--helper is for --host runs (an image run uses the image's own helper)"},
	} {
		got, err := parseCmd(NewCmdLadder, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: %v (runF called: %v)", c.args, err, got != nil)
		}
		if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(LadderOptions{}, "IO", "Now", "Lookup", "Engine"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}

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
		opts          LadderOptions
		fixture       *submission.Fixture
		audit, adjud  StageDriver
		advAll, adv01 StageDriver
	}{
		{name: "task's own", opts: LadderOptions{Lookup: env()}},
		{name: "fixture scripts", opts: LadderOptions{Lookup: env()}, fixture: fx,
			audit: StageDriver{Driver: models.DriverScripted, Scripts: fx.AuditScripts},
			adjud: StageDriver{Driver: models.DriverScripted, Scripts: []string{"/f/adjudicator.json"}},
			adv01: StageDriver{Driver: models.DriverScripted, Scripts: []string{"/f/adversaries/a01.json"}}},
		{name: "environment beats the fixture", opts: LadderOptions{Lookup: env("SRB_DRIVER", "openai", "SRB_AUDIT_MODEL", "gpt-x")}, fixture: fx,
			audit: StageDriver{Driver: models.DriverOpenAI, Model: "gpt-x"}, adjud: StageDriver{Driver: models.DriverOpenAI},
			advAll: StageDriver{Driver: models.DriverOpenAI}, adv01: StageDriver{Driver: models.DriverOpenAI}},
		{name: "flag beats environment", opts: LadderOptions{Lookup: env("SRB_AUDIT_DRIVER", "openai"), AuditDriver: "anthropic", AdversaryScripts: []string{"a01=/x.json"}},
			audit: StageDriver{Driver: models.DriverAnthropic}, adv01: StageDriver{Driver: models.DriverScripted, Scripts: []string{"/x.json"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &ladderRun{fixture: c.fixture}
			resolveDrivers(&c.opts, r)
			got := []StageDriver{r.audit, r.adjud, r.advAll, r.advs["a01"]}
			want := []StageDriver{c.audit, c.adjud, c.advAll, c.adv01}
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
