package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

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
		Long:  help("fetch"),
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
	var results []source.Fetched
	bad, faults := 0, 0
	for _, d := range dirs {
		t, problems := task.LoadWith(d, task.LoadOptions{Memo: loadMemo(cacheDir)})
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
			}
			results = append(results, source.Fetched{Task: filepath.Base(d), Status: "error", Error: fmt.Sprintf("%d problem(s) in the task; run srb validate", len(problems))})
			bad++
			continue
		}
		r, code, startErr := source.Fetch(ctx, t, cache, env, opts.Pin)
		if startErr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "srb: %s: the starting tree could not be made: %v\n", t.ID, startErr)
		}
		switch code {
		case ExitCouldNotRun:
			faults++
		case ExitBadTask:
			bad++
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
