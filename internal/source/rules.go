package source

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/buildcmd"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/collect"
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
	// RuleReadable: a local State A can no longer be read within its
	// limits (not an archive, a hostile or oversized one, an unsafe entry).
	RuleReadable = "state-a-readable"
)

// Listing is what State A's canonical archive holds, as the exclusion
// and corpus rules read it: Entries are its regular files, symbolic links
// and empty folders, relative to its top-level folder, sorted, an empty
// folder ending in "/" (what collection could strip, so the exclusion
// rules match all three); Links are the entries that are symbolic links,
// sorted (a corpus walk takes regular files only and follows no link).
type Listing struct {
	Entries []string `json:"entries"`
	Links   []string `json:"links,omitempty"`
}

// IsLink reports whether entry is a symbolic link of l.
func (l Listing) IsLink(entry string) bool {
	_, ok := slices.BinarySearch(l.Links, entry)
	return ok
}

// Files lists the canonical archive at path ([Listing]). Errors are the
// archive's: it cannot be opened, is not gzip, or its tar is damaged.
func Files(path string) (Listing, error) {
	f, err := os.Open(path)
	if err != nil {
		return Listing{}, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return Listing{}, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	var files, dirs, links []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Listing{}, fmt.Errorf("%s: %w", path, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		_, rest, ok := strings.Cut(strings.TrimSuffix(name, "/"), "/")
		if !ok || rest == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			links = append(links, rest)
			files = append(files, rest)
		case tar.TypeReg:
			files = append(files, rest)
		case tar.TypeDir:
			dirs = append(dirs, rest)
		}
	}
	// A folder is empty when no other entry lies under it.
	all := append(slices.Clone(files), dirs...)
	sort.Strings(all)
	for _, d := range dirs {
		i, _ := slices.BinarySearch(all, d+"/")
		if i >= len(all) || !strings.HasPrefix(all[i], d+"/") {
			files = append(files, d+"/")
		}
	}
	sort.Strings(files)
	sort.Strings(links)
	return Listing{Entries: files, Links: links}, nil
}

// CachedFiles is [Files] of the archive at path, kept beside it by
// [archive.Derived] ("original.tar.gz.listing.json"): a warm validate
// reads the listing instead of decoding the archive.
func CachedFiles(path string) (Listing, error) {
	return archive.Derived(path, "listing", func() (Listing, error) { return Files(path) })
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

	// State B's build must find what it reads; what it writes may be
	// excluded (internal/buildcmd reads the commands as a shell would).
	for _, f := range buildFindings(t, set) {
		problem(RuleExcludeBuild, f.path, "%s", f.msg)
	}

	corpora := stateACorpora(t)

	if t.StateA.SHA256 == "" {
		problem(RulePinned, "state_a", "State A is not pinned: run `srb fetch --pin %s` to fetch it and write state_a.sha256", t.Arg())
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
			problem(RulePinned, "state_a.sha256", "%v; if the change is intended, run `srb fetch --pin %s`", err, t.Arg())
		case err != nil:
			// The file is there (file-exists passed) but srb cannot read it as
			// State A: whatever it once pinned, it no longer does.
			problem(RuleReadable, "state_a.source.path", "State A at %s can no longer be read: %v; restore the release the task pins, or fix state_a.source and run `srb fetch --pin %s`", t.StateA.Source.Path, err, t.Arg())
			return ps, ns
		}
		archivePath = e.Archive
	case t.StateA.SHA256 != "":
		archivePath = c.Path(t.StateA.SHA256)
		if _, err := os.Stat(archivePath); err != nil {
			ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A (%s) is not in the cache, so %s not checked against its files: run `srb fetch %s` first", short(t.StateA.SHA256), unchecked(corpora), t.Arg())})
			return ps, ns
		}
	default:
		if len(corpora) > 0 {
			ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A is not pinned, so %s not checked against its files: run `srb fetch --pin %s` first", unchecked(corpora), t.Arg())})
		}
		return ps, ns
	}
	listing, err := CachedFiles(archivePath)
	files := listing.Entries
	if err != nil {
		ns = append(ns, task.Note{Rule: RuleAvailable, Msg: fmt.Sprintf("State A's archive could not be read (%v), so %s not checked against its files", err, unchecked(corpora))})
		return ps, ns
	}
	for _, c := range corpora {
		for _, f := range c.check(listing) {
			problem(task.RuleFileExists, f.path, "%s", f.msg)
		}
	}
	hits := map[string][]string{}
	for _, f := range files {
		for _, p := range set.Patterns {
			if p.Match(strings.TrimSuffix(f, "/")) {
				hits[p.Raw] = append(hits[p.Raw], f)
			}
		}
	}
	for _, p := range set.Patterns {
		h := hits[p.Raw]
		if len(h) == 0 {
			continue
		}
		problem(RuleExcludeStateA, fmt.Sprintf("artifacts.exclude[%d]", index[p.Raw]), "pattern %q deletes %s State A ships: %s; collection would strip %s from every submission: narrow the pattern to where build outputs appear (a path such as build/%s matches only under build/)",
			p.Raw, countEntries(h), listFew(quoteNames(h), 4), map[bool]string{true: "it", false: "them"}[len(h) == 1], p.Raw)
	}
	ns = append(ns, task.Note{Rule: RuleExcludeStateA, Msg: fmt.Sprintf("%s checked against the %s State A ships",
		plural(len(set.Patterns), "exclusion pattern", "exclusion patterns"), countListing(listing))})
	return ps, ns
}

