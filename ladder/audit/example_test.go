package audit_test

import (
	"fmt"

	"github.com/swe-refactor-bench/srb/ladder/audit"
)

// Render fills the placeholders a task's audit prompt uses; an unknown
// one stays visible.
func ExampleRender() {
	fmt.Println(audit.Render("Review {{task}} at {{workspace}} ({{commands}}); {{gatez}}\n{{gates}}", audit.Values{
		Task:      "lang90-tally-c-to-go",
		Workspace: "/opt/workspace",
		Gates:     []audit.Gate{{ID: "go-is-primary", Title: "Go does the counting", Question: "Does the Go code count?", Required: true}},
	}))
	// Output:
	// Review lang90-tally-c-to-go at /opt/workspace ((none: this review is by reading, not by running)); {{gatez}}
	// [go-is-primary]  (REQUIRED)  Go does the counting
	//     Does the Go code count?
}
