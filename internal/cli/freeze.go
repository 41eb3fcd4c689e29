package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

const freezeDoc = `Record the ground truth of a task's behavioural modules from State A,
then prove it reproduces.

State A is built in every configuration with the configuration's original
commands (the old toolchain), and every declarative module observes it;
what it observes becomes truth/<module>.json, with its provenance: the task
folder's commit, State A's digest, image digests (none for a host run),
the versions of the watched tools, srb's fingerprint, and the fingerprint
of the module's cases (its params and every file under data/), so a case
edited without re-recording is refused by srb behavioural.

Then the identity run: State A checked against its own truth, twice. The
truth is written into the task folder only if every module reaches 1.0 in
both runs; otherwise nothing is written, the checks that failed are listed
per run, and a check whose verdict differed between the two runs is named
as flaky. A non-deterministic case cannot be frozen.

This runs on this machine, with the host's toolchains and srb itself as
the helper (or --helper); in the ladder, State A is built in the
verification image and the identity run happens when the behavioural
image is built, which arrives with the stage images.

Exit status: 0 when the truth was written, 1 when freezing could not run,
2 when it was refused (the task's modules do not reproduce on State A) or
the task's configuration is wrong.

Examples:
  srb freeze lang90-tally-c-to-go
  srb freeze tasks/lang90-tally-c-to-go --keep-work /tmp/freeze`

// FreezeOptions are the inputs of srb freeze.
type FreezeOptions struct {
	IO  IOStreams
	Now func() time.Time

	Task     string
	Original string
	Helper   string
	KeepWork string
}

// NewCmdFreeze builds `srb freeze`.
func NewCmdFreeze(f *Factory, runF func(*FreezeOptions) error) *cobra.Command {
	opts := &FreezeOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "freeze TASK",
		Short: "Record truth from State A, then run the identity run twice",
		Long:  freezeDoc,
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runFreeze(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Original, "original", "", "State A's tree (default: the task's State A from the cache)")
	addHelperFlags(cmd, &opts.Helper, &opts.KeepWork)
	return cmd
}

func runFreeze(ctx context.Context, opts *FreezeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dirs, err := resolveTasks([]string{opts.Task})
	if err != nil {
		return couldNotRun(err)
	}
	t, problems := task.Load(dirs[0])
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
		}
		return badTask(fmt.Errorf("freeze: the task %s cannot be read (%d problem(s)); run srb validate", dirs[0], len(problems)))
	}
	decl, err := declaration(t)
	if err != nil {
		return badTask(fmt.Errorf("freeze: %w", err))
	}
	helper, err := helperArgv(opts.Helper)
	if err != nil {
		return couldNotRun(fmt.Errorf("freeze: %w", err))
	}
	digest := t.StateA.SHA256
	original := opts.Original
	if original == "" {
		dir, cleanup, err := stateATree(ctx, t)
		if err != nil {
			var mm *source.MismatchError
			if errors.As(err, &mm) {
				return badTask(fmt.Errorf("freeze: State A: %w", err))
			}
			return couldNotRun(fmt.Errorf("freeze: State A: %w", err))
		}
		defer cleanup()
		original = dir
	} else if original, err = filepath.Abs(original); err != nil {
		return couldNotRun(err)
	}
	work, done, err := workDir(opts.KeepWork, "srb-freeze-")
	if err != nil {
		return couldNotRun(fmt.Errorf("freeze: %w", err))
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(t.Timeouts.Behavioural)*time.Second)
	defer cancel()
	fz := &behavioural.Freezer{
		Runner: behavioural.Runner{Repo: original, Original: original, Work: work, Now: opts.Now},
		Decl:   decl, Helper: helper,
		Provenance: behavioural.Provenance{TaskCommit: taskCommit(t.Dir), StateA: digest, Where: "host", SRB: result.Fingerprint()},
	}
	rep, err := fz.Freeze(ctx)
	for i, st := range []*result.Stage{rep.Record, rep.Identity[0], rep.Identity[1]} {
		if st == nil {
			continue
		}
		passed, total := result.Pooled(st.Checks)
		fmt.Fprintf(opts.IO.ErrOut, "srb: %s: %d module(s), %d/%d checks passed\n", []string{"record", "identity run 1", "identity run 2"}[i], len(st.Units), passed, total)
	}
	if errors.Is(err, behavioural.ErrRefused) {
		return badTask(err)
	}
	if err != nil {
		return couldNotRun(err)
	}
	for _, p := range rep.Written {
		rel, rerr := filepath.Rel(decl.TaskDir, p)
		if rerr != nil {
			rel = p
		}
		fmt.Fprintf(opts.IO.Out, "wrote %s\n", filepath.ToSlash(filepath.Join(filepath.Base(t.Dir), rel)))
	}
	fmt.Fprintf(opts.IO.Out, "%s: frozen; the identity run reached 1.0 in every module twice\n", t.ID)
	return nil
}

// taskCommit is the last commit touching the task folder, or "" outside git.
func taskCommit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%H", "--", ".").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
