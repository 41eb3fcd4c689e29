package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestLadderInImage grades two fixtures with stage 2 in the fixture's
// behavioural image (built and loaded once, before the submissions start,
// when missing): the faithful port passes every check in the container,
// the defective one fails exactly the usage module, and both expectations
// are met.
func TestLadderInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and runs the fixture's suite in it")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	fx, err := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "lang90-tally-c-to-go"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	results := t.TempDir()
	var out, errOut bytes.Buffer
	opts := &LadderOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Now: time.Now,
		Lookup: func(string) (string, bool) { return "", false }, Task: taskDir, Results: results, Jobs: 2,
		Fixtures: []string{filepath.Join(fx, "go-port"), filepath.Join(fx, "usage-exit-1")}}
	if err := runLadder(ctx, opts); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{"expect: met (go-port)\n", "expect: met (usage-exit-1)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "srb: ladder: the behavioural image of lang90-tally-c-to-go is ready") {
		t.Errorf("the image was not readied before the submissions:\n%s", errOut.String())
	}
	for _, name := range []string{"go-port", "usage-exit-1"} {
		st, err := result.ReadStage(filepath.Join(results, name, "behavioural.json"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Metadata["where"] != "container" {
			t.Errorf("%s: stage 2 ran %v, not in a container", name, st.Metadata["where"])
		}
		passed, total := result.Pooled(st.Checks)
		want := map[string][2]int{"go-port": {38, 38}, "usage-exit-1": {35, 38}}[name]
		if passed != want[0] || total != want[1] {
			t.Errorf("%s: %d/%d checks passed, want %d/%d", name, passed, total, want[0], want[1])
		}
	}
}
