package harbor

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// Solution is what turns State A into one submitted tree: the paths to
// remove (slash-separated, relative to the workspace) and the tree whose
// entries are written over it (only what differs from State A).
type Solution struct {
	// Name says where the solution came from (a fixture's name).
	Name string
	// Delete are the paths removed first, sorted; a folder once, not its
	// contents.
	Delete []string
	// Write are the paths written (files, links, new folders), sorted.
	Write []string
	// tree is the submitted tree the written paths are read from.
	tree string
}

// Diff compares the submitted tree with State A's and returns the
// solution that makes one from the other. Regular files count as changed
// when their content or permission bits differ, links when their target
// does; a path whose type changes is removed and written. A path holding
// a newline, or a FIFO, socket or device, is an error naming it.
func Diff(name, stateA, tree string) (*Solution, error) {
	s := &Solution{Name: name, tree: tree}
	deleted := map[string]bool{}
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == tree {
			return nil
		}
		rel, _ := filepath.Rel(tree, p)
		rel = filepath.ToSlash(rel)
		if strings.ContainsAny(rel, "\n\r") {
			return fmt.Errorf("%s: a path with a line break cannot be listed in solve.sh's delete list", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() && !info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s: %s is neither a file, a folder nor a link", p, info.Mode().Type())
		}
		was, err := os.Lstat(filepath.Join(stateA, filepath.FromSlash(rel)))
		if err != nil {
			s.Write = append(s.Write, rel)
			return nil
		}
		if was.Mode().Type() != info.Mode().Type() {
			if !underAny(rel, deleted) {
				s.Delete = append(s.Delete, rel)
				deleted[rel] = true
			}
			s.Write = append(s.Write, rel)
			return nil
		}
		switch {
		case info.Mode().IsRegular():
			same, err := sameFile(filepath.Join(stateA, filepath.FromSlash(rel)), p, was, info)
			if err != nil {
				return err
			}
			if !same {
				s.Write = append(s.Write, rel)
			}
		case info.Mode()&fs.ModeSymlink != 0:
			a, _ := os.Readlink(filepath.Join(stateA, filepath.FromSlash(rel)))
			b, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if a != b {
				s.Delete = append(s.Delete, rel)
				s.Write = append(s.Write, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(stateA, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == stateA {
			return nil
		}
		rel, _ := filepath.Rel(stateA, p)
		rel = filepath.ToSlash(rel)
		if _, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(rel))); err != nil {
			if strings.ContainsAny(rel, "\n\r") {
				return fmt.Errorf("%s: a path with a line break cannot be listed in solve.sh's delete list", p)
			}
			s.Delete = append(s.Delete, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(s.Delete)
	s.Delete = dedupe(s.Delete)
	sort.Strings(s.Write)
	return s, nil
}

func dedupe(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func underAny(rel string, set map[string]bool) bool {
	for q := filepath.ToSlash(filepath.Dir(rel)); q != "." && q != "/"; q = filepath.ToSlash(filepath.Dir(q)) {
		if set[q] {
			return true
		}
	}
	return false
}

func sameFile(a, b string, ai, bi fs.FileInfo) (bool, error) {
	if ai.Size() != bi.Size() || ai.Mode().Perm() != bi.Mode().Perm() {
		return false, nil
	}
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}

// WriteDir writes the solution into dir (created): solve.sh, delete.list
// (one path a line) and files/ (the written paths, modes kept, links as
// links). solve.sh, run by any user who may write workspace (the
// artifact's source, /workspace/repo), removes the listed paths and copies
// files/ over it.
func (s *Solution) WriteDir(dir, workspace string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var list strings.Builder
	for _, d := range s.Delete {
		list.WriteString(d + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "delete.list"), []byte(list.String()), 0o644); err != nil {
		return err
	}
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, w := range s.Write {
		want[w] = true
	}
	_, err := copytree.Copy(s.tree, files, copytree.Options{Replace: true, DirBits: 0o700,
		Exclude: func(rel string, d fs.DirEntry) bool {
			if want[rel] {
				return false
			}
			if d.IsDir() {
				// A folder stays when something under it is written.
				prefix := rel + "/"
				for w := range want {
					if strings.HasPrefix(w, prefix) {
						return false
					}
				}
			}
			return true
		}})
	if err != nil {
		return fmt.Errorf("solution %s: %w", s.Name, err)
	}
	script := fmt.Sprintf(`#!/bin/sh
# Written by srb export harbor from the submission fixture %s: Harbor's
# oracle. It removes the paths delete.list names from %s, then copies
# files/ over it (modes kept, links as links). SRB_WORKSPACE names
# another workspace (srb's own tests apply it to a copy of State A).
set -eu
sol=$(cd "$(dirname "$0")" && pwd)
repo=${SRB_WORKSPACE:-%s}
while IFS= read -r p; do
	rm -rf -- "$repo/$p"
done <"$sol/delete.list"
cp -R -P -p "$sol/files/." "$repo/"
`, shellWord(s.Name), workspace, shellQuote(workspace))
	return os.WriteFile(filepath.Join(dir, "solve.sh"), []byte(script), 0o755)
}

// shellQuote quotes s for sh: one word, whatever it holds.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellWord keeps a name for a comment: line breaks dropped.
func shellWord(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// FixtureSolution applies the submission fixture fx on the State A tree
// stateA (into a temporary folder) and returns the solution that makes
// the fixture's tree from State A's, and a cleanup that removes the
// fixture's tree: the solution reads it until WriteDir has run. Errors are
// the fixture's application's or Diff's.
func FixtureSolution(fx *submission.Fixture, stateA string) (*Solution, func(), error) {
	tmp, err := os.MkdirTemp("", "srb-solution-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	tree := filepath.Join(tmp, "tree")
	if _, err := fx.Apply(stateA, tree); err != nil {
		cleanup()
		return nil, nil, err
	}
	s, err := Diff(fx.Name, stateA, tree)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return s, cleanup, nil
}
