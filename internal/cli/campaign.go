package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/campaign"
)

const campaignDoc = `Aggregate many graded runs into the paper's tables, plots and costs.

ROOT holds runs laid out <task>/<configuration>/<run>/, each with the
score.json srb ladder (or the earlier harness) wrote and, when srb
telemetry ran on it, telemetry.json. The configuration is the one the
run's metadata.run names (srb ladder --run-model/--run-effort or run.json:
<model>-<effort>, or <model>), else the folder's name. Each run gets one
outcome class:
  not-migrated     the audit gate failed and stage 2 finished short of
                   100 % (or did not run)
  blindness        the audit gate failed while stage 2 reached 100 %
                   (ran but not counted)
  stopped-stage2   the gate passed and stage 2 was incomplete
  counterexample   stage 3 ran and at least one adversary broke it
  accepted         it scored 100
A run whose verdict is invalid (the grader could not complete),
unreadable, or whose stage 2 did not finish under a failed audit gate
(blindness or not cannot be known) is counted apart, never as a zero; a run folder without
score.json, and a configuration × task cell nobody ran, are named as
missing; two runs claiming one task, configuration and attempt are named
as duplicates. See docs/CAMPAIGN.md.

The text output is the paper's tables: the funnel (runs, migrated, all
tests pass, blindness, reached stage 3, accepted, mean score, tasks never
accepted), the outcome classes, the same by configuration, by debt class
and by task, the adversaries' breaks, grading cost per configuration and
per accepted run, and the configuration × task matrix (a cell: the mean
score of its valid runs, * an accepted run, +N N more valid runs, !N N
invalid runs, · not run). --json writes the
same as JSON (keys funnel, by_class, by_task, by_config, adversaries,
cost, invalid, duplicates, missing, matrix, runs); --csv one row per run;
--html FILE one self-contained page (no script, nothing fetched) with the
funnel, per-class bars, the score distribution per configuration and a
configuration × task heatmap as SVG.

--compare A B reads two campaigns and prints what changed: the funnel
before and after, the tasks and configurations whose figures moved, and
each run (matched by its <task>/<configuration>/<run> folder) whose
outcome or score moved.

Exit status: 0 when the campaign was read (invalid runs included); 1 when
ROOT cannot be read, holds no run at all, or an output cannot be written.

Examples:
  srb campaign runs
  srb campaign runs --json > campaign.json
  srb campaign runs --csv > runs.csv
  srb campaign runs --html campaign.html
  srb campaign --compare runs-october runs-november`

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
		Long:  campaignDoc,
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
		fh, err := os.Create(opts.HTML)
		if err != nil {
			return couldNotRun(fmt.Errorf("campaign: %w", err))
		}
		err = campaign.WriteHTML(fh, rep, title)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return couldNotRun(fmt.Errorf("campaign: %s: %w", opts.HTML, err))
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
