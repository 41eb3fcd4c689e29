package models

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzAnthropicStream feeds arbitrary bytes to the SSE reassembler: it
// must return a turn or an *Error, never panic, and a turn it returns must
// come from a stream that said message_stop.
func FuzzAnthropicStream(f *testing.F) {
	var b strings.Builder
	for _, e := range anStream {
		b.WriteString("event: x\ndata: " + e + "\n\n")
	}
	f.Add(b.String())
	f.Add("data: {\"type\":\"message_stop\"}\n")
	f.Add("data: {\"type\":\"content_block_delta\",\"index\":-1}\ndata: {\"type\":\"content_block_start\",\"index\":99999999999}\n")
	f.Add("data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\"}}\ndata: {\"type\":\"content_block_stop\",\"index\":2}\ndata: {\"type\":\"message_stop\"}\n")
	c := &client{name: DriverAnthropic, common: commonOptions{timeout: time.Minute}}
	d := &anthropic{httpDriver: httpDriver{c: c}}
	f.Fuzz(func(t *testing.T, body string) {
		_, cancel := context.WithCancel(context.Background())
		r := &response{body: io.NopCloser(strings.NewReader(body)), dog: time.NewTimer(time.Hour), idle: time.Hour,
			fired: new(atomic.Bool), cancel: cancel, c: c, url: "fuzz"}
		defer r.Close()
		var turn *Turn
		var err error
		done := make(chan struct{})
		go func() { defer close(done); turn, err = d.readStream(r, "fuzz") }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("readStream hung on %q", body)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if !strings.Contains(body, "message_stop") {
			t.Fatalf("a turn from a stream without message_stop: %+v", turn)
		}
		if _, err := json.Marshal(turn.Blocks()); err != nil {
			t.Fatalf("the turn cannot be echoed: %v", err)
		}
	})
}

// FuzzParseArguments: whatever the model sent, the arguments are an
// object, or {"__unparsed__": text}.
func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`"{\"path\":\"a\"}"`, `{"path":"a"}`, `"not json"`, `null`, `""`, `[1,2]`, `"[1]"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		m := parseArguments(json.RawMessage(raw))
		if m == nil {
			t.Fatal("nil arguments")
		}
		if _, ok := m[UnparsedKey]; ok && len(m) != 1 {
			t.Fatalf("unparsed arguments with other keys: %v", m)
		}
	})
}

// FuzzOpenAIStream: the chunk reassembler returns a turn or an *Error,
// never panics, and only returns a turn once a choice finished.
func FuzzOpenAIStream(f *testing.F) {
	var b strings.Builder
	for _, e := range oaStream {
		b.WriteString("data: " + e + "\n\n")
	}
	f.Add(b.String())
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"name\":\"x\"}}]},\"finish_reason\":\"stop\"}]}\n\n")
	c := &client{name: DriverOpenAI, common: commonOptions{timeout: time.Minute}}
	d := &openAI{httpDriver: httpDriver{c: c}}
	f.Fuzz(func(t *testing.T, body string) {
		_, cancel := context.WithCancel(context.Background())
		r := &response{body: io.NopCloser(strings.NewReader(body)), dog: time.NewTimer(time.Hour), idle: time.Hour,
			fired: new(atomic.Bool), cancel: cancel, c: c, url: "fuzz"}
		defer r.Close()
		turn, err := d.readStream(r, "fuzz")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if turn.StopReason == "" {
			t.Fatalf("a turn without a finish_reason: %+v", turn)
		}
	})
}

// checkTurn is what every parser promises of a turn it returns: tool calls
// have an id, a name field and non-nil arguments, and the turn can be sent
// back to the model.
func checkTurn(t *testing.T, turn *Turn, err error) {
	t.Helper()
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error %T is not *Error: %v", err, err)
		}
		if turn != nil {
			t.Fatalf("a turn beside an error: %+v", turn)
		}
		return
	}
	if turn == nil {
		t.Fatal("nil turn without an error")
	}
	for _, c := range turn.ToolCalls {
		if c.Arguments == nil {
			t.Fatalf("tool call %q with nil arguments", c.Name)
		}
	}
	if _, err := json.Marshal(turn.Blocks()); err != nil {
		t.Fatalf("the turn cannot be echoed: %v", err)
	}
}

// FuzzOpenAIMessage: a whole chat completion becomes a turn or an *Error,
// never a panic; a turn's text is the first choice's content or refusal.
func FuzzOpenAIMessage(f *testing.F) {
	for _, s := range []string{oaToolCallBody, oaText, `{}`, `{"choices":[]}`, `{"choices":[{"message":{"refusal":"no"}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":null}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"\"[]\""}}]}}],"usage":{"prompt_tokens":-5,"credit_usage":1e308}}`, `null`, `[`} {
		f.Add([]byte(s))
	}
	d := &openAI{httpDriver: httpDriver{c: &client{name: DriverOpenAI}}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		turn, err := d.readMessage(raw, "fuzz")
		checkTurn(t, turn, err)
		if err != nil && !IsRetryable(err) {
			t.Fatalf("a malformed completion is retryable: %v", err)
		}
	})
}

// FuzzAnthropicMessage: a gateway's one JSON message becomes the turn a
// stream would, or a retryable *Error; never a panic.
func FuzzAnthropicMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"list_dir","input":{"path":"workspace:"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}`,
		`{"type":"message","content":[{"type":"tool_use"}]}`, `{"type":"message","content":null,"usage":{"input_tokens":"x"}}`,
		`{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","input":"{}"}]}`,
		`{"type":"error"}`, `"message"`, ``,
	} {
		f.Add([]byte(s))
	}
	c := &client{name: DriverAnthropic, common: commonOptions{timeout: time.Minute}}
	d := &anthropic{httpDriver: httpDriver{c: c}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, cancel := context.WithCancel(context.Background())
		r := &response{body: io.NopCloser(strings.NewReader(string(raw))), dog: time.NewTimer(time.Hour), idle: time.Hour,
			fired: new(atomic.Bool), cancel: cancel, c: c, url: "fuzz"}
		defer r.Close()
		turn, err := d.readMessage(r, "fuzz")
		checkTurn(t, turn, err)
	})
}

