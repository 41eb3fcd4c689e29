package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// TestNewCmdBehavioural parses argv into BehaviouralOptions through runF,
// or fails with the exact usage error.
func TestNewCmdBehavioural(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    BehaviouralOptions
		wantErr string
	}{
		{args: []string{"t", "--submission", "s", "--results", "r"}, want: BehaviouralOptions{Task: "t", BehaviouralOptions: stages.BehaviouralOptions{Submission: "s", Results: "r"}}},
		{args: []string{"t", "--submission=s", "--results=r", "--host", "--helper", "h", "--keep-work", "w", "--original", "o"},
			want: BehaviouralOptions{Task: "t", BehaviouralOptions: stages.BehaviouralOptions{Submission: "s", Results: "r", Host: true, KeepWork: "w", Original: "o"}, Helper: "h"}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--image", "srb/x:behavioural"},
			want: BehaviouralOptions{Task: "t", BehaviouralOptions: stages.BehaviouralOptions{Submission: "s", Results: "r", Image: "srb/x:behavioural"}}},
		{args: []string{"t", "--submission", "s", "--results", "r", "--helper", "h"},
			wantErr: "behavioural: --helper is for --host runs (an image run uses the image's own helper)"},
		{args: []string{"t", "--submission", "s", "--results", "r", "--host", "--image", "i"},
			wantErr: "behavioural: --image names the container to run in; --host runs on this machine: give one"},
		{args: []string{"t", "--results", "r"}, wantErr: "behavioural: --submission and --results are required"},
		{args: []string{"--submission", "s", "--results", "r"}, wantErr: "behavioural: takes TASK, got no argument (usage: behavioural TASK --submission DIR --results DIR [flags]; see behavioural --help)"},
	} {
		var got *BehaviouralOptions
		f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
		cmd := NewCmdBehavioural(f, func(o *BehaviouralOptions) error { got = o; return nil })
		checkCmd(t, c.args, cmd, c.wantErr)
		if c.wantErr == "" && got != nil {
			if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(BehaviouralOptions{}, "IO", "Now", "Engine", "BuildImage", "Started")); diff != "" {
				t.Errorf("%q (-want +got):\n%s", c.args, diff)
			}
		}
	}
}

// TestNewCmdFreeze parses argv into FreezeOptions through runF.
func TestNewCmdFreeze(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    FreezeOptions
		wantErr string
	}{
		{args: []string{"t"}, want: FreezeOptions{Task: "t"}},
		{args: []string{"t", "--host", "--keep-work", "w", "--helper", "h"}, want: FreezeOptions{Task: "t", FreezeOptions: stages.FreezeOptions{Host: true, KeepWork: "w"}, Helper: "h"}},
		{args: []string{"t", "--helper", "h"}, wantErr: "freeze: --helper is for --host runs (an image run uses the images' own helper)"},
		{args: []string{"a", "b"}, wantErr: "freeze: takes TASK, got 2 arguments (a b) (usage: freeze TASK [flags]; see freeze --help)"},
	} {
		var got *FreezeOptions
		f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
		cmd := NewCmdFreeze(f, func(o *FreezeOptions) error { got = o; return nil })
		checkCmd(t, c.args, cmd, c.wantErr)
		if c.wantErr == "" && got != nil {
			if diff := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(FreezeOptions{}, "IO", "Now", "Engine", "BuildImage")); diff != "" {
				t.Errorf("%q (-want +got):\n%s", c.args, diff)
			}
		}
	}
}

// checkCmd runs cmd with args: a usage error with exactly wantErr, or no
// error when wantErr is "".
func checkCmd(t *testing.T, args []string, cmd *cobra.Command, wantErr string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("%q: %v", args, err)
	case wantErr != "" && (err == nil || err.Error() != wantErr):
		t.Errorf("%q: error %v, want %q", args, err, wantErr)
	case wantErr != "" && !isUsageError(err):
		t.Errorf("%q: %T is not a usage error (exit 1)", args, err)
	}
}
