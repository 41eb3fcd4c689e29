package verification

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/internal/testenv"
	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

const (
	repo      = "../.."
	fixture   = repo + "/testdata/tasks/lang90-tally-c-to-go"
	stateA    = repo + "/testdata/statea/tally-1.0"
	goPort    = repo + "/testdata/submissions/tally-go"
	assetsDir = "/tests/verification"
)

// --- scripted turns -------------------------------------------------------

type turn = map[string]any

func call(name string, args map[string]any) turn {
	return turn{"tool_calls": []any{map[string]any{"name": name, "arguments": args}}}
}

func try(name, code string) turn {
	return call(ToolTryTest, map[string]any{"name": name, "code": code, "rationale": "checks " + name})
}

func nothing(notes string) turn {
	return call(ToolReport, map[string]any{"found": false, "notes": notes})
}

func found(name, claim string) turn {
	return call(ToolReport, map[string]any{"found": true, "candidate": name, "claim": claim, "contract": "the three counts"})
}

func rule(in bool, reason string) turn {
	return call(ToolRule, map[string]any{"in_scope": in, "reason": reason})
}

func scripted(t *testing.T, model string, turns ...turn) models.Driver {
	t.Helper()
	list := make([]any, len(turns))
	for i, x := range turns {
		list[i] = x
	}
	noWait := func(context.Context, time.Duration) error { return nil }
	d, err := models.New(models.Config{Driver: models.DriverScripted, Model: model, Options: map[string]any{"turns": list}}, models.WithSleep(noWait))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// --- the fixture --------------------------------------------------------

func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "make", "cc", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("stage 3 on the fixture builds both trees on this machine and needs %s: %v", tool, err)
		}
	}
}

// fixtureConfig is the fixture task's stage-3 declaration with scripted
// adversaries (keyed by id; an adversary without a script reports
// nothing found at once) and adjudicator turns (replayed from the start
// for every adjudication; none: an unreachable adjudicator).
// task_ loads the fixture task's stage-3 declaration.
func task_(t *testing.T) (task.Verification, string) {
	t.Helper()
	tk, problems := task.Load(fixture)
	if len(problems) > 0 {
		t.Fatalf("fixture: %v", problems)
	}
	return tk.Verification, tk.ID
}

func fixtureConfig(t *testing.T, submission string, scripts map[string][]turn, adjudicator []turn) Config {
	t.Helper()
	v, id := task_(t)
	var scope Scope
	for _, it := range v.Scope.Allow {
		scope.Allow = append(scope.Allow, ScopeItem{it.ID, it.Text})
	}
	for _, it := range v.Scope.Deny {
		scope.Deny = append(scope.Deny, ScopeItem{it.ID, it.Text})
	}
	var advs []Adversary
	for _, a := range v.Adversaries {
		advs = append(advs, Adversary{ID: a.ID, Direction: a.Direction, Focus: a.Focus, Unrestricted: a.Unrestricted, BudgetSec: float64(a.BudgetSec)})
	}
	prompt, err := os.ReadFile(filepath.Join(fixture, v.Prompt))
	if err != nil {
		t.Fatal(err)
	}
	assets, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	seed := homeSeed(t)
	return Config{
		Task: id, Prompt: string(prompt), Scope: scope, Adversaries: advs,
		Reruns: v.Reruns, RequireDeterministic: v.RequireDeterministic,
		NewSandbox: func(ctx context.Context, id string) (Sandbox, error) {
			// Stage 3 with --host: the rounds on this machine (engine.Local).
			return NewContainer(ctx, ContainerConfig{
				Engine: hostEngine(assets), Image: hostImage, Paths: []string{assetsDir},
				Original: stateA, Submission: submission, Command: v.CandidateCommand,
				Timeout: 300 * time.Second, FaultCodes: v.FaultExitCodes, Work: t.TempDir(), HomeSeed: seed,
				Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
					// contract names and role names a careless caller might pass on
					"SRB_ORIGINAL=" + stateA, "SRB_TARGET_ROLE=original", "SRB_RESULT=/tmp/x"},
				ToolEnv: func(name string) string {
					if name == "HOME" {
						return ""
					}
					return os.Getenv(name)
				},
			})
		},
		NewDriver: func(a Adversary) (models.Driver, error) {
			turns, ok := scripts[a.ID]
			if !ok {
				turns = []turn{nothing("nothing tried")}
			}
			return scripted(t, "scripted-"+a.ID, turns...), nil
		},
		NewAdjudicator: func() (models.Driver, error) {
			if adjudicator == nil {
				// The driver's own retries (1 + 4) all meet the outage.
				outage := turn{"error": map[string]any{"message": "HTTP 524: origin timed out", "retryable": true}}
				return scripted(t, "adjudicator", outage, outage, outage, outage, outage), nil
			}
			return scripted(t, "adjudicator", adjudicator...), nil
		},
		LogDir: t.TempDir(),
	}
}

var (
	seedOnce sync.Once
	seedDir  string
	seedErr  error
)

// homeSeed is a HOME whose .cache/go-build holds the Go port's build,
// made once per test binary: each tree of each round gets a copy of its
// own (ContainerConfig.HomeSeed), so a round's go build does not recompile the
// standard library, and no tree shares a cache with another.
func homeSeed(t *testing.T) string {
	t.Helper()
	seedOnce.Do(func() {
		if seedDir, seedErr = os.MkdirTemp("", "srb-verification-seed-"); seedErr != nil {
			return
		}
		src := filepath.Join(seedDir, "src")
		if seedErr = copyTree(goPort, src); seedErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-o", "tally", ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(seedDir, "home", ".cache", "go-build"), "GOTOOLCHAIN=local", "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			seedErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if seedErr != nil {
		t.Fatalf("seed HOME: %v", seedErr)
	}
	return filepath.Join(seedDir, "home")
}

// TestMain removes the seed HOME after the tests.
func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	code := m.Run()
	if seedDir != "" {
		os.RemoveAll(seedDir)
	}
	os.Exit(code)
}

// port writes a copy of the Go port with edit applied to main.go.
func port(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	if err := copyTree(goPort, dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "main.go")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in the port", old)
	}
	return strings.Replace(s, old, new, 1)
}

