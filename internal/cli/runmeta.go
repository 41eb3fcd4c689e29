package cli

import (
	"github.com/spf13/pflag"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
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
