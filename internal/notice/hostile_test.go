package notice

import (
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// hpndText is the HPND grant (Historical Permission Notice and Disclaimer).
const hpndText = `Permission to use, copy, modify and distribute this software and its
documentation for any purpose and without fee is hereby granted, provided that
the above copyright notice appear in all copies and that both that copyright
notice and this permission notice appear in supporting documentation, and that
the name of Example Corp not be used in advertising or publicity pertaining to
distribution of the software without specific, written prior permission.
Example Corp makes no representations about the suitability of this software
for any purpose. It is provided "as is" without express or implied warranty.

EXAMPLE CORP DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE, INCLUDING
ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS, IN NO EVENT SHALL
EXAMPLE CORP BE LIABLE FOR ANY SPECIAL, INDIRECT OR CONSEQUENTIAL DAMAGES OR
ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN
AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR
IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
`

// proprietary is terms srb must not publish as any SPDX id.
var proprietary = strings.Repeat(`This software is the confidential and proprietary information of Example
Corp. You shall not disclose such confidential information and shall use it
only in accordance with the terms of the licence agreement you entered into
with Example Corp. Redistribution in any form is prohibited.
`, 4)

// TestLowCoverageNeedsReview (issue 15): proprietary terms holding one
// HPND-like paragraph were published as "HPND". A licence file known texts
// cover less than MinCoverage of is now published as needing review, and
// srb validate names it; the HPND text on its own is still HPND.
func TestLowCoverageNeedsReview(t *testing.T) {
	hits, err := detect([]byte(proprietary + "\n" + hpndText))
	if err != nil || len(ids(hits)) != 1 || ids(hits)[0] != "HPND" {
		t.Fatalf("the paragraph is not HPND to licensecheck (%v, %v): the test would prove nothing", ids(hits), err)
	}
	alone, err := Analyse(writeArchive(t, "p-1", map[string]string{"LICENSE": "Copyright (c) 1999 Example Corp\n\n" + hpndText}))
	if err != nil || alone.Expression != "HPND" || alone.Review != nil {
		t.Fatalf("HPND alone: %+v, %v", alone, err)
	}
	arch := writeArchive(t, "p-1", map[string]string{
		"LICENSE": "Copyright (c) 1999 Example Corp\n\n" + proprietary + "\n" + hpndText,
		"main.c":  "int main(void) { return 0; }\n",
	})
	got, err := Analyse(arch)
	if err != nil {
		t.Fatal(err)
	}
	if got.Expression != "" || len(got.Review) != 1 || got.Review[0].Path != "LICENSE" || got.Review[0].Coverage >= MinCoverage || got.Review[0].Coverage < 20 {
		t.Fatalf("finding %+v: want no expression and LICENSE under review at its coverage", got)
	}
	text := string(Render([]Entry{{Task: "x", Project: "p", Version: "1", Upstream: "https://example.invalid", SHA256: "00", Finding: got}}))
	if strings.Contains(text, "HPND") || !strings.Contains(text, "Terms need review by hand") || !strings.Contains(text, "Needs review: known licence texts match less than 80% of LICENSE (") {
		t.Errorf("NOTICE entry:\n%s", text)
	}
	tk := &task.Task{ID: "x", File: "task.cue", StateA: task.StateA{License: "HPND"}}
	ps := Check(tk, arch)
	if len(ps) != 1 || ps[0].Path != "state_a.license" || !strings.Contains(ps[0].Msg, "licence file(s) LICENSE (") || !strings.Contains(ps[0].Msg, "review the terms by hand") {
		t.Errorf("Check = %+v, want one problem naming LICENSE", ps)
	}
	// A second, well-matched licence file does not launder the first.
	got, err = Analyse(writeArchive(t, "p-1", map[string]string{"LICENSE": proprietary, "COPYING": mitText}))
	if err != nil || got.Expression != "" || len(got.Review) != 1 || got.Review[0].Path != "LICENSE" {
		t.Errorf("proprietary beside MIT: %+v, %v", got, err)
	}
}

// TestDeclaredOr (issue 15): "MIT OR Apache-2.0" declared by a package
// became "Apache-2.0 AND MIT". A choice the release's own metadata
// declares, between exactly the licences its licence files hold, stays
// OR; metadata that names other licences changes nothing.
func TestDeclaredOr(t *testing.T) {
	files := func(meta, body string) map[string]string {
		return map[string]string{"LICENSE-MIT": "Copyright (c) 2020 A\n\n" + mitText, "LICENSE-ISC": "Copyright (c) 2020 A\n\n" + iscText, meta: body}
	}
	for _, tt := range []struct {
		name, meta, body, want string
	}{
		{"Cargo.toml", "Cargo.toml", "[package]\nname = \"x\"\nversion = \"1.0.0\"\nlicense = \"MIT OR ISC\"\n", "ISC OR MIT"},
		{"Cargo.toml slash", "Cargo.toml", "[package]\nlicense = \"MIT/ISC\"\n", "ISC OR MIT"},
		{"package.json", "package.json", `{"name": "x", "license": "(ISC OR MIT)"}`, "ISC OR MIT"},
		{"pyproject.toml", "pyproject.toml", "[project]\nname = \"x\"\nlicense = {text = \"MIT OR ISC\"}\n", "ISC OR MIT"},
		{"setup.cfg", "setup.cfg", "[metadata]\nname = x\nlicense = MIT OR ISC\n", "ISC OR MIT"},
		{"gemspec", "x.gemspec", "Gem::Specification.new do |s|\n  s.license = 'MIT OR ISC'\nend\n", "ISC OR MIT"},
		{"AND declared", "Cargo.toml", "[package]\nlicense = \"MIT AND ISC\"\n", "ISC AND MIT"},
		{"OR of other licences", "Cargo.toml", "[package]\nlicense = \"MIT OR Apache-2.0\"\n", "ISC AND MIT"},
		{"no metadata", "README", "x\n", "ISC AND MIT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arch := writeArchive(t, "x-1", files(tt.meta, tt.body))
			got, err := Analyse(arch)
			if err != nil {
				t.Fatal(err)
			}
			if got.Expression != tt.want {
				t.Errorf("Expression = %q, want %q (declared %q)", got.Expression, tt.want, got.Declared)
			}
			tk := &task.Task{ID: "x", File: "task.cue", StateA: task.StateA{License: tt.want}}
			if ps := Check(tk, arch); len(ps) != 0 {
				t.Errorf("Check(%q) = %v", tt.want, ps)
			}
		})
	}
	// Under the choice, a file whose header names one of its licences is
	// not under other terms.
	f := files("Cargo.toml", "[package]\nlicense = \"MIT OR ISC\"\n")
	f["src/lib.rs"] = "// SPDX-License-Identifier: MIT\nfn x() {}\n"
	f["src/gpl.c"] = "/* SPDX-License-Identifier: GPL-2.0-only */\n"
	got, err := Analyse(writeArchive(t, "x-1", f))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]OtherTerm{{Path: "src/gpl.c", ID: "GPL-2.0-only", From: "header"}}, got.OtherTerms); diff != "" {
		t.Errorf("other terms (-want +got):\n%s", diff)
	}
}

