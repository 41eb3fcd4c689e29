package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/report"
)

// ReportOptions are the inputs of srb report.
type ReportOptions struct {
	IO    IOStreams
	File  string
	Title string
	JSON  bool
}

// NewCmdReport builds `srb report`.
func NewCmdReport(f *Factory, runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "report FILE|DIR",
		Short: "Render score.json as the text report",
		Long:  help("report"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runReport(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Title, "title", "", "the report's title (default: the verdict's task)")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runReport(opts *ReportOptions) error {
	v, err := report.ReadPublished(opts.File)
	if err != nil {
		return couldNotRun(fmt.Errorf("report: %w", err))
	}
	if opts.JSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return couldNotRun(err)
		}
		_, err = fmt.Fprintf(opts.IO.Out, "%s\n", b)
		return err
	}
	title := opts.Title
	if title == "" {
		title = v.Task
	}
	_, err = fmt.Fprintln(opts.IO.Out, report.Render(v, title))
	return err
}
