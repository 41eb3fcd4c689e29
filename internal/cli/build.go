package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moby/buildkit/client"
	_ "github.com/moby/buildkit/client/connhelper/dockercontainer" // docker-container:// addresses
	_ "github.com/moby/buildkit/client/connhelper/kubepod"         // kube-pod:// addresses
	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// BuildOptions are the inputs of srb build.
type BuildOptions struct {
	IO     IOStreams
	Getwd  func() (string, error)
	Tasks  []string
	Stages []string
	// BuildKit is the buildkitd address; "" means BUILDKIT_HOST, else
	// image.DefaultBuildKitHost.
	BuildKit string
	Progress string
	Load     bool
	Push     string
	Verify   bool
	Cache    string
	JSON     bool
	// Helper is a prebuilt static srb-helper (--helper); "" builds it
	// from srb's source (image.HelperSource).
	Helper string
	// Dial connects to buildkitd; nil uses image.Dial.
	Dial func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
	// Engine connects to Docker for --load and the identity run; nil
	// uses engine.NewDocker.
	Engine func() (engine.Runner, error)
	// NoIdentity skips the behavioural image's identity run
	// (--no-identity); images.lock records the skip.
	NoIdentity bool
	// NoIdentityWhy says why NoIdentity is set when no --no-identity flag
	// was given (srb freeze building the images it records the truth
	// in); "" means the flag.
	NoIdentityWhy string
	// IdentityCache is the folder passed identity runs are remembered in
	// (<key>.json each); "" is the cache folder's identity/.
	IdentityCache string
}

// NewCmdBuild builds `srb build`.
func NewCmdBuild(f *Factory, runF func(*BuildOptions) error) *cobra.Command {
	opts := &BuildOptions{IO: f.IO, Getwd: f.Getwd, Dial: f.BuildKit, Engine: f.Engine}
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

func buildKitAddr(flag string) string {
	if flag != "" {
		return flag
	}
	if h := os.Getenv("BUILDKIT_HOST"); h != "" {
		return h
	}
	return image.DefaultBuildKitHost
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
	locks := map[string]*image.Lock{}
	if opts.Verify {
		for _, t := range tasks {
			l, err := image.ReadLock(t.Dir)
			if err != nil {
				if errors.Is(err, image.ErrNoLock) {
					return badTask(fmt.Errorf("%s: nothing to verify: %w; run srb build %s first", t.ID, err, t.ID))
				}
				return badTask(fmt.Errorf("%s: %w", t.ID, err))
			}
			locks[t.ID] = l
		}
	}
	return buildTasks(ctx, opts, cacheDir, tasks, locks)
}

// buildTasks builds tasks with [image.TaskBuild] on the BuildKit opts
// name (loading into Docker with opts.Load), compares with locks under
// opts.Verify, prints what each made and says how srb build exits. srb
// build runs it after loading its tasks; the stage-image builder srb's
// stages use ([defaultImageBuilder]) runs it for the one task it builds.
func buildTasks(ctx context.Context, opts *BuildOptions, cacheDir string, tasks []*task.Task, locks map[string]*image.Lock) error {
	dial := opts.Dial
	if dial == nil {
		dial = image.Dial
	}
	addr := buildKitAddr(opts.BuildKit)
	bk, info, err := dial(ctx, addr)
	if err != nil {
		return couldNotRun(fmt.Errorf("build: %w (scripts/engines.sh starts buildkitd; srb doctor says what is missing)", err))
	}
	defer bk.Close()
	var docker engine.Runner
	if opts.Load {
		newEngine := opts.Engine
		if newEngine == nil {
			newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
		}
		if docker, err = newEngine(); err != nil {
			return couldNotRun(fmt.Errorf("build: %w", err))
		}
	}
	logf := func(format string, args ...any) {
		if !opts.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "srb: "+format+"\n", args...)
		}
	}
	progress := opts.IO.ErrOut
	if opts.JSON && opts.Progress == "auto" {
		progress = nil
	}
	skip := ""
	if opts.NoIdentity {
		skip = identitySkipWhy(opts)
	}
	var reports []*image.TaskBuilt
	drifted, capFailed, identityFailed := 0, 0, 0
	for _, t := range tasks {
		tb := &image.TaskBuild{Client: bk, BuildKitVersion: info.BuildkitVersion.Version, CacheDir: cacheDir, Stages: opts.Stages,
			Verify: opts.Verify, Want: locks[t.ID], Push: opts.Push, Helper: opts.Helper, Docker: docker, Engine: opts.Engine,
			Progress: progress, Mode: opts.Progress, SkipIdentity: skip, IdentityCache: opts.IdentityCache, Log: logf,
			StateA: func(ctx context.Context, t *task.Task) (string, func(), error) {
				return stateATreeIn(ctx, t, opts.Cache)
			}}
		r, err := tb.Build(ctx, t)
		var ce *image.CapabilityError
		var tf *image.TaskFault
		switch {
		case err != nil && errors.As(err, &ce):
			fmt.Fprintf(opts.IO.ErrOut, "srb: %s: %v\n", t.ID, err)
			reports = append(reports, r)
			capFailed++
			continue
		case errors.Is(err, image.ErrIdentityFailed):
			fmt.Fprintf(opts.IO.ErrOut, "srb: %s: %v\n", t.ID, err)
			reports = append(reports, r)
			identityFailed++
			continue
		case errors.As(err, &tf):
			return badTask(tf.Err)
		case err != nil:
			return couldNotRun(err)
		}
		if opts.Verify && !r.Verified {
			drifted++
		}
		reports = append(reports, r)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, reports); err != nil {
			return couldNotRun(err)
		}
	} else {
		for _, r := range reports {
			printBuild(opts.IO.Out, r, opts)
		}
	}
	switch {
	case capFailed > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) failed their capability probes", capFailed))
	case drifted > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) did not reproduce their lockfile", drifted))
	case identityFailed > 0:
		return silent(ExitBadTask, fmt.Errorf("%d task(s) failed the identity run: their truth does not reproduce on State A", identityFailed))
	}
	return nil
}