// stateACorpus is a command module's corpus read from State A's tree
// (params.corpus.from "original"): the helper walks Dir there at freeze
// and in stage 2, and fails when it is not a folder of State A or no file
// of it matches Glob.
type stateACorpus struct {
	module          string
	field           string // behavioural.modules[i].params.corpus
	dir, glob, stag string
}

// stateACorpora lists the task's corpora read from State A's tree.
func stateACorpora(t *task.Task) []stateACorpus {
	var out []stateACorpus
	for i, m := range t.Behavioural.Modules {
		c := m.Corpus()
		if c == nil || c.From != "original" || c.Dir == "" {
			continue
		}
		out = append(out, stateACorpus{module: m.ID, field: fmt.Sprintf("behavioural.modules[%d].params.corpus", i),
			dir: c.Dir, glob: c.Glob, stag: c.Stage})
	}
	return out
}

// unchecked says what of the task the State A file rules did not check:
// the exclusions, and the corpora read from State A's tree.
func unchecked(corpora []stateACorpus) string {
	if len(corpora) == 0 {
		return "exclusions were"
	}
	ids := make([]string, len(corpora))
	for i, c := range corpora {
		ids[i] = c.module
	}
	return fmt.Sprintf("exclusions and the State A corpus of module(s) %s were", strings.Join(ids, ", "))
}

// check is what the helper would fail on, against State A's listing: the
// corpus folder is not a folder of State A (a file, a symbolic link, or
// nothing), no regular file under it has a name matching the glob (the
// module would have no case: the helper's walk takes regular files only,
// so a symbolic link named like a corpus file is no case), or its stage
// folder is not a folder of State A.
func (c stateACorpus) check(l Listing) []finding {
	files := l.Entries
	isDir := func(d string) bool {
		d = path.Clean(d)
		if d == "." {
			return true
		}
		i, _ := slices.BinarySearch(files, d+"/")
		return i < len(files) && strings.HasPrefix(files[i], d+"/")
	}
	var out []finding
	if c.stag != "" && !isDir(c.stag) {
		out = append(out, finding{c.field + ".stage", fmt.Sprintf("module %s: its corpus stage folder %s is not a folder of State A's tree", c.module, c.stag)})
	}
	if !isDir(c.dir) {
		why := "does not exist"
		switch d := path.Clean(c.dir); {
		case l.IsLink(d):
			why = "is a symbolic link, which the helper does not follow,"
		case slices.Contains(files, d):
			why = "is a file, not a folder,"
		}
		return append(out, finding{c.field + ".dir", fmt.Sprintf("module %s: its corpus folder %s %s in State A's tree (from: \"original\"): the helper would fail at freeze", c.module, c.dir, why)})
	}
	if c.glob == "" {
		return out
	}
	prefix := path.Clean(c.dir) + "/"
	if prefix == "./" {
		prefix = ""
	}
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) || strings.HasSuffix(f, "/") || l.IsLink(f) {
			continue
		}
		if ok, _ := path.Match(c.glob, path.Base(f)); ok {
			return out
		}
	}
	return append(out, finding{c.field + ".glob", fmt.Sprintf("module %s: no regular file of its corpus folder %s in State A's tree matches %q (symbolic links are not followed): the module would have no case", c.module, c.dir, c.glob)})
}

type finding struct{ path, msg string }

