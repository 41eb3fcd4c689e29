package cli

import (
	"testing"
	"time"
)

// TestNewCmdTrial: the flags reach the options, and a wrong agent or
// flag combination is a usage error before anything runs.
func TestNewCmdTrial(t *testing.T) {
	args := []string{"lang90-tally-c-to-go", "--agent", "command:./a.sh", "--out", "o", "--budget", "90s",
		"--driver", "scripted", "--audit-script", "r1.json", "--adversary-script", "a=x.json", "--adjudicator-script", "j.json"}
	o, err := parseCmd(NewCmdTrial, args)
	if err != nil {
		t.Fatal(err)
	}
	if o.Task != "lang90-tally-c-to-go" || o.Agent != "command:./a.sh" || o.Out != "o" || o.Budget != 90*time.Second ||
		o.Driver != "scripted" || len(o.AuditScripts) != 1 || o.AdversaryScripts[0] != "a=x.json" || o.AdjudicatorScript != "j.json" {
		t.Errorf("options = %+v", o)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"T", "--agent", "nop"}, "--out DIR is required"},
		{[]string{"T", "--agent", "claude", "--out", "o"}, `--agent "claude": one of nop, oracle, scripted:FILE, command:PATH`},
		{[]string{"T", "--agent", "command:", "--out", "o"}, `--agent "command:": one of nop, oracle, scripted:FILE, command:PATH`},
		{[]string{"T", "--agent", "oracle", "--out", "o"}, "--agent oracle needs --solution FIXTURE"},
		{[]string{"T", "--agent", "nop", "--solution", "f", "--out", "o"}, "--solution is the oracle's (--agent oracle)"},
	} {
		got, err := parseCmd(NewCmdTrial, c.args)
		if got != nil {
			t.Errorf("%q: ran", c.args)
		}
		wantUsageError(t, c.args, err, c.want)
	}
}

// TestNewCmdExport: harbor is the one format, and --registry is required.
func TestNewCmdExport(t *testing.T) {
	o, err := parseCmd(NewCmdExport, []string{"harbor", "lang01", "out", "--registry", "r.example/srb", "--solution", "fx", "--pass-env", "SRB_DRIVER"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Task != "lang01" || o.Out != "out" || o.Registry != "r.example/srb" || o.Solution != "fx" || o.PassEnv[0] != "SRB_DRIVER" {
		t.Errorf("options = %+v", o)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"swebench", "T", "out", "--registry", "r"}, "export swebench: the one format is harbor"},
		{[]string{"harbor", "T", "out"}, "--registry REG is required: the repository srb build --push published the images to"},
	} {
		_, err := parseCmd(NewCmdExport, c.args)
		wantUsageError(t, c.args, err, c.want)
	}
}
