package models

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/testenv"
)

// TestMain lets the test binary play an external model program for the
// command driver when SRB_FAKE_MODEL_COMMAND names a behaviour.
func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	if mode := os.Getenv("SRB_FAKE_MODEL_COMMAND"); mode != "" {
		os.Exit(fakeModelCommand(mode))
	}
	os.Exit(m.Run())
}

func fakeModelCommand(mode string) int {
	in, _ := io.ReadAll(os.Stdin)
	var req CommandRequest
	if err := json.Unmarshal(in, &req); err != nil {
		fmt.Fprintln(os.Stderr, "bad request:", err)
		return 9
	}
	switch mode {
	case "answer":
		out := map[string]any{
			"text":        fmt.Sprintf("%s %s %s %d msgs %d tools %s", req.Protocol, req.Model, req.System, len(req.Messages), len(req.Tools), req.ReasoningEffort),
			"tool_calls":  []any{map[string]any{"name": "list_dir", "arguments": map[string]any{"path": "workspace:"}}},
			"stop_reason": "tool_use",
			"usage":       map[string]any{"input_tokens": 7, "output_tokens": 3, "credits": 0.5},
		}
		json.NewEncoder(os.Stdout).Encode(out)
	case "exit":
		fmt.Fprintln(os.Stderr, "gateway said no")
		return 3
	case "garbage":
		fmt.Println("not json")
	case "error":
		fmt.Println(`{"error": {"message": "upstream overloaded", "retryable": true}}`)
	case "sleep":
		time.Sleep(10 * time.Second)
	}
	return 0
}

func commandDriver(t *testing.T, mode string, opts map[string]any) (Driver, *sleeps) {
	t.Setenv("SRB_FAKE_MODEL_COMMAND", mode)
	o := map[string]any{"command": []any{os.Args[0]}, "retries": 1.0}
	for k, v := range opts {
		o[k] = v
	}
	return newDriver(t, Config{Driver: DriverCommand, Model: "local-7b", Effort: "low", Options: o}, env{})
}

func TestCommandProtocol(t *testing.T) {
	d, _ := commandDriver(t, "answer", nil)
	turn, err := d.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "srb.model-command/1 local-7b be brief 3 msgs 1 tools low" {
		t.Errorf("the program saw: %q", turn.Text)
	}
	want := []ToolCall{{ID: "call_0", Name: "list_dir", Arguments: map[string]any{"path": "workspace:"}}}
	if diff := cmp.Diff(want, turn.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if u := d.Usage(); u.Calls != 1 || u.InputTokens != 7 || u.Credits != 0.5 {
		t.Errorf("usage %+v", u)
	}
}

func TestCommandFailures(t *testing.T) {
	for _, tc := range []struct {
		mode      string
		opts      map[string]any
		retryable bool
		sleeps    int
		msg       string
	}{
		{"exit", nil, true, 1, "exited 3: gateway said no"},
		{"garbage", nil, false, 0, "wrote no JSON turn"},
		{"error", nil, true, 1, "reported: upstream overloaded"},
		{"sleep", map[string]any{"timeout_sec": 0.2}, true, 1, "timed out after 200ms"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			d, sl := commandDriver(t, tc.mode, tc.opts)
			_, err := d.Complete(context.Background(), conversation())
			if err == nil || IsRetryable(err) != tc.retryable || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err %v (retryable %v), want %q retryable %v", err, IsRetryable(err), tc.msg, tc.retryable)
			}
			if len(sl.got) != tc.sleeps {
				t.Errorf("slept %d times, want %d", len(sl.got), tc.sleeps)
			}
		})
	}
}

