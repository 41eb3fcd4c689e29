package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/agent"
)

// TestGroundCitationWholeWords: a quote grounds a fail only as whole
// words of the cited lines. Cut out of the middle of a word, three letters
// are found almost anywhere: "pyright" out of a licence's "Copyright",
// "ackag" out of "package" or "ntln" out of "Println" would otherwise
// ground a fail on a line that says nothing, getting round the rule that
// a bare licence or keyword line grounds nothing.
func TestGroundCitationWholeWords(t *testing.T) {
	ws := t.TempDir()
	for name, text := range map[string]string{
		"LICENSE": "Copyright (c) 2024 The Authors\r\nPermission is hereby granted\r\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(count())\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := agent.NewToolbox([]agent.RootSpec{{Name: SubmissionRoot, Dir: ws}}, agent.ToolboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for _, tc := range []struct {
		path  string
		line  int
		quote string
		ok    bool
	}{
		{"workspace:LICENSE", 1, "pyright", false},
		{"workspace:LICENSE", 1, "opyrigh", false},
		{"workspace:LICENSE", 2, "ission is here", false},
		{"workspace:main.go", 1, "ackag", false},
		{"workspace:main.go", 6, "ntln", false},
		{"workspace:main.go", 6, "Println(cou", false},
		// Whole words, however much punctuation or white space surrounds
		// them, and a CRLF file, still ground.
		{"workspace:LICENSE", 2, "Permission  is hereby", true},
		{"workspace:LICENSE", 2, "hereby granted", true},
		{"workspace:main.go", 6, "fmt.Println(count())", true},
		{"workspace:main.go", 6, ".Println(", true},
		{"workspace:main.go", 6, "Println", true},
		{"workspace:main.go", 5, "func main() {\n fmt.Println", true},
	} {
		ok, note := GroundCitation(tb, tc.path, tc.line, tc.quote)
		if ok != tc.ok {
			t.Errorf("%s:%d %q: grounded %v (%s), want %v", tc.path, tc.line, tc.quote, ok, note, tc.ok)
		}
	}
}
