package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/templates"
)

// NewOptions are the inputs of srb new.
type NewOptions struct {
	IO IOStreams

	ID    string
	Class string
	Dir   string
}

// NewCmdNew builds `srb new`.
func NewCmdNew(f *Factory, runF func(*NewOptions) error) *cobra.Command {
	opts := &NewOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "new ID --class language|framework|platform|build [--dir tasks]",
		Short: "Scaffold a task folder from the templates",
		Long:  help("new"),
		Args:  argsValidator(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if opts.Class == "" {
				return &usageError{err: fmt.Errorf("--class is required: one of %s", strings.Join(templates.Classes(), ", "))}
			}
			if !slices.Contains(templates.Classes(), opts.Class) {
				return &usageError{err: fmt.Errorf("--class %s: one of %s", opts.Class, strings.Join(templates.Classes(), ", "))}
			}
			if runF != nil {
				return runF(opts)
			}
			return runNew(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Class, "class", "", "the debt class: "+strings.Join(templates.Classes(), ", "))
	cmd.Flags().StringVar(&opts.Dir, "dir", "tasks", "the folder the task folder is made in")
	_ = cmd.RegisterFlagCompletionFunc("class", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return templates.Classes(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runNew(opts *NewOptions) error {
	if err := templates.CheckID(opts.ID, opts.Class); err != nil {
		return &usageError{err: fmt.Errorf("new: %w", err)}
	}
	dir := filepath.Join(opts.Dir, opts.ID)
	written, err := templates.Scaffold(dir, opts.ID, opts.Class)
	if err != nil {
		if len(written) > 0 {
			return couldNotRun(fmt.Errorf("new: %w (wrote %d file(s) of %s before it)", err, len(written), dir))
		}
		return couldNotRun(fmt.Errorf("new: %w", err))
	}
	for _, w := range written {
		fmt.Fprintln(opts.IO.Out, filepath.ToSlash(filepath.Join(dir, w)))
	}
	fmt.Fprintf(opts.IO.Out, "%s: scaffolded (class %s); fill in every %s line (srb validate %s lists them), then srb fetch %s --pin\n",
		opts.ID, opts.Class, templates.Marker, dir, dir)
	return nil
}
