package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// openAI speaks the chat-completions dialect: OpenAI itself, most
// gateways, vLLM, llama.cpp (HARNESS.md §4.0 "openai").
type openAI struct {
	httpDriver
	keyEnv string
	extra  map[string]any // top_p, stop, seed
	// stream asks for server-sent events (options.stream): a proxy that
	// ends a silent request after ~100 s (Cloudflare's 524) sees bytes at
	// once, as with the anthropic driver.
	stream bool
}

func newOpenAI(c *client, o map[string]any) (turnTaker, error) {
	d := &openAI{httpDriver: httpDriver{c: c, headersEnv: "OPENAI_EXTRA_HEADERS"}, extra: map[string]any{}}
	d.base = strings.TrimRight(firstNonEmpty(optString(o, "base_url"), c.env("OPENAI_BASE_URL"), "https://api.openai.com/v1"), "/")
	d.keyEnv = firstNonEmpty(optString(o, "api_key_env"), "OPENAI_API_KEY")
	d.key = c.env(d.keyEnv)
	if d.key == "" {
		return nil, c.errorf(false, "%s is unset; the model cannot be called", d.keyEnv)
	}
	if v, ok := o["stream"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, c.errorf(false, "options.stream must be true or false, not %v", v)
		}
		d.stream = b
	}
	for _, k := range []string{"top_p", "stop", "seed"} {
		if v, ok := o[k]; ok {
			d.extra[k] = v
		}
	}
	return d, nil
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type oaResponse struct {
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   *string      `json:"content"`
			Refusal   *string      `json:"refusal"`
			ToolCalls []oaToolCall `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int     `json:"prompt_tokens"`
		CompletionTokens int     `json:"completion_tokens"`
		CreditUsage      float64 `json:"credit_usage"`
	} `json:"usage"`
}

func (d *openAI) once(ctx context.Context, req Request) (*Turn, error) {
	c := d.c
	chat := []map[string]any{}
	if req.System != "" {
		chat = append(chat, map[string]any{"role": "system", "content": req.System})
	}
	chat = append(chat, toOpenAIMessages(req.Messages)...)
	payload := map[string]any{
		"model":                 c.model,
		"messages":              chat,
		"max_completion_tokens": c.common.maxTokens,
	}
	if len(req.Tools) > 0 {
		tools := make([]map[string]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": t.schema()}}
		}
		payload["tools"] = tools
	}
	if c.common.temperature != nil {
		payload["temperature"] = *c.common.temperature
	}
	for k, v := range d.extra {
		payload[k] = v
	}
	if c.common.effort != "" {
		payload["reasoning_effort"] = c.common.effort
	}
	base := map[string]string{"authorization": "Bearer " + d.key}
	if d.stream {
		payload["stream"] = true
		payload["stream_options"] = map[string]any{"include_usage": true}
		base["accept"] = "text/event-stream"
	}
	headers, err := d.headers(base)
	if err != nil {
		return nil, err
	}
	url := d.base + "/chat/completions"
	resp, err := d.post(ctx, url, headers, payload)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	if d.stream && !strings.HasPrefix(strings.ToLower(resp.contentType), "application/json") {
		return d.readStream(resp, url)
	}
	raw, err := io.ReadAll(resp)
	if err != nil {
		return nil, err
	}
	return d.readMessage(raw, url)
}

// readMessage reads a whole (not streamed) chat completion: the first
// choice's text, refusal and tool calls, and the usage. A body that is
// not JSON, or has no choices, is a retryable *Error.
func (d *openAI) readMessage(raw []byte, url string) (*Turn, error) {
	c := d.c
	var data oaResponse
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, c.errorf(true, "response from %s was not JSON (%d byte(s)): %v", url, len(raw), err)
	}
	if len(data.Choices) == 0 {
		return nil, c.errorf(true, "response from %s had no choices", url)
	}
	ch := data.Choices[0]
	turn := &Turn{
		StopReason:   ch.FinishReason,
		InputTokens:  data.Usage.PromptTokens,
		OutputTokens: data.Usage.CompletionTokens,
		Credits:      data.Usage.CreditUsage,
	}
	if ch.Message.Content != nil {
		turn.Text = *ch.Message.Content
	}
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		turn.Refusal = *ch.Message.Refusal
		if turn.Text == "" {
			turn.Text = turn.Refusal
		}
	}
	for _, tc := range ch.Message.ToolCalls {
		turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: parseArguments(tc.Function.Arguments)})
	}
	return turn, nil
}

// parseArguments decodes a tool call's arguments: a JSON string holding
// an object (the dialect's spelling), or an object. Anything else becomes
// {"__unparsed__": text}, the model's mistake to be told about, not a
// transport failure.
func parseArguments(raw json.RawMessage) map[string]any {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return map[string]any{}
	}
	if strings.HasPrefix(text, `"`) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return map[string]any{UnparsedKey: text}
		}
		text = strings.TrimSpace(s)
		if text == "" {
			return map[string]any{}
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		return map[string]any{UnparsedKey: text}
	}
	return m
}

