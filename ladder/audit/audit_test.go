package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/internal/httpmock"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

const fixture = "../../testdata/tasks/lang90-tally-c-to-go"

// mainGo is the submission's main.go: a Go front end over the kept C
// binary. Line 10 runs it.
const mainGo = `package main

import (
	"os"
	"os/exec"
)

// main hands the counting to the kept C binary.
func main() {
	cmd := exec.Command("./tally-c")
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	_ = cmd.Run()
}
`

// setup loads the fixture task and makes a submission tree; it returns
// the config every scenario starts from (reviews still to be scripted).
func setup(t *testing.T) Config {
	t.Helper()
	tk, problems := task.Load(fixture)
	if len(problems) > 0 {
		t.Fatalf("fixture: %v", problems)
	}
	sub := t.TempDir()
	for name, text := range map[string]string{"main.go": mainGo, "go.mod": "module tally\n\ngo 1.22\n", "tally.c": "int main(void) { return 0; }\n"} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := agent.NewToolbox([]agent.RootSpec{{Name: "original", Dir: "../../testdata/statea/tally-1.0"}, {Name: "workspace", Dir: sub}}, agent.ToolboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	prompt, err := os.ReadFile(filepath.Join(tk.Dir, tk.Audit.Prompt))
	if err != nil {
		t.Fatal(err)
	}
	var gates []Gate
	for _, g := range tk.Audit.Gates {
		gates = append(gates, Gate{ID: g.ID, Title: g.Title, Question: g.Question, Required: g.Required})
	}
	clock := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	return Config{Task: tk.ID, Gates: gates, Prompt: string(prompt), Samples: tk.Audit.Samples, Toolbox: tb,
		LogDir: filepath.Join(t.TempDir(), "audit"),
		Now:    func() time.Time { clock = clock.Add(time.Second); return clock },
		Sleep:  func(context.Context, time.Duration) error { return nil }}
}

// gate is one gate entry of a submitted review.
func gate(id, verdict, reasoning string, evidence ...map[string]any) map[string]any {
	e := map[string]any{"id": id, "verdict": verdict, "reasoning": reasoning, "confidence": 0.8}
	if len(evidence) > 0 {
		list := make([]any, len(evidence))
		for i, x := range evidence {
			list[i] = x
		}
		e["evidence"] = list
	}
	return e
}

func cite(path string, line int, quote string) map[string]any {
	return map[string]any{"path": path, "line": line, "quote": quote}
}

// review is a scripted review that reads main.go once, then submits each
// of payloads in turn (later ones answer re-asks).
func review(payloads ...[]map[string]any) []any {
	turns := []any{map[string]any{"text": "Reading the entry point.", "tool_calls": []any{
		map[string]any{"name": "fetch_source", "arguments": map[string]any{"path": "workspace:main.go"}}}}}
	for _, gates := range payloads {
		list := make([]any, len(gates))
		for i, g := range gates {
			list[i] = g
		}
		turns = append(turns, map[string]any{"tool_calls": []any{map[string]any{"name": SubmitTool,
			"arguments": map[string]any{"summary": "Reviewed.", "gates": list}}}})
	}
	return turns
}

// dead is a review whose endpoint fails for good.
func dead() []any {
	return []any{map[string]any{"error": map[string]any{"message": "HTTP 401 from gateway: bad key", "retryable": false}}}
}

// withReviews scripts review i with reviews[i-1], through JSON as a
// script file would be read.
func withReviews(cfg Config, reviews ...[]any) Config {
	cfg.NewDriver = func(i int) (models.Driver, error) {
		b, _ := json.Marshal(reviews[i-1])
		var turns []any
		json.Unmarshal(b, &turns)
		return models.New(models.Config{Driver: "scripted", Model: "gpt-5.6-sol", Effort: "medium", Options: map[string]any{"turns": turns}})
	}
	return cfg
}

func passes() []map[string]any {
	return []map[string]any{gate("c-retired", Pass, "No C build is left."), gate("go-is-primary", Pass, "Go counts."), gate("no-grader-awareness", Pass, "Nothing odd.")}
}

// grounded is the fail every scenario's accusing review makes: main.go
// line 10 runs the kept binary.
func grounded() []map[string]any {
	return []map[string]any{
		gate("c-retired", Pass, "The Makefile is gone."),
		gate("go-is-primary", Fail, "main runs the kept C binary through exec.Command. It computes nothing itself.",
			cite("workspace:main.go", 10, `CMD :=   exec.Command("./tally-c")`)),
		gate("no-grader-awareness", Pass, "Nothing odd."),
	}
}

// check runs the stage, writes and re-reads it through the schema, and
// returns it with the check of gate id.
func check(t *testing.T, cfg Config, id string) (*result.Stage, result.Check) {
	t.Helper()
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.json")
	if err := st.Write(path); err != nil {
		t.Fatalf("the result breaks its contract: %v", err)
	}
	back, err := result.ReadStage(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Checks {
		if c.ID == id {
			return back, c
		}
	}
	t.Fatalf("no check %s", id)
	return nil, result.Check{}
}

func TestGroundedFail(t *testing.T) {
	cfg := withReviews(setup(t), review(grounded()), review(grounded()), review(passes()))
	st, c := check(t, cfg, "go-is-primary")
	if c.Verdict != result.VerdictFail || !c.Required || c.Summary != "main runs the kept C binary through exec.Command." {
		t.Errorf("check %+v", c)
	}
	if diff := cmp.Diff(`{"fail":2,"pass":1}`, jsonOf(c.Metadata["votes"])); diff != "" {
		t.Errorf("votes (-want +got):\n%s", diff)
	}
	// The two failing reviews cite the same line: it is one piece of
	// evidence, and their word-for-word reasoning is one reason (#16).
	if len(c.Evidence) != 1 || c.Evidence[0]["grounded"] != true || c.Evidence[0]["ground_note"] != "verified" || jsonOf(c.Evidence[0]["line"]) != "10" {
		t.Errorf("evidence %v", c.Evidence)
	}
	if strings.Count(c.Detail, "main runs the kept C binary") != 1 || !strings.HasPrefix(c.Detail, "[fail] (2 reviews) main runs the kept C binary") ||
		strings.Count(c.Detail, "\n\n[pass] ") != 1 || strings.Contains(c.Detail, "[pass] (") {
		t.Errorf("detail %q", c.Detail)
	}
	ok, why := scoring.AuditPassesGate(st, scoring.Published(), "")
	if ok || why != "the audit gate failed on 1 required check(s): go-is-primary [audit-gate]" {
		t.Errorf("gate: %v %s", ok, why)
	}
	if st.Status != result.StatusOK || jsonOf(st.Metadata["samples_usable"]) != "3" || jsonOf(st.Metadata["files_read"]) != "1" || st.DurationSec <= 0 {
		t.Errorf("stage %s %v %g", st.Status, st.Metadata, st.DurationSec)
	}
	samples := st.Metadata["samples"].([]any)
	s1 := samples[0].(map[string]any)
	if s1["outcome"] != "submitted" || jsonOf(s1["usage"].(map[string]any)["calls"]) != "2" || !strings.HasSuffix(s1["transcript"].(string), "review-1.jsonl") {
		t.Errorf("sample 1: %v", s1)
	}
}

func TestFailQuotedElsewhereIsAPass(t *testing.T) {
	// The quote is real, but at line 10, not within three lines of line 2.
	elsewhere := []map[string]any{
		gate("c-retired", Pass, "gone"),
		gate("go-is-primary", Fail, "Runs the C binary.", cite("workspace:main.go", 2, `exec.Command("./tally-c")`)),
		gate("no-grader-awareness", Pass, "fine"),
	}
	cfg := withReviews(setup(t), review(elsewhere), review(elsewhere), review(passes()))
	st, c := check(t, cfg, "go-is-primary")
	if c.Verdict != result.VerdictPass {
		t.Fatalf("an ungrounded fail must not fail the gate: %+v", c)
	}
	want := []any{
		"reported fail but the evidence did not check out (1 citation(s), none grounded in the submission: workspace:main.go: quoted text not found within 3 lines of line 2); counted as a pass rather than a failure",
		"reported fail but the evidence did not check out (1 citation(s), none grounded in the submission: workspace:main.go: quoted text not found within 3 lines of line 2); counted as a pass rather than a failure",
	}
	if diff := cmp.Diff(want, c.Metadata["defaulted_to_pass"]); diff != "" {
		t.Errorf("defaulted_to_pass (-want +got):\n%s", diff)
	}
	if !strings.Contains(c.Detail, "-> reported fail but the evidence did not check out") {
		t.Errorf("detail %q", c.Detail)
	}
	vote := st.Metadata["samples"].([]any)[0].(map[string]any)["votes"].(map[string]any)["go-is-primary"].(map[string]any)
	cites := vote["citations"].([]any)[0].(map[string]any)
	if cites["grounded"] != false || cites["ground_note"] != "quoted text not found within 3 lines of line 2" {
		t.Errorf("citation %v", cites)
	}
	if ok, why := scoring.AuditPassesGate(st, scoring.Published(), ""); !ok {
		t.Errorf("gate: %s", why)
	}
}

func TestInventedVerdictIsReAskedAndNeverAFail(t *testing.T) {
	abstain := []map[string]any{gate("c-retired", "abstain", "Could not tell."), gate("go-is-primary", Pass, "fine"), gate("no-grader-awareness", Pass, "fine")}
	// Review 1 insists on "abstain" until its script runs out; review 2
	// corrects itself when re-asked; review 3 passes.
	cfg := withReviews(setup(t), review(abstain, abstain), review(abstain, passes()), review(passes()))
	st, c := check(t, cfg, "c-retired")
	if c.Verdict != result.VerdictPass || jsonOf(c.Metadata["samples_usable"]) != "2" {
		t.Fatalf("check %+v", c)
	}
	if len(st.Notes) != 1 || st.Notes[0] != "1 of 3 reviews did not complete; the rest carried the vote" {
		t.Errorf("notes %q", st.Notes)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.LogDir, "review-2.jsonl"))
	if !strings.Contains(string(b), `"kind": "submit_rejected", "reason": "These verdicts are not one of the two allowed answers: c-retired (sent \"abstain\")`) {
		t.Errorf("review 2 was not re-asked:\n%s", b)
	}
	// Should a payload ever reach the parser with a word that is neither
	// answer, it is a pass, recorded as such.
	v, ok := ParseVote(gate("c-retired", "unknown", "?"), cfg.Gates, cfg.Toolbox)
	if !ok || v.Verdict != Pass || v.Downgraded != `sent verdict "unknown", which is not one of pass/fail; counted as a pass rather than a failure` {
		t.Errorf("vote %+v", v)
	}
	agg := Aggregate(cfg.Gates[0], []Sample{{Index: 1, Outcome: agent.OutcomeSubmitted, Votes: map[string]Vote{"c-retired": v}}})
	if agg.Verdict != result.VerdictPass || len(agg.Metadata["defaulted_to_pass"].([]any)) != 1 {
		t.Errorf("aggregate %+v", agg)
	}
}

func TestTieBreaksToPass(t *testing.T) {
	cfg := withReviews(setup(t), review(grounded()), dead(), review(passes()))
	st, c := check(t, cfg, "go-is-primary")
	if c.Verdict != result.VerdictPass || c.Metadata["tie_broken_to_pass"] != true ||
		c.Summary != "reviews split 1 pass / 1 fail; no majority to fail on, so this gate passes" {
		t.Fatalf("check %+v", c)
	}
	if jsonOf(st.Metadata["samples_usable"]) != "2" || jsonOf(st.Metadata["samples_requested"]) != "3" {
		t.Errorf("metadata %v", st.Metadata)
	}
	s2 := st.Metadata["samples"].([]any)[1].(map[string]any)
	if s2["outcome"] != "error" || s2["error"] != "scripted: HTTP 401 from gateway: bad key" {
		t.Errorf("dead review: %v", s2)
	}
	ok, _ := scoring.AuditPassesGate(st, scoring.Published(), "")
	v := scoring.Grade(st.Task, scoring.Stages{Audit: st, Declared: []string{"audit"}}, scoring.Published())
	if !ok || !strings.Contains(strings.Join(v.Notes, "\n"), "reduced quorum: 2 of 3 reviews completed") {
		t.Errorf("gate %v notes %q", ok, v.Notes)
	}
}

func TestDeadReviewsMakeTheStageAnError(t *testing.T) {
	cfg := withReviews(setup(t), dead(), dead(), nil)
	inner := cfg.NewDriver
	cfg.NewDriver = func(i int) (models.Driver, error) {
		if i == 3 {
			return nil, fmt.Errorf("openai: OPENAI_API_KEY is unset; the model cannot be called")
		}
		return inner(i)
	}
	st, c := check(t, cfg, "go-is-primary")
	if st.Status != result.StatusError || strings.Join(st.Notes, "|") != "no review completed; the audit gate is undecided" {
		t.Fatalf("stage %s %q", st.Status, st.Notes)
	}
	if c.Verdict != result.VerdictError || c.Summary != "undecided: 3 review(s) ran, none returned a verdict on this gate" {
		t.Errorf("check %+v", c)
	}
	if !strings.Contains(c.Detail, "review 3: error openai: OPENAI_API_KEY is unset") {
		t.Errorf("detail %q", c.Detail)
	}
	ok, why := scoring.AuditPassesGate(st, scoring.Published(), "")
	if ok || !strings.HasSuffix(why, "[audit-error]") {
		t.Errorf("an outage is never a zero: %v %s", ok, why)
	}
}

func TestStaleTranscriptsRemoved(t *testing.T) {
	cfg := withReviews(setup(t), review(passes()), review(passes()), review(passes()))
	if err := os.MkdirAll(cfg.LogDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cfg.LogDir, "review-7.jsonl"), []byte("{}\n"), 0o644)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(cfg.LogDir, "review-*.jsonl"))
	if len(got) != 3 {
		t.Errorf("transcripts %v", got)
	}
}

