package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/lint"
)

// Lint output formats.
const (
	formatText  = "text"
	formatJSON  = "json"
	formatSARIF = "sarif"
)

// LintOptions are the inputs of srb lint.
type LintOptions struct {
	IO     IOStreams
	Getwd  func() (string, error)
	Tasks  []string
	Format string
	Strict bool
}

// NewCmdLint builds `srb lint`.
func NewCmdLint(f *Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: f.IO, Getwd: f.Getwd}
	cmd := &cobra.Command{
		Use:   "lint [TASK...]",
		Short: "Check the verification scope against the instruction",
		Long:  help("lint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch opts.Format {
			case formatText, formatJSON, formatSARIF:
			default:
				return &usageError{err: fmt.Errorf("--format must be text, json or sarif, not %q (see %s --help)", opts.Format, cmd.CommandPath())}
			}
			opts.Tasks = args
			if runF != nil {
				return runF(opts)
			}
			return runLint(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", formatText, "output format: text, json or sarif")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "exit 2 on warnings as well as errors")
	return cmd
}

func runLint(opts *LintOptions) error {
	dirs, err := resolveTasks(opts.Tasks)
	if err != nil {
		return couldNotRun(err)
	}
	base := ""
	if opts.Getwd != nil {
		base, _ = opts.Getwd()
	}
	var reports []*lint.Report
	bad := 0
	for _, d := range dirs {
		r := lint.Lint(d)
		reports = append(reports, r)
		if r.Failed(opts.Strict) {
			bad++
		}
	}
	switch opts.Format {
	case formatJSON:
		err = lint.WriteJSON(opts.IO.Out, reports, base, opts.Strict)
	case formatSARIF:
		err = lint.WriteSARIF(opts.IO.Out, reports, base)
	default:
		err = lint.WriteText(opts.IO.Out, reports, base)
	}
	if err != nil {
		return couldNotRun(fmt.Errorf("lint: %w", err))
	}
	if bad > 0 {
		return silent(ExitBadTask, fmt.Errorf("%d of %d task(s) fail lint", bad, len(reports)))
	}
	return nil
}
