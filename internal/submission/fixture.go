// Package submission reads submission fixtures and applies them on top of
// State A: the test inputs `srb ladder --submission-fixture` grades.
//
// A fixture is a folder testdata/submissions/<task-id>/<name>/ holding
// (the format is agreed in notes/submission-fixtures.md and described in
// docs/AUTHORING.md "Submission fixtures"):
//
//	about.txt          one paragraph: what the submission is, what the ladder must say
//	untouched          an empty marker: the submission is State A as is
//	base               the name of a sibling fixture whose tree this one starts from
//	                   (instead of State A), so a variant holds only what it changes
//	delete.txt         paths or globs (one a line, '#' comments) removed from State A first
//	overlay/...        files written over State A's tree, modes kept
//	audit/*.json       scripted-driver scripts for stage 1's reviews, in name order
//	adversaries/<id>.json  a scripted-driver script per stage-3 adversary
//	adjudicator.json   the scripted-driver script of the stage-3 adjudicator
//	expect.json        what the ladder must produce ([Expect])
//	open.txt           one line: the fixture is an attack srb does not hold yet (its
//	                   expect.json is the honest equivalent's); scripts/main-job.sh
//	                   lists it as open instead of grading it, and its test skips
//	ungraded.txt       one line: a demonstration whose grade depends on a channel the
//	                   machine may or may not offer, not on srb; scripts/main-job.sh
//	                   skips it
//
// A fixture is either untouched or has a delete.txt or an overlay/, never
// both: an untouched fixture that also edits the tree says two things. A
// fixture with a base must change something of its base.
package submission

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

// Fixture is one submission fixture, read by [Load]. Paths are absolute.
type Fixture struct {
	Name      string // the folder's base name
	Dir       string
	About     string // about.txt, trimmed ("" when absent)
	Untouched bool   // the untouched marker is present
	// Base is the sibling fixture the tree starts from (base names it);
	// nil: the tree starts from State A.
	Base    *Fixture
	Overlay string   // the overlay/ folder, "" when absent
	Delete  []Delete // delete.txt's lines, in order
	// AuditScripts are audit/*.json sorted by name: review n replays the
	// n-th (cycling when there are fewer than samples).
	AuditScripts []string
	// AdversaryScripts maps an adversary id to adversaries/<id>.json.
	AdversaryScripts  map[string]string
	AdjudicatorScript string // adjudicator.json, "" when absent
	Expect            *Expect
}

// Delete is one line of delete.txt: a slash-separated path or glob
// (path.Match syntax, matched against whole relative paths; '*' does not
// cross '/') and the line it is on (1-based).
type Delete struct {
	Pattern string
	Line    int
}

// Expect is expect.json: what the ladder must produce for the fixture.
// Every key is optional; an absent key is not checked.
type Expect struct {
	// Score is the score out of the task's max_score.
	Score *float64 `json:"score,omitempty"`
	// Stage1 is "passed" or "failed" (the audit gate).
	Stage1 string `json:"stage1,omitempty"`
	// Stage2Rate is the weighted pass rate stage 2 measured, counted or not.
	Stage2Rate *float64 `json:"stage2_rate,omitempty"`
	// Stage2Complete says whether every scored module of stage 2 was complete.
	Stage2Complete *bool `json:"stage2_complete,omitempty"`
	// Stage3 is "ran" or "not-run".
	Stage3 string `json:"stage3,omitempty"`
	// FailedModules are the scored modules that were not complete, in any order.
	FailedModules []string `json:"failed_modules,omitempty"`
	// Valid says whether the verdict must be valid (default: not checked).
	Valid *bool `json:"valid,omitempty"`
}

// Load reads the fixture at dir. An unreadable or malformed file, a
// fixture that is neither untouched nor has an overlay or delete.txt, or
// one that is both, is an error naming the file (and line).
func Load(dir string) (*Fixture, error) {
	return load(dir, nil)
}