func TestRender(t *testing.T) {
	gates := []Gate{{ID: "g1", Title: "First", Question: "Is it?\nReally?", Required: true}, {ID: "g2", Title: "Second"}}
	got := Render("{{task}} {{original}} {{submission}} {{workspace}} [{{roots}}] {{commands}} {{findings}} {{tsak}}\n{{gates}}",
		Values{Task: "t1", Original: "/o", Workspace: "/w", Roots: "original = /o, workspace = /w", Gates: gates})
	want := "t1 /o /w /w [original = /o, workspace = /w] (none: this review is by reading, not by running) (no scan ran for this task) {{tsak}}\n" +
		"[g1]  (REQUIRED)  First\n    Is it?\n    Really?\n\n[g2]  (advisory)  Second"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Render("{{findings}} {{commands}}", Values{Findings: "saw {{task}}", Task: "t", Commands: []string{"nm", "go"}}); got != "saw {{task}} nm, go" {
		t.Errorf("commands %q", got)
	}
}

func TestCheckSubmission(t *testing.T) {
	gates := []Gate{{ID: "a", Required: true}, {ID: "b"}}
	asList := func(es ...map[string]any) map[string]any {
		l := make([]any, len(es))
		for i, e := range es {
			l[i] = e
		}
		return map[string]any{"gates": l}
	}
	for _, tc := range []struct {
		payload map[string]any
		want    string
	}{
		{map[string]any{}, "Your submission had no gate verdicts. Send it again with one entry per gate id: a, b"},
		{asList(gate("a", Pass, "")), "Missing a verdict for: b."},
		{asList(gate("a", "n/a", ""), gate("b", "", "")), `These verdicts are not one of the two allowed answers: a (sent "n/a"); b (sent "")`},
		{asList(gate("a", Fail, "x"), gate("b", Pass, "")), "A fail has to point at a line someone else can look up. No evidence at all: a."},
		{asList(gate("a", Fail, "x", map[string]any{"file": "src/shim.rs", "line": 3}), gate("b", Pass, "")), "Evidence naming no file: a (sent file, line)."},
		{asList(gate("a", Fail, "x", map[string]any{"root": "workspace", "quote": "q"}), gate("b", Pass, "")), "Evidence naming no file: a (sent quote, root)."},
		{asList(gate("a", Fail, "x", map[string]any{"root": "workspace:main.go", "line": 3}), gate("b", Pass, "")), ""},
		{asList(gate("a", Fail, "x", cite("workspace:main.go", 1, "")), gate("b", Pass, "")), ""},
	} {
		got := CheckSubmission(tc.payload, gates)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("CheckSubmission(%v)\n got %q\nwant %q", tc.payload, got, tc.want)
		}
	}
}

