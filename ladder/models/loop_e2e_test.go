package models_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/internal/httpmock"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// sse is a streamed Anthropic reply making one tool call.
func sse(id, name, args string) httpmock.Responder {
	quoted, _ := json.Marshal(args)
	return httpmock.SSE(
		`{"type":"message_start","message":{"usage":{"input_tokens":100}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(quoted)+`}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}`,
		`{"type":"message_stop"}`)
}

// chat is an OpenAI reply making one tool call.
func chat(id, name, args string) httpmock.Responder {
	quoted, _ := json.Marshal(args)
	return httpmock.JSON(`{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":` + string(quoted) + `}}]}}],` +
		`"usage":{"prompt_tokens":100,"completion_tokens":20}}`)
}

// TestLoopOverFakeEndpoints runs the agent loop against each fake
// endpoint: a tool call, an outage the driver gives up on and the loop
// resumes, then the submission. The conversation re-sent after the outage
// carries the tool result.
func TestLoopOverFakeEndpoints(t *testing.T) {
	for _, tc := range []struct {
		driver, path string
		call         func(id, name, args string) httpmock.Responder
		outage       httpmock.Responder
		env          string
	}{
		{models.DriverAnthropic, "/v1/messages", sse, httpmock.Status(529, `{"type":"error","error":{"type":"overloaded_error"}}`), "ANTHROPIC_API_KEY"},
		{models.DriverOpenAI, "/v1/chat/completions", chat, httpmock.Status(524, "origin timed out"), "OPENAI_API_KEY"},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			reg := httpmock.New(t)
			defer reg.Verify(t)
			reg.Register("POST", tc.path, tc.call("c1", "fetch_source", `{"file_path": "workspace:main.go", "offset": 1, "limit": 1}`))
			reg.Register("POST", tc.path, tc.outage)
			reg.Register("POST", tc.path, tc.call("c2", "submit_review", `{"answer": "a Go program"}`))
			base := reg.URL()
			if tc.driver == models.DriverOpenAI {
				base += "/v1"
			}
			lookup := func(k string) (string, bool) { return map[string]string{tc.env: "key"}[k], k == tc.env }
			d, err := models.New(models.Config{Driver: tc.driver, Model: "m", Effort: "high", Options: map[string]any{"base_url": base, "retries": 0.0}},
				models.WithEnv(lookup))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
			tb, err := agent.NewToolbox([]agent.RootSpec{{Name: "workspace", Dir: dir}}, agent.ToolboxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Close()
			var slept []time.Duration
			res := agent.Run(context.Background(), agent.Config{
				Driver: d, System: "sys", Opening: "open", Toolbox: tb,
				Submit:     models.ToolSpec{Name: "submit_review", Schema: map[string]any{"type": "object"}},
				Transcript: filepath.Join(dir, "review-1.jsonl"),
				Sleep:      func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
			})
			if res.Outcome != agent.OutcomeSubmitted || res.Payload["answer"] != "a Go program" || res.Resumes != 1 || len(slept) != 1 {
				t.Fatalf("result %+v, slept %v", res, slept)
			}
			if u := res.Usage; u.Calls != 2 || u.InputTokens != 200 || u.OutputTokens != 40 || u.ReasoningEffort != "high" {
				t.Errorf("usage %+v", u)
			}
			reqs := reg.Requests()
			if !strings.Contains(string(reqs[2].Body), `workspace:main.go  lines 1-1 of 1`) || string(reqs[1].Body) != string(reqs[2].Body) {
				t.Errorf("the resumed request is not the same conversation with the tool result:\n%s", reqs[2].Body)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "review-1.jsonl"))
			if !strings.Contains(string(log), `"kind": "resume"`) {
				t.Errorf("no resume record:\n%s", log)
			}
		})
	}
}