func printBuild(w io.Writer, r *image.TaskBuilt, opts *BuildOptions) {
	if r.Lock == nil {
		return
	}
	for _, s := range task.StageNames {
		im, ok := r.Lock.Images[s]
		if !ok {
			continue
		}
		line := fmt.Sprintf("%s: %-12s %s", r.Task, s, im.Digest)
		if names := r.Loaded[s]; len(names) > 0 {
			line += " loaded as " + strings.Join(names, ", ")
		}
		fmt.Fprintln(w, line)
	}
	if id := r.Identity; id != nil {
		switch {
		case id.Status == image.IdentityPassed && r.IdentityCached:
			fmt.Fprintf(w, "%s: identity run passed (%d checks; remembered from an earlier run on the same images)\n", r.Task, id.Checks)
		case id.Status == image.IdentityPassed:
			fmt.Fprintf(w, "%s: identity run passed (%d checks)\n", r.Task, id.Checks)
		case id.Status == image.IdentitySkipped:
			fmt.Fprintf(w, "%s: identity run skipped (%s)\n", r.Task, identitySkipWhy(opts))
		case id.Status == image.IdentityNotFrozen:
			fmt.Fprintf(w, "%s: identity run not run: the task is not frozen yet (no truth/)\n", r.Task)
		}
	}
	switch {
	case opts.Verify && r.Verified:
		fmt.Fprintf(w, "%s: verified: every digest reproduced with no cache (%.1fs)\n", r.Task, r.Seconds["total"])
	case opts.Verify:
		for _, d := range r.Drift {
			fmt.Fprintf(w, "%s: %s\n", r.Task, d)
		}
	default:
		fmt.Fprintf(w, "%s: wrote %s (%.1fs)\n", r.Task, image.LockName, r.Seconds["total"])
	}
}