func TestPathlessEvidenceDowngrade(t *testing.T) {
	cfg := setup(t)
	v, _ := ParseVote(gate("go-is-primary", Fail, "x", map[string]any{"file": "main.go", "line": 10}), cfg.Gates, cfg.Toolbox)
	if v.Verdict != Pass || !strings.Contains(v.Downgraded, "(1 evidence entry(s), none naming a file)") {
		t.Errorf("vote %+v", v)
	}
	v, _ = ParseVote(gate("go-is-primary", Fail, "x", map[string]any{"location": "workspace:main.go", "line": 9, "quote": "exec.Command"}), cfg.Gates, cfg.Toolbox)
	if v.Verdict != Fail || !v.Citations[0].Grounded {
		t.Errorf("a location alias with a root separator grounds: %+v", v)
	}
	if _, ok := ParseVote(gate("made-up", Fail, "x"), cfg.Gates, cfg.Toolbox); ok {
		t.Error("an undeclared gate id is ignored")
	}
}

// jsonOf renders a value read back from a result file (numbers are
// json.Number there) as compact JSON.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReviewsOverOpenAI runs stage 1 with the openai driver against a
// fake endpoint: three reviews, the second surviving a 524 and a 429.
func TestReviewsOverOpenAI(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	submitCall := func(gates []map[string]any) httpmock.Responder {
		args, _ := json.Marshal(map[string]any{"summary": "Reviewed.", "gates": gates})
		quoted, _ := json.Marshal(string(args))
		return httpmock.JSON(`{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":"Done.","tool_calls":[` +
			`{"id":"call_9","type":"function","function":{"name":"submit_review","arguments":` + string(quoted) + `}}]}}],` +
			`"usage":{"prompt_tokens":1000,"completion_tokens":50}}`)
	}
	const path = "/v1/chat/completions"
	reg.Register("POST", path, submitCall(grounded()))
	reg.Register("POST", path, httpmock.Status(524, "origin timed out"))
	reg.Register("POST", path, httpmock.Status(429, `{"error":{"message":"rate limited"}}`))
	reg.Register("POST", path, submitCall(grounded()))
	reg.Register("POST", path, submitCall(passes()))
	cfg := setup(t)
	env := func(k string) (string, bool) {
		if k == "OPENAI_API_KEY" {
			return "sk-test", true
		}
		return "", false
	}
	cfg.NewDriver = func(int) (models.Driver, error) {
		return models.New(models.Config{Driver: "openai", Model: "gpt-5.6-sol", Effort: "medium", Options: map[string]any{"base_url": reg.URL() + "/v1"}},
			models.WithEnv(env), models.WithSleep(func(context.Context, time.Duration) error { return nil }))
	}
	st, c := check(t, cfg, "go-is-primary")
	if c.Verdict != result.VerdictFail || st.Status != result.StatusOK {
		t.Fatalf("check %+v", c)
	}
	s2 := st.Metadata["samples"].([]any)[1].(map[string]any)
	if got := jsonOf(s2["usage"]); got != `{"calls":1,"driver":"openai","input_tokens":1000,"model":"gpt-5.6-sol","output_tokens":50,"reasoning_effort":"medium"}` {
		t.Errorf("review 2 usage %s", got)
	}
	body := string(reg.Requests()[0].Body)
	for _, want := range []string{`"reasoning_effort":"medium"`, `"name":"submit_review"`, `"name":"fetch_source"`, `[go-is-primary]  (REQUIRED)  Go does the counting`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s", want)
		}
	}
}

