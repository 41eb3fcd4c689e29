package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"
)

// parseCmd runs the command newCmd builds with args and returns the
// options its run func received (nil when it was not called) and the
// error: the shared half of every TestNewCmdX (cli/cli's runF seam).
func parseCmd[O any](newCmd func(*Factory, func(*O) error) *cobra.Command, args []string) (*O, error) {
	var got *O
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
	cmd := newCmd(f, func(o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	return got, err
}

// wantUsageError checks that err is exactly the usage error want (exit 1).
func wantUsageError(t *testing.T, args []string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Errorf("%q: error %v, want %q", args, err, want)
	}
	if !isUsageError(err) {
		t.Errorf("%q: %T is not a usage error (exit 1)", args, err)
	}
}
