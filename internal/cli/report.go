package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/ladder/report"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/schema"
)

const reportDoc = `Render a verdict (score.json) as the text report.

FILE is a score.json, or a results folder holding one. The file is
validated against the score contract first; srb reads verdicts the earlier
harness wrote. A verdict that contradicts itself (a reward that is not
score / max_score, more survivors than models, a key written twice) is
refused (exit 1), naming the file and the field; so is a reward.json or
summary.txt beside it that says something else.

Examples:
  srb report runs/1/verifier/score.json
  srb report runs/1/verifier --title "lang01, run 1"`

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
		Long:  reportDoc,
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
	p := opts.File
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, result.ScoreFile)
	}
	if _, err := os.Stat(p); err != nil {
		return couldNotRun(fmt.Errorf("report: no verdict at %s", p))
	}
	v, err := result.ReadVerdict(p)
	if err != nil {
		return couldNotRun(err)
	}
	if err := checkPublished(filepath.Dir(p), v); err != nil {
		return couldNotRun(err)
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

// checkPublished checks that the reward.json and summary.txt beside a
// verdict, when present, say what it says: reward.json is read like every
// contract (no repeated key, its schema, its own arithmetic) and its
// headline numbers must equal the verdict's; summary.txt's score line
// must be the verdict's. A results folder whose three files disagree is
// refused, naming the file and the field.
func checkPublished(dir string, v *result.Verdict) error {
	rp := filepath.Join(dir, result.RewardFile)
	if _, err := os.Stat(rp); err == nil {
		flat, err := result.ReadReward(rp)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := result.RewardAgrees(v, flat); err != nil {
			return fmt.Errorf("report: %s disagrees with %s: %w", rp, result.ScoreFile, withFileErr(err, rp))
		}
	}
	sp := filepath.Join(dir, result.SummaryFile)
	if st, err := os.Stat(sp); err == nil && st.Mode().IsRegular() {
		text, err := os.ReadFile(sp)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := report.CheckSummary(v, string(text)); err != nil {
			return fmt.Errorf("report: %s disagrees with %s: %w", sp, result.ScoreFile, err)
		}
	}
	return nil
}

// withFileErr sets File on a schema validation error.
func withFileErr(err error, path string) error {
	var ve *schema.ValidationError
	if errors.As(err, &ve) && ve.File == "" {
		ve.File = path
	}
	return err
}
