package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// stageRun is what a stage command (srb audit, behavioural,
// verification) knows before its stage starts: which stage, the task id
// its result names (the folder's name until the task is loaded), the
// result file and the clock reading the result is stamped with.
type stageRun struct {
	stage  string // result.StageAudit, StageBehavioural or StageVerification
	taskID string
	out    string // RESULTS/<stage>.json
	now    time.Time
	errOut io.Writer
}

// fail publishes a failed stage result naming reason, with meta merged
// into its metadata, so an absent file never reads as "the ladder stopped
// below"; it returns an exit error with code (ExitCouldNotRun or
// ExitBadTask). A result that cannot be written is reported on errOut.
func (s *stageRun) fail(code int, reason string, meta map[string]any) error {
	st := result.Failed(s.stage, s.taskID, reason, s.now)
	for k, v := range meta {
		st.Metadata[k] = v
	}
	if werr := st.Write(s.out); werr != nil {
		fmt.Fprintf(s.errOut, "srb: %v\n", werr)
	}
	return &exitError{code: code, err: fmt.Errorf("%s: %s", s.stage, reason)}
}

// loadTask loads the task folder dir. Its problems are printed on errOut
// and a failed result with config_error is published (exit 2) when it
// cannot be read; once it is read, the result names the task's own id.
func (s *stageRun) loadTask(dir string) (*task.Task, error) {
	t, problems := task.Load(dir)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(s.errOut, p.Format(""))
		}
		return nil, s.fail(ExitBadTask, fmt.Sprintf("the task %s cannot be read (%d problem(s)); run srb validate", dir, len(problems)),
			map[string]any{"config_error": true})
	}
	s.taskID = t.ID
	return t, nil
}
