package models

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/internal/httpmock"
)

// A streamed reply with a signed thinking block, prose, and a tool call
// whose arguments arrive in three fragments (the Messages API's SSE
// shape).
var anStream = []string{
	`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-opus-5","stop_reason":null,"usage":{"input_tokens":200,"output_tokens":1,"credit_usage":0.25}}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Check main."}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig-abc"}}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"ping"}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading "}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"main.go."}}`,
	`{"type":"content_block_stop","index":1}`,
	`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"fetch_source","input":{}}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"works"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"pace:main.go\", \"end_"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"line\": 20}"}}`,
	`{"type":"content_block_stop","index":2}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":45}}`,
	`{"type":"message_stop"}`,
}

var anText = []string{
	`{"type":"message_start","message":{"id":"msg_2","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`,
	`{"type":"message_stop"}`,
}

func anthropicConfig(reg *httpmock.Registry, opts map[string]any) Config {
	o := map[string]any{"base_url": reg.URL()}
	for k, v := range opts {
		o[k] = v
	}
	return Config{Driver: DriverAnthropic, Model: "claude-opus-5", Effort: "high", Options: o}
}

func TestAnthropicStreamedToolCall(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(anStream...))
	d, _ := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_AUTH_TOKEN": "tok"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "toolu_1", Name: "fetch_source", Arguments: map[string]any{"path": "workspace:main.go", "end_line": 20.0}}}
	if diff := cmp.Diff(want, turn.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if turn.Text != "Reading main.go." || turn.StopReason != "tool_use" {
		t.Errorf("text %q stop %q", turn.Text, turn.StopReason)
	}
	if turn.InputTokens != 200 || turn.OutputTokens != 45 || turn.Credits != 0.25 {
		t.Errorf("usage %d/%d/%g", turn.InputTokens, turn.OutputTokens, turn.Credits)
	}
	// The signed thinking block is echoed verbatim on the next request.
	echo, err := json.Marshal(turn.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(echo), `"signature":"sig-abc"`) || !strings.Contains(string(echo), `"thinking":"Check main."`) {
		t.Errorf("echoed blocks lost the signature: %s", echo)
	}
	req := reg.Requests()[0]
	for k, v := range map[string]string{"X-Api-Key": "tok", "Anthropic-Version": "2023-06-01", "Accept": "text/event-stream"} {
		if got := req.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	body := decode(t, req.Body)
	if body["stream"] != true || body["system"] != "be brief" || body["max_tokens"] != 128000.0 {
		t.Errorf("payload: %v", body)
	}
	if diff := cmp.Diff(map[string]any{"effort": "high"}, body["output_config"]); diff != "" {
		t.Errorf("output_config (-want +got):\n%s", diff)
	}
	msgs := body["messages"].([]any)
	asst := msgs[1].(map[string]any)["content"].([]any)
	if use := asst[1].(map[string]any); use["type"] != "tool_use" || use["id"] != "c1" {
		t.Errorf("assistant tool_use block: %v", use)
	}
	if res := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any); res["tool_use_id"] != "c1" {
		t.Errorf("tool_result block: %v", res)
	}
	if tool := body["tools"].([]any)[0].(map[string]any); tool["input_schema"] == nil {
		t.Errorf("tools: %v", tool)
	}
	if got := d.Usage().Map()["credits"]; got != 0.25 {
		t.Errorf("credits %v", got)
	}
}

func TestAnthropicTruncatedStreamRetried(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(anStream[:12]...)) // no message_stop
	reg.Register("POST", "/v1/messages", httpmock.SSE(anText...))
	d, sl := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "ok" || len(sl.got) != 1 {
		t.Errorf("text %q after %d retries", turn.Text, len(sl.got))
	}
}

func TestAnthropicTruncatedStreamIsRetryableError(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(anStream[:12]...))
	d, _ := newDriver(t, anthropicConfig(reg, map[string]any{"retries": 0.0}), env{"ANTHROPIC_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	if err == nil || !IsRetryable(err) || !strings.Contains(err.Error(), "without message_stop") {
		t.Fatalf("want a retryable incomplete-stream error, got %v", err)
	}
}

func TestAnthropicStreamErrorEvent(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(anText[0], `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	reg.Register("POST", "/v1/messages", httpmock.SSE(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`))
	d, sl := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	if err == nil || IsRetryable(err) || !strings.Contains(err.Error(), "prompt is too long") {
		t.Fatalf("an overload mid-stream retries; a context overflow does not: %v", err)
	}
	if len(sl.got) != 1 {
		t.Errorf("slept %d times, want 1", len(sl.got))
	}
}

