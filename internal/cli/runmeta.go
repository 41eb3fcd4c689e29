package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// RunMetaFlags are srb ladder's --run-* flags ([campaign.RunMetaFlags]).
type RunMetaFlags = campaign.RunMetaFlags

// addRunMetaFlags registers the --run-* flags on fl.
func addRunMetaFlags(fl *pflag.FlagSet, m *RunMetaFlags) {
	fl.StringVar(&m.Model, "run-model", "", "the model that made the submission (recorded in score.json's metadata.run)")
	fl.StringVar(&m.Effort, "run-effort", "", "the model's reasoning effort")
	fl.StringVar(&m.Agent, "run-agent", "", "the agent harness that drove the model")
	fl.StringVar(&m.AgentVersion, "run-agent-version", "", "the agent harness's version")
	fl.StringVar(&m.Configuration, "run-configuration", "", "the configuration's name, when not <model>-<effort>")
	fl.IntVar(&m.Attempt, "run-attempt", 0, "which attempt of this configuration on this task (from 1)")
	fl.StringArrayVar(&m.Meta, "run-meta", nil, "KEY=VALUE: anything else to record about the run (repeatable)")
}

// ladderRunMeta is srb ladder's hook: the function that records who made
// r's submission (run.json beside it, overlaid by the --run-* flags, and
// the task's declared class) in a verdict's metadata. An unreadable
// run.json returns a no-op recorder and the error naming file, line and
// field; the ladder then publishes an invalid verdict (exit 1).
func ladderRunMeta(opts *LadderOptions, t *task.Task, r *ladderRun) (func(*result.Verdict), error) {
	fx := ""
	if r.fixture != nil {
		fx = r.fixture.Dir
	}
	m, _, err := campaign.ResolveRunMeta(opts.Run, campaign.RunMetaPath(r.src, fx), t.Class)
	if err != nil {
		return func(*result.Verdict) {}, fmt.Errorf("run metadata: %w", err)
	}
	return campaign.RecordRunMeta(m), nil
}
