package models

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/internal/httpmock"
)

// tooBusy answers 429 with a Retry-After header.
func tooBusy(retryAfter string) httpmock.Responder {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"slow down"}}`))
	}
}

// fakeClock is a clock that moves only when the driver sleeps.
type fakeClock struct {
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return ctx.Err()
}

func retryDriver(t *testing.T, cfg Config, clock *fakeClock, log *bytes.Buffer) Driver {
	t.Helper()
	d, err := New(cfg, WithEnv(env{"OPENAI_API_KEY": "sk-test"}.lookup), WithSleep(clock.sleep), WithClock(clock.now),
		WithRand(func() float64 { return 1 }), WithLog(log, "audit: review 2"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRetryAfterHonoured: a 429 asking for 20 s (delta-seconds) and one
// asking until a date 7 s ahead are waited out exactly, not on the
// backoff's 1.5 s and 3 s; each retry is one line on the log.
func TestRetryAfterHonoured(t *testing.T) {
	reg := httpmock.New(t)
	defer reg.Verify(t)
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	reg.Register("POST", "/v1/chat/completions", tooBusy("20"))
	reg.Register("POST", "/v1/chat/completions", tooBusy(clock.t.Add(20*time.Second+7*time.Second).Format(http.TimeFormat)))
	reg.Register("POST", "/v1/chat/completions", httpmock.JSON(oaText))
	var log bytes.Buffer
	d := retryDriver(t, openaiConfig(reg, nil), clock, &log)
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil || turn.Text != "done" {
		t.Fatalf("turn %v, err %v", turn, err)
	}
	if diff := cmp.Diff([]time.Duration{20 * time.Second, 7 * time.Second}, clock.slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "audit: review 2: openai gpt-5.6-sol: attempt 1 of 5 failed (openai: HTTP 429 from http://127.0.0.1:") ||
		!strings.HasSuffix(lines[0], "; retrying in 20.0 s (Retry-After)") || !strings.Contains(lines[1], ": attempt 2 of 5 failed (") ||
		!strings.HasSuffix(lines[1], "retrying in 7.0 s (Retry-After)") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestRetryAfterBeyondBudget: a wait that would end past the context's
// deadline (the stage's budget) fails at once, as a permanent fault,
// without sleeping; so does one over MaxRetryAfter.
func TestRetryAfterBeyondBudget(t *testing.T) {
	for _, tc := range []struct {
		header, want string
	}{
		{"20", "retrying means waiting 20.0 s (Retry-After), but the stage's budget has 5.0 s left"},
		{"3600", "the endpoint asks to wait 3600.0 s (Retry-After), more than the 600.0 s srb waits"},
	} {
		reg := httpmock.New(t)
		reg.Register("POST", "/v1/chat/completions", tooBusy(tc.header))
		clock := &fakeClock{t: time.Now()}
		var log bytes.Buffer
		d := retryDriver(t, openaiConfig(reg, nil), clock, &log)
		ctx, cancel := context.WithDeadline(context.Background(), clock.t.Add(5*time.Second))
		if tc.header == "3600" {
			cancel()
			ctx, cancel = context.WithDeadline(context.Background(), clock.t.Add(2*time.Hour))
		}
		_, err := d.Complete(ctx, conversation())
		cancel()
		var me *Error
		if !errorsAs(err, &me) || me.Retryable || me.Status != 429 || !strings.Contains(me.Msg, "giving up: "+tc.want) {
			t.Errorf("Retry-After %s: err %#v", tc.header, err)
		}
		if len(clock.slept) != 0 || len(reg.Requests()) != 1 {
			t.Errorf("Retry-After %s: slept %v after %d request(s)", tc.header, clock.slept, len(reg.Requests()))
		}
		if !strings.Contains(log.String(), "giving up: "+tc.want) {
			t.Errorf("log %q", log.String())
		}
		reg.Verify(t)
	}
}

// TestUnreachableEndpointBounded: an endpoint nothing listens on is
// retried on the backoff until the next wait would pass UnreachableSec,
// then fails for good (not retryable: the agent loop does not resume it).
func TestUnreachableEndpointBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	clock := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	var log bytes.Buffer
	cfg := Config{Driver: DriverOpenAI, Model: "gpt-5.6-sol", Options: map[string]any{"base_url": "http://" + addr + "/v1", "retries": 20.0}}
	d := retryDriver(t, cfg, clock, &log)
	_, err = d.Complete(context.Background(), conversation())
	var me *Error
	if !errorsAs(err, &me) || me.Retryable || !me.Unreachable || !strings.Contains(me.Msg, "cannot reach http://"+addr) ||
		!strings.Contains(me.Msg, "srb stops retrying an endpoint it cannot connect to after 60 s") {
		t.Fatalf("err %#v", err)
	}
	// Backoff ×1.5: 1.5, 3, 6, 12, 24 (46.5 s in all); the next, 48 s,
	// would pass 60 s.
	want := []time.Duration{1500 * time.Millisecond, 3 * time.Second, 6 * time.Second, 12 * time.Second, 24 * time.Second}
	if diff := cmp.Diff(want, clock.slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if n := strings.Count(log.String(), "\n"); n != 6 || !strings.Contains(log.String(), "retrying in 24.0 s") {
		t.Errorf("log (%d lines):\n%s", n, log.String())
	}
	if IsRetryable(err) {
		t.Error("an unreachable endpoint must not be resumed")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"20", 20 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"0", 0, true},
		{"Tue, 01 Dec 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Tue, 01 Dec 2026 11:00:00 GMT", 0, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"", 0, false},
		{"NaN", 0, false},
	} {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
