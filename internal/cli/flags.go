package cli

import (
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/source"
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

// addCacheFlag binds --cache, the State A cache folder, into *dst.
func addCacheFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "cache", "", "the State A cache folder (default $SRB_CACHE, else the user cache dir's srb)")
}

// resolveCache is the --cache value, else source.DefaultCacheDir; a
// failure is a harness fault (exit 1).
func resolveCache(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	d, err := source.DefaultCacheDir()
	if err != nil {
		return "", couldNotRun(err)
	}
	return d, nil
}

// loadMemo is where the task loads of validate, notice and fetch keep
// what they decode (task.LoadOptions.Memo) in the cache folder dir.
func loadMemo(dir string) string { return filepath.Join(dir, "validate", "load") }
