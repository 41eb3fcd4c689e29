package cli

import (
	"reflect"
	"testing"
)

// TestNewCmdCampaign: srb campaign's flags and its usage errors.
func TestNewCmdCampaign(t *testing.T) {
	got, err := parseCmd(NewCmdCampaign, []string{"runs", "--json", "--html", "page.html", "--title", "T"})
	if err != nil || got == nil {
		t.Fatalf("%v %v", got, err)
	}
	if !reflect.DeepEqual(got.Roots, []string{"runs"}) || !got.JSON || got.HTML != "page.html" || got.Title != "T" || got.Compare {
		t.Errorf("options %+v", got)
	}
	got, err = parseCmd(NewCmdCampaign, []string{"--compare", "a", "b"})
	if err != nil || !got.Compare || !reflect.DeepEqual(got.Roots, []string{"a", "b"}) {
		t.Errorf("--compare: %+v %v", got, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "a"}, "--compare takes two campaign folders, A and B"},
		{[]string{"a", "b"}, "one campaign folder (or --compare A B)"},
		{[]string{"a", "--json", "--csv"}, "--json and --csv: choose one"},
		{[]string{"--compare", "a", "b", "--csv"}, "--compare prints text or --json"},
	} {
		_, err := parseCmd(NewCmdCampaign, c.args)
		wantUsageError(t, c.args, err, c.want)
	}
}

// TestNewCmdLadderRunMeta: srb ladder's --run-* flags reach its options,
// and a malformed --run-meta is a usage error before anything runs.
func TestNewCmdLadderRunMeta(t *testing.T) {
	got, err := parseCmd(NewCmdLadder, []string{"t", "--submission", "s", "--results", "r", "--run-model", "m", "--run-effort", "high",
		"--run-agent", "a", "--run-agent-version", "1", "--run-attempt", "2", "--run-configuration", "c", "--run-meta", "k=v"})
	if err != nil || got == nil {
		t.Fatalf("%v %v", got, err)
	}
	want := RunMetaFlags{Model: "m", Effort: "high", Agent: "a", AgentVersion: "1", Attempt: 2, Configuration: "c", Meta: []string{"k=v"}}
	if !reflect.DeepEqual(got.Run, want) {
		t.Errorf("got %+v, want %+v", got.Run, want)
	}
	args := []string{"t", "--submission", "s", "--results", "r", "--run-meta", "model=x"}
	_, err = parseCmd(NewCmdLadder, args)
	wantUsageError(t, args, err, "--run-meta model=x: model has a flag of its own (--run-model)")
}