func runStage(t *testing.T, cfg Config) (*result.Stage, []map[string]any) {
	t.Helper()
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The result is what the scorer reads: it must be valid on the wire.
	out := filepath.Join(t.TempDir(), "verification.json")
	if err := st.Write(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := contract.ValidateBytes(contract.StageResult, b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metadata struct {
			Rounds []map[string]any `json:"rounds"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return st, doc.Metadata.Rounds
}

func verdicts(st *result.Stage) map[string]string {
	out := map[string]string{}
	for _, c := range st.Checks {
		out[c.ID] = c.Verdict
	}
	return out
}

func roundOf(t *testing.T, rounds []map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range rounds {
		if r["adversary"] == id {
			return r
		}
	}
	t.Fatalf("no round %s", id)
	return nil
}

func allSurvive(ids ...string) map[string]string {
	out := map[string]string{}
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
		out[id] = result.VerdictPass
	}
	for _, id := range ids {
		out[id] = result.VerdictFail
	}
	return out
}

// Candidates, as an adversary would write them for the fixture's prompt.
const (
	candWhitespace = `out=$(printf 'a\tb\vc\fd\re f\n' | "$TALLY"); [ "$out" = "1 6 12" ]`
	candBinary     = `out=$(printf 'a\000b \377\376\n' | "$TALLY"); [ "$out" = "1 2 7" ]`
	candLarge      = `out=$(head -c 300000 /dev/zero | tr '\0' 'x' | "$TALLY"); [ "$out" = "0 1 300000" ]`
	candLastLine   = `out=$(printf 'a\nb' | "$TALLY"); echo "got: $out"; [ "$out" = "1 2 3" ]`
	candUsage      = `"$TALLY" x 2>err; s=$?; [ $s -eq 2 ] && [ "$(cat err)" = "usage: tally < FILE" ]`
	candOpen       = `out=$("$TALLY" </dev/null); [ "$out" = "0 0 0" ]`
)

// An identical port survives all six rounds: each adversary really runs a
// candidate in its direction on both trees, both pass, and it reports
// nothing found. One first tries to report a candidate that does not
// discriminate and is sent back.
func TestIdenticalPortSurvivesAllSix(t *testing.T) {
	t.Parallel()
	needTools(t)
	cfg := fixtureConfig(t, goPort, map[string][]turn{
		"a01-whitespace": {call("list_dir", map[string]any{"path": "original:"}), try("ws", candWhitespace), nothing("whitespace agrees")},
		"a02-binary":     {try("nul", candBinary), nothing("NUL and invalid UTF-8 agree")},
		"a03-large":      {try("big", candLarge), nothing("large input agrees")},
		"a04-lines":      {call("fetch_source", map[string]any{"path": "workspace:main.go"}), try("last", candLastLine), nothing("last line agrees")},
		"a05-usage":      {try("usage", candUsage), nothing("usage agrees")},
		"a06-open":       {try("empty", candOpen), found("empty", "empty input differs"), nothing("nothing differs")},
	}, []turn{rule(true, "counts are promised")})
	st, rounds := runStage(t, cfg)
	if st.Status != result.StatusOK {
		t.Fatalf("status %s: %v", st.Status, st.Notes)
	}
	if diff := cmp.Diff(allSurvive(), verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if st.Metadata["survived"] != 6 || st.Metadata["broken"] != 0 || st.Metadata["errored"] != 0 || st.Metadata["candidate_runs"] != 12 {
		t.Errorf("metadata %v", st.Metadata)
	}
	for _, r := range rounds {
		c := r["candidates"].([]any)[0].(map[string]any)
		if c["verdict"] != CandidateNoDifference {
			t.Errorf("%s: candidate %v", r["adversary"], c)
		}
		for _, run := range c["runs"].([]any) {
			if run.(map[string]any)["passed"] != true {
				t.Errorf("%s: run %v", r["adversary"], run)
			}
		}
		if !strings.HasPrefix(r["reason"].(string), "survived: ") || !strings.Contains(r["reason"].(string), "wrote 1 candidate(s)") {
			t.Errorf("%s: reason %q", r["adversary"], r["reason"])
		}
	}
	if got := roundOf(t, rounds, "a01-whitespace")["tool_calls"]; got != 2.0 {
		t.Errorf("a01 tool calls %v", got)
	}
	if got := roundOf(t, rounds, "a04-lines")["files_read"]; got != 1.0 {
		t.Errorf("a04 files read %v", got)
	}
	// The refused claim went back to the model and is in the transcript.
	b, err := os.ReadFile(filepath.Join(cfg.LogDir, "round-a06-open.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind": "submit_rejected"`) || !strings.Contains(string(b), "does not currently discriminate") {
		t.Errorf("a06 transcript lacks the refused claim:\n%s", b)
	}
}

// A port that differs from State A on one in-scope behaviour (a last line
// without a newline is counted) is broken by the adversary that tests it:
// the candidate passes on the original, fails on the submission, holds on
// all three runs, and the adjudicator rules it in scope. The others
// survive.
func TestInScopeDifferenceIsBroken(t *testing.T) {
	t.Parallel()
	needTools(t)
	sub := port(t, func(s string) string {
		s = replaceOnce(t, s, "\tinWord := false\n", "\tinWord := false\n\tvar last byte = '\\n'\n")
		s = replaceOnce(t, s, "\t\tbytes++\n", "\t\tbytes++\n\t\tlast = c\n")
		return replaceOnce(t, s, "\tw := bufio.NewWriter(os.Stdout)\n", "\tif last != '\\n' {\n\t\tlines++\n\t}\n\tw := bufio.NewWriter(os.Stdout)\n")
	})
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a01-whitespace": {try("ws", candWhitespace), nothing("whitespace agrees")},
		"a04-lines":      {try("last", candLastLine), found("last", "a last line without a newline is counted as a line")},
	}, []turn{rule(true, "[last-line] a last line without a newline is in scope")})
	st, rounds := runStage(t, cfg)
	if diff := cmp.Diff(allSurvive("a04-lines"), verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	r := roundOf(t, rounds, "a04-lines")
	adj := r["adjudication"].(map[string]any)
	want := map[string]any{"decision": DecisionUpheld, "reason": "passes on the original and fails on the submission, reproduced 3/3, within scope",
		"reproduced": 3.0, "reruns_required": 3.0, "in_scope": true, "scope_reason": "[last-line] a last line without a newline is in scope"}
	for k, v := range want {
		if adj[k] != v {
			t.Errorf("adjudication %s = %v, want %v", k, adj[k], v)
		}
	}
	cand := r["candidate"].(map[string]any)
	runs := cand["runs"].([]any)
	// The claimed pair (State A first) and the reruns: three of the
	// submission and six of State A in the order drawn, each with its
	// place.
	if len(runs) != 11 || cand["code"] != candLastLine {
		t.Fatalf("candidate %v", cand)
	}
	perTarget := map[any]int{}
	for i, run := range runs {
		m := run.(map[string]any)
		perTarget[m["target"]]++
		wantPass := m["target"] == RoleOriginal
		if (i < 2 && m["target"] != []string{RoleOriginal, RoleSubmission}[i]) || m["passed"] != wantPass ||
			m["exit_code"] != map[bool]float64{true: 0, false: 1}[wantPass] || (i >= 2 && m["rerun"] != float64(i-1)) {
			t.Errorf("run %d: %v", i, m)
		}
	}
	if perTarget[RoleOriginal] != 7 || perTarget[RoleSubmission] != 4 {
		t.Errorf("runs per tree %v, want 7 on State A and 4 on the submission", perTarget)
	}
	if !strings.Contains(runs[1].(map[string]any)["stdout"].(string), "got: 2 2 3") {
		t.Errorf("the submission's output is not recorded: %v", runs[1])
	}
	var check result.Check
	for _, c := range st.Checks {
		if c.ID == "a04-lines" {
			check = c
		}
	}
	if check.Summary != "a last line without a newline is counted as a line" || check.Evidence[0]["candidate"] != "last" {
		t.Errorf("check %+v", check)
	}
	if _, err := os.Stat(filepath.Join(cfg.LogDir, "adjudication-a04-lines-last.jsonl")); err != nil {
		t.Error(err)
	}
}

// A difference the scope denies (timing: the port sleeps 5 s before it
// counts; State A, run through the launcher by a loaded machine under
// -race, took over the 1 s this allowed before) reproduces mechanically but the adjudicator rules it out of
// scope: the round survives, and says why.
func TestOutOfScopeDifferenceIsRejected(t *testing.T) {
	t.Parallel()
	needTools(t)
	sub := port(t, func(s string) string {
		s = replaceOnce(t, s, "\t\"os\"\n", "\t\"os\"\n\t\"time\"\n")
		return replaceOnce(t, s, "func main() {\n", "func main() {\n\ttime.Sleep(5000 * time.Millisecond)\n")
	})
	timing := `s=$(date +%s%N); printf 'x\n' | "$TALLY" >/dev/null; e=$(date +%s%N); [ $(( (e - s) / 1000000 )) -lt 4000 ]`
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a06-open": {try("fast", timing), found("fast", "the submission takes over a second to count one line")},
	}, []turn{rule(false, "[timing] how long tally takes is timing, which the scope denies")})
	cfg.Reruns = 2
	st, rounds := runStage(t, cfg)
	if diff := cmp.Diff(allSurvive(), verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	r := roundOf(t, rounds, "a06-open")
	adj := r["adjudication"].(map[string]any)
	if adj["decision"] != DecisionRejected || adj["in_scope"] != false || adj["reproduced"] != 2.0 ||
		adj["reason"] != "out of scope: [timing] how long tally takes is timing, which the scope denies" {
		t.Errorf("adjudication %v", adj)
	}
	if !strings.HasPrefix(r["reason"].(string), "survived: claimed fast, not upheld -- out of scope: [timing]") {
		t.Errorf("reason %q", r["reason"])
	}
}

