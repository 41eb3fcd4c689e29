package notice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Gather reads the NOTICE entry of each task whose task.cue is in files
// (in that order), from State A's archive in c, fetching an archive the
// cache lacks with env; loadMemo is task.LoadOptions.Memo. What it
// cannot use is said on log ("srb: ID: why") and counted: bad for the
// task's own fault (problems in task.cue, no pin, an archive that is not
// the pinned State A: exit 2), faults for the harness's (a fetch or read
// that failed: exit 1). The entries are those of the tasks that could be
// read.
func Gather(ctx context.Context, files []string, c *source.Cache, env *source.Env, loadMemo string, log io.Writer) (entries []Entry, bad, faults int) {
	entries = []Entry{}
	for _, m := range files {
		t, problems := task.LoadWith(filepath.Dir(m), task.LoadOptions{Memo: loadMemo})
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(log, p.Format(""))
			}
			fmt.Fprintf(log, "srb: %s: %d problem(s) in the task; run srb validate\n", filepath.Base(filepath.Dir(m)), len(problems))
			bad++
			continue
		}
		if t.StateA.SHA256 == "" {
			fmt.Fprintf(log, "srb: %s: state A is not pinned: run srb fetch --pin %s first\n", t.ID, t.ID)
			bad++
			continue
		}
		archive := c.Path(t.StateA.SHA256)
		if _, err := os.Stat(archive); err != nil {
			fmt.Fprintf(log, "srb: %s: State A sha256 %.12s is not in the cache: fetching it from %s\n", t.ID, t.StateA.SHA256, source.Describe(t.StateA.Source))
			e, err := c.Materialise(ctx, t.StateA, t.Dir, env)
			var mm *source.MismatchError
			switch {
			case errors.As(err, &mm):
				fmt.Fprintf(log, "srb: %s: %v\n", t.ID, err)
				bad++
				continue
			case err != nil:
				fmt.Fprintf(log, "srb: %s: %v\n", t.ID, err)
				faults++
				continue
			}
			archive = e.Archive
		}
		e, err := EntryFor(t, archive)
		if err != nil {
			fmt.Fprintf(log, "srb: %s: %v\n", t.ID, err)
			faults++
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad, faults
}
