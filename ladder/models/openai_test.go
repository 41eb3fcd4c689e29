package models

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/internal/httpmock"
)

const oaToolCallBody = `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
 "message":{"role":"assistant","content":"I will look.","tool_calls":[
  {"id":"call_1","type":"function","function":{"name":"fetch_source","arguments":"{\"path\":\"workspace:main.go\",\"start_line\":3}"}},
  {"id":"call_2","type":"function","function":{"name":"search","arguments":"{not json"}}]}}],
 "usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}`

const oaText = `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"done"}}],"usage":{"prompt_tokens":10,"completion_tokens":2}}`

func openaiConfig(reg *httpmock.Registry, opts map[string]any) Config {
	o := map[string]any{"base_url": reg.URL() + "/v1"}
	for k, v := range opts {
		o[k] = v
	}
	return Config{Driver: DriverOpenAI, Model: "gpt-5.6-sol", Effort: "medium", Options: o}
}

func TestOpenAIToolCalls(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(oaToolCallBody))
	d, _ := newDriver(t, openaiConfig(reg, map[string]any{"extra_headers": map[string]any{"x-team": "grading"}, "seed": 7.0}),
		env{"OPENAI_API_KEY": "sk-test", "OPENAI_EXTRA_HEADERS": `{"x-gateway": "g1", "x-team": "env"}`})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "call_1", Name: "fetch_source", Arguments: map[string]any{"path": "workspace:main.go", "start_line": 3.0}},
		{ID: "call_2", Name: "search", Arguments: map[string]any{UnparsedKey: "{not json"}},
	}
	if diff := cmp.Diff(want, turn.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if turn.Text != "I will look." || turn.StopReason != "tool_calls" {
		t.Errorf("text %q stop %q", turn.Text, turn.StopReason)
	}
	req := reg.Requests()[0]
	if got := req.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("authorization %q", got)
	}
	if req.Header.Get("X-Gateway") != "g1" || req.Header.Get("X-Team") != "grading" {
		t.Errorf("extra headers: env then options, options winning: %v", req.Header)
	}
	body := decode(t, req.Body)
	if body["reasoning_effort"] != "medium" || body["max_completion_tokens"] != 128000.0 || body["seed"] != 7.0 || body["model"] != "gpt-5.6-sol" {
		t.Errorf("payload: %v", body)
	}
	msgs := body["messages"].([]any)
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool"}, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	asst := msgs[2].(map[string]any)
	call := asst["tool_calls"].([]any)[0].(map[string]any)
	if call["function"].(map[string]any)["arguments"] != `{"path":"workspace:"}` {
		t.Errorf("assistant tool call: %v", call)
	}
	if tool := msgs[3].(map[string]any); tool["tool_call_id"] != "c1" || tool["content"] != "main.go" {
		t.Errorf("tool message: %v", tool)
	}
	fn := body["tools"].([]any)[0].(map[string]any)
	if fn["type"] != "function" || fn["function"].(map[string]any)["parameters"] == nil {
		t.Errorf("tools: %v", fn)
	}
	u := d.Usage()
	if diff := cmp.Diff(map[string]any{"driver": "openai", "model": "gpt-5.6-sol", "calls": 1, "input_tokens": 120, "output_tokens": 30, "reasoning_effort": "medium"}, u.Map()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestOpenAIRetriesThenSucceeds(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	statuses := []int{429, 503, 520, 524}
	for _, s := range statuses {
		reg.Register("POST", "/v1/chat/completions", httpmock.Status(s, `{"error":{"message":"busy"}}`))
	}
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(oaText))
	d, sl := newDriver(t, openaiConfig(reg, nil), env{"OPENAI_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "done" {
		t.Errorf("text %q", turn.Text)
	}
	want := []time.Duration{1500 * time.Millisecond, 3 * time.Second, 6 * time.Second, 12 * time.Second}
	if diff := cmp.Diff(want, sl.got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	if u := d.Usage(); u.Calls != 1 || u.InputTokens != 10 {
		t.Errorf("usage counts successful calls only: %+v", u)
	}
}

func TestOpenAIRetriesExhausted(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	for range 3 {
		reg.Register("POST", "/v1/chat/completions", httpmock.Status(522, "origin unreachable"))
	}
	d, sl := newDriver(t, openaiConfig(reg, map[string]any{"retries": 2.0}), env{"OPENAI_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	var me *Error
	if !errors.As(err, &me) || !me.Retryable || me.Status != 522 {
		t.Fatalf("want a retryable 522, got %#v", err)
	}
	if len(sl.got) != 2 {
		t.Errorf("slept %d times, want 2", len(sl.got))
	}
}

func TestOpenAIFatalBodies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		retryable bool
		requests  int
	}{
		{"context overflow behind a retryable 502", 502, `{"type":"upstream_error","message":"Your input exceeds the context window of this model"}`, false, 1},
		{"openai maximum context length", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens"}}`, false, 1},
		{"malformed request", 400, `{"error":{"message":"Invalid schema for function"}}`, false, 1},
		{"bad key", 401, `{"error":{"message":"Incorrect API key"}}`, false, 1},
		{"safety filter is stochastic", 400, `{"error":{"message":"This request was flagged for possible cybersecurity risk"}}`, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := httpmock.New(t)
			defer reg.Verify(t)
			for range tc.requests {
				reg.Register("POST", "/v1/chat/completions", httpmock.Status(tc.status, tc.body))
			}
			d, _ := newDriver(t, openaiConfig(reg, map[string]any{"retries": float64(tc.requests - 1)}), env{"OPENAI_API_KEY": "k"})
			_, err := d.Complete(context.Background(), conversation())
			if err == nil || IsRetryable(err) != tc.retryable {
				t.Fatalf("err %v, retryable %v; want retryable %v", err, IsRetryable(err), tc.retryable)
			}
			if !strings.Contains(err.Error(), "HTTP ") {
				t.Errorf("error does not name the status: %v", err)
			}
			if n := len(reg.Requests()); n != tc.requests {
				t.Errorf("%d request(s), want %d", n, tc.requests)
			}
		})
	}
}

func TestOpenAISlowFirstByte(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", httpmock.Slow(4*time.Second, httpmock.JSON(oaText)))
	reg.Register("POST", "/v1/chat/completions", httpmock.Slow(20*time.Millisecond, httpmock.JSON(oaText)))
	d, sl := newDriver(t, openaiConfig(reg, map[string]any{"timeout_sec": 1.0}), env{"OPENAI_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "done" || len(sl.got) != 1 {
		t.Errorf("text %q after %d retries", turn.Text, len(sl.got))
	}
}

func TestOpenAITruncatedBody(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", httpmock.Truncated(oaText[:40], len(oaText)))
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(oaText))
	d, sl := newDriver(t, openaiConfig(reg, nil), env{"OPENAI_API_KEY": "k"})
	if _, err := d.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if len(sl.got) != 1 {
		t.Errorf("a truncated reply is retried once here, slept %d times", len(sl.got))
	}
}

func TestOpenAIRefusal(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(`{"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`))
	d, sl := newDriver(t, openaiConfig(reg, nil), env{"OPENAI_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Refusal != "I can't help with that." || turn.Text != turn.Refusal || len(turn.ToolCalls) != 0 || len(sl.got) != 0 {
		t.Errorf("a refusal is a turn without tool calls, not an error: %+v", turn)
	}
}

func TestOpenAINoChoicesRetryable(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(`{"choices":[]}`))
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(oaText))
	d, _ := newDriver(t, openaiConfig(reg, nil), env{"OPENAI_API_KEY": "k"})
	if _, err := d.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIEnvBaseURLAndKeyEnv(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/gw/chat/completions", httpmock.JSON(oaText))
	d, _ := newDriver(t, Config{Driver: DriverOpenAI, Model: "m", Options: map[string]any{"api_key_env": "GW_KEY"}},
		env{"OPENAI_BASE_URL": reg.URL() + "/gw/", "GW_KEY": "gk"})
	if _, err := d.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if got := reg.Requests()[0].Header.Get("Authorization"); got != "Bearer gk" {
		t.Errorf("authorization %q", got)
	}
	if _, ok := decode(t, reg.Requests()[0].Body)["reasoning_effort"]; ok {
		t.Error("no effort configured, none sent")
	}
}

// oaStream is a streamed reply: prose, then a tool call whose arguments
// arrive in fragments, then usage in its own chunk (include_usage).
var oaStream = []string{
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Look"},"finish_reason":null}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"ing."},"finish_reason":null}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_7","type":"function","function":{"name":"search","arguments":""}}]},"finish_reason":null}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pattern\": "}}]},"finish_reason":null}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"exec\"}"}}]},"finish_reason":null}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":300,"completion_tokens":25}}`,
}

