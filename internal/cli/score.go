package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

const scoreDoc = `Grade a run from its stage result files.

Reads audit.json, behavioural.json and verification.json from the results
folder, grades them with formula (4) of the paper and the status rules, and
writes score.json, summary.txt and reward.json (last, atomically) there. The
text report is printed (the verdict as JSON with --json).

With TASK, the task's scoring policy is used. Without TASK, srb grades with
the published policy (100 / 40 / 60 / 6 / 10) and all three stages
declared: this is how results the earlier harness wrote are re-graded.

A stage file that is absent means the stage did not run; one that cannot be
read (or holds another stage's or, with TASK, another task's result) is a
harness fault and makes the verdict invalid, never a zero. A TASK that
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

// stageFiles are the stage result files in ladder order.
var stageFiles = []string{"audit", "behavioural", "verification"}

// readStageFile reads results/<stage>.json: nil when absent; a failed
// stage result naming the file when it cannot be read, is not a regular
// file, breaks its contract, holds another stage's result or (checkTask)
// another task's (HARNESS.md §1.4 "score": a reading failure is a harness
// fault, never a zero).
func readStageFile(dir, stage, taskID string, checkTask bool, now time.Time) (*result.Stage, error) {
	p := filepath.Join(dir, stage+".json")
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	fail := func(err error) (*result.Stage, error) {
		return result.Failed(stage, taskID, fmt.Sprintf("result at %s is unreadable: %v", p, err), now), err
	}
	if err == nil && !st.Mode().IsRegular() {
		// A FIFO or a device would block or never end.
		return fail(fmt.Errorf("%s is not a regular file", p))
	}
	s, err := result.ReadStage(p)
	if err != nil {
		return fail(err)
	}
	if s.Stage != stage {
		return fail(fmt.Errorf("%s holds a %s result, not the %s stage's", p, s.Stage, stage))
	}
	if checkTask && s.Task != taskID {
		return fail(fmt.Errorf("%s is a result of task %s, not %s", p, s.Task, taskID))
	}
	return s, nil
}

// taskFromResults guesses the task id from the stage files' task fields,
// else the folder's name.
func taskFromResults(dir string) string {
	for _, s := range stageFiles {
		p := filepath.Join(dir, s+".json")
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var head struct {
			Task string `json:"task"`
		}
		if json.Unmarshal(b, &head) == nil && head.Task != "" {
			return head.Task
		}
	}
	abs, _ := filepath.Abs(dir)
	return filepath.Base(abs)
}

// Policy converts a task's scoring block into the scoring policy.
func Policy(s task.Scoring) scoring.Policy {
	return scoring.Policy{
		MaxScore:               s.MaxScore,
		BehaviouralPoints:      s.BehaviouralPoints,
		VerificationPoints:     s.VerificationPoints,
		VerificationModels:     s.VerificationModels,
		PointsPerSurvivedModel: s.PointsPerSurvivedModel,
	}
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
		policy = Policy(t.Scoring)
	} else {
		taskID = taskFromResults(opts.Results)
	}
	if st, err := os.Stat(opts.Results); err != nil || !st.IsDir() {
		return couldNotRun(fmt.Errorf("score: no results folder at %s", opts.Results))
	}
	title := opts.Title
	if title == "" {
		title = taskID
	}
	v, err := gradeResults(taskID, policy, opts.Results, opts.Task != "", opts.Now(), title, opts.IO.ErrOut)
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
