package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// clock is a fake wall clock: sleeping advances it, and so does every
// model call by perCall.
type clock struct {
	now     time.Time
	perCall time.Duration
	slept   []float64
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { return c.now }

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.slept = append(c.slept, d.Seconds())
	c.now = c.now.Add(d)
	return nil
}

// timed wraps a driver so each call costs the clock perCall.
type timed struct {
	models.Driver
	c *clock
}

func (d timed) Complete(ctx context.Context, r models.Request) (*models.Turn, error) {
	d.c.now = d.c.now.Add(d.c.perCall)
	return d.Driver.Complete(ctx, r)
}

func scripted(t *testing.T, turns string) models.Driver {
	t.Helper()
	var list []any
	must(t, json.Unmarshal([]byte(turns), &list))
	d, err := models.New(models.Config{Driver: "scripted", Model: "m", Effort: "high", Options: map[string]any{"turns": list, "retries": 0.0}})
	must(t, err)
	return d
}

var submit = models.ToolSpec{Name: "submit_review", Description: "Submit.", Schema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}}

func run(t *testing.T, c *clock, d models.Driver, mod func(*Config)) (*Result, []map[string]any) {
	t.Helper()
	tb, _, _ := toolbox(t, ToolboxOptions{})
	path := filepath.Join(t.TempDir(), "logs", "review-1.jsonl")
	cfg := Config{Driver: timed{d, c}, System: "sys", Opening: "open", Toolbox: tb, Submit: submit, BudgetSec: 600,
		Transcript: path, Now: c.Now, Sleep: c.Sleep, Rand: func() float64 { return 0.5 }}
	if mod != nil {
		mod(&cfg)
	}
	res := Run(context.Background(), cfg)
	return res, readTranscript(t, path)
}

// readTranscript reads every line, validating it against the
// transcript-record schema.
func readTranscript(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if err := contract.ValidateBytes(contract.TranscriptRecord, sc.Bytes()); err != nil {
			t.Errorf("transcript line %d: %v\n%s", len(recs)+1, err, sc.Bytes())
		}
		var m map[string]any
		must(t, json.Unmarshal(sc.Bytes(), &m))
		recs = append(recs, m)
	}
	return recs
}

func kinds(recs []map[string]any) string {
	var out []string
	for _, r := range recs {
		out = append(out, r["kind"].(string))
	}
	return strings.Join(out, " ")
}

func TestLoopSubmits(t *testing.T) {
	c := newClock()
	c.perCall = 10 * time.Second
	d := scripted(t, `[
		{"text": "reading", "tool_calls": [{"name": "fetch_source", "arguments": {"path": "workspace:main.go"}}, {"name": "list_dir", "arguments": {"path": "nowhere"}}]},
		{"tool_calls": [{"name": "submit_review", "arguments": {"answer": ""}}]},
		{"tool_calls": [{"name": "submit_review", "arguments": {"answer": "yes"}}]}
	]`)
	rejected := 0
	res, recs := run(t, c, d, func(cfg *Config) {
		cfg.OnSubmit = func(p map[string]any) string {
			if p["answer"] == "" {
				rejected++
				return "answer is empty"
			}
			return ""
		}
	})
	if res.Outcome != OutcomeSubmitted || !res.OK() || res.Payload["answer"] != "yes" {
		t.Fatalf("result %+v", res)
	}
	if res.Turns != 3 || res.ToolCalls != 2 || res.ToolErrors != 1 || rejected != 1 || res.ElapsedSec != 30 || res.LastText != "reading" {
		t.Errorf("counters %+v", res)
	}
	if got := kinds(recs); got != "start system user assistant tool tool assistant submit_rejected assistant submit end" {
		t.Errorf("records: %s", got)
	}
	if recs[0]["budget_sec"] != 600.0 || recs[0]["max_resumes"] != 6.0 || recs[0]["max_turns"] != nil {
		t.Errorf("start: %v", recs[0])
	}
	if diff := cmp.Diff([]any{"list_dir", "fetch_source", "search", "diff", "submit_review"}, recs[0]["tools"]); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	end := recs[len(recs)-1]
	if end["outcome"] != "submitted" || end["usage"].(map[string]any)["calls"] != 3.0 || end["usage"].(map[string]any)["reasoning_effort"] != "high" {
		t.Errorf("end: %v", end)
	}
	m := res.Map()
	if m["outcome"] != "submitted" || m["resumes"] != 0 || m["transcript"] == "" {
		t.Errorf("map: %v", m)
	}
}

