package cli

// identitySkipWhy says why opts skip the identity run: the reason srb
// gave (opts.NoIdentityWhy) or, when none, the --no-identity flag.
func identitySkipWhy(opts *BuildOptions) string {
	if opts.NoIdentityWhy != "" {
		return opts.NoIdentityWhy
	}
	return "--no-identity"
}
