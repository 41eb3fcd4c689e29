package notice

import (
	"fmt"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// RuleLicenseFound is the validate rule Check implements: the licence
// expression found in State A's archive equals the one the task declares
// in state_a.license (compared as ids under the same AND/OR structure,
// not as strings).
const RuleLicenseFound = "license-found"

// Check runs the license-found rule for t against its State A archive at
// archivePath. It returns nil when the expression Analyse finds equals
// state_a.license, else one problem at state_a.license saying what the
// archive states and where. A declaration that is not an SPDX expression,
// an archive that cannot be read and an archive with no recognisable
// licence are problems of the same rule, and so is a licence file known
// licence texts cover less than [MinCoverage] percent of (naming it),
// unless state_a.licence_reviews reviewed it by hand ([ApplyReviews]; a
// review that does not apply is a problem too).
func Check(t *task.Task, archivePath string) []task.Problem {
	const field = "state_a.license"
	problem := func(format string, args ...any) []task.Problem {
		return []task.Problem{{Rule: RuleLicenseFound, Pos: t.Pos(field), File: t.File, Path: field, Msg: fmt.Sprintf(format, args...)}}
	}
	declared, err := ParseExpr(t.StateA.License)
	if err != nil {
		return problem("%v: write an SPDX expression such as \"MIT\" or \"Apache-2.0 AND MIT\"", err)
	}
	f, err := AnalyseCached(archivePath)
	if err != nil {
		return problem("cannot check the declared licence against State A: %v", err)
	}
	f, bad := ApplyReviews(f, t.StateA.LicenceReviews)
	if len(bad) > 0 {
		return problem("%s", strings.Join(bad, "; "))
	}
	if len(f.Review) > 0 {
		var rs []string
		for _, r := range f.Review {
			rs = append(rs, fmt.Sprintf("%s (%d%%, sha256 %s)", r.Path, r.Coverage, r.SHA256))
		}
		return problem("State A's licence file(s) %s: known licence texts match less than %d%% of the words, so srb publishes no SPDX id from them and %q cannot be confirmed: review the terms by hand (they may not allow redistribution) and, for a nested file, record the review in state_a.licence_reviews: {path, sha256, license, why}", strings.Join(rs, ", "), MinCoverage, t.StateA.License)
	}
	if f.Expression == "" {
		return problem("State A (%s) has no licence file and no file header srb recognises, so %q cannot be confirmed: check the release's terms by hand", f.Top, t.StateA.License)
	}
	found, err := ParseExpr(f.Expression)
	if err != nil {
		return problem("the expression found in State A, %q, does not parse: %v", f.Expression, err)
	}
	if found.Equal(declared) {
		return nil
	}
	where := "file headers"
	if len(f.LicenceFiles) > 0 {
		where = strings.Join(f.LicenceFiles, ", ")
	}
	return problem("declares %q but State A's %s state %q: declare %q, or find out why the archive disagrees", t.StateA.License, where, f.Expression, f.Expression)
}