// TestLicenceTextCopyright (issue 15): the FSF's copyright on the GPL's
// own text was listed as a holder of the release.
func TestLicenceTextCopyright(t *testing.T) {
	gpl, err := os.ReadFile("testdata/GPL-2.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gpl), "Free Software Foundation, Inc.") {
		t.Fatal("testdata/GPL-2.0.txt lacks the FSF's line")
	}
	got, err := Analyse(writeArchive(t, "g-1", map[string]string{
		"COPYING": string(gpl),
		"AUTHORS": "x\n",
		"main.c":  "/* Copyright (C) 2020 Real Author */\nint main;\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Expression != "GPL-2.0" || len(got.Copyright) != 0 || got.Review != nil {
		t.Errorf("finding %+v: want GPL-2.0 and no holder from the licence's own text", got)
	}
	for _, tt := range []struct{ in, want string }{
		{"Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>\n Everyone is permitted to copy and distribute verbatim copies\n of this license document, but changing it is not allowed.\n", ""},
		{"Copyright (C) 1989, 1991 Free Software Foundation, Inc.,\n 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA\n Everyone is permitted to copy and distribute verbatim copies\n of this license document, but changing it is not allowed.\n", ""},
		{"Copyright (c) 2000-2006, The Perl Foundation.\n\nEveryone is permitted to copy and distribute verbatim copies of this\nlicense document, but changing it is not allowed.\n", ""},
		{"Copyright (C) 2010 Free Software Foundation, Inc.\nThis file is part of GNU Foo.\n", "Copyright (C) 2010 Free Software Foundation, Inc."},
		{"Gnomovision version 69, Copyright (C) year name of author\n", ""},
	} {
		if got := strings.Join(copyrights([]byte(tt.in)), "|"); got != tt.want {
			t.Errorf("copyrights(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// forged is what an archive member's name tries to write into NOTICE: the
// end of the entry, a rule, and a whole entry of its own.
const forged = "\n--------------------------------------------------------------------------------\nzz-forged-task\n    evil 1.0 -- https://evil.invalid\n    MIT.  Copyright 2026 Nobody\n"

// TestMemberNamesCannotForgeNOTICE (issue 15): an archive member name with
// newlines wrote forged lines, even a whole forged entry, into NOTICE. Every
// name is quoted when it holds a control character, so each field stays one
// line and no line of NOTICE starts with the forged text.
func TestMemberNamesCannotForgeNOTICE(t *testing.T) {
	arch := writeArchive(t, "p-1", map[string]string{
		"LICENSE":                      "Copyright (c) 2020 A\x1b[2K\rForged Holder\n\n" + mitText,
		"src/x.go" + forged:            apacheHeader,
		"vendor" + forged + "/LICENSE": iscText,
		"docs\u2028/NOTICE":            "Docs notice.\r\nSecond line\x1b[1A.\n",
	})
	f, err := Analyse(arch)
	if err != nil {
		t.Fatal(err)
	}
	out := Render([]Entry{{Task: "a-task", Project: "p", Version: "1", Upstream: "https://example.invalid", SHA256: "00", Finding: f}})
	assertNoForgery(t, out)
	if !strings.Contains(string(out), `"src/x.go\n------`) || !strings.Contains(string(out), `Copyright (c) 2020 A\x1b[2K\rForged Holder`) {
		t.Errorf("the names are not shown quoted:\n%s", out)
	}
	// Render escapes whatever Entry it is given, from an archive or not.
	e := Entry{Task: "t" + forged, Project: "p" + forged, Version: "1", Upstream: "u", SHA256: "00",
		Finding: &Finding{Expression: "MIT" + forged, Copyright: []string{"c" + forged}, LicenceFiles: []string{"L" + forged},
			OtherTerms: []OtherTerm{{Path: "o" + forged, ID: "MIT", From: "header"}}, Notices: []NoticeFile{{Path: "N" + forged, Text: "ok\n\x1b[2K"}}}}
	assertNoForgery(t, Render([]Entry{e}))
}

// assertNoForgery fails when a line of out starts with the forged entry or
// holds a character that is neither printable nor a tab.
func assertNoForgery(t *testing.T, out []byte) {
	t.Helper()
	rules := 0
	for i, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "zz-forged-task") || strings.HasPrefix(line, "    evil 1.0") {
			t.Errorf("line %d is forged: %q", i+1, line)
		}
		if line == ruleDash {
			rules++
		}
		for _, r := range line {
			if r != '\t' && !unicode.IsPrint(r) {
				t.Errorf("line %d holds %U: %q", i+1, r, line)
			}
		}
	}
	if rules != 1 {
		t.Errorf("NOTICE has %d entry rules, want 1 (one entry, no upstream NOTICE section rule beyond it)\n%s", rules, out)
	}
}
