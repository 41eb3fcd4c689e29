package cli

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/internal/validate"
)

// ValidateOptions are the inputs of srb validate.
type ValidateOptions struct {
	IO    IOStreams
	Getwd func() (string, error)
	Tasks []string
	JSON  bool
	Cache string
	// Capabilities shows each loaded task's effective capability
	// assertions (--capabilities).
	Capabilities bool
}

// NewCmdValidate builds `srb validate`.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: f.IO, Getwd: f.Getwd}
	cmd := &cobra.Command{
		Use:   "validate [TASK...]",
		Short: "Type-check tasks and run the static rules",
		Long:  help("validate"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tasks = args
			if runF != nil {
				return runF(opts)
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	addCacheFlag(cmd, &opts.Cache)
	cmd.Flags().BoolVar(&opts.Capabilities, "capabilities", false, "show each stage image's capability assertions, declared and defaulted")
	return cmd
}

// shortRunHeap is the heap size at which a short command's collector
// starts ([shortRunGC]).
const shortRunHeap = 512 << 20

// shortRunGC turns the garbage collector's proportional pacing off for a
// short command (validate, notice, fetch), leaving it a memory limit of
// shortRunHeap: their heaps stay far below it (lang01's validate peaks
// under 60 MB), and collecting as they grow cost a third of their CPU
// time (issue 17). GOGC or GOMEMLIMIT in the environment win. The
// returned func restores the settings (tests run commands in-process).
func shortRunGC() func() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(shortRunHeap)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	defer shortRunGC()()
	dirs, err := resolveTasks(opts.Tasks)
	if err != nil {
		return couldNotRun(err)
	}
	cacheDir, err := resolveCache(opts.Cache)
	if err != nil {
		return err
	}
	base := ""
	if opts.Getwd != nil {
		base, _ = opts.Getwd()
	}
	reports, bad := validate.Tasks(ctx, dirs, cacheDir)
	if err := validate.Write(opts.IO.Out, reports, base, opts.JSON, opts.Capabilities); err != nil {
		return couldNotRun(err)
	}
	if bad > 0 {
		return silent(ExitBadTask, fmt.Errorf("%d of %d task(s) have problems", bad, len(reports)))
	}
	return nil
}

// resolveTasks is [task.Dirs].
var resolveTasks = task.Dirs
