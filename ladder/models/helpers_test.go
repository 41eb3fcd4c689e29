package models

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// env is a fake environment.
type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

// sleeps records backoff sleeps instead of waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

// newDriver builds cfg against a fake environment, with recorded sleeps
// and a jitter of exactly 1 (so the n-th sleep is min(60, 2^n) × 1.5 s).
func newDriver(t *testing.T, cfg Config, e env) (Driver, *sleeps) {
	t.Helper()
	s := &sleeps{}
	d, err := New(cfg, WithEnv(e.lookup), WithSleep(s.sleep), WithRand(func() float64 { return 1 }))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d, s
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, b)
	}
	return m
}

// conversation is a request with every block kind: an opening, an
// assistant turn with a tool call, and its result.
func conversation() Request {
	return Request{
		System: "be brief",
		Messages: []Message{
			{Role: "user", Content: []Block{TextBlock("hello")}},
			{Role: "assistant", Content: []Block{TextBlock("looking"), {Type: BlockToolUse, ID: "c1", Name: "list_dir", Input: map[string]any{"path": "workspace:"}}}},
			{Role: "user", Content: []Block{ToolResultBlock("c1", "main.go")}},
		},
		Tools: []ToolSpec{{Name: "list_dir", Description: "List.", Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}},
	}
}

func errorsAs(err error, target **Error) bool { return errors.As(err, target) }
