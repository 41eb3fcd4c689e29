package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/notice"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// noticeFile is the file srb notice writes, in the working directory.
const noticeFile = "NOTICE"

// NoticeOptions are the inputs of srb notice.
type NoticeOptions struct {
	IO    IOStreams
	Env   *source.Env // how a missing State A is fetched; nil: the defaults
	Check bool        // write nothing; exit 2 with a diff when NOTICE is stale
	JSON  bool        // print the entries as JSON
	Cache string      // the cache folder; "": $SRB_CACHE, else the user cache dir
}

// NewCmdNotice builds `srb notice`.
func NewCmdNotice(f *Factory, runF func(*NoticeOptions) error) *cobra.Command {
	opts := &NoticeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "notice",
		Short: "Regenerate NOTICE from the State A archives of every task",
		Long:  help("notice"),
		Args:  argsValidator(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runNotice(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Check, "check", false, "write nothing; exit 2 with a diff when NOTICE is stale")
	addCacheFlag(cmd, &opts.Cache)
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runNotice(ctx context.Context, opts *NoticeOptions) error {
	defer shortRunGC()()
	matches, err := filepath.Glob(filepath.Join("tasks", "*", task.FileName))
	if err != nil {
		return couldNotRun(err)
	}
	sort.Strings(matches)
	cacheDir, err := resolveCache(opts.Cache)
	if err != nil {
		return err
	}
	env := opts.Env
	if env == nil {
		env = &source.Env{}
	}
	entries, bad, faults := notice.Gather(ctx, matches, &source.Cache{Dir: cacheDir}, env, loadMemo(cacheDir), opts.IO.ErrOut)
	switch {
	case faults > 0:
		return silent(ExitCouldNotRun, fmt.Errorf("%d task(s) could not be read", faults))
	case bad > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) have problems", bad))
	}
	text := notice.Render(entries)
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, entries); err != nil {
			return couldNotRun(err)
		}
	}
	if opts.Check {
		d, err := notice.Stale(noticeFile, text)
		if err != nil {
			return couldNotRun(fmt.Errorf("notice: %w", err))
		}
		if d == nil {
			if !opts.JSON {
				fmt.Fprintf(opts.IO.Out, "%s is up to date (%d task(s))\n", noticeFile, len(entries))
			}
			return nil
		}
		w := opts.IO.Out
		if opts.JSON {
			w = opts.IO.ErrOut
		}
		_, _ = w.Write(d)
		fmt.Fprintf(opts.IO.ErrOut, "srb: %s is stale: run srb notice to regenerate it\n", noticeFile)
		return silent(ExitBadTask, fmt.Errorf("%s is stale", noticeFile))
	}
	if err := notice.WriteFile(noticeFile, text); err != nil {
		return couldNotRun(fmt.Errorf("notice: %w", err))
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.Out, "wrote %s (%d task(s))\n", noticeFile, len(entries))
	}
	return nil
}
