package cli

import (
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/result"
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
		{&BuildOptions{NoIdentity: true, NoIdentityWhy: noIdentityWhy(true)},
			"t1: identity run skipped (srb freeze is recording the truth it would check; the next srb build runs it)\nt1: wrote images.lock (0.0s)\n"},
	} {
		var sb strings.Builder
		printBuild(&sb, r, c.opts)
		if sb.String() != c.want {
			t.Errorf("printBuild(%+v) = %q, want %q", c.opts, sb.String(), c.want)
		}
	}
	if noIdentityWhy(false) != "" {
		t.Errorf("noIdentityWhy(false) = %q, want \"\"", noIdentityWhy(false))
	}
}

// TestOnceSaid: the ladder's "verification: not run" names the stage and
// its blocked_by tag when that stage completed and so printed its own
// reason; the whole reason when the stage did not complete or left no
// file (nothing printed it).
func TestOnceSaid(t *testing.T) {
	why := "the audit gate failed on 1 required check(s): go-is-primary [audit-gate]"
	ok := &result.Stage{Status: result.StatusOK}
	for _, c := range []struct {
		st   *result.Stage
		want string
	}{
		{ok, "stage 1 stopped the ladder, for the reason it gave above [audit-gate]"},
		{&result.Stage{Status: result.StatusError}, why},
		{nil, why},
	} {
		if got := onceSaid(why, c.st, "stage 1"); got != c.want {
			t.Errorf("onceSaid(%v) = %q, want %q", c.st, got, c.want)
		}
	}
}