// FuzzCommandOutput: whatever a model program writes on stdout is a turn
// (tool calls numbered call_<i> when they carry no id) or an *Error whose
// message is bounded; never a panic.
func FuzzCommandOutput(f *testing.F) {
	for _, s := range []string{
		`{"text":"x","tool_calls":[{"name":"list_dir","arguments":{"path":"workspace:"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"error":{"message":"overloaded","retryable":true}}`, `{"error":{}}`, `{"tool_calls":[{"id":"","arguments":null}]}`,
		`null`, `{"text":1}`, `{} trailing`, `not json`, ``,
	} {
		f.Add([]byte(s))
	}
	d := &command{c: &client{name: DriverCommand}, argv: []string{"model-program"}}
	f.Fuzz(func(t *testing.T, out []byte) {
		turn, err := d.readOutput(out)
		checkTurn(t, turn, err)
		if err != nil && len(err.Error()) > 2*maxErrorBody+200 {
			t.Fatalf("an unbounded error message (%d bytes)", len(err.Error()))
		}
		if err == nil {
			for i, c := range turn.ToolCalls {
				if c.ID == "" {
					t.Fatalf("tool call %d without an id", i)
				}
			}
		}
	})
}

// FuzzParseRetryAfter: a Retry-After value is a wait in [0, 1e9 s] or
// refused; never negative, never a panic.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"20", "1.5", "0", "-1", "NaN", "Inf", "1e400", "Tue, 01 Dec 2026 12:00:30 GMT", "Monday, 30-Nov-26 12:00:00 GMT", "soon", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		numeric := !strings.Contains(v, ",")
		if d < 0 || (!ok && d != 0) || (numeric && d > time.Duration(1e9*float64(time.Second))) {
			t.Fatalf("ParseRetryAfter(%q) = %v %v", v, d, ok)
		}
	})
}
