package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// Fetched is what srb fetch reports for one task (its --json shape): the
// archive State A came from and what became of its pin.
type Fetched struct {
	Task    string `json:"task"`
	Source  string `json:"source"`
	Top     string `json:"top,omitempty"`
	Digest  string `json:"digest,omitempty"`
	Archive string `json:"archive,omitempty"`
	Cached  bool   `json:"from_cache"`
	// StartCommit is the commit id of the agent's starting tree: State A
	// as a git repository with one fixed commit.
	StartCommit string `json:"start_commit,omitempty"`
	Status      string `json:"status"` // verified, pinned, repinned, unpinned, mismatch, refused, error
	Error       string `json:"error,omitempty"`
}

// Fetch materialises t's State A in c (fetching it when missing), makes
// its starting commit and checks it against the pin; with pin, it writes
// the digest into task.cue when there is none, or when the archive's
// tree matches and only its bytes' digest moved (repinned).
//
// code is how the outcome counts for srb fetch's exit status: 0 verified
// or pinned, 1 a harness fault (status error: a source that cannot be
// reached, a pin that cannot be written), 2 the task's source is wrong
// (mismatch, refused, unpinned). startErr, when not nil, says why the
// starting commit could not be made (the fetch itself still counts).
func Fetch(ctx context.Context, t *task.Task, c *Cache, env *Env, pin bool) (r Fetched, code int, startErr error) {
	r = Fetched{Task: t.ID, Source: Describe(t.StateA.Source)}
	e, err := c.Materialise(ctx, t.StateA, t.Dir, env)
	if e != nil {
		r.Top, r.Digest, r.Archive, r.Cached = e.Top, e.Digest, e.Archive, e.FromCache
	}
	if e != nil && e.Digest != "" {
		if id, cerr := c.StartCommit(ctx, e, env.Git); cerr == nil {
			r.StartCommit = id
		} else {
			startErr = cerr
		}
	}
	var mm *MismatchError
	switch {
	case err != nil && errors.As(err, &mm) && pin && !mm.Bytes && e != nil:
		if _, perr := Pin(t.File, e.Digest); perr != nil {
			r.Status, r.Error, code = "error", perr.Error(), 1
		} else {
			r.Status = "repinned"
		}
	case err != nil && errors.As(err, &mm):
		r.Status, r.Error, code = "mismatch", err.Error(), 2
	case err != nil && Refused(err):
		r.Status, r.Error, code = "refused", err.Error(), 2
	case err != nil:
		r.Status, r.Error, code = "error", err.Error(), 1
	case t.StateA.SHA256 == "" && pin:
		if _, perr := Pin(t.File, e.Digest); perr != nil {
			r.Status, r.Error, code = "error", perr.Error(), 1
		} else {
			r.Status = "pinned"
		}
	case t.StateA.SHA256 == "":
		r.Status = "unpinned"
		r.Error = fmt.Sprintf("state A is not pinned: run srb fetch --pin %s to write sha256 %s into %s", t.Arg(), e.Digest, t.File)
		code = 2
	default:
		r.Status = "verified"
	}
	return r, code, startErr
}

// Refused reports whether err is srb refusing what the source gave (an
// archive past its limits, an unsafe entry, not an archive at all): the
// task's source is wrong (exit 2), where a registry that cannot be
// reached is not (exit 1).
func Refused(err error) bool {
	for _, s := range []error{archive.ErrTooLarge, archive.ErrTooManyFiles, archive.ErrUnsafePath, archive.ErrLink, archive.ErrSpecialFile, archive.ErrDuplicate, archive.ErrFormat} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FetchAll is srb fetch over the task folders dirs: each is loaded (memo:
// task.LoadOptions.Memo) and fetched into c ([Fetch]), in order. A task
// that cannot be read has its problems printed on log and reports status
// error; a starting commit that could not be made is a line on log. It
// returns a report per folder and how many were the tasks' own fault
// (bad: code 2, or unreadable) and how many harness faults (code 1).
func FetchAll(ctx context.Context, dirs []string, c *Cache, env *Env, pin bool, memo string, log io.Writer) (results []Fetched, bad, faults int) {
	for _, d := range dirs {
		t, problems := task.LoadWith(d, task.LoadOptions{Memo: memo})
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(log, p.Format(""))
			}
			results = append(results, Fetched{Task: filepath.Base(d), Status: "error", Error: fmt.Sprintf("%d problem(s) in the task; run srb validate", len(problems))})
			bad++
			continue
		}
		r, code, startErr := Fetch(ctx, t, c, env, pin)
		if startErr != nil {
			fmt.Fprintf(log, "srb: %s: the starting tree could not be made: %v\n", t.ID, startErr)
		}
		switch code {
		case 1:
			faults++
		case 2:
			bad++
		}
		results = append(results, r)
	}
	return results, bad, faults
}

// WriteFetched prints results as srb fetch does: per task, the archive
// (top folder, source, fetched or from the cache), its digest and status,
// and the starting tree's commit, on out; each task's error on errOut.
func WriteFetched(out, errOut io.Writer, results []Fetched) {
	for _, r := range results {
		switch {
		case r.Digest != "":
			from := "fetched"
			if r.Cached {
				from = "from the cache"
			}
			fmt.Fprintf(out, "%s: %s (%s, %s): sha256 %s %s\n", r.Task, r.Top, r.Source, from, r.Digest, r.Status)
			if r.StartCommit != "" {
				fmt.Fprintf(out, "%s: starting tree commit %s\n", r.Task, r.StartCommit)
			}
		default:
			fmt.Fprintf(out, "%s: %s\n", r.Task, r.Status)
		}
		if r.Error != "" {
			fmt.Fprintf(errOut, "srb: %s: %s\n", r.Task, r.Error)
		}
	}
}
