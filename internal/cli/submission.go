package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// SubmissionApplyOptions are the inputs of srb submission apply.
type SubmissionApplyOptions struct {
	IO IOStreams

	Task    string
	Fixture string
	Out     string
	Cache   string
}

// NewCmdSubmission builds the hidden `srb submission` and its apply command.
func NewCmdSubmission(f *Factory, runF func(*SubmissionApplyOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "submission",
		Short:  "Work with submission fixtures",
		Long:   help("submission"),
		Hidden: true,
		Args:   argsValidator(cobra.NoArgs),
		// Runnable so that a missing or unknown subcommand is a usage error
		// (exit 1) rather than cobra's help page with exit 0.
		RunE: func(cmd *cobra.Command, args []string) error {
			return &usageError{err: argsError(cmd, args)}
		},
	}
	opts := &SubmissionApplyOptions{IO: f.IO}
	apply := &cobra.Command{
		Use:   "apply TASK FIXTURE --out DIR",
		Short: "Write the submission a fixture describes: State A, delete.txt, overlay/",
		Long:  help("submission"),
		Args:  argsValidator(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Task, opts.Fixture = args[0], args[1]
			if opts.Out == "" {
				return &usageError{err: errors.New("--out DIR is required")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runSubmissionApply(cmd.Context(), opts)
		},
	}
	apply.Flags().StringVar(&opts.Out, "out", "", "the folder the submission is written to (must not exist)")
	addCacheFlag(apply, &opts.Cache)
	cmd.AddCommand(apply)
	return cmd
}

func runSubmissionApply(ctx context.Context, opts *SubmissionApplyOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	fx, err := submission.Load(opts.Fixture)
	if err != nil {
		return couldNotRun(err)
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
		return silent(ExitBadTask, fmt.Errorf("cannot read the task %s", dirs[0]))
	}
	a, err := grade.ApplyFixture(ctx, t, fx, opts.Cache, opts.Out)
	if err != nil {
		return couldNotRun(err)
	}
	for _, p := range a.Deleted {
		fmt.Fprintf(opts.IO.Out, "deleted %s\n", p)
	}
	for _, p := range a.Written {
		fmt.Fprintf(opts.IO.Out, "wrote   %s\n", p)
	}
	fmt.Fprintf(opts.IO.Out, "%s: %s applied on State A of %s into %s\n", fx.Name, fx.Describe(), t.ID, filepath.Clean(opts.Out))
	return nil
}
