package cli

import (
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// noIdentityWhy is the reason a stage-image build that srb runs for
// itself skips the identity run: only srb freeze does (noIdentity true),
// building the images it is about to record the truth in. "" when the
// identity run is not skipped.
func noIdentityWhy(noIdentity bool) string {
	if !noIdentity {
		return ""
	}
	return "srb freeze is recording the truth it would check; the next srb build runs it"
}

// identitySkipWhy says why opts skip the identity run: the reason srb
// gave (opts.NoIdentityWhy) or, when none, the --no-identity flag.
func identitySkipWhy(opts *BuildOptions) string {
	if opts.NoIdentityWhy != "" {
		return opts.NoIdentityWhy
	}
	return "--no-identity"
}

// onceSaid is why stage 3 did not run, for the ladder's log: when the
// stage that stopped the ladder completed (st's status ok), it printed
// its own reason as it ended, so the ladder names the stage and the
// blocked_by tag instead of printing the reason again (issue 16: stage
// 1's reason was printed three times); otherwise why itself.
func onceSaid(why string, st *result.Stage, stage string) string {
	if st == nil || st.Status != result.StatusOK {
		return why
	}
	tag := ""
	if i := strings.LastIndex(why, " ["); i >= 0 && strings.HasSuffix(why, "]") {
		tag = why[i:]
	}
	return stage + " stopped the ladder, for the reason it gave above" + tag
}