func oaSSE(chunks ...string) httpmock.Responder {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		if len(chunks) == len(oaStream) {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}
}

func TestOpenAIStreamed(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", oaSSE(oaStream[:4]...)) // cut off mid-call
	reg.Register("POST", "/v1/chat/completions", oaSSE(oaStream...))
	d, sl := newDriver(t, openaiConfig(reg, map[string]any{"stream": true}), env{"OPENAI_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "call_7", Name: "search", Arguments: map[string]any{"pattern": "exec"}}}
	if diff := cmp.Diff(want, turn.ToolCalls); diff != "" || turn.Text != "Looking." || turn.StopReason != "tool_calls" || turn.InputTokens != 300 || turn.OutputTokens != 25 {
		t.Errorf("turn %+v (-want +got):\n%s", turn, diff)
	}
	if len(sl.got) != 1 {
		t.Errorf("the truncated stream was retried %d times, want 1", len(sl.got))
	}
	body := decode(t, reg.Requests()[1].Body)
	if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true {
		t.Errorf("payload %v", body)
	}
	if got := reg.Requests()[1].Header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("accept %q", got)
	}
}

func TestOpenAIStreamErrorChunk(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/chat/completions", oaSSE(`{"error":{"message":"This model's maximum context length is 128000 tokens"}}`))
	d, sl := newDriver(t, openaiConfig(reg, map[string]any{"stream": true}), env{"OPENAI_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	if err == nil || IsRetryable(err) || len(sl.got) != 0 {
		t.Fatalf("a context overflow mid-stream is final: %v", err)
	}
}
