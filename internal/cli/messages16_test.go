package cli

import (
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/image"
)

// TestIdentitySkipMessage: srb build --no-identity names the flag; the
// build srb freeze runs for itself (no flag given) names freeze instead
// (issue 16: freeze said "identity run skipped (--no-identity)").
func TestIdentitySkipMessage(t *testing.T) {
	r := &image.TaskBuilt{Task: "t1", Lock: &image.Lock{}, Identity: &image.IdentityRun{Status: image.IdentitySkipped}}
	for _, c := range []struct {
		opts *BuildOptions
		want string
	}{
		{&BuildOptions{NoIdentity: true}, "t1: identity run skipped (--no-identity)\nt1: wrote images.lock (0.0s)\n"},
		{&BuildOptions{NoIdentity: true, NoIdentityWhy: image.FreezeSkipsIdentity},
			"t1: identity run skipped (srb freeze is recording the truth it would check; the next srb build runs it)\nt1: wrote images.lock (0.0s)\n"},
	} {
		var sb strings.Builder
		printBuild(&sb, r, c.opts)
		if sb.String() != c.want {
			t.Errorf("printBuild(%+v) = %q, want %q", c.opts, sb.String(), c.want)
		}
	}
}
