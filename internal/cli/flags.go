package cli

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// addJSONFlag binds --json into *dst.
func addJSONFlag(cmd *cobra.Command, dst *bool) {
	cmd.Flags().BoolVar(dst, "json", false, "print machine-readable JSON instead of text")
}

// writeJSON writes v as indented JSON with a trailing newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// argsValidator wraps a cobra positional-argument validator so that its
// failures are usage errors (exit 1).
func argsValidator(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &usageError{err: err}
		}
		return nil
	}
}
