package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
)

// CampaignOptions are the inputs of srb campaign.
type CampaignOptions struct {
	IO      IOStreams
	Roots   []string // one ROOT, or A and B with Compare
	Compare bool
	JSON    bool
	CSV     bool
	HTML    string // write the HTML page here ("" for none)
	Title   string
}

// NewCmdCampaign builds `srb campaign`.
func NewCmdCampaign(f *Factory, runF func(*CampaignOptions) error) *cobra.Command {
	opts := &CampaignOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "campaign ROOT | --compare A B",
		Short: "Aggregate graded runs into the paper's funnel, tables, plots and costs",
		Long:  help("campaign"),
		Args:  argsValidator(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Roots = args
			switch {
			case opts.Compare && len(args) != 2:
				return &usageError{err: errors.New("--compare takes two campaign folders, A and B")}
			case !opts.Compare && len(args) != 1:
				return &usageError{err: errors.New("one campaign folder (or --compare A B)")}
			case opts.JSON && opts.CSV:
				return &usageError{err: errors.New("--json and --csv: choose one")}
			case opts.Compare && (opts.CSV || opts.HTML != ""):
				return &usageError{err: errors.New("--compare prints text or --json")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runCampaign(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Compare, "compare", false, "compare two campaigns, A and B")
	addJSONFlag(cmd, &opts.JSON)
	fl.BoolVar(&opts.CSV, "csv", false, "print one CSV row per run")
	fl.StringVar(&opts.HTML, "html", "", "also write one self-contained HTML page with the plots to FILE")
	fl.StringVar(&opts.Title, "title", "", "the HTML page's title (default: the campaign folder's name)")
	return cmd
}

func runCampaign(opts *CampaignOptions) error {
	reps := make([]*campaign.Report, len(opts.Roots))
	for i, root := range opts.Roots {
		rep, err := campaign.LoadReport(root)
		if err != nil {
			return couldNotRun(err)
		}
		reps[i] = rep
	}
	out := opts.IO.Out
	if opts.Compare {
		d := campaign.Compare(reps[0], reps[1])
		if opts.JSON {
			return writeJSON(out, d)
		}
		return campaign.WriteDiffText(out, d)
	}
	rep := reps[0]
	if opts.HTML != "" {
		title := opts.Title
		if title == "" {
			abs, _ := filepath.Abs(opts.Roots[0])
			title = "Campaign " + filepath.Base(abs)
		}
		if err := campaign.WriteHTMLFile(opts.HTML, rep, title); err != nil {
			return couldNotRun(fmt.Errorf("campaign: %w", err))
		}
		fmt.Fprintf(opts.IO.ErrOut, "srb: campaign: wrote %s\n", opts.HTML)
	}
	switch {
	case opts.JSON:
		return campaign.WriteJSON(out, rep)
	case opts.CSV:
		return campaign.WriteCSV(out, rep)
	}
	return campaign.WriteText(out, rep)
}
