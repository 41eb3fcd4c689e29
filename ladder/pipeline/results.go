package pipeline

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
