package notice

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/task"
)

const mitText = `Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`

const iscText = `Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
`

const apacheHeader = `// Copyright 2020 Example Corp
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package x
`

// writeArchive packs files (path → content) under the folder top into a
// .tar.gz in a temporary folder, in the order given by paths.
func writeArchive(t *testing.T, top string, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tw.WriteHeader(&tar.Header{Name: top + "/", Typeflag: tar.TypeDir, Mode: 0o755}))
	for _, p := range sortedKeys(files) {
		must(tw.WriteHeader(&tar.Header{Name: top + "/" + p, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(files[p]))}))
		_, err := tw.Write([]byte(files[p]))
		must(err)
	}
	must(tw.Close())
	must(zw.Close())
	p := filepath.Join(t.TempDir(), "original.tar.gz")
	must(os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sortStrings(ks)
	return ks
}

// TestAnalyseSynthetic covers what the real archives do not: a licence
// file that names files and a folder, nested licence files, a NOTICE
// below the top, binary files, a release with no licence file.
func TestAnalyseSynthetic(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  Finding
	}{{
		name: "licence file names files",
		files: map[string]string{
			"LICENSE": "Copyright (c) 2020 Main Author\n\n" + iscText +
				"\n-----\n\nlib/strutil.c and lib/ext/ are derived from other work:\n\nCopyright (c) 2001 Other Author\n\n" + mitText,
			"lib/strutil.c":       "int x;\n",
			"lib/ext/a.c":         "int a;\n",
			"main.c":              "/* Copyright (c) 2020 Main Author. See LICENSE. */\nint main(void) { return 0; }\n",
			"go/x.go":             apacheHeader,
			"logo.png":            "\x89PNG\x00\x00 Copyright 2020 licence",
			"third_party/LICENSE": mitText,
			"third_party/t.c":     "int t;\n",
			"docs/NOTICE.txt":     "Docs notice.\n",
		},
		want: Finding{
			Top: "proj-1.0", Expression: "ISC AND MIT", Main: "ISC",
			Copyright:          []string{"Copyright (c) 2020 Main Author", "Copyright (c) 2001 Other Author"},
			LicenceFiles:       []string{"LICENSE"},
			NestedLicenceFiles: []string{"third_party/LICENSE"},
			OtherTerms: []OtherTerm{
				{Path: "go/x.go", ID: "Apache-2.0", From: "header"},
				{Path: "lib/ext/", ID: "MIT", From: "LICENSE"},
				{Path: "lib/strutil.c", ID: "MIT", From: "LICENSE"},
				{Path: "third_party/", ID: "MIT", From: "third_party/LICENSE"},
			},
			Notices: []NoticeFile{{Path: "docs/NOTICE.txt", Text: "Docs notice.\n"}},
		},
	}, {
		name: "no licence file: headers",
		files: map[string]string{
			"a.go":   apacheHeader,
			"b.go":   apacheHeader,
			"c.go":   "// Copyright 2021 Someone\n// SPDX-License-Identifier: MIT\npackage x\n",
			"README": "No licence here.\n",
		},
		want: Finding{
			Top: "proj-1.0", Expression: "Apache-2.0 AND MIT", Main: "Apache-2.0", FromHeaders: true,
			Copyright:  []string{"Copyright 2020 Example Corp", "Copyright 2021 Someone"},
			OtherTerms: []OtherTerm{{Path: "c.go", ID: "MIT", From: "header"}},
		},
	}, {
		name:  "nothing recognised",
		files: map[string]string{"main.c": "int main(void) { return 0; }\n"},
		want:  Finding{Top: "proj-1.0", FromHeaders: true},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Analyse(writeArchive(t, "proj-1.0", tt.files))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalyseErrors(t *testing.T) {
	dir := t.TempDir()
	notGzip := filepath.Join(dir, "x.tar.gz")
	if err := os.WriteFile(notGzip, []byte("this is plain text, not a gzip stream\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Analyse(notGzip)
	if err == nil || !strings.HasPrefix(err.Error(), "analyse licences of "+notGzip+": gzip: invalid header") {
		t.Errorf("not gzip: %v", err)
	}
	_, err = Analyse(filepath.Join(dir, "absent.tar.gz"))
	if err == nil || !strings.HasPrefix(err.Error(), "analyse licences: open ") || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("absent: %v", err)
	}
}

// TestFixture analyses the fixture task's State A (a local folder, no
// registry): MIT, one copyright line, nothing else.
func TestFixture(t *testing.T) {
	got, err := Analyse(fixtureArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	want := Finding{Top: "tally-1.0", Expression: "MIT", Main: "MIT",
		Copyright: []string{"Copyright (c) 2026 The srb Authors"}, LicenceFiles: []string{"LICENSE"}}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	tk, ps := task.Load(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	archive := fixtureArchive(t)
	for _, tt := range []struct{ license, want string }{
		{"MIT", ""},
		{"(MIT)", ""},
		{"Apache-2.0", `state_a.license: declares "Apache-2.0" but State A's LICENSE state "MIT": declare "MIT", or find out why the archive disagrees [license-found]`},
		{"MIT OR Apache-2.0", `state_a.license: declares "MIT OR Apache-2.0" but State A's LICENSE state "MIT": declare "MIT", or find out why the archive disagrees [license-found]`},
		{"MIT AND", `state_a.license: parse licence expression "MIT AND": expression ends early: write an SPDX expression such as "MIT" or "Apache-2.0 AND MIT" [license-found]`},
	} {
		tk.StateA.License = tt.license
		var got []string
		for _, p := range Check(tk, archive) {
			if !p.Pos.IsValid() || p.Pos.Line() != 14 {
				t.Errorf("%q: problem at %v, want task.cue line 14", tt.license, p.Pos)
			}
			got = append(got, strings.SplitN(p.Error(), ": ", 2)[1])
		}
		if want := []string{tt.want}; tt.want == "" && len(got) != 0 || tt.want != "" && !cmp.Equal(got, want) {
			t.Errorf("Check with %q: got %q, want %q", tt.license, got, tt.want)
		}
	}
	tk.StateA.License = "MIT"
	ps = Check(tk, filepath.Join(t.TempDir(), "absent.tar.gz"))
	if len(ps) != 1 || ps[0].Rule != RuleLicenseFound || !strings.HasPrefix(ps[0].Msg, "cannot check the declared licence against State A: analyse licences: open ") {
		t.Errorf("absent archive: %v", ps)
	}
}

func TestParseExpr(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "MIT", want: "MIT"},
		{in: "MIT AND Apache-2.0", want: "Apache-2.0 AND MIT"},
		{in: "Apache-2.0 and MIT and MIT", want: "Apache-2.0 AND MIT"},
		{in: "ISC OR MIT", want: "ISC OR MIT"},
		{in: "MIT OR ISC AND Zlib", want: "(ISC AND Zlib) OR MIT"},
		{in: "(MIT OR ISC) AND Zlib", want: "(ISC OR MIT) AND Zlib"},
		{in: "A AND (B AND C)", want: "A AND B AND C"},
		{in: "GPL-2.0-or-later WITH Autoconf-exception-generic AND MIT", want: "GPL-2.0-or-later WITH Autoconf-exception-generic AND MIT"},
		{in: "GPL-2.0+", want: "GPL-2.0+"},
		{in: "", err: `parse licence expression "": empty`},
		{in: "MIT AND", err: `parse licence expression "MIT AND": expression ends early`},
		{in: "(MIT", err: `parse licence expression "(MIT": missing )`},
		{in: "MIT ISC", err: `parse licence expression "MIT ISC": unexpected "ISC"`},
		{in: "MIT/X11", err: `parse licence expression "MIT/X11": "MIT/X11" is not a licence id (letters, digits, '.', '-', '+')`},
		{in: "GPL-2.0 WITH", err: `parse licence expression "GPL-2.0 WITH": WITH needs an exception id`},
	} {
		e, err := ParseExpr(tt.in)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseExpr(%q) error %v, want %s", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseExpr(%q): %v", tt.in, err)
		case e.String() != tt.want:
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.in, e, tt.want)
		}
	}
	a, _ := ParseExpr("MIT AND Apache-2.0")
	b, _ := ParseExpr("Apache-2.0 AND MIT")
	c, _ := ParseExpr("Apache-2.0 OR MIT")
	if !a.Equal(b) || a.Equal(c) {
		t.Errorf("Equal: AND in either order must be equal, AND and OR must differ")
	}
	if got := c.IDs(); !cmp.Equal(got, []string{"Apache-2.0", "MIT"}) {
		t.Errorf("IDs = %v", got)
	}
}

