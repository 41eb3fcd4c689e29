// Package validate runs every static rule srb validate runs on a task
// folder: the schema and the task rules (internal/task), lint's error
// rules (internal/lint), the rules that read State A from the cache
// (internal/source) and the licence State A's archive shows against the
// one declared (internal/notice).
package validate

import (
	"context"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/internal/lint"
	"github.com/swe-refactor-bench/srb/internal/notice"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Task validates the task folder dir with the State A cache at cacheDir
// (the rules that need State A read it there, never from a registry)
// and returns its report, problems sorted. The truth rule's findings and
// the loaded task are memoised under cacheDir/validate/ (keyed by the
// folder's bytes and srb's build). Task never fails: what it cannot read
// is a problem in the report.
func Task(ctx context.Context, dir, cacheDir string) *task.Report {
	r := task.ValidateWith(dir, task.ValidateOptions{TruthMemo: filepath.Join(cacheDir, "validate", "truth"), LoadMemo: LoadMemo(cacheDir)})
	if r.Task == nil {
		return r
	}
	// lint's error rules are validate rules too (srb lint shows them
	// with their warnings and advice).
	r.Problems = append(r.Problems, lint.Problems(lint.Check(r.Task))...)
	// The rules that need State A read it from the cache, never from a
	// registry.
	cache := &source.Cache{Dir: cacheDir}
	ps, ns := source.Check(ctx, r.Task, cache)
	r.Problems = append(r.Problems, ps...)
	r.Notes = append(r.Notes, ns...)
	// The licence State A's archive shows against the one declared.
	if d := r.Task.StateA.SHA256; d != "" {
		if st, err := os.Stat(cache.Path(d)); err == nil && st.Mode().IsRegular() {
			r.Problems = append(r.Problems, notice.Check(r.Task, cache.Path(d))...)
		}
	}
	task.SortProblems(r.Problems)
	return r
}

// LoadMemo is the folder under the cache cacheDir where loaded tasks are
// memoised (task.LoadOptions.Memo, task.ValidateOptions.LoadMemo).
func LoadMemo(cacheDir string) string { return filepath.Join(cacheDir, "validate", "load") }

// Tasks validates each task folder of dirs ([Task]) and returns their
// reports, in order, and how many have problems.
func Tasks(ctx context.Context, dirs []string, cacheDir string) (reports []*task.Report, bad int) {
	for _, d := range dirs {
		r := Task(ctx, d, cacheDir)
		reports = append(reports, r)
		if !r.OK() {
			bad++
		}
	}
	return reports, bad
}