func TestScripted(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/s.json"
	os.WriteFile(script, []byte(`{"turns": [
		"just prose",
		{"error": {"message": "gateway 503", "retryable": true}},
		{"text": "calling", "tool_calls": [{"name": "search", "arguments": {"pattern": "main"}}], "usage": {"input_tokens": 4}}
	]}`), 0o644)
	d, sl := newDriver(t, Config{Driver: DriverScripted, Model: "m", Options: map[string]any{"script": script}}, env{})
	ctx := context.Background()
	turn, err := d.Complete(ctx, Request{})
	if err != nil || turn.Text != "just prose" {
		t.Fatalf("turn 1: %+v %v", turn, err)
	}
	turn, err = d.Complete(ctx, Request{})
	if err != nil || turn.ToolCalls[0].Name != "search" || turn.ToolCalls[0].ID != "scripted_3_0" || len(sl.got) != 1 {
		t.Fatalf("turn 2 (after a retried scripted error): %+v %v", turn, err)
	}
	_, err = d.Complete(ctx, Request{})
	if err == nil || IsRetryable(err) || !strings.Contains(err.Error(), "exhausted after 3 turn(s)") {
		t.Fatalf("exhausted: %v", err)
	}
	if u := d.Usage(); u.Calls != 2 || u.InputTokens != 4 {
		t.Errorf("usage %+v", u)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Driver: "gemini"}, `unknown driver "gemini"; known drivers are anthropic, command, openai, scripted`},
		{Config{Driver: DriverOpenAI, Options: map[string]any{"temprature": 1.0}}, "openai: unknown option(s) temprature; this driver takes api_key_env, base_url, extra_headers, max_tokens, retries, seed, stop, stream, temperature, timeout_sec, top_p"},
		{Config{Driver: DriverOpenAI, Effort: "extreme"}, `openai: unknown reasoning effort "extreme"; known efforts are low, medium, high, xhigh, max`},
		{Config{Driver: DriverOpenAI, Model: "gpt"}, "openai: OPENAI_API_KEY is unset; the model cannot be called"},
		{Config{Driver: DriverAnthropic}, "anthropic: ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN are unset; the model cannot be called"},
		{Config{Driver: DriverAnthropic, Options: map[string]any{"api_key_env": "MY_KEY"}}, "anthropic: MY_KEY is unset; the model cannot be called"},
		{Config{Driver: DriverCommand}, "command: options.command must be a non-empty list of strings (the program and its arguments)"},
		{Config{Driver: DriverScripted}, "scripted: needs options.script (a file) or options.turns"},
		{Config{Driver: DriverScripted, Options: map[string]any{"turns": []any{}, "retries": "3"}}, "scripted: options.retries must be a whole number, not 3"},
	} {
		_, err := New(tc.cfg, WithEnv(env{}.lookup))
		if err == nil || err.Error() != tc.want || IsRetryable(err) {
			t.Errorf("New(%+v):\n got %v\nwant %s", tc.cfg, err, tc.want)
		}
	}
}

func TestExtraHeadersEnvNotJSON(t *testing.T) {
	reg := Config{Driver: DriverOpenAI, Model: "m", Options: map[string]any{"base_url": "http://127.0.0.1:1"}}
	d, _ := newDriver(t, reg, env{"OPENAI_API_KEY": "k", "OPENAI_EXTRA_HEADERS": "x-a: b"})
	_, err := d.Complete(context.Background(), conversation())
	if err == nil || IsRetryable(err) || !strings.Contains(err.Error(), "$OPENAI_EXTRA_HEADERS is not JSON") {
		t.Fatalf("got %v", err)
	}
}

func TestRetryable(t *testing.T) {
	for _, status := range []int{408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529} {
		if !Retryable(status, "") {
			t.Errorf("%d should retry", status)
		}
		if Retryable(status, "Your input exceeds the context window of this model") {
			t.Errorf("%d with a context overflow must not retry", status)
		}
	}
	for _, status := range []int{400, 401, 403, 404, 422, 501} {
		if Retryable(status, "nope") {
			t.Errorf("%d should not retry", status)
		}
	}
	if !Retryable(400, "flagged for possible cybersecurity risk") || Retryable(403, "flagged for possible cybersecurity risk") {
		t.Error("only a 400 from the safety filter retries")
	}
}

func TestPreflight(t *testing.T) {
	positions := []Position{
		{Where: "audit", Config: Config{Driver: DriverOpenAI, Model: "gpt-5.6-sol"}},
		{Where: "verification.adjudicator", Config: Config{Driver: DriverAnthropic, Model: "claude-opus-5"}},
		{Where: "verification.adversaries[a04]", Config: Config{Driver: DriverAnthropic, Model: "claude-sonnet-5"}},
		{Where: "verification.adversaries[a07]", Config: Config{Driver: DriverCommand, Model: "local"}},
	}
	err := Preflight(env{}.lookup, positions...)
	want := "preflight: OPENAI_API_KEY is unset, needed by audit (openai gpt-5.6-sol); " +
		"ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is unset, needed by verification.adjudicator (anthropic claude-opus-5), verification.adversaries[a04] (anthropic claude-sonnet-5); " +
		"verification.adversaries[a07]: command: options.command must be a non-empty list of strings (the program and its arguments)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if err := Preflight(env{"OPENAI_API_KEY": "a", "ANTHROPIC_AUTH_TOKEN": "b"}.lookup, positions[:3]...); err != nil {
		t.Errorf("all credentials set: %v", err)
	}
	if err := Preflight(env{"OPENAI_API_KEY": ""}.lookup, positions[0]); err == nil {
		t.Error("an empty key is a missing key")
	}
}

func TestForwardedEnv(t *testing.T) {
	e := env{"ANTHROPIC_API_KEY": "secret", "OPENAI_BASE_URL": "u", "GW_KEY": "g", "SRB_FORWARD_ENV": "HTTPS_PROXY, NO_PROXY UNSET_ONE", "HTTPS_PROXY": "p", "NO_PROXY": "", "HOME": "/root"}
	got := ForwardedEnv(e.lookup, Position{Config: Config{Driver: DriverOpenAI, Options: map[string]any{"api_key_env": "GW_KEY"}}})
	want := []string{"ANTHROPIC_API_KEY", "GW_KEY", "HTTPS_PROXY", "NO_PROXY", "OPENAI_BASE_URL"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}
