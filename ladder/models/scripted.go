package models

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// ScriptTurn is one canned turn of the scripted driver. In a script file a
// turn may also be a bare string, meaning {"text": "<string>"}. Error, when
// set, makes the turn a failed call instead (Retryable says whether the
// caller may re-send), so scripts can exercise retries, resumes and dead
// reviews.
//
// It has the shape of a [CommandResponse], the command driver's answer.
type ScriptTurn CommandResponse

// UnmarshalJSON reads a turn object or a bare string.
func (t *ScriptTurn) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = ScriptTurn{Text: s}
		return nil
	}
	type plain ScriptTurn
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*t = ScriptTurn(p)
	return nil
}

// ParseScript reads a script: a JSON list of turns, or {"turns": [...]}.
func ParseScript(data []byte) ([]ScriptTurn, error) {
	var list []ScriptTurn
	if err := json.Unmarshal(data, &list); err == nil {
		return list, nil
	}
	var obj struct {
		Turns []ScriptTurn `json:"turns"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("a script is a JSON list of turns or {\"turns\": [...]}: %w", err)
	}
	return obj.Turns, nil
}

// scripted replays options.turns (inline) or the file options.script.
type scripted struct {
	c     *client
	turns []ScriptTurn
	next  int
}

func newScripted(c *client, o map[string]any) (turnTaker, error) {
	var data []byte
	switch {
	case o["turns"] != nil:
		b, err := json.Marshal(o["turns"])
		if err != nil {
			return nil, c.errorf(false, "options.turns: %v", err)
		}
		data = b
	case optString(o, "script") != "":
		b, err := os.ReadFile(optString(o, "script"))
		if err != nil {
			return nil, c.errorf(false, "cannot read the script: %v", err)
		}
		data = b
	default:
		return nil, c.errorf(false, "needs options.script (a file) or options.turns")
	}
	turns, err := ParseScript(data)
	if err != nil {
		return nil, c.errorf(false, "%v", err)
	}
	return &scripted{c: c, turns: turns}, nil
}

func (d *scripted) once(ctx context.Context, req Request) (*Turn, error) {
	if d.next >= len(d.turns) {
		return nil, d.c.errorf(false, "exhausted after %d turn(s); the loop asked for more than the script provides", len(d.turns))
	}
	spec := d.turns[d.next]
	d.next++
	if spec.Error != nil {
		return nil, d.c.errorf(spec.Error.Retryable, "%s", spec.Error.Message)
	}
	n := d.next
	return (*CommandResponse)(&spec).toTurn(func(i int) string { return fmt.Sprintf("scripted_%d_%d", n, i) }), nil
}
