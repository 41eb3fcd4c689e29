package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/source"
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
	env := opts.Env
	if env == nil {
		env = &source.Env{}
	}
	if !opts.JSON {
		env.Log = func(format string, args ...any) {
			fmt.Fprintf(opts.IO.ErrOut, "srb: "+format+"\n", args...)
		}
	}
	results, bad, faults := source.FetchAll(ctx, dirs, &source.Cache{Dir: cacheDir}, env, opts.Pin, loadMemo(cacheDir), opts.IO.ErrOut)
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, results); err != nil {
			return couldNotRun(err)
		}
	} else {
		source.WriteFetched(opts.IO.Out, opts.IO.ErrOut, results)
	}
	switch {
	case faults > 0:
		return silent(ExitCouldNotRun, fmt.Errorf("%d task(s) could not be fetched", faults))
	case bad > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) have State A problems", bad))
	}
	return nil
}
