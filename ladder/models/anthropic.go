package models

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxStreamBlocks bounds the content block index a stream may use; a
// larger one is a malformed stream, not a reason to allocate.
const maxStreamBlocks = 4096

// anthropicVersion is the anthropic-version header srb sends.
const anthropicVersion = "2023-06-01"

// anthropic speaks the Messages API, always streamed: a non-streamed call
// sends no byte until the whole completion exists, and a proxy that
// invents a 524 after ~100 s of silence ends it (HARNESS.md §7 bug 50).
type anthropic struct {
	httpDriver
	extra map[string]any // thinking, output_config, top_p, stop_sequences, top_k
}

func newAnthropic(c *client, o map[string]any) (turnTaker, error) {
	d := &anthropic{httpDriver: httpDriver{c: c, headersEnv: "ANTHROPIC_EXTRA_HEADERS"}, extra: map[string]any{}}
	d.base = strings.TrimRight(firstNonEmpty(optString(o, "base_url"), c.env("ANTHROPIC_BASE_URL"), "https://api.anthropic.com"), "/")
	if env := optString(o, "api_key_env"); env != "" {
		d.key = c.env(env)
		if d.key == "" {
			return nil, c.errorf(false, "%s is unset; the model cannot be called", env)
		}
	} else {
		d.key = firstNonEmpty(c.env("ANTHROPIC_API_KEY"), c.env("ANTHROPIC_AUTH_TOKEN"))
		if d.key == "" {
			return nil, c.errorf(false, "ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN are unset; the model cannot be called")
		}
	}
	for _, k := range []string{"thinking", "output_config", "top_p", "stop_sequences", "top_k"} {
		if v, ok := o[k]; ok {
			d.extra[k] = v
		}
	}
	return d, nil
}

func (d *anthropic) once(ctx context.Context, req Request) (*Turn, error) {
	c := d.c
	msgs := req.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	payload := map[string]any{
		"model":      c.model,
		"max_tokens": c.common.maxTokens,
		"messages":   msgs,
		"stream":     true,
	}
	if req.System != "" {
		payload["system"] = req.System
	}
	if len(req.Tools) > 0 {
		payload["tools"] = req.Tools
	}
	if c.common.temperature != nil {
		payload["temperature"] = *c.common.temperature
	}
	for k, v := range d.extra {
		payload[k] = v
	}
	// An explicit output_config wins: whoever wrote one meant it.
	if _, ok := payload["output_config"]; !ok && c.common.effort != "" {
		payload["output_config"] = map[string]any{"effort": c.common.effort}
	}
	headers, err := d.headers(map[string]string{
		"x-api-key":         d.key,
		"anthropic-version": anthropicVersion,
		"accept":            "text/event-stream",
	})
	if err != nil {
		return nil, err
	}
	url := d.base + "/v1/messages"
	resp, err := d.post(ctx, url, headers, payload)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	if strings.HasPrefix(strings.ToLower(resp.contentType), "application/json") {
		return d.readMessage(resp, url)
	}
	return d.readStream(resp, url)
}

