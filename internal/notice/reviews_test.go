package notice

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestLicenceReviews: a nested licence file srb cannot confirm (a known
// text inside prose it does not know) fails license-found until the task
// records a review by hand with the file's sha256; the review publishes
// the reviewed id for the file's folder, in the finding and in NOTICE.
// A review with another sha256, of a top-level licence file, or of a file
// that needs none is a problem naming the file.
func TestLicenceReviews(t *testing.T) {
	old := "A. HISTORY OF THE SOFTWARE\n\n" + strings.Repeat("This historical prose names releases, years and owners that no licence text holds. ", 40) + "\n\n" + mitText
	sum := sha256.Sum256([]byte(old))
	digest := hex.EncodeToString(sum[:])
	archive := writeArchive(t, "proj-1.0", map[string]string{
		"LICENSE":              mitText,
		"doc/legal/LICENSE.py": old,
		"main.c":               "int main(void) { return 0; }\n",
	})
	f, err := Analyse(archive)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Review) != 1 || f.Review[0].Path != "doc/legal/LICENSE.py" || f.Review[0].SHA256 != digest {
		t.Fatalf("Review = %+v, want doc/legal/LICENSE.py with sha256 %s", f.Review, digest)
	}

	tk, ps := task.Load(filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	tk.StateA.License = "MIT"
	msgs := func() []string {
		var got []string
		for _, p := range Check(tk, archive) {
			got = append(got, p.Msg)
		}
		return got
	}
	if got := msgs(); len(got) != 1 || !strings.Contains(got[0], "doc/legal/LICENSE.py (") || !strings.Contains(got[0], "sha256 "+digest) || !strings.Contains(got[0], "state_a.licence_reviews") {
		t.Errorf("unreviewed: %q", got)
	}

	good := task.LicenceReview{Path: "doc/legal/LICENSE.py", SHA256: digest, License: "Python-2.0", Why: "an old Python licence stack, read by hand"}
	tk.StateA.LicenceReviews = []task.LicenceReview{good}
	if got := msgs(); len(got) != 0 {
		t.Errorf("reviewed: %q, want no problem", got)
	}
	g, bad := ApplyReviews(f, tk.StateA.LicenceReviews)
	if len(bad) != 0 || len(g.Review) != 0 {
		t.Errorf("ApplyReviews: review %v, problems %q", g.Review, bad)
	}
	if want := []OtherTerm{{Path: "doc/legal/", ID: "Python-2.0", From: "doc/legal/LICENSE.py (reviewed by hand)"}}; !cmp.Equal(g.OtherTerms, want) {
		t.Errorf("OtherTerms = %+v, want %+v", g.OtherTerms, want)
	}
	if len(f.Review) != 1 || len(f.OtherTerms) != 0 {
		t.Errorf("ApplyReviews changed its input: %+v", f)
	}
	e, err := EntryFor(tk, archive)
	if err != nil {
		t.Fatal(err)
	}
	out := string(Render([]Entry{e}))
	if !strings.Contains(out, "Python-2.0: doc/legal/") || strings.Contains(out, "Needs review") {
		t.Errorf("NOTICE entry:\n%s", out)
	}

	for name, tt := range map[string]struct {
		reviews []task.LicenceReview
		want    string
	}{
		"changed file": {[]task.LicenceReview{{Path: good.Path, SHA256: strings.Repeat("0", 64), License: "Python-2.0", Why: good.Why}},
			"licence_reviews: doc/legal/LICENSE.py has sha256 " + digest + ", not the reviewed " + strings.Repeat("0", 64) + ": review the file again"},
		"needs none": {[]task.LicenceReview{good, {Path: "main.c", SHA256: digest, License: "MIT", Why: good.Why}},
			"licence_reviews: main.c is not a licence file srb asks to review in State A: remove the review"},
	} {
		tk.StateA.LicenceReviews = tt.reviews
		if got := msgs(); len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: %q, want %q", name, got, tt.want)
		}
	}

	// A top-level licence file decides the release's own terms.
	top := writeArchive(t, "proj-1.0", map[string]string{"LICENSE": old})
	ft, err := Analyse(top)
	if err != nil {
		t.Fatal(err)
	}
	_, bad = ApplyReviews(ft, []task.LicenceReview{{Path: "LICENSE", SHA256: digest, License: "MIT", Why: good.Why}})
	if want := []string{"licence_reviews: LICENSE is a top-level licence file, which decides the release's own terms: a review cannot stand in for it"}; !cmp.Equal(bad, want) {
		t.Errorf("top-level review: %q", bad)
	}
}
