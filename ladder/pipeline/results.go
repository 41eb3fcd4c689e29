package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/hostuser"
)

// runMarkers are the files that make a folder a run's results folder:
// its stage files, score.json, and what the ladder publishes or records
// beside them (reward.json, summary.txt, run.json).
var runMarkers = []string{"score.json", "reward.json", "summary.txt", "run.json"}

// runsInsideDepth bounds how deep RunsInside looks for runs below a
// folder (a campaign is <task>/<configuration>/<run>, one more level for
// a folder of campaigns, and some to spare).
const runsInsideDepth = 6

// IsRun reports whether dir holds one of a run's stage files, its
// score.json, reward.json, summary.txt or run.json (any kind of file by
// that name: reading it decides what it is).
func IsRun(dir string) bool {
	for _, f := range StageFiles {
		if _, err := os.Lstat(filepath.Join(dir, f+".json")); err == nil {
			return true
		}
	}
	for _, f := range runMarkers {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// RunsInside lists (at most three, then "…") the folders up to
// runsInsideDepth levels below dir that hold a run's stage files, its
// score.json, reward.json, summary.txt or run.json, when dir itself holds
// none: dir is then a parent of runs, not a run. nil when dir holds one,
// or no folder below it does.
func RunsInside(dir string) []string {
	if IsRun(dir) {
		return nil
	}
	var runs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Count(rel, string(filepath.Separator)) >= runsInsideDepth {
			return filepath.SkipDir
		}
		if IsRun(p) {
			runs = append(runs, p)
			return filepath.SkipDir
		}
		return nil
	})
	sort.Strings(runs)
	if len(runs) > 3 {
		runs = append(runs[:3], "…")
	}
	return runs
}

// TaskOfResults guesses the task id of the results folder dir from its
// stage files' task fields (in ladder order; unreadable ones skipped),
// else the folder's name.
func TaskOfResults(dir string) string {
	for _, s := range StageFiles {
		p := filepath.Join(dir, s+".json")
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var head struct {
			Task string `json:"task"`
		}
		if json.Unmarshal(b, &head) == nil && head.Task != "" {
			return head.Task
		}
	}
	abs, _ := filepath.Abs(dir)
	return filepath.Base(abs)
}

// CheckResultsFolder returns an error when a graded process could
// redirect or replace the results folder dir (made or not): a link on its
// path made by a uid srb gives graded processes on this machine
// ([hostuser.Base] to Base+Span), a folder it leads through (itself
// included, when it exists) that such a uid owns, or one anyone may write
// in without the sticky bit (/tmp's 1777 is fine). With `srb ladder
// --host` the graded programs run on this machine as those uids: an
// earlier run's program could plant /tmp/out -> a folder of its own, and
// the ladder would then publish its verdict where that uid can rewrite
// reward.json (docs/LADDER.md, "The trust model"). Folders of other users
// (an operator's, a Harbor trial's mounted /logs/verifier) are the
// operator's business and accepted.
func CheckResultsFolder(dir string) error {
	graded := func(fi fs.FileInfo) (uint32, bool) {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return 0, false
		}
		return st.Uid, st.Uid >= hostuser.Base && st.Uid < hostuser.Base+hostuser.Span
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("results folder %s: %s; give --results a folder of your own", dir, fmt.Sprintf(format, args...))
	}
	// The path resolved as the kernel resolves it, component by
	// component from the real working folder: every link met is checked
	// (one in a chain of links, one before a ".."), and ".." is the
	// parent of the folder reached, not of the text before it.
	cur := "/"
	if !filepath.IsAbs(dir) {
		wd, err := os.Readlink("/proc/self/cwd")
		if err != nil {
			return fail("the working folder: %v", err)
		}
		cur = wd
	}
	pending := strings.Split(dir, "/")
	for links := 0; len(pending) > 0; {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		li, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// The rest is made new, under cur.
			if slices.Contains(pending, "..") {
				return fail("%q comes after %s, which is not there yet", "..", next)
			}
			break
		}
		if err != nil {
			return fail("%v", err)
		}
		if li.Mode()&fs.ModeSymlink != 0 {
			if uid, bad := graded(li); bad {
				return fail("%s is a link made by uid %d, a graded process's, which could redirect the results", next, uid)
			}
			if links++; links > 40 {
				return fail("too many links")
			}
			target, err := os.Readlink(next)
			if err != nil {
				return fail("%v", err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			pending = append(strings.Split(target, "/"), pending...)
			continue
		}
		if !li.IsDir() {
			return fail("%s is not a folder", next)
		}
		cur = next
	}
	// The folders it leads through, from the deepest there.
	for d := cur; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fail("%v", err)
		}
		if uid, bad := graded(fi); bad {
			return fail("%s belongs to uid %d, a graded process's, which could replace the results", d, uid)
		}
		if fi.Mode()&0o002 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fail("anyone may write in %s (mode %04o, no sticky bit) and so replace the results", d, fi.Mode().Perm())
		}
		if d == "/" {
			return nil
		}
	}
}

// MakeResultsFolder makes dir (perm, when missing) after
// [CheckResultsFolder], and checks it again once made: a graded process
// that planted a link at a name on the path between the first check and
// the making is caught by the second, and past it no name on the path can
// change (no folder on it is a graded process's or writable by anyone
// without the sticky bit).
func MakeResultsFolder(dir string, perm fs.FileMode) error {
	if err := CheckResultsFolder(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	return CheckResultsFolder(dir)
}
