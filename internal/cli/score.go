package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
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
	policy := scoring.Published()
	taskID := ""
	if opts.Task != "" {
		dirs, err := resolveTasks([]string{opts.Task})
		if err != nil {
			return couldNotRun(err)
		}
		t, problems := task.Load(dirs[0])
		if len(problems) > 0 {
			// Nothing is written: the results folder may hold a verdict
			// that a broken or mistyped TASK must not replace.
			for _, p := range problems {
				fmt.Fprintln(opts.IO.ErrOut, p.Format(""))
			}
			return silent(ExitBadTask, fmt.Errorf("cannot read the task %s", dirs[0]))
		}
		taskID = t.ID
		policy = grade.TaskPolicy(t)
	} else {
		taskID = pipeline.TaskOfResults(opts.Results)
	}
	if st, err := os.Stat(opts.Results); err != nil || !st.IsDir() {
		return couldNotRun(fmt.Errorf("score: no results folder at %s", opts.Results))
	}
	if runs := pipeline.RunsInside(opts.Results); len(runs) > 0 {
		// A folder of runs is not a run: grading it would write an
		// invalid verdict (no stage ran) into the runs' parent.
		return couldNotRun(fmt.Errorf("score: %s holds no stage files but holds runs (%s): give one run's folder to --results",
			opts.Results, strings.Join(runs, ", ")))
	}
	title := opts.Title
	if title == "" {
		title = taskID
	}
	v, err := pipeline.Score(taskID, policy, opts.Results, opts.Task != "", opts.Now(), title, opts.IO.ErrOut)
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