func TestCopyrights(t *testing.T) {
	in := `Copyright (c) 2014, John MacFarlane
All rights reserved.
are derived from code (C) 2012 Github, Inc.
The above copyright notice and this permission notice shall be included
THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS
 * Copyright (c) 2013-2019
 * Frank Denis <j at pureftpd dot org>
Copyright [yyyy] [name of copyright owner]
Copyright (c) <year> <copyright holders>
markdowntest project, Copyright 2013 Karl Dubost:
(c) You must cause any modified files to carry prominent notices
Copyright © 2020 Ünïcode Holder
Copyright: 2011-2015 Kenneth Reitz <_@kennethreitz.com>
Copyright: not applicable
`
	want := []string{
		"Copyright (c) 2014, John MacFarlane",
		"Copyright (C) 2012 Github, Inc.",
		"Copyright (c) 2013-2019 Frank Denis <j at pureftpd dot org>",
		"Copyright 2013 Karl Dubost",
		"Copyright © 2020 Ünïcode Holder",
		"Copyright 2011-2015 Kenneth Reitz <_@kennethreitz.com>",
	}
	if diff := cmp.Diff(want, copyrights([]byte(in))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHeaderBlock(t *testing.T) {
	for _, tt := range []struct{ name, head, keyword, want string }{
		{"block comment", "#include <x.h>\n/*\n   Written by X\n   public domain\n*/\nint x;\n", "public domain", "/*\n   Written by X\n   public domain\n*/"},
		{"line comments", "#!/bin/sh\n# Copyright 2020 X\n#\n# licensed as ...\nexit 0\n", "licen", "#!/bin/sh\n# Copyright 2020 X\n#\n# licensed as ..."},
		{"prose", "title: Spec\nlicense: CC-BY-SA 4.0\n...\n", "licen", "title: Spec\nlicense: CC-BY-SA 4.0\n...\n"},
	} {
		at := strings.Index(strings.ToLower(tt.head), tt.keyword)
		if got := string(headerBlock([]byte(tt.head), at)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// sampleEntries are NOTICE entries covering every part of an entry.
func sampleEntries() []Entry {
	many := make([]OtherTerm, 0, 14)
	for _, f := range []string{"a.c", "b.c", "c.c", "d.c", "e.c", "f.c"} {
		many = append(many, OtherTerm{Path: "src/vendored/" + f, ID: "CC0-1.0", From: "header"})
	}
	for _, f := range []string{"x.c", "y.c"} {
		many = append(many, OtherTerm{Path: "src/other/" + f, ID: "CC0-1.0", From: "header"})
	}
	for _, f := range []string{"one.c", "two.c", "three.c", "four.c"} {
		many = append(many, OtherTerm{Path: f, ID: "CC0-1.0", From: "header"})
	}
	many = append(many, OtherTerm{Path: "m4/ax_tls.m4", ID: "GPL-3.0-or-later WITH Autoconf-exception-macro", From: "header"})
	return []Entry{
		{Task: "lang05-yaml-go-to-rust", Project: "go-yaml", Version: "v3.0.1", Upstream: "https://github.com/go-yaml/yaml", SHA256: strings.Repeat("ab", 32),
			Finding: &Finding{Top: "go-yaml-v3.0.1", Expression: "Apache-2.0 AND MIT", Main: "Apache-2.0",
				Copyright: []string{"Copyright (c) 2006-2010 Kirill Simonov", "Copyright (c) 2011-2019 Canonical Ltd"}, LicenceFiles: []string{"LICENSE"},
				OtherTerms: []OtherTerm{{Path: "apic.go", ID: "MIT", From: "LICENSE"}},
				Notices:    []NoticeFile{{Path: "NOTICE", Text: "Copyright 2011-2016 Canonical Ltd.\n\nLicensed under the Apache License, Version 2.0.\n"}}}},
		{Task: "build01-libsodium-autotools-to-cmake", Project: "libsodium", Version: "1.0.18", Upstream: "https://github.com/jedisct1/libsodium", SHA256: strings.Repeat("cd", 32),
			Finding: &Finding{Top: "libsodium-1.0.18", Expression: "ISC", Main: "ISC", Copyright: []string{"Copyright (c) 2013-2019 Frank Denis <j at pureftpd dot org>"},
				LicenceFiles: []string{"LICENSE"}, NestedLicenceFiles: []string{"vendor/thing/COPYING"}, OtherTerms: many}},
		{Task: "pf03-quickjs-c-to-rust", Project: "QuickJS", Version: "2020-11-08", Upstream: "https://bellard.org/quickjs/a/very/long/path/that/does/not/fit/on/one/line/with/the/project/name", SHA256: strings.Repeat("ef", 32),
			Finding: &Finding{Top: "QuickJS-2020-11-08", Expression: "MIT", Main: "MIT", FromHeaders: true, Copyright: []string{"Copyright (c) 2017-2020 Fabrice Bellard"},
				Notices: []NoticeFile{{Path: "doc/NOTICE", Text: "No trailing newline"}}}},
		{Task: "zz99-nothing", Project: "nothing", Version: "0", Upstream: "https://example.invalid", SHA256: strings.Repeat("00", 32), Finding: &Finding{Top: "nothing-0", FromHeaders: true}},
	}
}

// TestRender compares the NOTICE of sampleEntries with
// testdata/TestRender.golden (SRB_UPDATE=1 rewrites it).
func TestRender(t *testing.T) {
	got := Render(sampleEntries())
	golden := filepath.Join("testdata", t.Name()+".golden")
	if os.Getenv("SRB_UPDATE") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(golden, "Render", want, got); d != nil {
		t.Errorf("NOTICE differs from the golden (SRB_UPDATE=1 rewrites it):\n%s", d)
	}
	for i, line := range strings.Split(string(got), "\n") {
		if len([]rune(line)) > width && !strings.Contains(line, "/") && !strings.HasPrefix(line, "No trailing") {
			t.Errorf("line %d is longer than %d columns: %q", i+1, width, line)
		}
	}
	head := string(got[:600])
	if !strings.Contains(head, "LICENSE") || !strings.Contains(head, "Apache License") {
		t.Errorf("the first 600 bytes must name LICENSE and the Apache License (HARNESS.md §5.1)")
	}
}

// TestRenderDeterministic renders the same entries twice, and in shuffled
// orders, and wants the same bytes every time.
func TestRenderDeterministic(t *testing.T) {
	es := sampleEntries()
	first := Render(es)
	if !bytes.Equal(first, Render(es)) {
		t.Fatal("two renders of the same entries differ")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		sh := append([]Entry(nil), es...)
		r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		terms := sh[1].Finding.OtherTerms // a shared slice: Render must not reorder it
		before := append([]OtherTerm(nil), terms...)
		if got := Render(sh); !bytes.Equal(first, got) {
			t.Fatalf("shuffled input renders differently:\n%s", Diff("first", "shuffled", first, got))
		}
		if !cmp.Equal(before, terms) {
			t.Fatal("Render modified its input")
		}
	}
	if got := string(Render(nil)); !strings.Contains(got, "No task under tasks/ ships a release yet.") {
		t.Errorf("empty NOTICE: %q", got)
	}
}

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := `--- NOTICE
+++ NOTICE (regenerated)
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := string(Diff("NOTICE", "NOTICE (regenerated)", []byte(old), []byte(new))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Diff("a", "b", []byte(old), []byte(old)) != nil {
		t.Error("equal inputs must give nil")
	}
	if got, want := string(Diff("a", "b", nil, []byte("x"))), "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n"; got != want {
		t.Errorf("from empty: got %q, want %q", got, want)
	}
	// Random inputs: applying the diff to old gives new.
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		a, b := randomLines(r), randomLines(r)
		if got := applyDiff(t, a, Diff("a", "b", []byte(a), []byte(b))); got != b {
			t.Fatalf("applying the diff of %q → %q gives %q:\n%s", a, b, got, Diff("a", "b", []byte(a), []byte(b)))
		}
	}
}

func randomLines(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(25) {
		sb.WriteString(string(rune('a'+r.IntN(4))) + "\n")
	}
	return sb.String()
}

// splitLines splits b after each newline; a last line without one is kept.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// applyDiff applies a unified diff of whole lines to old.
func applyDiff(t *testing.T, old string, d []byte) string {
	t.Helper()
	if d == nil {
		return old
	}
	a := splitLines([]byte(old))
	var out []string
	pos := 0
	for _, line := range splitLines(d)[2:] {
		switch line[0] {
		case '@':
			var as, an, bs, bn int
			if _, err := fmtSscanHunk(line, &as, &an, &bs, &bn); err != nil {
				t.Fatalf("bad hunk header %q: %v", line, err)
			}
			start := as - 1
			if an == 0 {
				start = as
			}
			out = append(out, a[pos:start]...)
			pos = start
		case ' ':
			out = append(out, a[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, line[1:])
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, "")
}

// TestExceptions checks that a GPL notice followed by a licence exception
// is reported WITH that exception.
func TestExceptions(t *testing.T) {
	const gpl3 = `# This program is free software: you can redistribute it and/or modify it
# under the terms of the GNU General Public License as published by the
# Free Software Foundation, either version 3 of the License, or (at your
# option) any later version.
#
# This program is distributed in the hope that it will be useful, but
# WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General
# Public License for more details.
#
# You should have received a copy of the GNU General Public License along
# with this program. If not, see <https://www.gnu.org/licenses/>.
#
`
	for _, tt := range []struct{ exception, want string }{
		{"", "GPL-3.0-or-later"},
		{"# As a special exception, the respective Autoconf Macro's copyright owner\n# gives unlimited permission to copy, distribute and modify the configure\n# scripts that are the output of Autoconf when processing the Macro.\n",
			"GPL-3.0-or-later WITH Autoconf-exception-macro"},
		{"# As a special exception to the GNU General Public License, if you\n# distribute this file as part of a program that contains a\n# configuration script generated by Autoconf, you may include it under\n# the same distribution terms that you use for the rest of that\n# program.  This Exception is an additional permission under section 7\n# of the GNU General Public License, version 3 (\"GPLv3\").\n",
			"GPL-3.0-or-later WITH Autoconf-exception-generic-3.0"},
		{"# As a special exception to the GNU General Public License, if you\n# distribute this file as part of a program that contains a\n# configuration script generated by Autoconf, you may include it under\n# the same distribution terms that you use for the rest of that program.\n",
			"GPL-3.0-or-later WITH Autoconf-exception-generic"},
	} {
		hits, err := detect([]byte(gpl3 + tt.exception))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(ids(hits), " AND "); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
