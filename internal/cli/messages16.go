package cli

import "github.com/swe-refactor-bench/srb/internal/image"

// noIdentityWhy is the reason a stage-image build that srb runs for
// itself skips the identity run: only srb freeze does (noIdentity true),
// building the images it is about to record the truth in. "" when the
// identity run is not skipped.
func noIdentityWhy(noIdentity bool) string {
	if !noIdentity {
		return ""
	}
	return image.FreezeSkipsIdentity
}

// identitySkipWhy says why opts skip the identity run: the reason srb
// gave (opts.NoIdentityWhy) or, when none, the --no-identity flag.
func identitySkipWhy(opts *BuildOptions) string {
	if opts.NoIdentityWhy != "" {
		return opts.NoIdentityWhy
	}
	return "--no-identity"
}
