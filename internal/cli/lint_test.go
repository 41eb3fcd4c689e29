package cli

import (
	"testing"
)

// TestNewCmdLint parses argv into LintOptions through runF, or fails with
// the exact usage error.
func TestNewCmdLint(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    LintOptions
		wantErr string
	}{
		{args: nil, want: LintOptions{Format: "text"}},
		{args: []string{"a", "tasks/b", "--strict"}, want: LintOptions{Tasks: []string{"a", "tasks/b"}, Format: "text", Strict: true}},
		{args: []string{"--format", "sarif", "a"}, want: LintOptions{Tasks: []string{"a"}, Format: "sarif"}},
		{args: []string{"--format=json"}, want: LintOptions{Format: "json"}},
		{args: []string{"--format", "xml"}, wantErr: `--format must be text, json or sarif, not "xml" (see lint --help)`},
	} {
		got, err := parseCmd(NewCmdLint, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if got == nil {
			t.Fatalf("%q: runF not called", c.args)
		}
		if len(got.Tasks) != len(c.want.Tasks) || got.Format != c.want.Format || got.Strict != c.want.Strict {
			t.Errorf("%q: got %+v, want %+v", c.args, *got, c.want)
		}
		for i := range c.want.Tasks {
			if got.Tasks[i] != c.want.Tasks[i] {
				t.Errorf("%q: Tasks = %q, want %q", c.args, got.Tasks, c.want.Tasks)
			}
		}
	}
}
