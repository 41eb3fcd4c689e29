package notice

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// Entry is one task's line of the NOTICE: the State A it pins and what
// its archive says.
type Entry struct {
	Task     string   `json:"task"`     // the task id
	Project  string   `json:"project"`  // state_a.project
	Version  string   `json:"version"`  // state_a.version
	Upstream string   `json:"upstream"` // state_a.upstream
	SHA256   string   `json:"sha256"`   // the State A pin
	Finding  *Finding `json:"finding"`
}

const (
	width = 80
	// longList is how many paths one licence may list in full; a longer
	// list folds each folder holding foldAt or more of them into
	// "N files under DIR/".
	longList = 10
	foldAt   = 4
)

var (
	ruleEq   = strings.Repeat("=", width)
	ruleDash = strings.Repeat("-", width)
)

const header = `srb, the SWE Refactor Bench toolkit
Copyright 2026 The srb Authors

This repository's own work is licensed under the Apache License, Version 2.0;
the full text is in LICENSE.

`

const preface = `Each task under tasks/ pins one upstream release, unmodified, as its State A
(fetched into srb's cache by the sha256 of its canonical tar, shown under each
entry, and given to the stages as original.tar.gz). The Apache License covers
this repository's own work, not those releases: each keeps its own terms, with
its licence text inside its archive at the paths named below (relative to the
archive's top folder).

Every entry was read out of its archive by "srb notice", which regenerates
this file; "srb notice --check" fails when it is stale. Expressions are SPDX
ids: "AND" joins parts under different terms. "Other terms" lists the files
inside a release that carry terms other than the release's own, as their
headers or the release's licence files state them.

A task's truth/ folder is committed: it holds what State A printed when run
on its own test corpus (the ground truth stage 2 compares with). What is
recorded from a corpus file keeps that file's terms as listed under the
task's entry (a specification's examples under CC-BY-SA-4.0 stay under it).
`

// Render returns the NOTICE text for entries: a header naming srb's own
// licence (Apache-2.0, in LICENSE), one entry per task sorted by task id,
// then every upstream NOTICE file reproduced in full, each line indented
// four spaces. The same entries in
// any order give the same bytes; entries is not modified. Every field is
// written on its own line(s) only: a control character in a name, a
// copyright line or a task field is escaped (oneLine), and a reproduced
// NOTICE file keeps its lines with anything else escaped, so nothing from
// an archive can forge a line or an entry.
func Render(entries []Entry) []byte {
	es := make([]Entry, len(entries))
	for i, e := range entries {
		es[i] = safeEntry(e)
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Task < es[j].Task })
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "%s\nThird-party software redistributed by this repository\n%s\n\n", ruleEq, ruleEq)
	b.WriteString(preface)
	if len(es) == 0 {
		b.WriteString("\nNo task under tasks/ ships a release yet.\n")
	}
	for _, e := range es {
		b.WriteString("\n" + ruleDash + "\n")
		renderEntry(&b, e)
	}
	var notices []string
	for _, e := range es {
		if e.Finding == nil {
			continue
		}
		for _, n := range e.Finding.Notices {
			var nb strings.Builder
			fmt.Fprintf(&nb, "%s: %s, from %s %s\n\n", e.Task, n.Path, e.Project, e.Version)
			// Indented, so no line of an upstream file can pass for a
			// rule, a heading or an entry of srb's own.
			for _, line := range strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n") {
				if line != "" {
					nb.WriteString("    " + line)
				}
				nb.WriteString("\n")
			}
			notices = append(notices, nb.String())
		}
	}
	if len(notices) > 0 {
		fmt.Fprintf(&b, "\n%s\nUpstream NOTICE files, reproduced (Apache-2.0 section 4(d))\n%s\n", ruleEq, ruleEq)
		for i, n := range notices {
			if i > 0 {
				b.WriteString("\n" + ruleDash + "\n")
			}
			b.WriteString("\n" + n)
		}
	}
	return b.Bytes()
}

