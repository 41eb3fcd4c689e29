package models_test

import (
	"context"
	"fmt"

	"github.com/swe-refactor-bench/srb/ladder/models"
)

// A scripted driver replays canned turns: here one tool call.
func ExampleNew() {
	d, err := models.New(models.Config{Driver: "scripted", Model: "dry-run", Options: map[string]any{
		"turns": []any{map[string]any{"tool_calls": []any{map[string]any{"name": "list_dir", "arguments": map[string]any{"path": "workspace:"}}}}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn, err := d.Complete(context.Background(), models.Request{})
	fmt.Println(turn.ToolCalls[0].Name, turn.ToolCalls[0].Arguments["path"], err)
	fmt.Println(d.Usage().Calls)
	// Output:
	// list_dir workspace: <nil>
	// 1
}

// Preflight names each missing credential variable before anything starts.
func ExamplePreflight() {
	lookup := func(string) (string, bool) { return "", false }
	err := models.Preflight(lookup, models.Position{Where: "audit", Config: models.Config{Driver: "openai", Model: "gpt-5.6-sol"}})
	fmt.Println(err)
	// Output:
	// preflight: OPENAI_API_KEY is unset, needed by audit (openai gpt-5.6-sol)
}
