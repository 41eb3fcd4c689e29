package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// NewRoot builds the srb command tree.
func NewRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "srb",
		Short:         "SWE Refactor Bench: declarative migration tasks and the grading ladder",
		Long:          help("root"),
		SilenceErrors: true,
		SilenceUsage:  true,
		// SuggestionsFor (an unknown command's hint) needs a distance.
		SuggestionsMinimumDistance: 2,
	}
	// An unknown command is a usage error in srb's form, with cobra's
	// suggestion; srb alone prints the help.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		hint := ""
		if sug := c.SuggestionsFor(args[0]); len(sug) > 0 {
			hint = "; did you mean " + strings.Join(sug, " or ") + "?"
		}
		return &usageError{err: fmt.Errorf("unknown command %q%s (see %s --help for the commands)", args[0], hint, c.CommandPath())}
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	for _, c := range []*cobra.Command{
		NewCmdVersion(f, nil),
		NewCmdValidate(f, nil),
		NewCmdLint(f, nil),
		NewCmdSchema(f, nil),
		NewCmdScore(f, nil),
		NewCmdReport(f, nil),
		NewCmdTelemetry(f, nil),
		NewCmdFetch(f, nil),
		NewCmdBuild(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdFreeze(f, nil),
		NewCmdBehavioural(f, nil),
		NewCmdHelper(f, nil),
		NewCmdAudit(f, nil),
		NewCmdVerification(f, nil),
		NewCmdLadder(f, nil),
		NewCmdCampaign(f, nil),
		NewCmdExport(f, nil),
		NewCmdTrial(f, nil),
		NewCmdNew(f, nil),
		NewCmdSubmission(f, nil),
		NewCmdNotice(f, nil),
	} {
		root.AddCommand(c)
	}
	return root
}