// TestBeforeReview: the hook runs once before each review, in order, and
// a review whose hook fails (its container did not start) is an error
// that the others outvote, never a fail.
func TestBeforeReview(t *testing.T) {
	cfg := withReviews(setup(t), review(passes()), review(passes()), review(passes()))
	var seen []int
	cfg.BeforeReview = func(_ context.Context, i int) error {
		seen = append(seen, i)
		if i == 2 {
			return fmt.Errorf("the audit image srb/x:audit: no such image")
		}
		return nil
	}
	st, c := check(t, cfg, "go-is-primary")
	if fmt.Sprint(seen) != "[1 2 3]" {
		t.Errorf("hook calls %v", seen)
	}
	if c.Verdict != result.VerdictPass || jsonOf(st.Metadata["samples_usable"]) != "2" {
		t.Errorf("check %+v, usable %v", c, st.Metadata["samples_usable"])
	}
	s2 := st.Metadata["samples"].([]any)[1].(map[string]any)
	if s2["outcome"] != "error" || s2["error"] != "the audit image srb/x:audit: no such image" {
		t.Errorf("review 2: %v", s2)
	}
}

// TestUngroundedFailEvidence feeds a required gate's fail every kind of
// evidence a judge could send that does not ground a claim about the
// submission (issue 14): each is recorded with why, and the fail counts as
// a pass; a real line of the submission still grounds.
func TestUngroundedFailEvidence(t *testing.T) {
	cfg := setup(t)
	sub := cfg.Toolbox.RootDir("workspace")
	for name, text := range map[string]string{"LICENSE": "MIT License\n\nCopyright 2026\n", "src/deep.go": "package src\n\n}\n", "blob.bin": "\x00\x01exec.Command\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(sub, name)), 0o755)
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside.go")
	os.WriteFile(outside, []byte("cmd := exec.Command(\"./tally-c\")\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(sub, "escape.go")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		evidence map[string]any
		note     string
	}{
		{"the root folder", map[string]any{"path": "workspace:"}, "cites the folder workspace:, not a line of a file"},
		{"a folder", map[string]any{"path": "workspace:src", "quote": "package src"}, "cites the folder workspace:src, not a line of a file"},
		{"a file alone", map[string]any{"path": "workspace:main.go"}, "cites workspace:main.go with no line number"},
		{"a quote with no line", map[string]any{"path": "workspace:main.go", "quote": `exec.Command("./tally-c")`}, "cites workspace:main.go with no line number"},
		{"a line with no quote", map[string]any{"path": "workspace:main.go", "line": 10}, "cites workspace:main.go:10 with no quote"},
		{"a note alone", map[string]any{"path": "workspace:main.go", "line": 10, "note": "this runs C"}, "cites workspace:main.go:10 with no quote"},
		{"an empty quote", cite("workspace:main.go", 10, "   "), "cites workspace:main.go:10 with no quote"},
		{"a one-character quote", cite("workspace:main.go", 10, "("), `the quote "(" is too short to show anything (fewer than 3 letters or digits, or no letter)`},
		{"punctuation alone", cite("workspace:src/deep.go", 3, "}"), `the quote "}" is too short to show anything (fewer than 3 letters or digits, or no letter)`},
		{"digits alone", cite("workspace:go.mod", 3, "1.22"), `the quote "1.22" is too short to show anything (fewer than 3 letters or digits, or no letter)`},
		{"a licence word", cite("workspace:LICENSE", 1, "MIT"), `the quote "MIT" holds only licence or boilerplate words`},
		{"a licence line", cite("workspace:LICENSE", 1, "MIT License"), `the quote "MIT License" holds only licence or boilerplate words`},
		{"a keyword line", cite("workspace:main.go", 1, "package main"), `the quote "package main" holds only licence or boilerplate words`},
		{"State A's line", cite("original:tally.c", 6, "int main(int argc, char **argv) {"), "cites original:tally.c, a file of the original tree; only a line of the workspace tree grounds this"},
		{"State A's line by absolute path", cite(filepath.Join(cfg.Toolbox.RootDir("original"), "tally.c"), 6, "int main(int argc, char **argv) {"), "cites original:tally.c, a file of the original tree; only a line of the workspace tree grounds this"},
		{"State A's quote at the submission's path", cite("workspace:tally.c", 1, "int main(int argc, char **argv) {"), "quoted text not found within 3 lines of line 1"},
		{"a path out of the tree", cite("workspace:../x/tally.c", 6, "int main(int argc, char **argv) {"), `"workspace:../x/tally.c" escapes root workspace=`},
		{"a link leading out", cite("workspace:escape.go", 1, `exec.Command("./tally-c")`), `"workspace:escape.go" resolves outside root workspace=`},
		{"a line past the end", cite("workspace:main.go", 99, "exec.Command"), "cited line 99 but workspace:main.go has 13 lines"},
	} {
		v, ok := ParseVote(gate("go-is-primary", Fail, "It runs C.", tc.evidence), cfg.Gates, cfg.Toolbox)
		if !ok || v.Verdict != Pass || len(v.Citations) != 1 || v.Citations[0].Grounded {
			t.Errorf("%s: the fail must count as a pass: %+v", tc.name, v)
			continue
		}
		if note := v.Citations[0].GroundNote; !strings.Contains(note, tc.note) {
			t.Errorf("%s: ground_note %q, want it to contain %q", tc.name, note, tc.note)
		}
		if !strings.Contains(v.Downgraded, "none grounded in the submission: ") || !strings.Contains(v.Downgraded, tc.note) {
			t.Errorf("%s: downgraded %q", tc.name, v.Downgraded)
		}
	}
	// A real line of the submission grounds, beside ungrounded ones.
	v, _ := ParseVote(gate("go-is-primary", Fail, "It runs C.", map[string]any{"path": "workspace:"},
		cite("workspace:main.go", 11, `cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout`)), cfg.Gates, cfg.Toolbox)
	if v.Verdict != Fail || v.Downgraded != "" || v.grounded() != 1 || v.Citations[1].GroundNote != "verified" {
		t.Errorf("a real line grounds: %+v", v)
	}
	// A NUL in a file does not make its lines uncitable.
	v, _ = ParseVote(gate("go-is-primary", Fail, "It runs C.", cite("workspace:blob.bin", 1, "exec.Command")), cfg.Gates, cfg.Toolbox)
	if v.Verdict != Fail || !v.Citations[0].Grounded {
		t.Errorf("a binary file's line grounds: %+v", v)
	}
	// A pass needs no evidence, and ungrounded evidence on it changes nothing.
	v, _ = ParseVote(gate("go-is-primary", Pass, "fine", cite("original:tally.c", 6, "int main")), cfg.Gates, cfg.Toolbox)
	if v.Verdict != Pass || v.Downgraded != "" || v.Citations[0].Grounded {
		t.Errorf("pass: %+v", v)
	}
}

// TestGroundAgainstSubmittedTree: with srb audit --host the reviews read
// and run commands on copies; a line a review's command wrote into its
// copy grounds nothing, because citations are re-checked against
// Config.Ground, the trees as submitted.
func TestGroundAgainstSubmittedTree(t *testing.T) {
	cfg := setup(t)
	copyDir := t.TempDir()
	planted := mainGo + "// the port only wraps the C binary\n"
	os.WriteFile(filepath.Join(copyDir, "main.go"), []byte(planted), 0o644)
	reading, err := agent.NewToolbox([]agent.RootSpec{{Name: "original", Dir: "../../testdata/statea/tally-1.0"}, {Name: "workspace", Dir: copyDir}}, agent.ToolboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer reading.Close()
	ground, err := agent.NewToolbox([]agent.RootSpec{{Name: "original", Dir: "../../testdata/statea/tally-1.0", Shown: reading.RootDir("original")},
		{Name: "workspace", Dir: cfg.Toolbox.RootDir("workspace"), Shown: copyDir}}, agent.ToolboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ground.Close()
	cfg.Toolbox, cfg.Ground = reading, ground
	accuse := []map[string]any{gate("c-retired", Pass, "gone"),
		gate("go-is-primary", Fail, "It says so itself.", cite(filepath.Join(copyDir, "main.go"), 14, "the port only wraps the C binary")),
		gate("no-grader-awareness", Pass, "fine")}
	cfg = withReviews(cfg, review(accuse), review(accuse), review(accuse))
	_, c := check(t, cfg, "go-is-primary")
	if c.Verdict != result.VerdictPass || len(c.Metadata["defaulted_to_pass"].([]any)) != 3 {
		t.Fatalf("a line planted in the review's copy must not ground: %+v", c)
	}
	if !strings.Contains(fmt.Sprint(c.Metadata["defaulted_to_pass"]), "cited line 14 but workspace:main.go has 13 lines") {
		t.Errorf("defaulted_to_pass %v", c.Metadata["defaulted_to_pass"])
	}
}

// TestReviewProgressLines: each review's start and end is one line on the
// stage's log as it happens.
func TestReviewProgressLines(t *testing.T) {
	var log strings.Builder
	cfg := withReviews(setup(t), review(passes()), dead(), review(passes()))
	cfg.Log = &log
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	want := []string{
		"audit: review 1 of 3: started", "audit: review 1 of 3: ended after 15.0 s: submitted, 0 resume(s)",
		"audit: review 2 of 3: started", "audit: review 2 of 3: turn 1 failed for good: scripted: HTTP 401 from gateway: bad key",
		"audit: review 2 of 3: ended after 11.0 s: error: scripted: HTTP 401 from gateway: bad key",
		"audit: review 3 of 3: started", "audit: review 3 of 3: ended after 15.0 s: submitted, 0 resume(s)",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("progress lines (-want +got):\n%s", diff)
	}
}

// TestResumeKeepsFinishedReviews: audit.json is written after each review;
// a run cut off during review 3 leaves reviews 1 and 2 there (status
// error, never a verdict), and a re-run with the same inputs runs only
// review 3, keeping the others (re-grounded) and their transcripts, while
// a stale transcript is removed; other inputs run everything again.
func TestResumeKeepsFinishedReviews(t *testing.T) {
	base := setup(t)
	base.Out = filepath.Join(t.TempDir(), "audit.json")
	base.Inputs = map[string]string{"submission": "sha256:aa", "state_a": "sha256:bb", "prompt": "sha256:cc", "models": "sha256:dd", "srb": "0123456789ab"}
	os.MkdirAll(base.LogDir, 0o755)
	os.WriteFile(filepath.Join(base.LogDir, "review-9.jsonl"), []byte("{}\n"), 0o644)
	scripts := [][]any{review(grounded()), review(grounded()), review(passes())}

	ctx, cancel := context.WithCancel(context.Background())
	cfg := withReviews(base, scripts...)
	inner := cfg.NewDriver
	cfg.NewDriver = func(i int) (models.Driver, error) {
		d, err := inner(i)
		if i == 3 {
			cancel() // the run is killed while review 3 runs
			return ctxDriver{d}, err
		}
		return d, err
	}
	if _, err := Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), "interrupted after 2 of 3 reviews") {
		t.Fatalf("an interrupted run is an error: %v", err)
	}
	partial, err := result.ReadStage(base.Out)
	if err != nil {
		t.Fatal(err)
	}
	if partial.Status != result.StatusError || partial.Metadata["in_progress"] != true || len(partial.Metadata["samples"].([]any)) != 2 {
		t.Fatalf("unfinished result: %s %v", partial.Status, partial.Metadata)
	}
	for _, c := range partial.Checks {
		if c.Verdict != result.VerdictError {
			t.Errorf("an unfinished run decides no gate: %+v", c)
		}
	}
	if _, err := os.Stat(filepath.Join(base.LogDir, "review-9.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a stale transcript is removed: %v", err)
	}

	var ran []int
	cfg = withReviews(base, scripts...)
	inner = cfg.NewDriver
	cfg.NewDriver = func(i int) (models.Driver, error) { ran = append(ran, i); return inner(i) }
	var log strings.Builder
	cfg.Log = &log
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{3}, ran); diff != "" {
		t.Errorf("reviews run on resume (-want +got):\n%s", diff)
	}
	if !strings.Contains(log.String(), "audit: review 1 of 3: kept from the earlier run (submitted, 0 resume(s))") {
		t.Errorf("log %q", log.String())
	}
	var c result.Check
	for _, x := range st.Checks {
		if x.ID == "go-is-primary" {
			c = x
		}
	}
	if c.Verdict != result.VerdictFail || jsonOf(c.Metadata["votes"]) != `{"fail":2,"pass":1}` || c.Evidence[0]["grounded"] != true {
		t.Errorf("kept votes still count, re-grounded: %+v", c)
	}
	if !slicesContain(st.Notes, "kept 2 finished review(s) (1, 2) of an earlier run with the same inputs; the rest ran now") || st.Status != result.StatusOK {
		t.Errorf("notes %v status %s", st.Notes, st.Status)
	}
	for _, n := range []string{"review-1.jsonl", "review-2.jsonl", "review-3.jsonl"} {
		if _, err := os.Stat(filepath.Join(base.LogDir, n)); err != nil {
			t.Errorf("transcript %s: %v", n, err)
		}
	}
	if err := st.Write(base.Out); err != nil {
		t.Fatal(err)
	}

	// The submission changed: nothing is kept.
	ran = nil
	cfg.Inputs = map[string]string{"submission": "sha256:ee", "state_a": "sha256:bb", "prompt": "sha256:cc", "models": "sha256:dd", "srb": "0123456789ab"}
	st, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, ran); diff != "" || !slicesContain(st.Notes, "the earlier audit.json was made from other inputs (submission differs); every review runs again") {
		t.Errorf("ran %v notes %v", ran, st.Notes)
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ctxDriver fails every call whose context has ended, as a real endpoint's
// request does.
type ctxDriver struct{ models.Driver }

func (d ctxDriver) Complete(ctx context.Context, r models.Request) (*models.Turn, error) {
	if ctx.Err() != nil {
		return nil, &models.Error{Driver: "scripted", Msg: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
	}
	return d.Driver.Complete(ctx, r)
}

// TestUnreachableEndpointEndsTheStage: when review 1 cannot connect to the
// endpoint for the driver's bounded retry time, reviews 2 and 3 are not
// run (they would wait as long again): the stage is an error, never a
// verdict, within one bounded wait.
func TestUnreachableEndpointEndsTheStage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := setup(t)
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	built := 0
	cfg.NewDriver = func(i int) (models.Driver, error) {
		built++
		return models.New(models.Config{Driver: "openai", Model: "gpt-5.6-sol", Options: map[string]any{"base_url": "http://" + addr + "/v1"}},
			models.WithEnv(func(k string) (string, bool) {
				if k == "OPENAI_API_KEY" {
					return "sk-test", true
				}
				return "", false
			}),
			models.WithClock(func() time.Time { return clock }),
			models.WithSleep(func(_ context.Context, d time.Duration) error { clock = clock.Add(d); return nil }),
			models.WithRand(func() float64 { return 1 }))
	}
	var log strings.Builder
	cfg.Log = &log
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if built != 1 || st.Status != result.StatusError || jsonOf(st.Metadata["samples_usable"]) != "0" {
		t.Fatalf("built %d drivers; stage %s %v; %v", built, st.Status, st.Metadata["samples_usable"], st.Metadata["samples"].([]any)[0])
	}
	s3 := st.Metadata["samples"].([]any)[2].(map[string]any)
	if s3["outcome"] != "error" || !strings.HasPrefix(s3["error"].(string), "not run: review 1 could not reach the model's endpoint (openai: cannot reach http://"+addr) {
		t.Errorf("sample 3: %v", s3)
	}
	if !strings.Contains(log.String(), "audit: review 2 of 3: not run: review 1 could not reach") {
		t.Errorf("log %q", log.String())
	}
}