// A candidate never learns which tree it runs on: nothing in its
// environment, working folder or arguments names the role or the tree. One
// that inspects the built program to tell them apart does discriminate,
// and the adjudicator rejects it (the tree-identity deny).
func TestTreeInspectionIsRejected(t *testing.T) {
	t.Parallel()
	needTools(t)
	snoop := `env; pwd; echo "args: $#"; ls -a; if env | grep -qiE 'original|submission|workspace'; then exit 1; fi; exit 0`
	// TALLY may be the launcher's wrapper (docs/PROGSEP.md): the program
	// it names is inspected too.
	inspect := `for f in "$TALLY" $(grep -ao '/[^ ]*/tally' "$TALLY"); do grep -q 'Go build' "$f" 2>/dev/null && exit 1; done; exit 0`
	cfg := fixtureConfig(t, goPort, map[string][]turn{
		"a06-open": {try("snoop", snoop), try("inspect", inspect), found("inspect", "the submission's program is a Go binary")},
	}, []turn{rule(false, "[tree-identity] it inspects which program it runs against")})
	st, rounds := runStage(t, cfg)
	if diff := cmp.Diff(allSurvive(), verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	r := roundOf(t, rounds, "a06-open")
	cands := r["candidates"].([]any)
	snooped := cands[0].(map[string]any)
	if snooped["verdict"] != CandidateNoDifference {
		t.Errorf("the environment told the candidate its tree: %v", snooped)
	}
	for _, run := range snooped["runs"].([]any) {
		out := run.(map[string]any)["stdout"].(string)
		for _, leak := range []string{"SRB_TARGET", "SRB_ORIGINAL", "SRB_RESULT", "SRB_CANDIDATE=", "original", "submission", "workspace"} {
			if strings.Contains(out, leak) {
				t.Errorf("a candidate's run shows %q:\n%s", leak, out)
			}
		}
		if !strings.Contains(out, "args: 0") || !strings.Contains(out, "SRB_NETWORK=denied") {
			t.Errorf("run output:\n%s", out)
		}
	}
	if cands[1].(map[string]any)["verdict"] != CandidateDiscriminates {
		t.Errorf("inspect: %v", cands[1])
	}
	adj := r["adjudication"].(map[string]any)
	if adj["decision"] != DecisionRejected || adj["reproduced"] != 3.0 {
		t.Errorf("adjudication %v", adj)
	}
}

// A submission that does not build in stage 3 (stage 2 built it; the
// same image built State A) fails there by its own doing: the runner
// exits 71 on the submission side while the original passes, try_test
// says the pair discriminates and why, and the claim is reproduced and
// ruled on as any other: a break (docs/LADDER.md, "Stage 3 untestable by
// choice"). Counted neither way, a submission that sabotaged its own build
// in stage 3 alone made the verdict invalid instead of earning its zero.
func TestUnbuildableSubmissionIsItsFailure(t *testing.T) {
	t.Parallel()
	needTools(t)
	sub := port(t, func(s string) string { return s + "\nthis is not Go\n" })
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a04-lines": {try("last", candLastLine), found("last", "the submission fails"), nothing("the submission does not build")},
	}, []turn{rule(true, "in scope")})
	st, rounds := runStage(t, cfg)
	want := allSurvive()
	want["a04-lines"] = result.VerdictFail
	if diff := cmp.Diff(want, verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	r := roundOf(t, rounds, "a04-lines")
	if r["outcome"] != OutcomeBroken || !strings.Contains(r["reason"].(string), "passes on the original and fails on the submission, reproduced 3/3") {
		t.Errorf("round %v: %q", r["outcome"], r["reason"])
	}
	c := r["candidates"].([]any)[0].(map[string]any)
	runs := c["runs"].([]any)
	sub0 := runs[1].(map[string]any)
	if c["verdict"] != CandidateDiscriminates || sub0["exit_code"] != 71.0 || sub0["infrastructure_fault"] != true ||
		!strings.Contains(sub0["stderr"].(string), "SRB-INFRA-FAULT: go build failed") {
		t.Errorf("candidate %v", c)
	}
	if _, ok := runs[0].(map[string]any)["infrastructure_fault"]; ok {
		t.Errorf("the original's run is marked a fault: %v", runs[0])
	}
	b, err := os.ReadFile(filepath.Join(cfg.LogDir, "round-a04-lines.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "the submission's tree could not be tested (a fault code: it did not build or start here, though the behavioural stage built it), which counts as the submission's failure") {
		t.Errorf("try_test did not say why the pair discriminates:\n%s", b)
	}
}

// An adjudicator that cannot be reached makes the round an error (re-run
// the stage), never a survival; the loop does not resume it.
func TestUnreachableAdjudicatorIsAnError(t *testing.T) {
	t.Parallel()
	needTools(t)
	sub := port(t, func(s string) string {
		return replaceOnce(t, s, "\t\tos.Exit(2)\n", "\t\tos.Exit(1)\n")
	})
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a05-usage": {try("usage", candUsage), found("usage", "tally exits 1, not 2, when given arguments")},
	}, nil)
	st, rounds := runStage(t, cfg)
	want := allSurvive()
	want["a05-usage"] = result.VerdictError
	if diff := cmp.Diff(want, verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	r := roundOf(t, rounds, "a05-usage")
	adj := r["adjudication"].(map[string]any)
	if r["outcome"] != OutcomeError || adj["decision"] != DecisionUndecided || !strings.Contains(adj["error"].(string), "524") {
		t.Errorf("round %v", r)
	}
	if st.Status != result.StatusOK || len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "1 of 6 rounds did not complete (a05-usage)") {
		t.Errorf("status %s notes %v", st.Status, st.Notes)
	}
	if st.Unit("a05-usage").Status != result.UnitError {
		t.Errorf("unit %+v", st.Unit("a05-usage"))
	}
}

