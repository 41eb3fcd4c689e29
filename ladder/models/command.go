package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// CommandProtocol names the JSON protocol of the command driver
// (docs/LADDER.md "The command protocol"); it is sent as "protocol" in
// every request.
const CommandProtocol = "srb.model-command/1"

// CommandRequest is what the command driver writes to the program's
// stdin, one JSON object per turn. Messages are in Anthropic's block
// format; Tools carry name, description and input_schema.
// ReasoningEffort and Temperature are omitted when unset.
type CommandRequest struct {
	Protocol        string     `json:"protocol"`
	Model           string     `json:"model"`
	System          string     `json:"system"`
	Messages        []Message  `json:"messages"`
	Tools           []ToolSpec `json:"tools"`
	MaxTokens       int        `json:"max_tokens"`
	Temperature     *float64   `json:"temperature,omitempty"`
	ReasoningEffort string     `json:"reasoning_effort,omitempty"`
}

// CommandResponse is what the program writes to stdout: one JSON object.
// Either Error is set (the call failed; Retryable says whether re-sending
// may help), or the turn: Text, ToolCalls (Arguments an object; an id is
// made up when empty), StopReason and Usage (all optional).
type CommandResponse struct {
	Text       string     `json:"text"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	StopReason string     `json:"stop_reason"`
	Usage      struct {
		InputTokens  int     `json:"input_tokens"`
		OutputTokens int     `json:"output_tokens"`
		Credits      float64 `json:"credits"`
	} `json:"usage"`
	Error *struct {
		Message   string `json:"message"`
		Retryable bool   `json:"retryable"`
	} `json:"error"`
}

// command runs options.command once per turn (HARNESS.md §4.0 "command").
type command struct {
	c    *client
	argv []string
}

func newCommand(c *client, o map[string]any) (turnTaker, error) {
	raw, ok := o["command"].([]any)
	if !ok || len(raw) == 0 {
		return nil, c.errorf(false, "options.command must be a non-empty list of strings (the program and its arguments)")
	}
	argv := make([]string, len(raw))
	for i, a := range raw {
		s, ok := a.(string)
		if !ok || (i == 0 && s == "") {
			return nil, c.errorf(false, "options.command[%d] must be a non-empty string, not %v", i, a)
		}
		argv[i] = s
	}
	return &command{c: c, argv: argv}, nil
}

func (d *command) once(ctx context.Context, req Request) (*Turn, error) {
	c := d.c
	msgs, tools := req.Messages, req.Tools
	if msgs == nil {
		msgs = []Message{}
	}
	if tools == nil {
		tools = []ToolSpec{}
	}
	in, err := json.Marshal(CommandRequest{Protocol: CommandProtocol, Model: c.model, System: req.System,
		Messages: msgs, Tools: tools, MaxTokens: c.common.maxTokens, Temperature: c.common.temperature,
		ReasoningEffort: c.common.effort})
	if err != nil {
		return nil, c.errorf(false, "encode request: %v", err)
	}
	rctx, cancel := context.WithTimeout(ctx, c.common.timeout)
	defer cancel()
	stdout, stderr := &limited{max: maxCommandOutput}, &limited{max: 64 << 10}
	// Everything the driver starts ends with it (ladder/proc).
	e, err := proc.Run(rctx, proc.Spec{Argv: d.argv, Stdin: bytes.NewReader(in), Stdout: stdout, Stderr: stderr, WaitDelay: 5 * time.Second})
	if err == nil {
		switch {
		case e.Err != nil:
			err = e.Err
		case e.Code != 0 || e.Signal != 0:
			err = exitErr{e}
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, &Error{Driver: c.name, Msg: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
	case rctx.Err() != nil:
		return nil, c.errorf(true, "%s timed out after %s", d.argv[0], c.common.timeout)
	case err != nil:
		var ee exitErr
		if errors.As(err, &ee) {
			return nil, c.errorf(true, "%s exited %d: %s", d.argv[0], ee.Code, cut(strings.TrimSpace(stderr.b.String()), maxErrorBody))
		}
		return nil, &Error{Driver: c.name, Msg: fmt.Sprintf("cannot run %s: %v", d.argv[0], err), Err: err}
	}
	return d.readOutput(stdout.b.Bytes())
}

// readOutput reads a model program's stdout: the first JSON value must be
// a [CommandResponse]; its error is an *Error (retryable as it says), and
// anything that is not a turn is a non-retryable *Error.
func (d *command) readOutput(stdout []byte) (*Turn, error) {
	c := d.c
	var out CommandResponse
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(&out); err != nil {
		return nil, c.errorf(false, "%s wrote no JSON turn on stdout (%d byte(s)): %v", d.argv[0], len(stdout), err)
	}
	if out.Error != nil {
		return nil, c.errorf(out.Error.Retryable, "%s reported: %s", d.argv[0], cut(out.Error.Message, maxErrorBody))
	}
	return out.toTurn(func(i int) string { return fmt.Sprintf("call_%d", i) }), nil
}

// toTurn converts a canned answer (a model program's, or a script's) into
// a Turn: tool calls without an id get id(i), and without arguments an
// empty object.
func (r *CommandResponse) toTurn(id func(i int) string) *Turn {
	turn := &Turn{Text: r.Text, StopReason: r.StopReason, InputTokens: r.Usage.InputTokens,
		OutputTokens: r.Usage.OutputTokens, Credits: r.Usage.Credits}
	for i, tc := range r.ToolCalls {
		if tc.ID == "" {
			tc.ID = id(i)
		}
		if tc.Arguments == nil {
			tc.Arguments = map[string]any{}
		}
		turn.ToolCalls = append(turn.ToolCalls, tc)
	}
	return turn
}

// maxCommandOutput bounds what is kept of a model program's stdout.
const maxCommandOutput = 64 << 20

// limited keeps the first max bytes written to it and accepts the rest,
// so a runaway program neither blocks nor fills memory.
type limited struct {
	b   bytes.Buffer
	max int
}

// Write implements io.Writer.
func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// exitErr is a driver command that exited non-zero or was killed
// (Code -1).
type exitErr struct{ proc.Exit }

// Error says the program's exit code.
func (e exitErr) Error() string { return fmt.Sprintf("exit %d", e.Code) }
