package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/schema"
)

// SchemaOptions are the inputs of srb schema.
type SchemaOptions struct {
	IO   IOStreams
	Name string
	JSON bool
}

// NewCmdSchema builds `srb schema`.
func NewCmdSchema(f *Factory, runF func(*SchemaOptions) error) *cobra.Command {
	opts := &SchemaOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "schema [NAME]",
		Short: "Print the task schema or a result contract's JSON Schema",
		Long:  help("schema"),
		Args:  argsValidator(cobra.MaximumNArgs(1)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return append([]string{"task"}, schema.Names()...), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runSchema(opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runSchema(opts *SchemaOptions) error {
	w := opts.IO.Out
	switch opts.Name {
	case "":
		names := append([]string{"task"}, schema.Names()...)
		if opts.JSON {
			return writeJSON(w, names)
		}
		for _, n := range names {
			fmt.Fprintln(w, n)
		}
		return nil
	case "task":
		_, err := w.Write(schema.TaskCUE())
		return err
	}
	b, err := schema.JSONSchema(opts.Name)
	if err != nil {
		known := append([]string{"task"}, schema.Names()...)
		return &usageError{err: fmt.Errorf("schema %q: no such schema; known: %s (srb schema lists them)", opts.Name, strings.Join(known, ", "))}
	}
	_, err = w.Write(b)
	return err
}
