package cli

import (
	"testing"
	"time"
)

// TestNewCmdTrial: the flags reach the options, and a wrong agent or
// flag combination is a usage error before anything runs.
func TestNewCmdTrial(t *testing.T) {
	args := []string{"lang90-tally-c-to-go", "--agent", "command:./a.sh", "--out", "o", "--budget", "90s",
		"--driver", "scripted", "--audit-script", "r1.json", "--adversary-script", "a=x.json", "--adjudicator-script", "j.json",
		"--gateway", "https://models.example/v1", "--max-workspace-bytes", "1048576", "--max-workspace-entries", "500"}
	o, err := parseCmd(NewCmdTrial, args)
	if err != nil {
		t.Fatal(err)
	}
	if o.Task != "lang90-tally-c-to-go" || o.Agent != "command:./a.sh" || o.Out != "o" || o.Budget != 90*time.Second ||
		o.Driver != "scripted" || len(o.AuditScripts) != 1 || o.AdversaryScripts[0] != "a=x.json" || o.AdjudicatorScript != "j.json" ||
		o.Gateway != "https://models.example/v1" || o.MaxWorkspaceBytes != 1<<20 || o.MaxWorkspaceEntries != 500 {
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
		{[]string{"T", "--agent", "nop", "--out", "o", "--gateway", "http://key:secret@gw:8080"}, `--gateway: gateway "http://key:xxxxx@gw:8080": a URL with a user or password would be recorded in the trial's result; leave it out`},
		{[]string{"T", "--agent", "nop", "--out", "o", "--gateway", "tcp://gw:8080"}, `--gateway: gateway "tcp://gw:8080": the scheme must be http or https`},
		{[]string{"T", "--agent", "nop", "--out", "o", "--max-workspace-entries", "-1"}, "--max-workspace-bytes and --max-workspace-entries take a number above zero"},
		// The verifier's flags are refused before any agent runs.
		{[]string{"T", "--agent", "nop", "--out", "o", "--driver", "vertex"}, "--driver vertex: known drivers are anthropic, command, openai, scripted"},
		{[]string{"T", "--agent", "nop", "--out", "o", "--adversary-script", "a.json"}, "--adversary-script a.json: write ID=FILE"},
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