// load is Load, with the fixtures whose base chain led here (a cycle is
// an error naming them).
func load(dir string, seen []string) (*Fixture, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("submission fixture: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("submission fixture: %s is not a folder", dir)
	}
	f := &Fixture{Name: filepath.Base(abs), Dir: abs, AdversaryScripts: map[string]string{}}
	if b, err := os.ReadFile(filepath.Join(abs, "about.txt")); err == nil {
		f.About = strings.TrimSpace(string(b))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("submission fixture: %w", err)
	}
	if _, err := os.Stat(filepath.Join(abs, "untouched")); err == nil {
		f.Untouched = true
	}
	if st, err := os.Stat(filepath.Join(abs, "overlay")); err == nil {
		if !st.IsDir() {
			return nil, fmt.Errorf("submission fixture: %s is not a folder", filepath.Join(dir, "overlay"))
		}
		f.Overlay = filepath.Join(abs, "overlay")
	}
	delPath := filepath.Join(abs, "delete.txt")
	hasDelete := false
	if b, err := os.ReadFile(delPath); err == nil {
		hasDelete = true
		f.Delete, err = parseDelete(delPath, b)
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("submission fixture: %w", err)
	}
	if b, err := os.ReadFile(filepath.Join(abs, "base")); err == nil {
		name := strings.TrimSpace(string(b))
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return nil, fmt.Errorf("submission fixture: %s: %q is not the name of a sibling fixture", filepath.Join(dir, "base"), name)
		}
		chain := append(append([]string(nil), seen...), abs)
		bdir := filepath.Join(filepath.Dir(abs), name)
		for _, s := range chain {
			if s == bdir {
				return nil, fmt.Errorf("submission fixture: %s: the bases form a cycle through %s", filepath.Join(dir, "base"), name)
			}
		}
		if f.Base, err = load(bdir, chain); err != nil {
			return nil, fmt.Errorf("submission fixture: %s: %w", filepath.Join(dir, "base"), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("submission fixture: %w", err)
	}
	switch {
	case f.Base != nil && (f.Untouched || (f.Overlay == "" && !hasDelete)):
		return nil, fmt.Errorf("submission fixture %s: it has a base, so it must change it with an overlay/ or delete.txt (and is not untouched)", dir)
	case f.Untouched && (f.Overlay != "" || hasDelete):
		return nil, fmt.Errorf("submission fixture %s: it is marked untouched and also has an overlay/ or delete.txt; keep one", dir)
	case !f.Untouched && f.Overlay == "" && !hasDelete:
		return nil, fmt.Errorf("submission fixture %s: it has no overlay/, no delete.txt and no untouched marker, so it says nothing about the tree", dir)
	}
	if f.AuditScripts, err = filepath.Glob(filepath.Join(abs, "audit", "*.json")); err != nil {
		return nil, err
	}
	sort.Strings(f.AuditScripts)
	advs, err := filepath.Glob(filepath.Join(abs, "adversaries", "*.json"))
	if err != nil {
		return nil, err
	}
	for _, p := range advs {
		f.AdversaryScripts[strings.TrimSuffix(filepath.Base(p), ".json")] = p
	}
	if p := filepath.Join(abs, "adjudicator.json"); fileExists(p) {
		f.AdjudicatorScript = p
	}
	if b, err := os.ReadFile(filepath.Join(abs, "expect.json")); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var e Expect
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("submission fixture: %s: %w", filepath.Join(dir, "expect.json"), err)
		}
		if e.Stage1 != "" && e.Stage1 != "passed" && e.Stage1 != "failed" {
			return nil, fmt.Errorf("submission fixture: %s: stage1 is %q; it is passed or failed", filepath.Join(dir, "expect.json"), e.Stage1)
		}
		if e.Stage3 != "" && e.Stage3 != "ran" && e.Stage3 != "not-run" {
			return nil, fmt.Errorf("submission fixture: %s: stage3 is %q; it is ran or not-run", filepath.Join(dir, "expect.json"), e.Stage3)
		}
		f.Expect = &e
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("submission fixture: %w", err)
	}
	return f, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// parseDelete reads delete.txt: one pattern a line, blank lines and lines
