package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-refactor-bench/srb/internal/image"
)

// TestNewCmdBuild parses argv into BuildOptions through runF, or fails
// with the exact usage error.
func TestNewCmdBuild(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    BuildOptions
		wantErr string
	}{
		{args: nil, want: BuildOptions{Builds: image.Builds{Progress: "auto"}}},
		{args: []string{"t1", "--stage", "agent,audit", "--load"}, want: BuildOptions{Tasks: []string{"t1"}, Builds: image.Builds{Stages: []string{"agent", "audit"}, Progress: "auto", Load: true}}},
		{args: []string{"--verify", "--buildkit", "tcp://b:1234", "--progress", "plain", "--json"}, want: BuildOptions{Builds: image.Builds{Verify: true, BuildKit: "tcp://b:1234", Progress: "plain"}, JSON: true}},
		{args: []string{"--push", "127.0.0.1:5000/srb", "--cache", "/c"}, want: BuildOptions{Builds: image.Builds{Push: "127.0.0.1:5000/srb", Progress: "auto"}, Cache: "/c"}},
		{args: []string{"--no-identity", "t1"}, want: BuildOptions{Tasks: []string{"t1"}, Builds: image.Builds{Progress: "auto"}, NoIdentity: true}},
		{args: []string{"--stage", "compile"}, wantErr: "--stage compile: want one of agent, audit, behavioural, verification"},
		{args: []string{"--verify", "--push", "r"}, wantErr: "--verify rebuilds to compare: it does not take --load or --push"},
		{args: []string{"--progress", "fancy"}, wantErr: "--progress fancy: want auto, tty, plain, quiet or rawjson"},
	} {
		got, err := parseCmd(NewCmdBuild, c.args)
		if c.wantErr != "" {
			wantUsageError(t, c.args, err, c.wantErr)
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: err %v, runF called %v", c.args, err, got != nil)
		}
		if d := cmp.Diff(c.want, *got, cmpopts.IgnoreFields(BuildOptions{}, "IO", "Getwd", "Dial", "Engine"), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%q: options (-want +got):\n%s", c.args, d)
		}
	}
}
