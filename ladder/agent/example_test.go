package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/models"
)

// Run drives a model until it calls the submit tool; here a scripted
// model reads one file and submits.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	tb, _ := agent.NewToolbox([]agent.RootSpec{{Name: "workspace", Dir: dir}}, agent.ToolboxOptions{})
	defer tb.Close()
	driver, _ := models.New(models.Config{Driver: "scripted", Model: "dry-run", Options: map[string]any{"turns": []any{
		map[string]any{"tool_calls": []any{map[string]any{"name": "fetch_source", "arguments": map[string]any{"path": "workspace:main.go"}}}},
		map[string]any{"tool_calls": []any{map[string]any{"name": "done", "arguments": map[string]any{"answer": "a Go program"}}}},
	}}})
	res := agent.Run(context.Background(), agent.Config{
		Driver:  driver,
		Opening: "What is in the workspace?",
		Toolbox: tb,
		Submit:  models.ToolSpec{Name: "done", Schema: map[string]any{"type": "object"}},
	})
	fmt.Println(res.Outcome, res.Payload["answer"], res.ToolCalls, tb.Reads())
	// Output:
	// submitted a Go program 1 [workspace:main.go]
}

// Ground re-opens a cited line: the quote must be within three lines of
// it, white space and case aside.
func ExampleToolbox_Ground() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"os/exec\"\n\nfunc main() {\n\texec.Command(\"./tally-c\").Run()\n}\n"), 0o644)
	tb, _ := agent.NewToolbox([]agent.RootSpec{{Name: "workspace", Dir: dir}}, agent.ToolboxOptions{})
	defer tb.Close()
	fmt.Println(tb.Ground("workspace:main.go", 6, `EXEC.Command("./tally-c")`))
	fmt.Println(tb.Ground("workspace:main.go", 1, "tally-c"))
	// Output:
	// true verified
	// false quoted text not found within 3 lines of line 1
}
