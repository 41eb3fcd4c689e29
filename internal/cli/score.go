package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/report"
)

// ScoreOptions are the inputs of srb score.
type ScoreOptions struct {
	IO      IOStreams
	Now     func() time.Time
	Task    string
	Results string
	Title   string
	JSON    bool
}

// NewCmdScore builds `srb score`.
func NewCmdScore(f *Factory, runF func(*ScoreOptions) error) *cobra.Command {
	opts := &ScoreOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "score [TASK] --results DIR",
		Short: "Grade stage results into score.json, summary.txt and reward.json",
		Long:  help("score"),
		Args:  argsValidator(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Task = args[0]
			}
			if opts.Results == "" {
				return &usageError{err: errors.New("--results DIR is required")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runScore(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Results, "results", "", "the folder holding the stage result files (required)")
	cmd.Flags().StringVar(&opts.Title, "title", "", "the report's title (default: the task id)")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runScore(opts *ScoreOptions) error {
	var t *task.Task
	if opts.Task != "" {
		dirs, err := resolveTasks([]string{opts.Task})
		if err != nil {
			return couldNotRun(err)
		}
		var problems []task.Problem
		if t, problems = task.Load(dirs[0]); len(problems) > 0 {
			// Nothing is written: the results folder may hold a verdict
			// that a broken or mistyped TASK must not replace.
			for _, p := range problems {
				fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
			}
			return silent(ExitBadTask, fmt.Errorf("cannot read the task %s", dirs[0]))
		}
	}
	v, title, err := grade.Score(t, opts.Results, opts.Now(), opts.Title, opts.IO.ErrOut)
	if err != nil {
		return couldNotRun(err)
	}
	text := report.Render(v, title)
	if opts.JSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return couldNotRun(err)
		}
		fmt.Fprintf(opts.IO.Out, "%s\n", b)
	} else {
		fmt.Fprintln(opts.IO.Out, text)
	}
	if !v.Valid() {
		// The verdict is published (valid: false) so nothing downstream
		// mistakes the run for a zero; the exit status says to re-run.
		fmt.Fprintf(opts.IO.ErrOut, "srb: the grader could not complete: %s\n", v.HarnessError)
		return silent(ExitCouldNotRun, errors.New(v.HarnessError))
	}
	return nil
}