// A round whose tool calls were mostly refused is an error, not a
// survival (HARNESS.md §7 bug 46); every round an error is a stage error.
func TestRefusedToolsAreAnError(t *testing.T) {
	t.Parallel()
	needTools(t)
	refused := []turn{
		call("fetch_source", map[string]any{"file": "workspace:main.go"}),
		call("fetch_source", map[string]any{"file": "workspace:main.go"}),
		call("list_dir", map[string]any{"path": "workspace:"}),
		nothing("could not read anything"),
	}
	scripts := map[string][]turn{}
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
		scripts[id] = refused
	}
	cfg := fixtureConfig(t, goPort, scripts, nil)
	st, rounds := runStage(t, cfg)
	if st.Status != result.StatusError || st.Metadata["errored"] != 6 {
		t.Fatalf("status %s metadata %v", st.Status, st.Metadata)
	}
	r := roundOf(t, rounds, "a01-whitespace")
	if !strings.Contains(r["reason"].(string), "2 of 3 tool call(s) failed") {
		t.Errorf("reason %q", r["reason"])
	}
}

// --- adjudication with a sandbox that replays runs ---------------------

type replay struct {
	runs map[string][]CandidateRun
	n    map[string]int
}

func (f *replay) Reset(context.Context) error { return nil }
func (f *replay) Execute(_ context.Context, _ *Candidate, role string) CandidateRun {
	i := f.n[role]
	f.n[role]++
	r := f.runs[role][min(i, len(f.runs[role])-1)]
	r.Target = role
	return r
}
func (f *replay) Roots() []agent.RootSpec                      { return nil }
func (f *replay) RunTool() (agent.Runner, func(string) string) { return nil, nil }
func (f *replay) Close() error                                 { return nil }

var (
	pass       = CandidateRun{ExitCode: 0, Passed: true}
	fails      = CandidateRun{ExitCode: 1}
	fault      = CandidateRun{ExitCode: 71, Fault: true}
	timeout    = CandidateRun{ExitCode: -1, TimedOut: true}
	engineDown = CandidateRun{ExitCode: -1, Harness: "exec in img: container is not running", Stderr: "cannot run candidate command: exec in img: container is not running"}
)