// oneLine returns s with every control character, tab and newline escaped
// (archive.EscapeText, then \n and \t), so a field is one line of NOTICE
// whatever an archive or a task file put in it.
func oneLine(s string) string {
	s = archive.EscapeText(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// oneLines applies oneLine to each of xs, in a new slice.
func oneLines(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = oneLine(x)
	}
	return out
}

// safeFinding returns a copy of f with every field Render writes on one line
// passed through oneLine (notice texts through archive.EscapeText).
func safeFinding(f *Finding) *Finding {
	g := *f
	g.Top, g.Expression, g.Main = oneLine(f.Top), oneLine(f.Expression), oneLine(f.Main)
	g.Copyright = oneLines(f.Copyright)
	g.LicenceFiles = oneLines(f.LicenceFiles)
	g.NestedLicenceFiles = oneLines(f.NestedLicenceFiles)
	g.Review = make([]Review, len(f.Review))
	for i, r := range f.Review {
		g.Review[i] = Review{Path: oneLine(r.Path), Coverage: r.Coverage}
	}
	g.OtherTerms = make([]OtherTerm, len(f.OtherTerms))
	for i, t := range f.OtherTerms {
		g.OtherTerms[i] = OtherTerm{Path: oneLine(t.Path), ID: oneLine(t.ID), From: oneLine(t.From)}
	}
	g.Notices = make([]NoticeFile, len(f.Notices))
	for i, n := range f.Notices {
		g.Notices[i] = NoticeFile{Path: oneLine(n.Path), Text: archive.EscapeText(n.Text)}
	}
	return &g
}

// safeEntry returns e with its one-line fields escaped (oneLine, safeFinding).
func safeEntry(e Entry) Entry {
	e.Task, e.Project, e.Version, e.Upstream, e.SHA256 = oneLine(e.Task), oneLine(e.Project), oneLine(e.Version), oneLine(e.Upstream), oneLine(e.SHA256)
	if e.Finding != nil {
		e.Finding = safeFinding(e.Finding)
	}
	return e
}

func renderEntry(b *bytes.Buffer, e Entry) {
	const in, in2 = "    ", "        "
	b.WriteString(e.Task + "\n")
	wrap(b, in, in2, fmt.Sprintf("%s %s -- %s", e.Project, e.Version, e.Upstream))
	b.WriteString(in + "sha256 " + e.SHA256 + "\n")
	f := e.Finding
	if f == nil {
		f = &Finding{}
	}
	expr := f.Expression
	switch {
	case expr == "" && hasTopReview(f):
		expr = "Terms need review by hand: no SPDX expression is published"
	case expr == "":
		expr = "No licence recognised"
	}
	first := expr + "."
	if len(f.Copyright) > 0 {
		first += "  " + f.Copyright[0]
	}
	wrap(b, in, in2, first)
	for _, c := range f.Copyright[min(1, len(f.Copyright)):] {
		wrap(b, in2, in2, c)
	}
	switch {
	case len(f.LicenceFiles) > 0:
		wrap(b, in, in2, "Licence text: "+strings.Join(f.LicenceFiles, ", "))
	case f.FromHeaders && f.Expression != "":
		wrap(b, in, in2, "Licence text: none; the expression comes from file headers.")
	default:
		wrap(b, in, in2, "Licence text: none found.")
	}
	if len(f.Review) > 0 {
		var rs []string
		for _, r := range f.Review {
			rs = append(rs, fmt.Sprintf("%s (%d%% of its words)", r.Path, r.Coverage))
		}
		wrap(b, in, in2, fmt.Sprintf("Needs review: known licence texts match less than %d%% of %s.", MinCoverage, strings.Join(rs, ", ")))
	}
	if len(f.NestedLicenceFiles) > 0 {
		wrap(b, in, in2, "Licence files deeper in the tree: "+strings.Join(f.NestedLicenceFiles, ", "))
	}
	if len(f.Notices) > 0 {
		var ps []string
		for _, n := range f.Notices {
			ps = append(ps, n.Path)
		}
		wrap(b, in, in2, "Upstream NOTICE: "+strings.Join(ps, ", ")+" (reproduced below)")
	}
	if len(f.OtherTerms) > 0 {
		b.WriteString(in + "Other terms:\n")
		for _, g := range groupTerms(f.OtherTerms) {
			items := foldPaths(g.paths)
			for i, it := range items {
				items[i] = strings.ReplaceAll(it, " ", nbsp) // "N files under DIR/" stays on one line
			}
			wrap(b, in2, in2+"    ", g.id+": "+strings.Join(items, ", "))
		}
	}
}

type termGroup struct {
	id    string
	paths []string
}

// groupTerms groups other terms by licence, in id order.
func groupTerms(ts []OtherTerm) []termGroup {
	by := map[string][]string{}
	for _, t := range ts {
		by[t.ID] = append(by[t.ID], t.Path)
	}
	var gs []termGroup
	for id, ps := range by {
		sort.Strings(ps)
		gs = append(gs, termGroup{id, ps})
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].id < gs[j].id })
	return gs
}

// foldPaths lists paths, sorted; in a list longer than longList, the
// files of a folder (other than the top one) that holds foldAt or more of
// them are folded into "N files under DIR/".
func foldPaths(paths []string) []string {
	if len(paths) <= longList {
		return paths
	}
	count := map[string]int{}
	for _, p := range paths {
		count[path.Dir(p)]++
	}
	var out []string
	done := map[string]bool{}
	for _, p := range paths {
		d := path.Dir(p)
		switch {
		case strings.HasSuffix(p, "/") || d == "." || count[d] < foldAt:
			out = append(out, p)
		case !done[d]:
			done[d] = true
			out = append(out, fmt.Sprintf("%d files under %s/", count[d], d))
		}
	}
	return out
}

// nbsp marks a space wrap must not break at; wrap writes it as a space.
const nbsp = "\x00"

// wrap writes s at indent first, breaking at spaces before column width;
// continuation lines start with indent rest. A word longer than a line
// stays whole.
func wrap(b *bytes.Buffer, first, rest, s string) {
	line := first
	empty := true
	for _, w := range strings.Split(s, " ") {
		if w == "" {
			if !empty {
				line += " " // keep double spaces after a full stop
			}
			continue
		}
		switch {
		case empty:
			line += w
			empty = false
		case len(line)+1+len(w) > width:
			b.WriteString(strings.ReplaceAll(strings.TrimRight(line, " "), nbsp, " ") + "\n")
			line = rest + w
		default:
			line += " " + w
		}
	}
	b.WriteString(strings.ReplaceAll(strings.TrimRight(line, " "), nbsp, " ") + "\n")
}

// hasTopReview reports whether a top-level licence file of f needs review.
func hasTopReview(f *Finding) bool {
	for _, r := range f.Review {
		if !strings.Contains(r.Path, "/") {
			return true
		}
	}
	return false
}
