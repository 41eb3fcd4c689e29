package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/telemetry"
)

const telemetryDoc = `Write what a run's grading models cost into telemetry.json.

RUN_DIR is a run's folder holding score.json; telemetry.json's model is the
one the run records (metadata.run.model), else RUN_DIR's parent folder's
name. srb projects the
stage-1 reviews (metadata.audit.samples) and stage-3 rounds
(metadata.verification.rounds) into telemetry.json (swerefactor.telemetry/1):
per review and per round the driver, model, elapsed seconds, calls, input
and output tokens, and credits (null when the endpoint reported none,
never 0); per round also, apart (another model: never add the two), the
adjudicator's driver, model, decision, seconds, calls, tokens and credits
(null when the round made no claim it was asked to rule on). Verdicts are
not copied: score.json holds those.

Examples:
  srb telemetry runs/lang01-cmark-c-to-rust/claude-opus-5/run-1
  srb telemetry runs/lang01-cmark-c-to-rust/claude-opus-5/run-1 --stdout`

// TelemetryOptions are the inputs of srb telemetry.
type TelemetryOptions struct {
	IO     IOStreams
	RunDir string
	Stdout bool
}

// NewCmdTelemetry builds `srb telemetry`.
func NewCmdTelemetry(f *Factory, runF func(*TelemetryOptions) error) *cobra.Command {
	opts := &TelemetryOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "telemetry RUN_DIR",
		Short: "Write a run's grading cost (calls, tokens, time) into telemetry.json",
		Long:  telemetryDoc,
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runTelemetry(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Stdout, "stdout", false, "print the JSON instead of writing telemetry.json")
	return cmd
}

func runTelemetry(opts *TelemetryOptions) error {
	if st, err := os.Stat(opts.RunDir); err != nil || !st.IsDir() {
		return couldNotRun(fmt.Errorf("telemetry: %s is not a folder", opts.RunDir))
	}
	if opts.Stdout {
		t, err := telemetry.ForRun(opts.RunDir)
		if err != nil {
			return couldNotRun(err)
		}
		b, err := t.Marshal()
		if err != nil {
			return couldNotRun(err)
		}
		_, err = opts.IO.Out.Write(b)
		return err
	}
	out, err := telemetry.Write(opts.RunDir)
	if err != nil {
		return couldNotRun(err)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "wrote %s\n", out)
	return err
}
