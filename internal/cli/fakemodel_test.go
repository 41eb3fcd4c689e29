package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swe-refactor-bench/srb/ladder/models"
)

// cmdFakeModel serves a fake model endpoint on 127.0.0.1 for the rest of a
// script: "fake-model openai|anthropic SCRIPT". SCRIPT holds turns in the
// scripted driver's format; each request is answered with the next one in
// the dialect's real wire format (a chat completion, or a Messages event
// stream), and a turn {"error": {"status": N, "message": M}} is answered
// with that HTTP status, and a request past the last turn with 501. It
// sets OPENAI_BASE_URL or ANTHROPIC_BASE_URL; the server stops when the
// script ends.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != models.DriverOpenAI && args[0] != models.DriverAnthropic) {
		ts.Fatalf("usage: fake-model openai|anthropic SCRIPT")
	}
	raw, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var turns []fakeTurn
	ts.Check(json.Unmarshal(raw, &turns))
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := next
		next++
		mu.Unlock()
		if i >= len(turns) {
			http.Error(w, "fake-model: no more turns", http.StatusNotImplemented)
			return
		}
		t := turns[i]
		if t.Error != nil {
			w.WriteHeader(t.Error.Status)
			fmt.Fprint(w, t.Error.Message)
			return
		}
		if args[0] == models.DriverOpenAI {
			writeChat(w, t)
		} else {
			writeMessages(w, t)
		}
	}))
	ts.Defer(srv.Close)
	if args[0] == models.DriverOpenAI {
		ts.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	} else {
		ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	}
}

// fakeTurn is one turn of a fake-model script: the scripted driver's
// fields, with an error that is an HTTP status.
type fakeTurn struct {
	Text      string            `json:"text"`
	ToolCalls []models.ToolCall `json:"tool_calls"`
	Usage     struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeChat answers with a chat completion carrying t.
func writeChat(w http.ResponseWriter, t fakeTurn) {
	var calls []any
	for i, c := range t.ToolCalls {
		args, _ := json.Marshal(c.Arguments)
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}})
	}
	msg := map[string]any{"role": "assistant", "content": t.Text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("content-type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": msg}},
		"usage":   map[string]any{"prompt_tokens": t.Usage.InputTokens, "completion_tokens": t.Usage.OutputTokens},
	})
}

// writeMessages answers with a Messages event stream carrying t, tool
// arguments split in two fragments.
func writeMessages(w http.ResponseWriter, t fakeTurn) {
	w.Header().Set("content-type", "text/event-stream")
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	ev(map[string]any{"type": "message_start", "message": map[string]any{"usage": map[string]any{"input_tokens": t.Usage.InputTokens}}})
	i := 0
	if t.Text != "" {
		ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": t.Text}})
		ev(map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for j, c := range t.ToolCalls {
		args, _ := json.Marshal(c.Arguments)
		half := len(args) / 2
		ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", j), "name": c.Name, "input": map[string]any{}}})
		ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args[:half])}})
		ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args[half:])}})
		ev(map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use"}, "usage": map[string]any{"output_tokens": t.Usage.OutputTokens}})
	ev(map[string]any{"type": "message_stop"})
}