func TestLoopNudgeThenAbandoned(t *testing.T) {
	c := newClock()
	res, recs := run(t, c, scripted(t, `["I think it is fine.", "Really, it is fine."]`), nil)
	if res.Outcome != OutcomeAbandoned || res.Turns != 2 || res.LastText != "Really, it is fine." {
		t.Fatalf("result %+v", res)
	}
	if got := kinds(recs); got != "start system user assistant nudge assistant stop end" {
		t.Errorf("records: %s", got)
	}
	if !strings.Contains(recs[4]["text"].(string), "You have not called submit_review yet.") {
		t.Errorf("nudge: %v", recs[4])
	}
}

func TestLoopResumes(t *testing.T) {
	c := newClock()
	d := scripted(t, `[
		{"error": {"message": "HTTP 524 from gateway", "retryable": true}},
		{"error": {"message": "HTTP 503", "retryable": true}},
		{"tool_calls": [{"name": "submit_review", "arguments": {"answer": "ok"}}]}
	]`)
	res, recs := run(t, c, d, nil)
	if res.Outcome != OutcomeSubmitted || res.Resumes != 2 || res.Turns != 1 {
		t.Fatalf("result %+v", res)
	}
	if diff := cmp.Diff([]float64{15, 30}, c.slept); diff != "" {
		t.Errorf("resume sleeps (-want +got):\n%s", diff)
	}
	if got := kinds(recs); got != "start system user resume resume assistant submit end" {
		t.Errorf("records: %s", got)
	}
	if r := recs[4]; r["attempt"] != 2.0 || r["of"] != 6.0 || r["turn"] != 1.0 || r["sleep_sec"] != 30.0 {
		t.Errorf("resume: %v", r)
	}
}

func TestLoopGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name       string
		turns      string
		budget     float64
		maxResumes *int
		resumes    int
		msg        string
	}{
		{"not retryable", `[{"error": {"message": "HTTP 400 prompt is too long", "retryable": false}}]`, 600, nil, 0, "prompt is too long"},
		{"resumes exhausted", `[{"error": {"message": "busy", "retryable": true}}, {"error": {"message": "busy", "retryable": true}}, {"error": {"message": "still busy", "retryable": true}}]`, 600, Resumes(2), 2, "still busy"},
		{"too little budget left", `[{"error": {"message": "busy", "retryable": true}}]`, 25, nil, 0, "busy"},
		{"negative resumes clamp to none, and a request is still sent", `[{"error": {"message": "busy", "retryable": true}}]`, 600, Resumes(-3), 0, "busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			res, recs := run(t, c, scripted(t, tc.turns), func(cfg *Config) { cfg.BudgetSec = tc.budget; cfg.MaxResumes = tc.maxResumes })
			if res.Outcome != OutcomeError || !res.HarnessFault() || res.Resumes != tc.resumes || !strings.Contains(res.Error, tc.msg) {
				t.Fatalf("result %+v", res)
			}
			last := recs[len(recs)-2]
			if last["kind"] != "error" || last["message"] != res.Error {
				t.Errorf("error record: %v", last)
			}
		})
	}
}

func TestLoopTimeLimit(t *testing.T) {
	c := newClock()
	c.perCall = 400 * time.Second
	res, recs := run(t, c, scripted(t, `[{"tool_calls": [{"name": "list_dir", "arguments": {"path": "workspace:"}}]}, {"tool_calls": [{"name": "list_dir", "arguments": {"path": "original:"}}]}]`), nil)
	if res.Outcome != OutcomeTimeLimit || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	if stop := recs[len(recs)-2]; stop["reason"] != "time-limit" || stop["elapsed_sec"] != 800.0 {
		t.Errorf("stop: %v", stop)
	}
}

func TestLoopTurnLimit(t *testing.T) {
	c := newClock()
	res, recs := run(t, c, scripted(t, `[{"tool_calls": [{"name": "list_dir", "arguments": {"path": "workspace:"}}]}]`), func(cfg *Config) { cfg.MaxTurns = 1 })
	if res.Outcome != OutcomeTurnLimit {
		t.Fatalf("result %+v", res)
	}
	if recs[0]["max_turns"] != 1.0 || recs[len(recs)-2]["turns"] != 1.0 {
		t.Errorf("records %v", recs)
	}
}