// buildFindings lists what the exclusion patterns in set remove that
// stage 2 needs: a path State B's build reads or changes into (with each
// configuration's args appended to the last command), the state_b.detect
// marker, and each configuration's declared outputs. A build script that
// does not parse is a finding at its command.
func buildFindings(t *task.Task, set *collect.Set) []finding {
	index := map[string]int{}
	for i, raw := range t.Artifacts.Exclude {
		if _, ok := index[raw]; !ok {
			index[raw] = i
		}
	}
	var out []finding
	seen := map[finding]bool{}
	at := func(p *collect.Pattern) string { return fmt.Sprintf("artifacts.exclude[%d]", index[p.Raw]) }
	add := func(path, msg string) {
		if f := (finding{path, msg}); !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	// Each build is state_b.build, or state_b.build with a configuration's
	// args appended to its last command (cfg names it; "" for the first).
	type build struct {
		argv [][]string
		cfg  string
	}
	builds := []build{{argv: t.StateB.Build}}
	names := make([]string, 0, len(t.Behavioural.Configurations))
	for name := range t.Behavioural.Configurations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cfg := t.Behavioural.Configurations[name]
		if len(cfg.Args) == 0 || len(t.StateB.Build) == 0 {
			continue
		}
		b := slices.Clone(t.StateB.Build)
		last := len(b) - 1
		b[last] = append(slices.Clone(b[last]), cfg.Args...)
		builds = append(builds, build{argv: b, cfg: name})
	}
	// where names the word a use comes from: state_b.build[i][j], or a
	// configuration's args[k] past the end of the last command.
	where := func(b build, u buildcmd.Use) string {
		if last := len(t.StateB.Build) - 1; b.cfg != "" && u.Cmd == last && u.Arg >= len(t.StateB.Build[last]) {
			return fmt.Sprintf("behavioural.configurations.%s.args[%d]", b.cfg, u.Arg-len(t.StateB.Build[last]))
		}
		return fmt.Sprintf("state_b.build[%d][%d]", u.Cmd, u.Arg)
	}
	var written []string
	for _, bl := range builds {
		b := bl.argv
		uses, err := buildcmd.Analyse(b)
		if err != nil {
			add("state_b.build", fmt.Sprintf("state_b.%v: the build cannot be read, so exclusions were not checked against it: fix the script", err))
		}
		for _, u := range uses {
			if u.Kind == buildcmd.Write {
				written = append(written, u.Path)
			}
			if !u.Needed() {
				continue
			}
			if p := set.Excluded(u.Path); p != nil {
				how := fmt.Sprintf("%s %s it", u.Tool, u.Kind)
				if u.Implied {
					how += " without naming it"
				}
				add(at(p), fmt.Sprintf("pattern %q removes %s, which %s needs (%s): the collected submission could not be built; narrow the pattern", p.Raw, archive.QuoteName(u.Path), where(bl, u), how))
			}
		}
	}
	if d := t.StateB.Detect; d != "" {
		if p := set.Excluded(strings.TrimPrefix(d, "./")); p != nil {
			add(at(p), fmt.Sprintf("pattern %q removes %s, the state_b.detect marker: stage 2 would build every submission with State A's original commands; narrow the pattern", p.Raw, archive.QuoteName(d)))
		}
	}
	// An output is what the build makes, so excluding it is fine; a
	// pattern that removes a folder above it which the build does not
	// itself write removes the sources it is built from (src/jsonnet/ for
	// src/jsonnet/bin/jsonnet).
	for _, name := range names {
		for k, o := range t.Behavioural.Configurations[name].Outputs {
			o = path.Clean(strings.TrimPrefix(o, "./"))
			for dir := path.Dir(o); dir != "." && dir != "/"; dir = path.Dir(dir) {
				if slices.ContainsFunc(written, func(w string) bool { return dir == w || strings.HasPrefix(dir, w+"/") }) {
					break
				}
				if p := set.Excluded(dir); p != nil {
					add(at(p), fmt.Sprintf("pattern %q removes %s/, the folder of %s, which behavioural.configurations.%s.outputs[%d] declares and the build does not create: the collected submission could not build it; narrow the pattern", p.Raw, archive.QuoteName(dir), archive.QuoteName(o), name, k))
					break
				}
			}
		}
	}
	return out
}

// countEntries says how many files (symbolic links among them) and empty
// folders (names ending in "/", as [Files] lists them) names holds, in
// words: "1 file", "3 files and 1 empty folder", "2 empty folders".
func countEntries(names []string) string {
	folders := 0
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			folders++
		}
	}
	var parts []string
	if files := len(names) - folders; files > 0 || folders == 0 {
		parts = append(parts, plural(files, "file", "files"))
	}
	if folders > 0 {
		parts = append(parts, plural(folders, "empty folder", "empty folders"))
	}
	return strings.Join(parts, " and ")
}

// countListing says what l holds, in words: "4 files", "3 files (1 a
// symbolic link) and 1 empty folder".
func countListing(l Listing) string {
	s := countEntries(l.Entries)
	if len(l.Links) == 0 {
		return s
	}
	what := "1 a symbolic link"
	if len(l.Links) > 1 {
		what = fmt.Sprintf("%d symbolic links", len(l.Links))
	}
	files, rest, _ := strings.Cut(s, " and ")
	if rest != "" {
		rest = " and " + rest
	}
	return fmt.Sprintf("%s (%s)%s", files, what, rest)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
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

// quoteNames returns names as archive.QuoteName writes them, so no name
// from an archive can break a line of validate's output.
func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = archive.QuoteName(n)
	}
	return out
}
