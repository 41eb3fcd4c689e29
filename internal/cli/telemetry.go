package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/telemetry"
)

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
		Long:  help("telemetry"),
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