func TestLoopUnparsedArgumentsAndExtraTools(t *testing.T) {
	c := newClock()
	d := scripted(t, `[
		{"tool_calls": [{"name": "search", "arguments": {"__unparsed__": "{pattern"}}, {"name": "try_test", "arguments": {"name": "t1"}}, {"name": "bogus", "arguments": {}}]},
		{"tool_calls": [{"name": "submit_review", "arguments": {"__unparsed__": "{"}}]},
		{"tool_calls": [{"name": "submit_review", "arguments": {"answer": "x"}}]}
	]`)
	extra := models.ToolSpec{Name: "try_test", Schema: map[string]any{"type": "object"}}
	res, recs := run(t, c, d, func(cfg *Config) {
		cfg.Extra = []models.ToolSpec{extra}
		cfg.ExtraDispatch = func(_ context.Context, name string, args map[string]any) string { panic("boom") }
	})
	if res.Outcome != OutcomeSubmitted || res.ToolCalls != 3 || res.ToolErrors != 3 {
		t.Fatalf("result %+v", res)
	}
	var results []string
	for _, r := range recs {
		if r["kind"] == "tool" {
			results = append(results, r["result"].(string))
		}
	}
	want := []string{
		"ERROR: your tool arguments were not valid JSON, so nothing ran. Send the call again with well-formed arguments.",
		"ERROR: internal: boom",
		`ERROR: no such tool "bogus"`,
	}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestLoopLongResultClippedInTranscriptOnly(t *testing.T) {
	c := newClock()
	tbDir := t.TempDir()
	write(t, filepath.Join(tbDir, "big.txt"), strings.Repeat("x", 9000)+"\n")
	tb, err := NewToolbox([]RootSpec{{Name: "workspace", Dir: tbDir}}, ToolboxOptions{})
	must(t, err)
	defer tb.Close()
	d := scripted(t, `[{"tool_calls": [{"name": "fetch_source", "arguments": {"path": "big.txt"}}]}, {"tool_calls": [{"name": "submit_review", "arguments": {}}]}]`)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	res := Run(context.Background(), Config{Driver: d, Toolbox: tb, Submit: submit, Transcript: path, Now: c.Now, Sleep: c.Sleep})
	if res.Outcome != OutcomeSubmitted {
		t.Fatal(res)
	}
	recs := readTranscript(t, path)
	tool := recs[4]
	if n := tool["result_bytes"].(float64); n < 9000 || !strings.Contains(tool["result"].(string), "[transcript kept 4000 of") {
		t.Errorf("tool record: bytes %v", n)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"review-1.jsonl", "review-3.jsonl", "round-a01.jsonl", "notes.txt"} {
		write(t, filepath.Join(dir, n), "{}\n")
	}
	must(t, RemoveStale(dir, "review-*.jsonl"))
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	for i := range left {
		left[i] = filepath.Base(left[i])
	}
	if diff := cmp.Diff([]string{"notes.txt", "round-a01.jsonl"}, left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	must(t, RemoveStale(filepath.Join(dir, "absent"), "review-*.jsonl"))
}

// The stage-3 adjudicator's shape: no toolbox, a turn cap of 4, no
// resumes. An outage ends it at once as an error (HARNESS.md §7 bug 90),
// and only the submit tool is offered.
func TestLoopAdjudicatorShape(t *testing.T) {
	c := newClock()
	path := filepath.Join(t.TempDir(), "adjudication-c1.jsonl")
	d := scripted(t, `[{"error": {"message": "HTTP 503", "retryable": true}}]`)
	res := Run(context.Background(), Config{Driver: d, Submit: submit, MaxTurns: 4, MaxResumes: Resumes(0),
		Transcript: path, Now: c.Now, Sleep: c.Sleep})
	if res.Outcome != OutcomeError || res.Resumes != 0 || len(c.slept) != 0 {
		t.Fatalf("result %+v", res)
	}
	recs := readTranscript(t, path)
	if diff := cmp.Diff([]any{"submit_review"}, recs[0]["tools"]); diff != "" || recs[0]["max_turns"] != 4.0 || recs[0]["max_resumes"] != 0.0 {
		t.Errorf("start %v", recs[0])
	}
}

// errDriver fails each call with the next error of errs (nil: submit),
// and blocks until its context ends when block is set.
type errDriver struct {
	models.Driver
	errs  []error
	block bool
}

func (d *errDriver) Complete(ctx context.Context, r models.Request) (*models.Turn, error) {
	if d.block {
		<-ctx.Done()
		return nil, &models.Error{Driver: "openai", Msg: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
	}
	if len(d.errs) > 0 && d.errs[0] != nil {
		err := d.errs[0]
		d.errs = d.errs[1:]
		return nil, err
	}
	return &models.Turn{ToolCalls: []models.ToolCall{{ID: "s", Name: "submit_review", Arguments: map[string]any{"answer": "ok"}}}}, nil
}

// TestLoopRetryAfterAndProgress: the loop resumes no sooner than the
// endpoint's Retry-After, gives up at once (a fault) when that wait does
// not fit the budget, ends as time-limit when a call runs into the budget,
// and says each resume on its log as it happens.
func TestLoopRetryAfterAndProgress(t *testing.T) {
	busy := &models.Error{Driver: "openai", Msg: "HTTP 429 from x: slow down", Retryable: true, Status: 429, RetryAfter: 45 * time.Second}
	c := newClock()
	var log strings.Builder
	res, _ := run(t, c, &errDriver{Driver: scripted(t, `[]`), errs: []error{busy}}, func(cfg *Config) { cfg.Log, cfg.Label = &log, "audit: review 1" })
	if res.Outcome != OutcomeSubmitted || res.Resumes != 1 {
		t.Fatalf("result %+v", res)
	}
	if diff := cmp.Diff([]float64{45}, c.slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if want := "audit: review 1: turn 1 failed (openai: HTTP 429 from x: slow down); resuming in 45.0 s (resume 1 of 6)\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}

	long := &models.Error{Driver: "openai", Msg: "HTTP 429 from x", Retryable: true, Status: 429, RetryAfter: 1000 * time.Second}
	c = newClock()
	log.Reset()
	res, _ = run(t, c, &errDriver{Driver: scripted(t, `[]`), errs: []error{long}}, func(cfg *Config) { cfg.Log, cfg.Label = &log, "r" })
	if res.Outcome != OutcomeError || len(c.slept) != 0 || !strings.Contains(res.Error, "asks to wait 1000.0 s (Retry-After), more than the 570.0 s the budget has left") {
		t.Fatalf("result %+v, slept %v", res, c.slept)
	}
	if !strings.HasPrefix(log.String(), "r: turn 1 failed for good: ") {
		t.Errorf("log %q", log.String())
	}

	c = newClock()
	res, _ = run(t, c, &errDriver{Driver: scripted(t, `[]`), block: true}, func(cfg *Config) { cfg.BudgetSec = 0.05 })
	if res.Outcome != OutcomeTimeLimit {
		t.Fatalf("a call that runs into the budget: %+v", res)
	}
}

func TestAnnounce(t *testing.T) {
	c := newClock()
	var log strings.Builder
	end := Announce(&log, "verification: round a01", c.Now)
	c.now = c.now.Add(12300 * time.Millisecond)
	end("survived")
	if want := "verification: round a01: started\nverification: round a01: ended after 12.3 s: survived\n"; log.String() != want {
		t.Errorf("got %q", log.String())
	}
	Announce(nil, "x", nil)("y") // a nil writer writes nothing
}

// What Uncounted says is the grader's own time does not use the budget:
// three tool calls that each cost the clock 1,000 s of it fit in a 600 s
// budget, and the result says how much was not counted.
func TestLoopUncountedTime(t *testing.T) {
	c := newClock()
	var uncounted time.Duration
	extra := models.ToolSpec{Name: "try_test", Schema: map[string]any{"type": "object"}}
	d := scripted(t, `[
		{"tool_calls": [{"name": "try_test", "arguments": {}}]},
		{"tool_calls": [{"name": "try_test", "arguments": {}}]},
		{"tool_calls": [{"name": "try_test", "arguments": {}}]},
		{"tool_calls": [{"name": "submit_review", "arguments": {"answer": "x"}}]}
	]`)
	res, _ := run(t, c, d, func(cfg *Config) {
		cfg.Extra = []models.ToolSpec{extra}
		cfg.ExtraDispatch = func(context.Context, string, map[string]any) string {
			c.now = c.now.Add(1000 * time.Second)
			uncounted += 1000 * time.Second
			return "ran"
		}
		cfg.Uncounted = func() time.Duration { return uncounted }
	})
	if res.Outcome != OutcomeSubmitted || res.ToolCalls != 3 || res.ElapsedSec != 3000 || res.UncountedSec != 3000 {
		t.Fatalf("result %+v", res)
	}
	if m := res.Map(); m["uncounted_sec"] != 3000.0 {
		t.Errorf("map %v", m)
	}
}
