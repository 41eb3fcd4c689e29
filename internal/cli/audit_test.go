package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// TestNewCmdAudit parses argv into AuditOptions through runF, or fails
// with the exact usage error.
func TestNewCmdAudit(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    AuditOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: AuditOptions{Task: "t", AuditOptions: stages.AuditOptions{Submission: "s", Results: "r"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--original", "o", "--logs", "l", "--driver", "scripted", "--model", "m", "--script", "a.json", "--script", "b.json"},
			want: AuditOptions{Task: "t", AuditOptions: stages.AuditOptions{Submission: "s", Results: "r", Original: "o", Logs: "l", Driver: StageDriver{Driver: "scripted", Model: "m", Scripts: []string{"a.json", "b.json"}}}}},
		{args: []string{"--submission", "s", "--results", "r"}, wantErr: "audit: takes TASK, got no argument (usage: audit TASK --submission DIR --results DIR [flags]; see audit --help)"},
		{args: []string{"t", "--results", "r"}, wantErr: "--submission DIR is required"},
		{args: []string{"t", "--submission", "s"}, wantErr: "--results DIR is required"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--driver", "vertex"}, wantErr: "--driver vertex: known drivers are anthropic, command, openai, scripted"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--script", "a.json"}, wantErr: "--script needs --driver scripted"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--host"}, want: AuditOptions{Task: "t", AuditOptions: stages.AuditOptions{Submission: "s", Results: "r", Host: true}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--image", "srb/x:audit"}, want: AuditOptions{Task: "t", AuditOptions: stages.AuditOptions{Submission: "s", Results: "r", Image: "srb/x:audit"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--image", "srb/x:audit", "--host"}, wantErr: "--image names the container run executes in: it does not take --host"},
	} {
		got, err := parseCmd(NewCmdAudit, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: %v (runF called: %v)", c.args, err, got != nil)
		}
		if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(AuditOptions{}, "IO", "Now", "Lookup", "Engine"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}

// TestPreflightFixture checks every model position of the fixture task
// before anything would start: each missing variable is named once, with
// the positions that need it.
func TestPreflightFixture(t *testing.T) {
	tk, problems := task.Load(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	positions := grade.Positions(tk, result.StageAudit, result.StageVerification)
	if len(positions) != 8 {
		t.Fatalf("%d positions, want audit + adjudicator + 6 adversaries", len(positions))
	}
	none := func(string) (string, bool) { return "", false }
	err := models.Preflight(none, positions...)
	want := "preflight: OPENAI_API_KEY is unset, needed by audit (openai gpt-5.6-sol), " +
		"verification.adversaries[a01-whitespace] (openai gpt-5.6-sol), verification.adversaries[a02-binary] (openai gpt-5.6-terra), " +
		"verification.adversaries[a03-large] (openai gpt-5.6-luna); " +
		"ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is unset, needed by verification.adjudicator (anthropic claude-opus-5), " +
		"verification.adversaries[a04-lines] (anthropic claude-sonnet-5), verification.adversaries[a05-usage] (anthropic claude-opus-5), " +
		"verification.adversaries[a06-open] (anthropic claude-opus-5)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	set := map[string]string{"OPENAI_API_KEY": "k", "ANTHROPIC_AUTH_TOKEN": "t"}
	lookup := func(k string) (string, bool) { v, ok := set[k]; return v, ok }
	if err := models.Preflight(lookup, positions...); err != nil {
		t.Errorf("with both keys: %v", err)
	}
	if got := models.ForwardedEnv(lookup, positions...); strings.Join(got, " ") != "ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY" {
		t.Errorf("forwarded %q", got)
	}
}
