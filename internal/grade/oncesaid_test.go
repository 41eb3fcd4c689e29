package grade

import (
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

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
		if got := OnceSaid(why, c.st, "stage 1"); got != c.want {
			t.Errorf("OnceSaid(%v) = %q, want %q", c.st, got, c.want)
		}
	}
}
