package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

const fetchDoc = `Fetch State A into the cache and verify, or write, its pin.

For each TASK (a task folder or an id under ./tasks; default: every task
under ./tasks), State A is fetched from the registry its source names —
gomod through the go command, npm through the npm client, debian through
apt-get with deb-src entries derived from the system's apt sources, url
over https, git with the git client, local from a folder or archive —
repacked canonically, and stored in the cache. A source fetched before is
served from the cache, offline.

The pin (state_a.sha256) is the sha256 of the canonical uncompressed tar.
Without --pin, a task whose pin is absent or differs is a problem (exit 2),
and the message shows both digests and the source. With --pin, srb writes
the digest into the task's task.cue and changes nothing else there.

Each State A also gets the agent's starting tree: State A as a git
repository with one commit by a fixed author and committer at a fixed
date, so its commit id depends on the content alone; srb prints that id
and records it in the cache.

What is fetched is unpacked within the source's limits (state_a.source.limits:
bytes with every hard link in full, entries, expansion ratio; docs/SCHEMA.md),
and a url download is bounded and checked against source.sha256 before
anything is unpacked. A source srb refuses is a problem (exit 2), and
nothing of it is cached or pinned.

The cache is $SRB_CACHE, else the user cache dir's srb folder (--cache
overrides both). A registry that cannot be reached is exit 1.

Examples:
  srb fetch
  srb fetch lang01-cmark-c-to-rust --pin
  srb fetch tasks/build01-libsodium-autotools-to-cmake --json`

// FetchOptions are the inputs of srb fetch.
type FetchOptions struct {
	IO    IOStreams
	Tasks []string
	Pin   bool
	Cache string
	JSON  bool
	Env   *source.Env
}

// NewCmdFetch builds `srb fetch`.
func NewCmdFetch(f *Factory, runF func(*FetchOptions) error) *cobra.Command {
	opts := &FetchOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "fetch [TASK...]",
		Short: "Fetch State A into the cache and verify or write its pin",
		Long:  fetchDoc,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tasks = args
			if runF != nil {
				return runF(opts)
			}
			return runFetch(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Pin, "pin", false, "write the digest into each task's task.cue")
	addCacheFlag(cmd, &opts.Cache)
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

type fetchResult struct {
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

func runFetch(ctx context.Context, opts *FetchOptions) error {
	defer shortRunGC()()
	dirs, err := resolveTasks(opts.Tasks)
	if err != nil {
		return couldNotRun(err)
	}
	cacheDir, err := resolveCache(opts.Cache)
	if err != nil {
		return err
	}
	cache := &source.Cache{Dir: cacheDir}
	env := opts.Env
	if env == nil {
		env = &source.Env{}
	}
	if !opts.JSON {
		env.Log = func(format string, args ...any) {
			fmt.Fprintf(opts.IO.ErrOut, "srb: "+format+"\n", args...)
		}
	}
	var results []fetchResult
	bad, faults := 0, 0
	for _, d := range dirs {
		t, problems := task.LoadWith(d, task.LoadOptions{Memo: loadMemo(cacheDir)})
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
			}
			results = append(results, fetchResult{Task: filepath.Base(d), Status: "error", Error: fmt.Sprintf("%d problem(s) in the task; run srb validate", len(problems))})
			bad++
			continue
		}
		r := fetchResult{Task: t.ID, Source: source.Describe(t.StateA.Source)}
		e, err := cache.Materialise(ctx, t.StateA, t.Dir, env)
		if e != nil {
			r.Top, r.Digest, r.Archive, r.Cached = e.Top, e.Digest, e.Archive, e.FromCache
		}
		if e != nil && e.Digest != "" {
			if id, cerr := cache.StartCommit(ctx, e, env.Git); cerr == nil {
				r.StartCommit = id
			} else {
				fmt.Fprintf(opts.IO.ErrOut, "srb: %s: the starting tree could not be made: %v\n", t.ID, cerr)
			}
		}
		var mm *source.MismatchError
		switch {
		case err != nil && errors.As(err, &mm) && opts.Pin && !mm.Bytes && e != nil:
			if _, perr := source.Pin(t.File, e.Digest); perr != nil {
				r.Status, r.Error = "error", perr.Error()
				faults++
			} else {
				r.Status = "repinned"
			}
		case err != nil && errors.As(err, &mm):
			r.Status, r.Error = "mismatch", err.Error()
			bad++
		case err != nil && refused(err):
			r.Status, r.Error = "refused", err.Error()
			bad++
		case err != nil:
			r.Status, r.Error = "error", err.Error()
			faults++
		case t.StateA.SHA256 == "" && opts.Pin:
			if _, perr := source.Pin(t.File, e.Digest); perr != nil {
				r.Status, r.Error = "error", perr.Error()
				faults++
			} else {
				r.Status = "pinned"
			}
		case t.StateA.SHA256 == "":
			r.Status = "unpinned"
			r.Error = fmt.Sprintf("state A is not pinned: run srb fetch --pin %s to write sha256 %s into %s", t.Arg(), e.Digest, t.File)
			bad++
		default:
			r.Status = "verified"
		}
		results = append(results, r)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, results); err != nil {
			return couldNotRun(err)
		}
	} else {
		for _, r := range results {
			switch {
			case r.Digest != "":
				from := "fetched"
				if r.Cached {
					from = "from the cache"
				}
				fmt.Fprintf(opts.IO.Out, "%s: %s (%s, %s): sha256 %s %s\n", r.Task, r.Top, r.Source, from, r.Digest, r.Status)
				if r.StartCommit != "" {
					fmt.Fprintf(opts.IO.Out, "%s: starting tree commit %s\n", r.Task, r.StartCommit)
				}
			default:
				fmt.Fprintf(opts.IO.Out, "%s: %s\n", r.Task, r.Status)
			}
			if r.Error != "" {
				fmt.Fprintf(opts.IO.ErrOut, "srb: %s: %s\n", r.Task, r.Error)
			}
		}
	}
	switch {
	case faults > 0:
		return silent(ExitCouldNotRun, fmt.Errorf("%d task(s) could not be fetched", faults))
	case bad > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) have State A problems", bad))
	}
	return nil
}

// refused reports whether err is srb refusing what the source gave (an
// archive past its limits, an unsafe entry, not an archive at all): the
// task's source is wrong (exit 2), where a registry that cannot be
// reached is not (exit 1).
func refused(err error) bool {
	for _, s := range []error{archive.ErrTooLarge, archive.ErrTooManyFiles, archive.ErrUnsafePath, archive.ErrLink, archive.ErrSpecialFile, archive.ErrDuplicate, archive.ErrFormat} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
