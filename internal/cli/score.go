package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/swe-refactor-bench/srb/internal/archive"
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

const scoreDoc = `Grade a run from its stage result files.

Reads audit.json, behavioural.json and verification.json from the results
folder, grades them with formula (4) of the paper and the status rules, and
writes score.json, summary.txt and reward.json (last, atomically) there. The
text report is printed (the verdict as JSON with --json).

With TASK, the task's scoring policy is used, and the task's declaration
wins over the files: behavioural.json must hold every declared module and
no other (each weighted as the task declares, whatever the file says), and
verification.json exactly one round per declared adversary. Without TASK,
srb grades with the published policy (100 / 40 / 60 / 6 / 10) and all
three stages declared, and verification.json must hold exactly the
policy's 6 rounds: this is how results the earlier harness wrote are
re-graded. A missing module or round, or an extra one, makes the verdict
invalid.

A stage file that is absent means the stage did not run; one that cannot be
read (not JSON, a key written twice, a repeated check id, counts that
contradict its checks, or another stage's or, with TASK, another task's
result) is a harness fault and makes the verdict invalid, never a zero. A TASK that
cannot be loaded writes nothing (exit 2): the folder's verdict stays. The
exit status is 0 when the verdict is valid and 1 when it is not (the run
must be re-graded or re-run); the files are written either way.

Examples:
  srb score --results runs/1/verifier
  srb score tasks/lang90-tally-c-to-go --results runs/1/verifier --json`

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
		Long:  scoreDoc,
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
	if !pipeline.IsRun(opts.Results) {
		// No stage file here and no run below: a folder made for a run
		// that never wrote anything, or the wrong folder. Scoring it would
		// write an invalid verdict (no stage ran) where none belongs.
		what := "is empty"
		if entries, _ := os.ReadDir(opts.Results); len(entries) > 0 {
			names := make([]string, 0, 3)
			for i, e := range entries {
				if i == 3 {
					names = append(names, "…")
					break
				}
				n := archive.QuoteName(e.Name())
				if e.IsDir() {
					n += "/"
				}
				names = append(names, n)
			}
			what = "holds only " + strings.Join(names, ", ")
		}
		return couldNotRun(fmt.Errorf("score: %s holds no stage file (%s.json) and no run below it (it %s): give --results the folder a run wrote its stage files in",
			opts.Results, strings.Join(pipeline.StageFiles, ".json, "), what))
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
