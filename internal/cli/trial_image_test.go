package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/harbor"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestTrialInImage runs srb trial on the fixture task in its agent image
// (built and loaded when missing) with three agents, each graded by the
// ladder in the stage images:
//   - oracle, applying usage-exit-1: the trial's reward.json equals the
//     one srb ladder --submission-fixture usage-exit-1 publishes;
//   - nop: State A is graded, and scores 0 (stage 1 fails), validly;
//   - command: a program that reads the instruction on stdin, makes the
//     same edits as usage-exit-1 and then sleeps past a 20 s budget: the
//     agent phase is cut, result.json says so, and its edits are what is
//     graded (the oracle's reward, not nop's).
//
// Stage 3 never runs (usage-exit-1 is stage-2 incomplete), so the
// adversaries' and adjudicator's scripts are never read.
func TestTrialInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent image and runs four ladders in containers")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	fxRoot, err := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "lang90-tally-c-to-go"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	nothing := filepath.Join(t.TempDir(), "nothing.json")
	if err := os.WriteFile(nothing, []byte(`[{"tool_calls": [{"name": "report", "arguments": {"found": false, "notes": "not run"}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	stage3 := []string{"--driver", "scripted", "--adjudicator-script", nothing}
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
		stage3 = append(stage3, "--adversary-script", id+"="+nothing)
	}
	auditOf := func(fixture string) []string {
		var args []string
		for i := 1; i <= 3; i++ {
			args = append(args, "--audit-script", filepath.Join(fxRoot, fixture, "audit", fmt.Sprintf("review-%d.json", i)))
		}
		return args
	}
	run := func(args ...string) (int, string) {
		f := NewFactory()
		var out, errOut bytes.Buffer
		f.IO = IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		code := Run(ctx, f, args)
		return code, out.String() + errOut.String()
	}
	trial := func(name string, args ...string) (*harbor.TrialResult, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), name)
		all := append([]string{"trial", taskDir, "--out", out}, args...)
		code, log := run(all...)
		if code != ExitRan {
			t.Fatalf("srb trial %s: exit %d\n%s", strings.Join(args, " "), code, log)
		}
		res, err := harbor.ReadTrialResult(out)
		if err != nil {
			t.Fatal(err)
		}
		if res.VerifierResult == nil || res.ExceptionInfo != nil {
			t.Fatalf("%s: no verdict: %+v\n%s", name, res.ExceptionInfo, log)
		}
		for _, p := range []string{"agent/agent.log", "agent/trajectory.json", "verifier/reward.json", "verifier/score.json"} {
			if _, err := os.Stat(filepath.Join(out, p)); err != nil {
				t.Errorf("%s: the trial lacks %s", name, p)
			}
		}
		for what, tm := range map[string]*harbor.Timing{"environment_setup": res.EnvironmentSetup, "agent_setup": res.AgentSetup,
			"agent_execution": res.AgentExecution, "verifier": res.Verifier} {
			if tm == nil || tm.FinishedAt.Before(tm.StartedAt) {
				t.Errorf("%s: result.json's %s timing is %+v", name, what, tm)
			}
		}
		return res, out
	}

	// The ladder's own verdict on the fixture.
	ladderOut := t.TempDir()
	if code, log := run("ladder", taskDir, "--submission-fixture", filepath.Join(fxRoot, "usage-exit-1"),
		"--results", ladderOut); code != ExitRan {
		t.Fatalf("srb ladder: exit %d\n%s", code, log)
	}
	want, err := result.ReadReward(filepath.Join(ladderOut, "reward.json"))
	if err != nil {
		t.Fatal(err)
	}

	oracle, _ := trial("oracle", append([]string{"--agent", "oracle", "--solution", filepath.Join(fxRoot, "usage-exit-1")}, stage3...)...)
	if !maps.Equal(oracle.VerifierResult.Rewards, want) {
		t.Errorf("oracle trial's rewards differ from srb ladder's on usage-exit-1:\ntrial:  %v\nladder: %v", oracle.VerifierResult.Rewards, want)
	}
	if want["stage1_passed"] != 1 || want["module_usage_rate"] == 1 || want["valid"] != 1 {
		t.Errorf("srb ladder's verdict on usage-exit-1 is not the fixture's: %v", want)
	}

	nop, nopDir := trial("nop", append(append([]string{"--agent", "nop"}, auditOf("untouched")...), stage3...)...)
	if r := nop.VerifierResult.Rewards; r["reward"] != 0 || r["score"] != 0 || r["valid"] != 1 || r["stage1_passed"] != 0 {
		t.Errorf("nop: rewards %v, want a valid 0 with stage 1 failed", r)
	}
	if _, err := os.Stat(filepath.Join(nopDir, "artifacts", "repo", "tally.c")); err != nil {
		t.Errorf("nop: State A's tally.c was not collected: %v", err)
	}

	// The command agent: usage-exit-1's edits, made by a program.
	var prog strings.Builder
	prog.WriteString("#!/bin/sh\nset -eu\nn=$(wc -c)\necho \"agent: read the instruction ($n bytes)\"\n[ \"$n\" -gt 0 ]\nrm -f tally.c Makefile\n")
	for _, name := range []string{"go.mod", "main.go"} {
		b, err := os.ReadFile(filepath.Join(fxRoot, "usage-exit-1", "overlay", name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&prog, "echo %s | base64 -d >%s\n", base64.StdEncoding.EncodeToString(b), name)
	}
	prog.WriteString("echo 'agent: edits made; thinking forever'\nsleep 600\n")
	agent := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(agent, []byte(prog.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, cmdDir := trial("command", append(append([]string{"--agent", "command:" + agent, "--budget", "20s"}, auditOf("usage-exit-1")...), stage3...)...)
	if !cmd.AgentResult.TimedOut || len(cmd.Notes) == 0 || !strings.Contains(cmd.Notes[0], "ran past its budget") {
		t.Errorf("command: the overrun is not recorded: %+v, notes %q", cmd.AgentResult, cmd.Notes)
	}
	if cmd.AgentResult.BudgetSec != 20 {
		t.Errorf("command: budget %d s, want 20", cmd.AgentResult.BudgetSec)
	}
	if !maps.Equal(cmd.VerifierResult.Rewards, want) {
		t.Errorf("command trial's rewards differ from usage-exit-1's:\ntrial:  %v\nladder: %v", cmd.VerifierResult.Rewards, want)
	}
	log, _ := os.ReadFile(filepath.Join(cmdDir, "agent", "agent.log"))
	if !strings.Contains(string(log), "agent: read the instruction") || strings.Contains(string(log), "(0 bytes)") {
		t.Errorf("command: the agent did not read the instruction on stdin:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(cmdDir, "artifacts", "repo", "tally.c")); err == nil {
		t.Error("command: tally.c, which the agent deleted, was collected")
	}
}