func TestAnthropicStatuses(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.Status(529, `{"type":"error","error":{"type":"overloaded_error"}}`))
	reg.Register("POST", "/v1/messages", httpmock.Status(521, `origin down`))
	reg.Register("POST", "/v1/messages", httpmock.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens"}}`))
	d, sl := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	var me *Error
	if err == nil || IsRetryable(err) || !errorsAs(err, &me) || me.Status != 400 {
		t.Fatalf("want the non-retryable 400, got %v", err)
	}
	if len(sl.got) != 2 {
		t.Errorf("slept %d times, want 2", len(sl.got))
	}
}

func TestAnthropicSlowFirstByte(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.Slow(4*time.Second, httpmock.SSE(anText...)))
	reg.Register("POST", "/v1/messages", httpmock.SSE(anText...))
	d, sl := newDriver(t, anthropicConfig(reg, map[string]any{"timeout_sec": 1.0}), env{"ANTHROPIC_API_KEY": "k"})
	if _, err := d.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if len(sl.got) != 1 {
		t.Errorf("slept %d times, want 1", len(sl.got))
	}
}

func TestAnthropicRefusal(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(
		`{"type":"message_start","message":{"usage":{"input_tokens":5}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I won't do that."}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":6}}`,
		`{"type":"message_stop"}`))
	d, _ := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.StopReason != "refusal" || turn.Refusal != "I won't do that." || len(turn.ToolCalls) != 0 {
		t.Errorf("refusal turn: %+v", turn)
	}
}

func TestAnthropicBadToolJSONRetryable(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	bad := append(append([]string{}, anStream[:11]...),
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`,
		`{"type":"content_block_stop","index":2}`, `{"type":"message_stop"}`)
	reg.Register("POST", "/v1/messages", httpmock.SSE(bad...))
	d, _ := newDriver(t, anthropicConfig(reg, map[string]any{"retries": 0.0}), env{"ANTHROPIC_API_KEY": "k"})
	_, err := d.Complete(context.Background(), conversation())
	if err == nil || !IsRetryable(err) || !strings.Contains(err.Error(), "tool arguments were not valid JSON") {
		t.Fatalf("got %v", err)
	}
}

func TestAnthropicExplicitOutputConfigWins(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.SSE(anText...))
	d, _ := newDriver(t, anthropicConfig(reg, map[string]any{"output_config": map[string]any{"effort": "max"}}), env{"ANTHROPIC_API_KEY": "k"})
	if _, err := d.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"effort": "max"}, decode(t, reg.Requests()[0].Body)["output_config"]); diff != "" {
		t.Errorf("output_config (-want +got):\n%s", diff)
	}
}

func TestAnthropicContextCancelled(t *testing.T) {
	reg := httpmock.New(t)
	reg.Register("POST", "/v1/messages", httpmock.Slow(5*time.Second, httpmock.SSE(anText...)))
	d, _ := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := d.Complete(ctx, conversation())
	if err == nil || IsRetryable(err) || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("a cancelled run is not retried: %v", err)
	}
}

// A gateway that answers a streamed request with one JSON message gets the
// same turn a stream would give.
func TestAnthropicWholeMessageFromAGateway(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", httpmock.JSON(`{"error": "not a message"}`))
	reg.Register("POST", "/v1/messages", httpmock.JSON(`{"id":"msg_3","type":"message","role":"assistant","stop_reason":"tool_use",
		"content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"toolu_9","name":"list_dir","input":{"path":"original:"}}],
		"usage":{"input_tokens":50,"output_tokens":12}}`))
	d, sl := newDriver(t, anthropicConfig(reg, nil), env{"ANTHROPIC_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "toolu_9", Name: "list_dir", Arguments: map[string]any{"path": "original:"}}}
	if diff := cmp.Diff(want, turn.ToolCalls); diff != "" || turn.Text != "Listing." || turn.InputTokens != 50 || len(sl.got) != 1 {
		t.Errorf("turn %+v (-want +got calls):\n%s", turn, diff)
	}
}

// Server-sent events as the spec allows them: comments, a data field split
// over lines, no space after the colon, CRLF line ends.
func TestAnthropicSSEFraming(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	reg.Register("POST", "/v1/messages", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		io.WriteString(w, ": keep-alive\r\n\r\n"+
			"event: message_start\r\ndata:{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\r\n\r\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\n"+
			"data: \"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"split\"}}\n\n"+
			"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"+
			"data: {\"type\":\"message_stop\"}")
	})
	d, _ := newDriver(t, anthropicConfig(reg, map[string]any{"retries": 0.0}), env{"ANTHROPIC_API_KEY": "k"})
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "split" || turn.StopReason != "end_turn" || turn.InputTokens != 3 {
		t.Errorf("turn %+v", turn)
	}
}
