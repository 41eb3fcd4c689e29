package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// StageFiles are the stage result files' stages in ladder order
// (<stage>.json in a results folder).
var StageFiles = []string{result.StageAudit, result.StageBehavioural, result.StageVerification}

// ReadStage reads dir/<stage>.json: nil, nil when absent; a failed stage
// result naming the file, and the error, when it cannot be read, is not a
// regular file, breaks its contract, holds another stage's result or
// (checkTask) another task's than taskID: a reading failure is a harness
// fault, never a zero.
func ReadStage(dir, stage, taskID string, checkTask bool, now time.Time) (*result.Stage, error) {
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

// Score reads the three stage files of dir, grades them with policy and
// publishes score.json, summary.txt (the report under title, the task id
// when "") and reward.json (last). Reading problems are printed to
// errOut ("srb: …" lines); they make the verdict invalid. Each non-nil
// annotate function may add to the verdict's metadata before it is
// published. The error is a failure to publish.
func Score(taskID string, policy scoring.Policy, dir string, checkTask bool, now time.Time, title string, errOut io.Writer, annotate ...func(*result.Verdict)) (*result.Verdict, error) {
	var stages scoring.Stages
	stages.Declared = append([]string(nil), StageFiles...)
	for _, name := range StageFiles {
		s, err := ReadStage(dir, name, taskID, checkTask, now)
		if err != nil {
			fmt.Fprintf(errOut, "srb: %v\n", err)
		}
		switch name {
		case result.StageAudit:
			stages.Audit = s
		case result.StageBehavioural:
			stages.Behavioural = s
		case result.StageVerification:
			stages.Verification = s
		}
	}
	v := scoring.Grade(taskID, stages, policy)
	RecordProvenance(v, stages)
	for _, f := range annotate {
		if f != nil {
			f(v)
		}
	}
	if title == "" {
		title = v.Task
	}
	if err := result.Publish(dir, v, report.Render(v, title)); err != nil {
		return nil, err
	}
	return v, nil
}

// RecordProvenance puts the graded stages' provenance into v's metadata
// ("provenance": {"srb": the scorer's fingerprint, "stages": {stage:
// provenance}}) and makes v invalid when the stages disagree on the task
// commit or State A's digest (result.ProvenanceMismatch): stages graded
// from different tasks or archives do not grade one submission against
// one task, a fault of the results folder, never the submission's.
// Stages recording no provenance (the earlier harness's) are compared
// with nothing.
func RecordProvenance(v *result.Verdict, stages scoring.Stages) {
	byStage := map[string]any{}
	for _, st := range []*result.Stage{stages.Audit, stages.Behavioural, stages.Verification} {
		if p, err := result.ProvenanceOf(st); err == nil && p != nil {
			byStage[st.Stage] = p.Map()
		}
	}
	v.Metadata[result.MetaProvenance] = map[string]any{"srb": result.Fingerprint(), "stages": byStage}
	why, err := result.ProvenanceMismatch(stages.Audit, stages.Behavioural, stages.Verification)
	if err != nil {
		why = err.Error()
	}
	if why == "" {
		return
	}
	v.Notes = append(v.Notes, why+": the score below is not a judgement about the submission")
	if v.HarnessError == "" {
		v.HarnessError = why
	}
}