// readMessage reads a whole Messages response, for a gateway that answers
// a streamed request in one JSON object. It becomes the same turn a stream
// would; a body that is not a message is retryable, like a broken stream.
func (d *anthropic) readMessage(resp *response, url string) (*Turn, error) {
	c := d.c
	raw, err := io.ReadAll(resp)
	if err != nil {
		return nil, err
	}
	var msg struct {
		Type       string           `json:"type"`
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      map[string]any   `json:"usage"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Type != "message" {
		return nil, c.errorf(true, "response from %s was neither a stream nor a message (%d byte(s))", url, len(raw))
	}
	return d.turnOf(msg.Content, msg.StopReason, msg.Usage)
}

// readStream reassembles a Messages SSE stream into a turn. An error event
// and a stream that ends before message_stop are retryable: the answer is
// absent, not negative (HARNESS.md §7 bug 54). Tool arguments that are
// not JSON once concatenated are retryable too.
func (d *anthropic) readStream(resp *response, url string) (*Turn, error) {
	c := d.c
	var blocks []map[string]any
	partial := map[int]*strings.Builder{}
	usage := map[string]any{}
	stop := ""
	sawStop := false
	events := newSSEReader(resp)
	for {
		event, chunk, ok := events.next()
		if !ok {
			break
		}
		chunk = strings.TrimSpace(chunk)
		if chunk == "" || chunk == "[DONE]" {
			continue
		}
		var ev map[string]any
		if json.Unmarshal([]byte(chunk), &ev) != nil {
			continue
		}
		kind, _ := ev["type"].(string)
		if kind == "" {
			kind = event
		}
		switch kind {
		case "error":
			e, _ := ev["error"].(map[string]any)
			typ, _ := e["type"].(string)
			msg, _ := e["message"].(string)
			text := fmt.Sprintf("stream error from %s: %s: %s", url, typ, msg)
			return nil, c.errorf(Retryable(529, text), "%s", cut(text, maxErrorBody))
		case "message_start":
			m, _ := ev["message"].(map[string]any)
			mergeUsage(usage, m["usage"])
			if s, _ := m["stop_reason"].(string); s != "" {
				stop = s
			}
		case "content_block_start":
			idx := intOf(ev["index"], len(blocks))
			if idx < 0 || idx >= maxStreamBlocks {
				return nil, c.errorf(true, "malformed stream from %s: block index %d", url, idx)
			}
			cb, _ := ev["content_block"].(map[string]any)
			block := map[string]any{}
			for k, v := range cb {
				block[k] = v
			}
			for len(blocks) <= idx {
				blocks = append(blocks, nil)
			}
			blocks[idx] = block
			if block["type"] == BlockToolUse {
				partial[idx] = &strings.Builder{}
			}
		case "content_block_delta":
			idx := intOf(ev["index"], 0)
			if idx < 0 || idx >= len(blocks) || blocks[idx] == nil {
				continue
			}
			delta, _ := ev["delta"].(map[string]any)
			b := blocks[idx]
			switch delta["type"] {
			case "text_delta":
				b["text"] = str(b["text"]) + str(delta["text"])
			case "thinking_delta":
				b["thinking"] = str(b["thinking"]) + str(delta["thinking"])
			case "signature_delta":
				b["signature"] = str(b["signature"]) + str(delta["signature"])
			case "input_json_delta":
				if partial[idx] == nil {
					partial[idx] = &strings.Builder{}
				}
				partial[idx].WriteString(str(delta["partial_json"]))
			}
		case "content_block_stop":
			idx := intOf(ev["index"], 0)
			p, ok := partial[idx]
			if !ok || idx < 0 || idx >= len(blocks) || blocks[idx] == nil {
				continue
			}
			delete(partial, idx)
			joined := strings.TrimSpace(p.String())
			if joined == "" {
				if _, has := blocks[idx]["input"]; !has || blocks[idx]["input"] == nil {
					blocks[idx]["input"] = map[string]any{}
				}
				continue
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(joined), &in); err != nil {
				return nil, c.errorf(true, "tool arguments were not valid JSON after %d byte(s): %v", len(joined), err)
			}
			blocks[idx]["input"] = in
		case "message_delta":
			delta, _ := ev["delta"].(map[string]any)
			if s, _ := delta["stop_reason"].(string); s != "" {
				stop = s
			}
			mergeUsage(usage, ev["usage"])
		case "message_stop":
			sawStop = true
		}
	}
	if err := events.sc.Err(); err != nil {
		var me *Error
		if errors.As(err, &me) {
			return nil, me
		}
		return nil, c.errorf(true, "reading the stream from %s: %v", url, err)
	}
	if !sawStop {
		n := 0
		for _, b := range blocks {
			if b != nil {
				n++
			}
		}
		return nil, c.errorf(true, "stream ended after %d block(s) without message_stop; the answer is incomplete", n)
	}
	return d.turnOf(blocks, stop, usage)
}

// turnOf builds a turn from reassembled content blocks: text joined by
// newlines, tool_use blocks as calls, every block kept raw for echo.
func (d *anthropic) turnOf(blocks []map[string]any, stop string, usage map[string]any) (*Turn, error) {
	c := d.c
	turn := &Turn{StopReason: stop}
	var texts []string
	for _, b := range blocks {
		if b == nil {
			continue
		}
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, c.errorf(false, "re-encode block: %v", err)
		}
		var blk Block
		if err := json.Unmarshal(raw, &blk); err != nil {
			return nil, c.errorf(true, "malformed block in the stream: %v", err)
		}
		blk.Raw = raw
		turn.Raw = append(turn.Raw, blk)
		switch b["type"] {
		case BlockText:
			if t := str(b["text"]); t != "" {
				texts = append(texts, t)
			}
		case BlockToolUse:
			in, _ := b["input"].(map[string]any)
			if in == nil {
				in = map[string]any{}
			}
			turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: str(b["id"]), Name: str(b["name"]), Arguments: in})
		}
	}
	turn.Text = strings.Join(texts, "\n")
	if stop == "refusal" {
		turn.Refusal = turn.Text
	}
	turn.InputTokens = intOf(usage["input_tokens"], 0)
	turn.OutputTokens = intOf(usage["output_tokens"], 0)
	if f, ok := asFloat(usage["credit_usage"]); ok {
		turn.Credits = f
	}
	return turn, nil
}

// sseReader splits a server-sent event stream into events: "event:" names
// one, its "data:" lines are joined by newlines, and a blank line (or the
// end of the stream) dispatches it; comment lines (":") and other fields
// are ignored.
type sseReader struct{ sc *bufio.Scanner }

// newSSEReader reads server-sent events from r, one line of up to 64 MiB
// at a time.
func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	return &sseReader{sc: sc}
}

func (r *sseReader) next() (event, data string, ok bool) {
	var lines []string
	for r.sc.Scan() {
		line := strings.TrimSuffix(r.sc.Text(), "\r")
		if line == "" {
			if lines != nil {
				return event, strings.Join(lines, "\n"), true
			}
			event = ""
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "data":
			lines = append(lines, value)
		}
	}
	if lines != nil {
		return event, strings.Join(lines, "\n"), true
	}
	return "", "", false
}

func mergeUsage(dst map[string]any, src any) {
	m, _ := src.(map[string]any)
	for k, v := range m {
		if v != nil {
			dst[k] = v
		}
	}
}

func intOf(v any, def int) int {
	if n, ok := asInt(v); ok {
		return n
	}
	return def
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