func TestAdjudicateMechanics(t *testing.T) {
	scope := Scope{Allow: []ScopeItem{{"counts", "the counts"}}, Deny: []ScopeItem{{"timing", "timing"}}}
	for _, tc := range []struct {
		name      string
		orig, sub []CandidateRun
		adj       []turn // nil: no adjudicator
		decision  string
		reason    string
		repro     int
	}{
		{"fault first", []CandidateRun{fault}, []CandidateRun{fails}, nil, DecisionInvalid,
			"the original tree could not be tested: the candidate command exited 71, which is a fault of the harness or the tree rather than a verdict about behaviour", 0},
		// A fault code on the submission's side beside State A's pass is
		// the submission's failure (docs/LADDER.md, "Stage 3 untestable by
		// choice"): reproduced as any break.
		{"fault on the submission", []CandidateRun{pass}, []CandidateRun{fault}, nil, DecisionRejected,
			"passes on the original and fails on the submission, reproduced 3/3, but no adjudicator is configured to rule on the scope", 3},
		{"broken test", []CandidateRun{fails}, []CandidateRun{fails}, nil, DecisionInvalid, "broken test: it does not pass on the original (exit 1)", 0},
		{"passes on both", []CandidateRun{pass}, []CandidateRun{pass}, nil, DecisionInvalid, "it passes on the submission too", 0},
		// The claimed pair does not count: the reruns are three fresh
		// runs of the submission and six of State A (here in that order,
		// the test's Rand turning the shuffle off).
		{"fault during reruns", []CandidateRun{pass, pass, pass, fault}, []CandidateRun{fails}, nil, DecisionInvalid,
			"the break held 3 time(s) of 3 and then the original tree could not be tested (exit 71), which is a fault of the harness or the tree rather than a verdict about behaviour", 3},
		{"flaky", []CandidateRun{pass}, []CandidateRun{fails, fails, pass}, nil, DecisionRejected,
			"the outcome is not stable: it held 1 time(s) of 3 required, then passed on the submission", 1},
		{"fails on the original in a rerun", []CandidateRun{pass, pass, fails}, []CandidateRun{fails}, nil, DecisionRejected,
			"the outcome is not stable: it held 3 time(s) of 3 required, then failed on the original (exit 1)", 3},
		// A candidate bounds its own waits: State A timing out in a
		// rerun is its failure to pass, never an undecided round (a
		// candidate hanging there would deny a correct port its verdict).
		{"timed out on the original in a rerun", []CandidateRun{pass, pass, timeout}, []CandidateRun{fails}, nil, DecisionRejected,
			"the outcome is not stable: it held 3 time(s) of 3 required, then timed out on the original (a candidate bounds its own waits)", 3},
		{"engine failure during reruns", []CandidateRun{pass}, []CandidateRun{fails, engineDown}, nil, DecisionUndecided,
			"the break held 0 time(s) of 3 and then the run on the submission could not be carried out (exec in img: container is not running): undecided, which is neither a break nor a survival", 0},
		// A run killed at candidate_timeout_sec is undecided on either
		// side, never a break (issue 15): the round is an error.
		{"timed out on the submission", []CandidateRun{pass}, []CandidateRun{timeout}, nil, DecisionUndecided,
			"the run on the submission timed out: undecided, which is neither a break nor a survival", 0},
		{"timed out on the original", []CandidateRun{timeout}, []CandidateRun{fails}, nil, DecisionUndecided,
			"the run on the original timed out: undecided, which is neither a break nor a survival", 0},
		// Once the claimed pair showed a failure that was no timeout, the
		// submission timing out in a rerun is its failure: a program that
		// hangs once found must not turn its break into an invalid
		// verdict.
		{"timed out on the submission in a rerun", []CandidateRun{pass}, []CandidateRun{fails, fails, timeout}, nil, DecisionRejected,
			"passes on the original and fails on the submission, reproduced 3/3, but no adjudicator is configured to rule on the scope", 3},
		{"engine failure", []CandidateRun{pass}, []CandidateRun{engineDown}, nil, DecisionUndecided,
			"the run on the submission could not be carried out (exec in img: container is not running): undecided, which is neither a break nor a survival", 0},
		{"no adjudicator", []CandidateRun{pass}, []CandidateRun{fails}, nil, DecisionRejected,
			"passes on the original and fails on the submission, reproduced 3/3, but no adjudicator is configured to rule on the scope", 3},
		{"no ruling", []CandidateRun{pass}, []CandidateRun{fails}, []turn{{"text": "hmm"}, {"text": "well"}}, DecisionRejected,
			"passes on the original and fails on the submission, reproduced 3/3, but the adjudicator did not return a ruling (abandoned)", 3},
		{"upheld after a re-ask", []CandidateRun{pass}, []CandidateRun{fails}, []turn{call(ToolRule, map[string]any{"in_scope": "yes"}), rule(true, "[counts]")}, DecisionUpheld,
			"passes on the original and fails on the submission, reproduced 3/3, within scope", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := &replay{runs: map[string][]CandidateRun{RoleOriginal: tc.orig, RoleSubmission: tc.sub}, n: map[string]int{}}
			cfg := Config{Task: "t", Scope: scope, Reruns: 3, RequireDeterministic: true, Rand: func() float64 { return 0.999 }}
			if tc.adj != nil {
				cfg.NewAdjudicator = func() (models.Driver, error) { return scripted(t, "adj", tc.adj...), nil }
			}
			c := &Candidate{Name: "c", Filename: "c.sh", Code: "true"}
			adj := adjudicate(context.Background(), cfg, sb, Adversary{ID: "a"}, c, "claim", time.Now)
			if adj.Decision != tc.decision || adj.Reason != tc.reason || adj.Reproduced != tc.repro || adj.RerunsRequired != 3 {
				t.Errorf("got %s %q reproduced %d", adj.Decision, adj.Reason, adj.Reproduced)
			}
			if len(c.Runs) != sb.n[RoleOriginal]+sb.n[RoleSubmission] || sb.n[RoleOriginal] > 7 || sb.n[RoleSubmission] > 4 {
				t.Errorf("runs %d, original %d, submission %d", len(c.Runs), sb.n[RoleOriginal], sb.n[RoleSubmission])
			}
		})
	}
}

