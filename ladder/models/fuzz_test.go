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
