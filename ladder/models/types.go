package models

import (
	"encoding/json"
	"math"
)

// Block types of the conversation format (Anthropic's, HARNESS.md §4.0:
// one driver defines the shape and the others translate).
const (
	BlockText       = "text"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// Block is one content block of a [Message]. Type selects the fields
// that matter: Text for "text"; ID, Name and Input for "tool_use";
// ToolUseID and Content for "tool_result". Raw, when set, is the
// provider's own block, echoed verbatim on the next request (reasoning
// blocks carry signatures a reconstruction would drop); it wins over every
// other field when the block is marshalled.
type Block struct {
	Type      string
	Text      string
	ID        string
	Name      string
	Input     map[string]any
	ToolUseID string
	Content   []Block
	Raw       json.RawMessage
}

// MarshalJSON writes the block in Anthropic's wire shape, or Raw verbatim.
func (b Block) MarshalJSON() ([]byte, error) {
	if len(b.Raw) > 0 {
		return b.Raw, nil
	}
	switch b.Type {
	case BlockToolUse:
		in := b.Input
		if in == nil {
			in = map[string]any{}
		}
		return json.Marshal(struct {
			Type  string         `json:"type"`
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}{b.Type, b.ID, b.Name, in})
	case BlockToolResult:
		content := b.Content
		if content == nil {
			content = []Block{}
		}
		return json.Marshal(struct {
			Type      string  `json:"type"`
			ToolUseID string  `json:"tool_use_id"`
			Content   []Block `json:"content"`
		}{b.Type, b.ToolUseID, content})
	default:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text})
	}
}

// UnmarshalJSON reads a block in Anthropic's wire shape; the bytes are
// kept in Raw only for block types srb does not model.
func (b *Block) UnmarshalJSON(data []byte) error {
	var w struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     map[string]any  `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = Block{Type: w.Type, Text: w.Text, ID: w.ID, Name: w.Name, Input: w.Input, ToolUseID: w.ToolUseID}
	switch w.Type {
	case BlockText, BlockToolUse:
	case BlockToolResult:
		if len(w.Content) > 0 && w.Content[0] == '"' {
			var s string
			if err := json.Unmarshal(w.Content, &s); err != nil {
				return err
			}
			b.Content = []Block{TextBlock(s)}
		} else if len(w.Content) > 0 && string(w.Content) != "null" {
			if err := json.Unmarshal(w.Content, &b.Content); err != nil {
				return err
			}
		}
	default:
		b.Raw = append(json.RawMessage(nil), data...)
	}
	return nil
}

// TextBlock returns a "text" block.
func TextBlock(text string) Block { return Block{Type: BlockText, Text: text} }

// ToolResultBlock returns the "tool_result" block answering call id with
// text.
func ToolResultBlock(id, text string) Block {
	return Block{Type: BlockToolResult, ToolUseID: id, Content: []Block{TextBlock(text)}}
}

// Message is one conversation message: Role "user" or "assistant", and
// its blocks.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// ToolSpec is a tool offered to the model. Schema is the JSON Schema of its
// input object.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"input_schema"`
}

// MarshalJSON writes the tool as Anthropic and the command protocol take
// it ({name, description, input_schema}); a nil Schema is written as
// {"type": "object"}, since endpoints refuse a tool without one.
func (s ToolSpec) MarshalJSON() ([]byte, error) {
	type plain ToolSpec
	p := plain(s)
	p.Schema = s.schema()
	return json.Marshal(p)
}

func (s ToolSpec) schema() map[string]any {
	if s.Schema == nil {
		return map[string]any{"type": "object"}
	}
	return s.Schema
}

// Properties returns the names of the properties Schema declares (the
// arguments the tool takes), or nil.
func (s ToolSpec) Properties() []string {
	props, _ := s.Schema["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	return out
}

// ToolCall is one tool invocation the model asked for. Arguments holds
// the parsed JSON object; when the model sent arguments that are not a
// JSON object it is {"__unparsed__": "<the text>"} ([UnparsedKey]).
type ToolCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// UnparsedKey is the one key of a [ToolCall]'s Arguments when the model's
// arguments were not a JSON object.
const UnparsedKey = "__unparsed__"

// Turn is one model response. InputTokens and OutputTokens are what the
// endpoint reported for this call; Credits is its own billing unit, 0 when
// it reported none. Refusal is the provider's refusal text, when it
// declined to answer (a turn, not an error). Raw holds the provider's
// assistant blocks for echo, when it gave any.
type Turn struct {
	Text         string
	ToolCalls    []ToolCall
	StopReason   string
	Refusal      string
	InputTokens  int
	OutputTokens int
	Credits      float64
	Raw          []Block
}

// Blocks returns the assistant message content that echoes t: the
// provider's own blocks when it gave any, else text and tool_use blocks
// rebuilt from the turn (HARNESS.md §4.0, agentloop._assistant_blocks).
// A turn with neither is echoed as the text "(no answer)".
func (t *Turn) Blocks() []Block {
	if len(t.Raw) > 0 {
		return t.Raw
	}
	var out []Block
	if t.Text != "" {
		out = append(out, TextBlock(t.Text))
	}
	for _, c := range t.ToolCalls {
		out = append(out, Block{Type: BlockToolUse, ID: c.ID, Name: c.Name, Input: c.Arguments})
	}
	if len(out) == 0 {
		// Endpoints refuse an empty text block; the turn said nothing.
		out = []Block{TextBlock("(no answer)")}
	}
	return out
}

// Request is one turn's input: the system prompt, the conversation so
// far, and the tools offered.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolSpec
}

// Usage is what a driver spent, summed over its successful calls
// (HARNESS.md §3.9 "Driver usage()"). Credits is the endpoint's own
// billing unit, 0 when it reported none.
type Usage struct {
	Driver          string
	Model           string
	Calls           int
	InputTokens     int
	OutputTokens    int
	ReasoningEffort string
	Credits         float64
}

// Map returns usage as the earlier harness recorded it: driver, model,
// calls, input_tokens, output_tokens, reasoning_effort only when set, and
// credits (6 dp) only when non-zero, since a written zero would read as
// "this call was free" for every endpoint that bills in tokens.
func (u Usage) Map() map[string]any {
	m := map[string]any{
		"driver":        u.Driver,
		"model":         u.Model,
		"calls":         u.Calls,
		"input_tokens":  u.InputTokens,
		"output_tokens": u.OutputTokens,
	}
	if u.ReasoningEffort != "" {
		m["reasoning_effort"] = u.ReasoningEffort
	}
	if u.Credits != 0 {
		m["credits"] = math.Round(u.Credits*1e6) / 1e6
	}
	return m
}