// starting with '#' ignored; an absolute path, a ".." element or a
// malformed glob is an error naming file and line.
func parseDelete(file string, b []byte) ([]Delete, error) {
	var out []Delete
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.TrimSuffix(strings.TrimPrefix(line, "./"), "/")
		if strings.HasPrefix(p, "/") || p == "" || p == "." {
			return nil, fmt.Errorf("%s:%d: %q is not a path inside the tree", file, n, line)
		}
		for _, el := range strings.Split(p, "/") {
			if el == ".." {
				return nil, fmt.Errorf("%s:%d: %q leaves the tree", file, n, line)
			}
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %w", file, n, line, err)
		}
		out = append(out, Delete{Pattern: p, Line: n})
	}
	return out, sc.Err()
}

// Applied says what [Fixture.Apply] did.
type Applied struct {
	Deleted []string // paths removed (a folder once, not its contents), sorted
	Written []string // overlay files written (new or replaced), sorted
}

// Apply writes the fixture's submission tree into dst: a copy of the State
// A tree at stateA (dst must not exist), or its base's tree applied the
// same way, then delete.txt's paths removed,
// then overlay/ written over it. Regular files and folders keep their
// permission bits, symbolic links are copied as links. A delete line that
// matches nothing is an error naming delete.txt's line: a fixture that
// silently stops removing what it meant to remove is no longer the
// submission it describes.
func (f *Fixture) Apply(stateA, dst string) (*Applied, error) {
	if _, err := os.Lstat(dst); err == nil {
		return nil, fmt.Errorf("apply %s: %s already exists", f.Name, dst)
	}
	from := "State A"
	if f.Base != nil {
		if _, err := f.Base.Apply(stateA, dst); err != nil {
			return nil, fmt.Errorf("apply %s: base: %w", f.Name, err)
		}
		from = "its base " + f.Base.Name
	} else if err := copyTree(stateA, dst); err != nil {
		return nil, fmt.Errorf("apply %s: copy State A: %w", f.Name, err)
	}
	a := &Applied{}
	if len(f.Delete) > 0 {
		var all []string
		err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != dst {
				rel, _ := filepath.Rel(dst, p)
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("apply %s: %w", f.Name, err)
		}
		removed := map[string]bool{}
		for _, d := range f.Delete {
			matched := false
			for _, rel := range all {
				if ok, _ := path.Match(d.Pattern, rel); !ok {
					continue
				}
				matched = true
				if removed[rel] || underRemoved(rel, removed) {
					continue
				}
				if err := os.RemoveAll(filepath.Join(dst, filepath.FromSlash(rel))); err != nil {
					return nil, fmt.Errorf("apply %s: %w", f.Name, err)
				}
				removed[rel] = true
			}
			if !matched {
				return nil, fmt.Errorf("apply %s: %s:%d: %q matches nothing in %s", f.Name, filepath.Join(f.Dir, "delete.txt"), d.Line, d.Pattern, from)
			}
		}
		for rel := range removed {
			if !underRemoved(rel, removed) {
				a.Deleted = append(a.Deleted, rel)
			}
		}
		sort.Strings(a.Deleted)
	}
	if f.Overlay != "" {
		// The overlay is copied over the tree (copytree, modes kept):
		// a file or link replaces what was there, a folder is merged
		// into; a file never replaces a folder.
		var conflict error
		_, err := copytree.Copy(f.Overlay, dst, copytree.Options{DirBits: 0o700, Replace: true,
			Exclude: func(rel string, d fs.DirEntry) bool {
				if d.IsDir() {
					return false
				}
				if st, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(rel))); err == nil && st.IsDir() {
					if conflict == nil {
						conflict = fmt.Errorf("overlay file %s would replace a folder of State A; delete it in delete.txt first", rel)
					}
					return true
				}
				a.Written = append(a.Written, rel)
				return false
			}})
		if err == nil {
			err = conflict
		}
		if err != nil {
			return nil, fmt.Errorf("apply %s: overlay: %w", f.Name, err)
		}
		sort.Strings(a.Written)
	}
	return a, nil
}

// underRemoved reports whether an ancestor folder of rel was removed.
func underRemoved(rel string, removed map[string]bool) bool {
	for q := path.Dir(rel); q != "." && q != "/"; q = path.Dir(q) {
		if removed[q] {
			return true
		}
	}
	return false
}

// copyTree copies src to dst (created): folders, regular files with their
// permission bits, symbolic links as links; anything else is left out
// (copytree, modes kept, folders open to their owner).
func copyTree(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{DirBits: 0o700})
	return err
}