func TestCandidateEnvHidesTheTree(t *testing.T) {
	base := []string{"PATH=/bin", "SRB_REPO=/r", "SRB_ORIGINAL=/o", "SRB_TARGET_ROLE=submission", "SRB_TARGET_NAME=x", "SRB_RESULT=/res", "SRB_GOPROXY_ROOT=/keep"}
	got := CandidateEnv(base, false, "SRB_TARGET=/w/trees/abc", "SRB_WORK=/w/run")
	want := []string{"PATH=/bin", "SRB_GOPROXY_ROOT=/keep", "SRB_TARGET=/w/trees/abc", "SRB_WORK=/w/run", "TZ=UTC", "LC_ALL=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "SRB_NETWORK=denied"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// blockingSandbox is a sandbox whose candidates pass at once, except one
// named "hang", which runs until its context ends.
type blockingSandbox struct{ dir string }

func (b *blockingSandbox) Reset(context.Context) error { return nil }
func (b *blockingSandbox) Execute(ctx context.Context, c *Candidate, role string) CandidateRun {
	if c.Name != "hang" {
		return CandidateRun{Target: role, ExitCode: 0, Passed: true, Stdout: "ok\n"}
	}
	<-ctx.Done()
	return CandidateRun{Target: role, ExitCode: -1, Stderr: "cannot run candidate command: " + ctx.Err().Error()}
}
func (b *blockingSandbox) Roots() []agent.RootSpec {
	return []agent.RootSpec{{Name: "original", Dir: b.dir}, {Name: "workspace", Dir: b.dir}}
}
func (b *blockingSandbox) RunTool() (agent.Runner, func(string) string) { return nil, os.Getenv }
func (b *blockingSandbox) Close() error                                 { return nil }

// The stage's clock (timeouts.verification): a01 finishes in time and is
// kept as it ended; a02's candidate is still running when the budget runs
// out, so a02 is an error (its candidate and runs kept on record), even
// though its script goes on to report nothing found; a03 to a06 never
// start and are errors. Nothing unfinished reads as a survival.
func TestStageBudgetEndsUnfinishedRoundsAsErrors(t *testing.T) {
	t.Parallel()
	cfg := fixtureConfig(t, goPort, map[string][]turn{
		"a01-whitespace": {try("quick", "true"), nothing("quick agrees")},
		"a02-binary":     {try("hang", "sleep 600"), nothing("nothing found")},
	}, nil)
	cfg.NewSandbox = func(context.Context, string) (Sandbox, error) { return &blockingSandbox{dir: t.TempDir()}, nil }
	cfg.Budget = 300 * time.Millisecond
	start := time.Now()
	st, rounds := runStage(t, cfg)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the stage took %s with a 300ms budget", d)
	}
	want := map[string]string{"a01-whitespace": result.VerdictPass, "a02-binary": result.VerdictError, "a03-large": result.VerdictError,
		"a04-lines": result.VerdictError, "a05-usage": result.VerdictError, "a06-open": result.VerdictError}
	if diff := cmp.Diff(want, verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if st.Status != result.StatusOK || st.Metadata["survived"] != 1 || st.Metadata["errored"] != 5 || st.Metadata["broken"] != 0 {
		t.Errorf("status %s, survived %v, errored %v, broken %v", st.Status, st.Metadata["survived"], st.Metadata["errored"], st.Metadata["broken"])
	}
	if r := roundOf(t, rounds, "a01-whitespace"); r["outcome"] != OutcomeSurvived || r["candidate_runs"] != 2.0 {
		t.Errorf("a01 %v", r)
	}
	a02 := roundOf(t, rounds, "a02-binary")
	const cut = "the stage's budget (timeouts.verification, 0.3 s) ran out during the round, so it did not finish (read 0 file(s), "
	if a02["outcome"] != OutcomeError || !strings.HasPrefix(a02["reason"].(string), cut) || a02["error"] != a02["reason"] {
		t.Errorf("a02 outcome %v, reason %q", a02["outcome"], a02["reason"])
	}
	if names := a02["candidate_names"].([]any); len(names) != 1 || names[0] != "hang" || a02["candidate_runs"] != 2.0 {
		t.Errorf("a02's candidate is not kept: %v, %v runs", names, a02["candidate_runs"])
	}
	for _, id := range []string{"a03-large", "a06-open"} {
		r := roundOf(t, rounds, id)
		if r["outcome"] != OutcomeError || r["reason"] != "the stage's budget (timeouts.verification, 0.3 s) ran out before the round started" {
			t.Errorf("%s outcome %v, reason %q", id, r["outcome"], r["reason"])
		}
	}
	if notes := strings.Join(st.Notes, "\n"); !strings.Contains(notes, "5 of 6 rounds did not complete (a02-binary, a03-large, a04-lines, a05-usage, a06-open)") ||
		!strings.Contains(notes, "the stage's budget (timeouts.verification, 0.3 s) ran out; the rounds it cut short or never started are errors") {
		t.Errorf("notes %q", notes)
	}
	if st.Metadata["budget_sec"] != 0.3 || st.Metadata["budget_exhausted"] != true {
		t.Errorf("budget_sec %v, budget_exhausted %v", st.Metadata["budget_sec"], st.Metadata["budget_exhausted"])
	}

	// With time to spare, the same rounds all finish and nothing says the
	// budget ran out.
	cfg.Budget = time.Hour
	cfg.NewSandbox = func(context.Context, string) (Sandbox, error) { return &blockingSandbox{dir: t.TempDir()}, nil }
	cfg.NewDriver = func(a Adversary) (models.Driver, error) {
		return scripted(t, "scripted-"+a.ID, try("quick", "true"), nothing("agrees")), nil
	}
	st, _ = runStage(t, cfg)
	if diff := cmp.Diff(allSurvive(), verdicts(st)); diff != "" || st.Metadata["budget_exhausted"] != nil || st.Metadata["budget_sec"] != 3600.0 {
		t.Errorf("with an hour: verdicts (-want +got):\n%s\nbudget_exhausted %v, budget_sec %v", diff, st.Metadata["budget_exhausted"], st.Metadata["budget_sec"])
	}
}

// stageWith runs a whole stage whose one adversary (a05-usage) writes one
// candidate and reports it, against a sandbox that replays runs; the other
// rounds report nothing.
func stageWith(t *testing.T, orig, sub []CandidateRun) (*result.Stage, map[string]any) {
	t.Helper()
	cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true,
		Scope:       Scope{Allow: []ScopeItem{{"usage", "usage"}}},
		Adversaries: []Adversary{{ID: "a01"}, {ID: "a05-usage"}},
		NewSandbox: func(context.Context, string) (Sandbox, error) {
			return &replay{runs: map[string][]CandidateRun{RoleOriginal: orig, RoleSubmission: sub}, n: map[string]int{}}, nil
		},
		NewDriver: func(a Adversary) (models.Driver, error) {
			if a.ID != "a05-usage" {
				return scripted(t, "m", nothing("nothing")), nil
			}
			return scripted(t, "m", try("c", "true"), found("c", "differs"), try("d", "true"), nothing("only undecided runs")), nil
		},
		NewAdjudicator: func() (models.Driver, error) { return scripted(t, "adj", rule(true, "[usage]")), nil },
	}
	st, rounds := runStage(t, cfg)
	return st, roundOf(t, rounds, "a05-usage")
}

// A trivial candidate killed by candidate_timeout_sec on the submission's
// side cannot "break" a correct port (issue 15): its claim is sent back
// (undecided), and a round whose every pair was undecided established
// nothing: an error, never a survival or a break.
func TestTimedOutCandidateIsNoBreak(t *testing.T) {
	st, r := stageWith(t, []CandidateRun{pass}, []CandidateRun{timeout})
	if v := verdicts(st); v["a05-usage"] != result.VerdictError || v["a01"] != result.VerdictPass {
		t.Errorf("verdicts %v", v)
	}
	if r["adjudication"] != nil || !strings.Contains(r["reason"].(string), "no candidate tested both trees: of 2 pair(s) of runs, 0 had a fault code and 2 a run that timed out") {
		t.Errorf("round %v", r)
	}
	if c := r["candidates"].([]any)[0].(map[string]any); c["verdict"] != CandidateUndecided {
		t.Errorf("candidate %v", c)
	}
}

// A runner that exits with a fault code for every candidate on both trees
// gives no survival (issue 15: six such rounds were a valid 100): the
// round is an error. So is a submission that cannot be tested at all.
func TestAllFaultedRoundIsAnError(t *testing.T) {
	for name, runs := range map[string][2][]CandidateRun{
		"both trees":    {{fault}, {fault}},
		"original only": {{fault}, {pass}},
	} {
		t.Run(name, func(t *testing.T) {
			st, r := stageWith(t, runs[0], runs[1])
			if v := verdicts(st); v["a05-usage"] != result.VerdictError {
				t.Errorf("verdicts %v", v)
			}
			if !strings.Contains(r["reason"].(string), "no candidate tested both trees: of 2 pair(s) of runs, 2 had a fault code") {
				t.Errorf("reason %q", r["reason"])
			}
			if st.Metadata["survived"] != 1 || st.Metadata["errored"] != 1 {
				t.Errorf("metadata %v", st.Metadata)
			}
		})
	}
}

// A fault code on the submission's side alone, State A's run passing, is
// the submission's failure: the pair discriminates and is ruled on as any
// other (docs/LADDER.md, "Stage 3 untestable by choice").
func TestSubmissionOnlyFaultIsABreak(t *testing.T) {
	st, r := stageWith(t, []CandidateRun{pass}, []CandidateRun{fault})
	if v := verdicts(st); v["a05-usage"] != result.VerdictFail {
		t.Errorf("verdicts %v", v)
	}
	if r["outcome"] != OutcomeBroken {
		t.Errorf("round %v: %v", r["outcome"], r["reason"])
	}
}

// A run srb could not carry out (the engine failed) makes its round an
// error, whatever the other runs said: never the submission's failure.
func TestEngineFailureIsARoundError(t *testing.T) {
	st, r := stageWith(t, []CandidateRun{pass}, []CandidateRun{engineDown, fails})
	if v := verdicts(st); v["a05-usage"] != result.VerdictError {
		t.Errorf("verdicts %v", v)
	}
	if !strings.Contains(r["reason"].(string), "srb could not carry out a run of candidate c on the submission: exec in img: container is not running") {
		t.Errorf("reason %q", r["reason"])
	}
	runs := r["candidates"].([]any)[0].(map[string]any)["runs"].([]any)
	if runs[1].(map[string]any)["harness_error"] != "exec in img: container is not running" {
		t.Errorf("runs %v", runs)
	}
}

// After each round but the last the stage so far is handed to
// Checkpoint (what srb verification writes to verification.json): status
// error and partial, with the finished rounds only. A kept round is not
// played again and its record stands, marked kept.
func TestCheckpointsAndKeptRounds(t *testing.T) {
	var partials []*result.Stage
	played := map[string]bool{}
	cfg := Config{Task: "t", Reruns: 1,
		Adversaries: []Adversary{{ID: "a01"}, {ID: "a02"}, {ID: "a03"}},
		NewSandbox: func(_ context.Context, id string) (Sandbox, error) {
			played[id] = true
			return &replay{runs: map[string][]CandidateRun{RoleOriginal: {pass}, RoleSubmission: {pass}}, n: map[string]int{}}, nil
		},
		NewDriver:  func(Adversary) (models.Driver, error) { return scripted(t, "m", nothing("nothing")), nil },
		Checkpoint: func(st *result.Stage) error { partials = append(partials, st); return nil },
		Metadata:   map[string]any{"inputs": map[string]any{"submission": "sha256:x"}},
		Kept: map[string]Kept{"a02": {
			Record: map[string]any{"adversary": "a02", "outcome": OutcomeBroken, "reason": "earlier", "candidate_runs": 6.0},
			Check:  result.Check{ID: "a02", Unit: "a02", Weight: 1, Verdict: result.VerdictFail, Summary: "earlier break"},
			Unit:   result.Unit{ID: "a02", Weight: 1, Status: result.UnitOK},
		}},
	}
	st, rounds := runStage(t, cfg)
	if played["a02"] || !played["a01"] || !played["a03"] {
		t.Errorf("played %v, want a01 and a03 only", played)
	}
	if diff := cmp.Diff(map[string]string{"a01": "pass", "a02": "fail", "a03": "pass"}, verdicts(st)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if roundOf(t, rounds, "a02")["kept"] != true || st.Metadata["kept"] != 1 || st.Metadata["broken"] != 1 || st.Metadata["candidate_runs"] != 6 {
		t.Errorf("metadata %v", st.Metadata)
	}
	if st.Status != result.StatusOK || st.Metadata["inputs"] == nil || st.Metadata["partial"] != nil {
		t.Errorf("final stage: status %s, metadata %v", st.Status, st.Metadata)
	}
	// One checkpoint after a01 (a02 is kept and not played; after a03
	// the stage is whole and returned).
	if len(partials) != 1 {
		t.Fatalf("%d checkpoints, want 1", len(partials))
	}
	p := partials[0]
	if p.Status != result.StatusError || p.Metadata["partial"] != true || len(p.Checks) != 1 || p.Checks[0].ID != "a01" ||
		p.Metadata["error"] != "the stage has finished 1 of its 3 rounds (still running, or stopped before the rest)" || p.Metadata["inputs"] == nil {
		t.Errorf("checkpoint: status %s, checks %v, metadata %v", p.Status, p.Checks, p.Metadata)
	}
	if err := p.Write(filepath.Join(t.TempDir(), "verification.json")); err != nil {
		t.Errorf("the checkpoint is not a valid stage result: %v", err)
	}
}

// Each round played says on Progress when it starts and when it ends, with
// its outcome, as it happens; a kept round is not played and says nothing.
func TestRoundProgressLines(t *testing.T) {
	var progress bytes.Buffer
	cfg := Config{Task: "t", Reruns: 1, Progress: &progress,
		Adversaries: []Adversary{{ID: "a01"}, {ID: "a02"}},
		NewSandbox: func(context.Context, string) (Sandbox, error) {
			return &replay{runs: map[string][]CandidateRun{RoleOriginal: {pass}, RoleSubmission: {pass}}, n: map[string]int{}}, nil
		},
		NewDriver: func(Adversary) (models.Driver, error) { return scripted(t, "m", nothing("nothing")), nil },
		Kept: map[string]Kept{"a02": {
			Record: map[string]any{"adversary": "a02", "outcome": OutcomeSurvived, "reason": "earlier"},
			Check:  result.Check{ID: "a02", Unit: "a02", Weight: 1, Verdict: result.VerdictPass, Summary: "earlier"},
			Unit:   result.Unit{ID: "a02", Weight: 1, Status: result.UnitOK},
		}},
	}
	runStage(t, cfg)
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 2 || lines[0] != "verification: round a01: started" ||
		!strings.HasPrefix(lines[1], "verification: round a01: ended after ") || !strings.Contains(lines[1], ": survived: ") {
		t.Errorf("progress lines: %q", lines)
	}
}

// slowUpkeep is a sandbox whose every run costs the clock upkeep seconds
// of the grader's own steps (a restore of a tree the submission made
// large, say) and one second of the candidate's run.
type slowUpkeep struct {
	clock  *time.Time
	upkeep float64
}

func (f *slowUpkeep) Reset(context.Context) error { return nil }
func (f *slowUpkeep) Execute(_ context.Context, _ *Candidate, role string) CandidateRun {
	*f.clock = f.clock.Add(time.Duration((f.upkeep + 1) * float64(time.Second)))
	r := pass
	r.Target, r.DurationSec, r.UpkeepSec = role, 1, f.upkeep
	return r
}
func (f *slowUpkeep) Roots() []agent.RootSpec                      { return nil }
func (f *slowUpkeep) RunTool() (agent.Runner, func(string) string) { return nil, nil }
func (f *slowUpkeep) Close() error                                 { return nil }

// The grader's steps around a candidate run are not the adversary's
// time: a submission whose tree takes 1,000 s to put back before each run
// does not use up a round's 3,600 s budget (a round that runs out counts
// as survived), and the round records the upkeep it did not count.
func TestUpkeepIsNotTheAdversarysBudget(t *testing.T) {
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	cfg := Config{Task: "t",
		Adversaries: []Adversary{{ID: "a01", BudgetSec: 3600}},
		NewSandbox: func(context.Context, string) (Sandbox, error) {
			return &slowUpkeep{clock: &clock, upkeep: 1000}, nil
		},
		NewDriver: func(Adversary) (models.Driver, error) {
			return scripted(t, "m", try("c1", "true"), try("c2", "true"), try("c3", "true"), try("c4", "true"), nothing("no difference in four tries")), nil
		},
		Now: func() time.Time { return clock },
	}
	_, rounds := runStage(t, cfg)
	r := roundOf(t, rounds, "a01")
	if r["outcome"] != OutcomeSurvived || r["candidate_runs"] != 8.0 || r["loop_outcome"] != agent.OutcomeSubmitted {
		t.Fatalf("round: outcome %v, %v candidate runs, loop %v: %v", r["outcome"], r["candidate_runs"], r["loop_outcome"], r["reason"])
	}
	if r["upkeep_sec"] != 8000.0 {
		t.Errorf("upkeep_sec %v, want 8000", r["upkeep_sec"])
	}
	run := r["candidates"].([]any)[0].(map[string]any)["runs"].([]any)[0].(map[string]any)
	if run["upkeep_sec"] != 1000.0 {
		t.Errorf("run's upkeep_sec %v, want 1000", run["upkeep_sec"])
	}
}

// placeSandbox is a candidate that tells its runs apart by their place,
// not by the trees: it fails on the runs whose 1-based index (over all its
// runs) is in Fail and passes on every other. It is what a candidate that
// keeps a count in the machine's page cache or in /proc/keys can do
// (cache-role, key-role: the first run leaves a mark the next one sees;
// count-role: a few files' cached state is a counter). Order records the
// roles in the order they ran.
type placeSandbox struct {
	Sandbox
	Fail  map[int]bool
	Order []string
}

func (o *placeSandbox) Execute(_ context.Context, _ *Candidate, role string) CandidateRun {
	o.Order = append(o.Order, role)
	if o.Fail[len(o.Order)] {
		return CandidateRun{Target: role, ExitCode: 1}
	}
	return CandidateRun{Target: role, ExitCode: 0, Passed: true}
}

// A candidate that fails whenever it runs second in a pair discriminates
// in try_test (State A first) but not in the reruns, whose order it cannot
// know and which hold more runs of State A than of the submission: it
// fails on four of the nine places, one of them State A's whatever the
// order, so it is never a break of a correct port. The runs are recorded
// in the order they ran, each with its place in the schedule.
func TestOrderGuessIsNotStable(t *testing.T) {
	for range 50 {
		sb := &placeSandbox{Fail: map[int]bool{2: true, 4: true, 6: true, 8: true, 10: true}}
		cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true}
		c := &Candidate{Name: "c", Filename: "c.sh", Code: "true"}
		adj := adjudicate(context.Background(), cfg, sb, Adversary{ID: "a"}, c, "claim", time.Now)
		if adj.Decision != DecisionRejected || !strings.HasPrefix(adj.Reason, "the outcome is not stable") {
			t.Fatalf("got %s %q reproduced %d", adj.Decision, adj.Reason, adj.Reproduced)
		}
		if len(c.Runs) != len(sb.Order) {
			t.Fatalf("%d runs recorded, %d ran", len(c.Runs), len(sb.Order))
		}
		for i, r := range c.Runs {
			if r.Target != sb.Order[i] || (i >= 2 && r.Seq != i-1) || (i < 2 && r.Seq != 0) {
				t.Fatalf("run %d recorded as %+v, ran as %s", i, r, sb.Order[i])
			}
		}
	}
}

// A candidate that knows its place among its runs (a counter it keeps in
// the page cache) and fails on the places it bets are the submission's
// must guess the reruns' whole order, drawn from crypto/rand: one chance
// in C(9,3) = 84 for three reruns (three runs of the submission and six of
// State A). With the order fixed (the earlier alternation) the right bet
// won every time and broke a correct port. Against 2,000 adjudications the
// expected number upheld is 23.8 (standard deviation 4.8); the bounds are
// about four deviations away.
func TestPlaceGuessMustGuessTheWholeOrder(t *testing.T) {
	const trials = 2000
	upheld := 0
	for range trials {
		// The bet: the claimed pair's second run (the submission's in
		// try_test) and the first three reruns.
		sb := &placeSandbox{Fail: map[int]bool{2: true, 3: true, 4: true, 5: true}}
		cfg := Config{Task: "t", Reruns: 3, RequireDeterministic: true}
		c := &Candidate{Name: "c", Filename: "c.sh", Code: "true"}
		adj := adjudicate(context.Background(), cfg, sb, Adversary{ID: "a"}, c, "claim", time.Now)
		if adj.Decision == DecisionUpheld {
			upheld++
		}
		if len(sb.Order) > 11 {
			t.Fatalf("%d runs, at most 11 (the claimed pair, three reruns of the submission and six of State A)", len(sb.Order))
		}
	}
	if upheld < 5 || upheld > 45 {
		t.Errorf("the bet on the places held in %d of %d adjudications, want about %d (1 in 84)", upheld, trials, trials/84)
	}
}

// The reruns' order is uniform over the C(3n, n) orders of n runs of the
// submission and 2n of State A: 42,000 draws of n = 3 give each of the 84
// orders about 500 times (standard deviation 22; the bounds are about
// five deviations away).
func TestShuffledRolesIsUniform(t *testing.T) {
	counts := map[string]int{}
	for range 42000 {
		roles := shuffledRoles(3, 6, nil)
		key := ""
		for _, r := range roles {
			key += r[:1]
		}
		counts[key]++
	}
	if len(counts) != 84 {
		t.Fatalf("%d distinct orders, want 84: %v", len(counts), counts)
	}
	for k, n := range counts {
		if strings.Count(k, "o") != 6 || n < 390 || n > 610 {
			t.Errorf("order %s drawn %d times, want about 500 with six of State A and three of the submission", k, n)
		}
	}
}
