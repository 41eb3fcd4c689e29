package notice

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzRenderNames renders a NOTICE entry whose member names, copyright line
// and upstream NOTICE text are arbitrary (as an archive may make them) and
// wants every line of it printable, and exactly the lines an entry has: no
// name can add a line, a rule or an entry. testdata/fuzz/FuzzRenderNames
// holds the committed corpus.
func FuzzRenderNames(f *testing.F) {
	f.Add("src/a.c", "Copyright (c) 2020 A", "notice\n")
	f.Add("src/x.go"+forged, "Copyright 2020 A\x1b[2K\rB", "a\r\nb\x1b[1A\n")
	f.Add("a\u2028b\u202e/c", "©\x00", "\xff\xfe")
	f.Add("\"quoted\"", "\t", "")
	f.Fuzz(func(t *testing.T, name, holder, text string) {
		fd := &Finding{Top: "p-1", Expression: "MIT", Main: "MIT", Copyright: []string{holder},
			LicenceFiles: []string{name}, NestedLicenceFiles: []string{name + "/LICENSE"},
			OtherTerms: []OtherTerm{{Path: name, ID: "MIT", From: name}},
			Review:     []Review{{Path: name, Coverage: 10}},
			Notices:    []NoticeFile{{Path: name, Text: text}}}
		out := string(Render([]Entry{{Task: "t", Project: "p", Version: "1", Upstream: "u", SHA256: "00", Finding: fd}}))
		rules, heads := 0, 0
		for i, line := range strings.Split(out, "\n") {
			for _, r := range line {
				if r != '\t' && !unicode.IsPrint(r) {
					t.Fatalf("line %d holds %U: %q", i+1, r, line)
				}
			}
			if line == ruleDash {
				rules++
				continue
			}
			if line == ruleEq {
				heads++
				continue
			}
			if i > 0 && line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "t: ") && line != "t" && !inHeader(line) {
				// Outside the header and the preface, only the entry's
				// task line and a notice's heading start a line: names,
				// holders and the notice text's lines are indented.
				t.Fatalf("line %d starts a line of its own: %q", i+1, line)
			}
		}
		if rules != 1 || heads != 4 {
			t.Fatalf("%d entry rules and %d section rules, want 1 and 4:\n%s", rules, heads, out)
		}
	})
}

// inHeader reports whether line is one of the fixed lines NOTICE starts
// with (the header, the preface and the section headings).
func inHeader(line string) bool {
	return strings.Contains(header+preface, line) || line == ruleEq ||
		line == "Third-party software redistributed by this repository" ||
		line == "Upstream NOTICE files, reproduced (Apache-2.0 section 4(d))"
}
