package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/internal/grade"
)

func TestNewCmdLadder(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    LadderOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: LadderOptions{Task: "t", Ladder: grade.Ladder{Submissions: []string{"s"}, Results: "r", Jobs: 1}}},
		{args: []string{"t", "--submission", "a", "--submission-fixture", "f", "--submission", "b", "--results", "r", "--jobs", "3",
			"--driver", "scripted", "--audit-script", "x.json", "--adversary-script", "a01=y.json", "--adjudicator-script", "z.json",
			"--audit-model", "m", "--keep-work", "k", "--helper", "h", "--cache", "c", "--host"},
			want: LadderOptions{Task: "t", Ladder: grade.Ladder{Submissions: []string{"a", "b"}, Fixtures: []string{"f"}, Results: "r", Jobs: 3,
				DriverFlags: grade.DriverFlags{Driver: "scripted", AuditScripts: []string{"x.json"}, AdversaryScripts: []string{"a01=y.json"}, AdjudicatorScript: "z.json", AuditModel: "m"},
				KeepWork:    "k", Helper: "h", Cache: "c", Host: true}}},
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