// toOpenAIMessages translates block messages to chat messages: tool_use
// blocks become an assistant's tool_calls, and each tool_result block
// becomes its own "tool" message, so one message may become several.
func toOpenAIMessages(messages []Message) []map[string]any {
	var out []map[string]any
	for _, m := range messages {
		var text []string
		var calls []map[string]any
		var results []map[string]any
		for _, b := range m.Content {
			switch b.Type {
			case BlockText:
				text = append(text, b.Text)
			case BlockToolUse:
				args, _ := json.Marshal(orEmpty(b.Input))
				calls = append(calls, map[string]any{"id": b.ID, "type": "function",
					"function": map[string]any{"name": b.Name, "arguments": string(args)}})
			case BlockToolResult:
				results = append(results, map[string]any{"role": "tool", "tool_call_id": b.ToolUseID, "content": flatten(b.Content)})
			}
		}
		if m.Role == "assistant" {
			// content may be null only beside tool calls.
			entry := map[string]any{"role": "assistant", "content": strings.Join(text, "\n")}
			if entry["content"] == "" && len(calls) > 0 {
				entry["content"] = nil
			}
			if len(calls) > 0 {
				entry["tool_calls"] = calls
			}
			out = append(out, entry)
			continue
		}
		out = append(out, results...)
		if len(text) > 0 {
			out = append(out, map[string]any{"role": m.Role, "content": strings.Join(text, "\n")})
		}
	}
	return out
}

func flatten(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func optString(o map[string]any, key string) string {
	s, _ := o[key].(string)
	return s
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// oaChunk is one streamed chat.completion.chunk.
type oaChunk struct {
	Choices []struct {
		FinishReason *string `json:"finish_reason"`
		Delta        struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int     `json:"prompt_tokens"`
		CompletionTokens int     `json:"completion_tokens"`
		CreditUsage      float64 `json:"credit_usage"`
	} `json:"usage"`
	Error map[string]any `json:"error"`
}

// readStream reassembles streamed chunks into a turn: content and refusal
// concatenated, each tool call's arguments joined by its index. A stream
// that ends before any choice finished is retryable, like a truncated
// Messages stream; an error chunk is retryable unless its text is fatal.
func (d *openAI) readStream(resp *response, url string) (*Turn, error) {
	c := d.c
	type call struct {
		id, name string
		args     strings.Builder
	}
	var calls []*call
	var text, refusal strings.Builder
	turn := &Turn{}
	finished := false
	events := newSSEReader(resp)
	for {
		_, data, ok := events.next()
		if !ok {
			break
		}
		data = strings.TrimSpace(data)
		if data == "" || data == "[DONE]" {
			continue
		}
		var ch oaChunk
		if json.Unmarshal([]byte(data), &ch) != nil {
			continue
		}
		if ch.Error != nil {
			b, _ := json.Marshal(ch.Error)
			msg := fmt.Sprintf("stream error from %s: %s", url, b)
			return nil, c.errorf(Retryable(529, msg), "%s", cut(msg, maxErrorBody))
		}
		if ch.Usage != nil {
			turn.InputTokens, turn.OutputTokens, turn.Credits = ch.Usage.PromptTokens, ch.Usage.CompletionTokens, ch.Usage.CreditUsage
		}
		for _, choice := range ch.Choices {
			if choice.Delta.Content != nil {
				text.WriteString(*choice.Delta.Content)
			}
			if choice.Delta.Refusal != nil {
				refusal.WriteString(*choice.Delta.Refusal)
			}
			for _, tc := range choice.Delta.ToolCalls {
				if tc.Index < 0 || tc.Index >= maxStreamBlocks {
					return nil, c.errorf(true, "malformed stream from %s: tool call index %d", url, tc.Index)
				}
				for len(calls) <= tc.Index {
					calls = append(calls, &call{})
				}
				cl := calls[tc.Index]
				if tc.ID != "" {
					cl.id = tc.ID
				}
				if tc.Function.Name != "" {
					cl.name = tc.Function.Name
				}
				cl.args.WriteString(tc.Function.Arguments)
			}
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				turn.StopReason, finished = *choice.FinishReason, true
			}
		}
	}
	if err := events.sc.Err(); err != nil {
		var me *Error
		if errors.As(err, &me) {
			return nil, me
		}
		return nil, c.errorf(true, "reading the stream from %s: %v", url, err)
	}
	if !finished {
		return nil, c.errorf(true, "stream ended before a finish_reason; the answer is incomplete")
	}
	turn.Text, turn.Refusal = text.String(), refusal.String()
	if turn.Text == "" {
		turn.Text = turn.Refusal
	}
	for i, cl := range calls {
		if cl.name == "" {
			continue
		}
		raw, _ := json.Marshal(cl.args.String())
		id := cl.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: id, Name: cl.name, Arguments: parseArguments(raw)})
	}
	return turn, nil
}
