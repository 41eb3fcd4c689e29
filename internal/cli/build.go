package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// BuildOptions are the inputs of srb build: the tasks and the options
// of their builds ([image.Builds]; its CacheDir, Locks, ProgressOut,
// SkipIdentity, StateA, Log and Refused are set as it runs).
type BuildOptions struct {
	IO    IOStreams
	Getwd func() (string, error)
	Tasks []string
	image.Builds
	// Cache is the cache folder (--cache); "" is $SRB_CACHE, else the
	// user cache dir's srb.
	Cache string
	JSON  bool
	// NoIdentity skips the behavioural image's identity run
	// (--no-identity); images.lock records the skip.
	NoIdentity bool
	// NoIdentityWhy says why NoIdentity is set when no --no-identity flag
	// was given (srb freeze building the images it records the truth
	// in); "" means the flag.
	NoIdentityWhy string
}

// NewCmdBuild builds `srb build`.
func NewCmdBuild(f *Factory, runF func(*BuildOptions) error) *cobra.Command {
	opts := &BuildOptions{IO: f.IO, Getwd: f.Getwd, Builds: image.Builds{Dial: f.BuildKit, Engine: f.Engine}}
	cmd := &cobra.Command{
		Use:   "build [TASK...]",
		Short: "Build a task's stage images and write or verify its images.lock",
		Long:  help("build"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tasks = args
			for _, s := range opts.Stages {
				if (&task.Images{}).Stage(s) == nil {
					return &usageError{err: fmt.Errorf("--stage %s: want one of %s", s, strings.Join(task.StageNames, ", "))}
				}
			}
			switch opts.Progress {
			case "auto", "tty", "plain", "quiet", "rawjson":
			default:
				return &usageError{err: fmt.Errorf("--progress %s: want auto, tty, plain, quiet or rawjson", opts.Progress)}
			}
			if opts.Verify && (opts.Load || opts.Push != "") {
				return &usageError{err: errors.New("--verify rebuilds to compare: it does not take --load or --push")}
			}
			if opts.Helper != "" {
				if err := image.CheckStatic(opts.Helper); err != nil {
					return &usageError{err: fmt.Errorf("--helper: %w", err)}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return runBuild(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Stages, "stage", nil, "build only these stage images (agent, audit, behavioural, verification)")
	cmd.Flags().StringVar(&opts.BuildKit, "buildkit", "", "buildkitd address (default $BUILDKIT_HOST, else "+image.DefaultBuildKitHost+")")
	cmd.Flags().StringVar(&opts.Progress, "progress", "auto", "progress display: auto, tty, plain, quiet or rawjson")
	cmd.Flags().BoolVar(&opts.Load, "load", false, "load the images into Docker (DOCKER_HOST)")
	cmd.Flags().StringVar(&opts.Push, "push", "", "push the images to this repository, tagged <task id>-<stage>")
	cmd.Flags().BoolVar(&opts.Verify, "verify", false, "rebuild with no cache and fail on any digest that moved from images.lock")
	cmd.Flags().StringVar(&opts.Helper, "helper", "", "a prebuilt static srb-helper to put in the images (default: build it from srb's source)")
	cmd.Flags().BoolVar(&opts.NoIdentity, "no-identity", false, "do not run the behavioural image's identity run (images.lock records the skip)")
	addCacheFlag(cmd, &opts.Cache)
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runBuild(ctx context.Context, opts *BuildOptions) error {
	dirs, err := resolveTasks(opts.Tasks)
	if err != nil {
		return couldNotRun(err)
	}
	cacheDir, err := resolveCache(opts.Cache)
	if err != nil {
		return err
	}
	var tasks []*task.Task
	for _, d := range dirs {
		t, problems := task.Load(d)
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
			}
			return silent(ExitBadTask, fmt.Errorf("%s: %d problem(s); run srb validate", d, len(problems)))
		}
		tasks = append(tasks, t)
	}
	// --verify compares with each task's lockfile: read (and validate)
	// them all before any engine is dialled or anything is built.
	var locks map[string]*image.Lock
	if opts.Verify {
		if locks, err = image.LocksToVerify(tasks); err != nil {
			return badTask(err)
		}
	}
	progress := opts.IO.ErrOut
	if opts.JSON && opts.Progress == "auto" {
		progress = nil
	}
	b := opts.Builds
	b.CacheDir, b.Locks, b.ProgressOut = cacheDir, locks, progress
	b.StateA = grade.Backend{CacheDir: cacheDir}.StateA
	b.Refused = func(t *task.Task, err error) { fmt.Fprintf(opts.IO.ErrOut, "srb: %s: %v\n", t.ID, err) }
	if !opts.JSON {
		b.Log = logTo(opts.IO.ErrOut)
	}
	if opts.NoIdentity {
		b.SkipIdentity = identitySkipWhy(opts)
	}
	done, err := b.Run(ctx, tasks)
	if tf := (*image.TaskFault)(nil); errors.As(err, &tf) {
		return badTask(tf.Err)
	} else if err != nil {
		return couldNotRun(err)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, done.Reports); err != nil {
			return couldNotRun(err)
		}
	} else {
		for _, r := range done.Reports {
			printBuild(opts.IO.Out, r, opts)
		}
	}
	if err := done.Fault(); err != nil {
		return silent(ExitBadTask, err)
	}
	return nil
}

// printBuild prints what r made as srb build with opts does
// ([image.WriteBuilt]).
func printBuild(w io.Writer, r *image.TaskBuilt, opts *BuildOptions) {
	image.WriteBuilt(w, r, opts.Verify, identitySkipWhy(opts))
}
