package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestNewCmdAudit parses argv into AuditOptions through runF, or fails
// with the exact usage error.
func TestNewCmdAudit(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    AuditOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: AuditOptions{Task: "t", Submission: "s", Results: "r"}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--original", "o", "--logs", "l", "--driver", "scripted", "--model", "m", "--script", "a.json", "--script", "b.json"},
			want: AuditOptions{Task: "t", Submission: "s", Results: "r", Original: "o", Logs: "l", Driver: "scripted", Model: "m", Scripts: []string{"a.json", "b.json"}}},
		{args: []string{"--submission", "s", "--results", "r"}, wantErr: "accepts 1 arg(s), received 0"},
		{args: []string{"t", "--results", "r"}, wantErr: "--submission DIR is required"},
		{args: []string{"t", "--submission", "s"}, wantErr: "--results DIR is required"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--driver", "vertex"}, wantErr: "--driver vertex: known drivers are anthropic, command, openai, scripted"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--script", "a.json"}, wantErr: "--script needs --driver scripted"},
	} {
		var got *AuditOptions
		f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
		cmd := NewCmdAudit(f, func(o *AuditOptions) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.ExecuteContext(context.Background())
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.args, err, c.wantErr)
			}
			if !isUsageError(err) {
				t.Errorf("%q: %T is not a usage error (exit 1)", c.args, err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: %v (runF called: %v)", c.args, err, got != nil)
		}
		if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(AuditOptions{}, "IO", "Now", "Lookup"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}
