package lint

import "testing"

// TestTrimQuoteEscapes: a quote is one line of the text report, SARIF's
// snippet and the JSON; the lines it comes from include truth values
// (State A's own output, which upstream code controls). Control
// characters, bidi overrides and line separators in it are written as Go
// escapes, so a quote cannot clear the terminal, start a line or reorder
// one.
func TestTrimQuoteEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"  plain text  ":        "plain text",
		"ok\x1b[2J\x1b[Hforged": `ok\x1b[2J\x1b[Hforged`,
		"a\rb":                  `a\rb`,
		"file\u202eexe.txt":     `file\u202eexe.txt`,
		"one\u2028two":          `one\u2028two`,
		"tab\tstays":            "tab\tstays",
		"bad utf8 \xff":         "bad utf8 \ufffd",
	} {
		if got := trimQuote(in); got != want {
			t.Errorf("trimQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
