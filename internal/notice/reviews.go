package notice

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// ApplyReviews returns a copy of f in which every licence file the task
// reviewed by hand (state_a.licence_reviews: the same path, the same
// sha256) no longer needs review: a nested file's folder is published
// under the reviewed expression as another term (unless that is the
// release's own, Main), From naming the file "reviewed by hand". It also
// returns what it could not apply, as messages: a review of a top-level
// licence file (those decide the release's own expression, which a
// review does not rewrite), a review whose file needs none or is absent,
// and one whose sha256 differs from the file's.
func ApplyReviews(f *Finding, reviews []task.LicenceReview) (*Finding, []string) {
	if len(reviews) == 0 {
		return f, nil
	}
	g := *f
	g.Review = nil
	g.OtherTerms = append([]OtherTerm(nil), f.OtherTerms...)
	top := map[string]bool{}
	for _, p := range f.LicenceFiles {
		top[p] = true
	}
	byPath := map[string]task.LicenceReview{}
	for _, r := range reviews {
		byPath[r.Path] = r
	}
	used := map[string]bool{}
	var bad []string
	for _, r := range f.Review {
		rv, ok := byPath[r.Path]
		switch {
		case !ok:
			g.Review = append(g.Review, r)
		case top[r.Path]:
			used[r.Path] = true
			g.Review = append(g.Review, r)
			bad = append(bad, fmt.Sprintf("licence_reviews: %s is a top-level licence file, which decides the release's own terms: a review cannot stand in for it", r.Path))
		case !strings.EqualFold(rv.SHA256, r.SHA256):
			used[r.Path] = true
			g.Review = append(g.Review, r)
			bad = append(bad, fmt.Sprintf("licence_reviews: %s has sha256 %s, not the reviewed %s: review the file again", r.Path, r.SHA256, rv.SHA256))
		default:
			used[r.Path] = true
			if rv.License != f.Main {
				g.OtherTerms = append(g.OtherTerms, OtherTerm{Path: path.Dir(r.Path) + "/", ID: rv.License, From: r.Path + " (reviewed by hand)"})
			}
		}
	}
	for _, r := range reviews {
		if !used[r.Path] {
			bad = append(bad, fmt.Sprintf("licence_reviews: %s is not a licence file srb asks to review in State A: remove the review", r.Path))
		}
	}
	sort.Slice(g.OtherTerms, func(i, j int) bool { return g.OtherTerms[i].Path < g.OtherTerms[j].Path })
	return &g, bad
}
