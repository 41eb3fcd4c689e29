package source

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/collect"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Rule ids of the State A rules (docs/SCHEMA.md "Rules").
const (
	// RulePinned: State A has no pin (state_a.sha256).
	RulePinned = "state-a-pinned"
	// RuleAvailable: State A is not in the cache, so the rules that read its
	// files could not run (a note, not a problem: validate never fetches).
	RuleAvailable = "state-a-available"
	// RuleExcludeStateA: an exclusion pattern deletes a file State A ships.
	RuleExcludeStateA = "exclude-state-a"
	// RuleExcludeBuild: an exclusion pattern deletes a file State B's build
	// commands name.
	RuleExcludeBuild = "exclude-build-input"
	// RuleExcludePattern: an exclusion pattern does not compile.
	RuleExcludePattern = "exclude-pattern"
)

// Files lists the regular files of the canonical archive at path, relative
// to its top-level folder, sorted.
func Files(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	var files []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := strings.TrimPrefix(h.Name, "./")
		if _, rest, ok := strings.Cut(name, "/"); ok {
			files = append(files, rest)
		}
	}
	sort.Strings(files)
	return files, nil
}

// Check runs the rules that need State A: its pin, and the exclusion
// patterns against the files it ships and the files State B's build
// names. It never fetches from a registry: a pinned State A is read from
// the cache (a local source is read in place), and when it is absent the
// file rules are skipped with a note saying how to run them.
func Check(ctx context.Context, t *task.Task, c *Cache) ([]task.Problem, []task.Note) {
	var ps []task.Problem
	var ns []task.Note
	problem := func(rule, path, format string, args ...any) {
		ps = append(ps, task.Problem{Rule: rule, Pos: t.Pos(path), File: t.File, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	set := &collect.Set{}
	for i, raw := range t.Artifacts.Exclude {
		p, err := collect.Compile(raw)
		if err != nil {
			problem(RuleExcludePattern, fmt.Sprintf("artifacts.exclude[%d]", i), "%v: fix the glob (docs/SCHEMA.md \"Exclusion patterns\")", err)
			continue
		}
		set.Patterns = append(set.Patterns, p)
	}
	index := map[string]int{}
	for i, raw := range t.Artifacts.Exclude {
		if _, ok := index[raw]; !ok {
			index[raw] = i
		}
	}

	// State B's build commands must find their own files.
	for i, argv := range t.StateB.Build {
		for j, tok := range argv {
			tok = buildInput(tok)
			if tok == "" {
				continue
			}
			if p := set.Excluded(strings.TrimPrefix(tok, "./")); p != nil {
				problem(RuleExcludeBuild, fmt.Sprintf("artifacts.exclude[%d]", index[p.Raw]), "pattern %q removes %s, which state_b.build[%d][%d] needs: the collected submission could not be built; narrow the pattern", p.Raw, tok, i, j)
			}
		}
	}

	if t.StateA.SHA256 == "" {
		problem(RulePinned, "state_a", "State A is not pinned: run `srb fetch --pin %s` to fetch it and write state_a.sha256", t.ID)
	}
	var archivePath string
	switch {
	case t.StateA.Source.Kind == "local":
		if _, err := os.Stat(resolveLocal(t.Dir, t.StateA.Source.Path)); err != nil {
			return ps, ns // reported by validate's file-exists rule
		}
		e, err := c.Materialise(ctx, t.StateA, t.Dir, nil)
		var mm *MismatchError
		switch {
		case errors.As(err, &mm):
			problem(RulePinned, "state_a.sha256", "%v; if the change is intended, run `srb fetch --pin %s`", err, t.ID)
		case err != nil:
			ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A could not be read from %s (%v), so exclusions were not checked against its files", t.StateA.Source.Path, err)})
			return ps, ns
		}
		archivePath = e.Archive
	case t.StateA.SHA256 != "":
		archivePath = c.Path(t.StateA.SHA256)
		if _, err := os.Stat(archivePath); err != nil {
			ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A (%s) is not in the cache, so exclusions were not checked against its files: run `srb fetch %s` first", short(t.StateA.SHA256), t.ID)})
			return ps, ns
		}
	default:
		return ps, ns
	}
	files, err := Files(archivePath)
	if err != nil {
		ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A's archive could not be read (%v), so exclusions were not checked against its files", err)})
		return ps, ns
	}
	hits := map[string][]string{}
	for _, f := range files {
		for _, p := range set.Patterns {
			if p.Match(f) {
				hits[p.Raw] = append(hits[p.Raw], f)
			}
		}
	}
	for _, p := range set.Patterns {
		h := hits[p.Raw]
		if len(h) == 0 {
			continue
		}
		problem(RuleExcludeStateA, fmt.Sprintf("artifacts.exclude[%d]", index[p.Raw]), "pattern %q deletes %d file(s) State A ships: %s; collection would strip them from every submission: narrow the pattern to where build outputs appear (a path such as build/%s matches only under build/)",
			p.Raw, len(h), listFew(h, 4), p.Raw)
	}
	ns = append(ns, task.Note{Rule: RuleExcludeStateA, Msg: fmt.Sprintf("%d exclusion pattern(s) checked against the %d file(s) State A ships", len(set.Patterns), len(files))})
	return ps, ns
}

// buildInput is the path in the submitted tree a State B build token
// names, or "" when it names none: a flag, an absolute path, a word with
// no folder or extension, "." and "..", and anything that references a
// variable (${BUILD}/stage, $HOME/x: those point outside the tree, where
// collection never reaches). A NAME=VALUE token (DESTDIR=_dest) names
// its VALUE.
func buildInput(tok string) string {
	if k, v, ok := strings.Cut(tok, "="); ok && isEnvName(k) {
		tok = v
	}
	if tok == "" || strings.HasPrefix(tok, "-") || strings.Contains(tok, "$") || filepath.IsAbs(tok) || !strings.ContainsAny(tok, "/.") || tok == "." || tok == ".." {
		return ""
	}
	return tok
}

// isEnvName reports whether s is a shell variable name.
func isEnvName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

func listFew(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
