package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/ladder/stages"
)

func TestNewCmdVerification(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    VerificationOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--original", "o", "--logs", "l", "--keep-work", "k", "--force",
			"--driver", "scripted", "--model", "m", "--script", "a.json", "--script", "b.json", "--adversary-script", "a06-open=c.json", "--adjudicator-script", "j.json"},
			want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Original: "o", Logs: "l", KeepWork: "k", Force: true, Adversary: StageDriver{Driver: "scripted", Model: "m", Scripts: []string{"a.json", "b.json"}}, Adversaries: map[string]StageDriver{"a06-open": {Driver: "scripted", Model: "m", Scripts: []string{"c.json"}}}, Adjudicator: StageDriver{Driver: "scripted", Scripts: []string{"j.json"}}}}},
		// The adjudicator keeps the task's driver unless told; a script alone makes it scripted.
		{args: []string{"t", "--submission", "s", "--results", "r", "--adversary-driver", "command", "--adjudicator-script", "j.json"},
			want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Adversary: StageDriver{Driver: "command"}, Adjudicator: StageDriver{Driver: "scripted", Scripts: []string{"j.json"}}}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--driver", "openai", "--adjudicator-driver", "anthropic", "--adjudicator-model", "x"},
			want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Adversary: StageDriver{Driver: "openai"}, Adjudicator: StageDriver{Driver: "anthropic", Model: "x"}}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--host"}, want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Host: true}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--host", "--home-seed", "seed"}, want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Host: true, HomeSeed: "seed"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--home-seed", "seed"}, wantErr: "--home-seed is for --host runs (a round's container starts from its image)"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--image", "srb/x:verification"},
			want: VerificationOptions{Task: "t", VerificationOptions: stages.VerificationOptions{Submission: "s", Results: "r", Image: "srb/x:verification"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--host", "--image", "i"}, wantErr: "--image names the image the rounds run in; --host runs them on this machine: give one"},
		{args: []string{"--submission", "s", "--results", "r"}, wantErr: "verification: takes TASK, got no argument (usage: verification TASK --submission DIR --results DIR [flags]; see verification --help)"},
		{args: []string{"t", "--results", "r"}, wantErr: "--submission DIR is required"},
		{args: []string{"t", "--submission", "s"}, wantErr: "--results DIR is required"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--adjudicator-driver", "vertex"}, wantErr: "--adjudicator-driver vertex: known drivers are anthropic, command, openai, scripted"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--script", "a.json"}, wantErr: "--script needs --driver scripted (or --adversary-driver scripted)"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--adversary-script", "a.json"}, wantErr: "--adversary-script a.json: write ID=FILE"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--driver", "openai", "--adversary-script", "a=b.json"}, wantErr: "--adversary-script needs the scripted adversary driver"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--adjudicator-driver", "openai", "--adjudicator-script", "j.json"}, wantErr: "--adjudicator-script needs the scripted adjudicator driver"},
	} {
		got, err := parseCmd(NewCmdVerification, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: %v (runF called: %v)", c.args, err, got != nil)
		}
		if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(VerificationOptions{}, "IO", "Now", "Lookup"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}
