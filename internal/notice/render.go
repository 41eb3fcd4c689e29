package notice

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
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
// then every upstream NOTICE file reproduced in full. The same entries in
// any order give the same bytes; entries is not modified.
func Render(entries []Entry) []byte {
	es := append([]Entry(nil), entries...)
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
			nb.WriteString(n.Text)
			if !strings.HasSuffix(n.Text, "\n") {
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
	if expr == "" {
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
