package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestLadderInImage grades two fixtures with stage 2 in the fixture's
// behavioural image and stage 3 in its verification image (both built and
// loaded once, before the submissions start, when missing): the faithful
// port passes every check in the container, earns stage 3 and survives
// all six rounds, each in a container of its own; the defective one fails
// exactly the usage module and stage 3 does not run; both expectations are
// met. To keep six containerised rounds affordable, only the usage
// adversary runs its candidate (the fixture's own script: State A built
// with make and the port with go in the round's container, both pass);
// the other five report at once (the host ladder script runs all six).
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
	nothing := filepath.Join(t.TempDir(), "nothing.json")
	if err := os.WriteFile(nothing, []byte(`[{"tool_calls": [{"name": "report", "arguments": {"found": false, "notes": "not tried here"}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	var advScripts []string
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a06-open"} {
		advScripts = append(advScripts, id+"="+nothing)
	}
	advScripts = append(advScripts, "a05-usage="+filepath.Join(fx, "go-port", "adversaries", "a05-usage.json"))
	opts := &LadderOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Task: taskDir,
		Ladder: grade.Ladder{Now: time.Now, Lookup: func(string) (string, bool) { return "", false }, Results: results, Jobs: 2,
			Fixtures: []string{filepath.Join(fx, "go-port"), filepath.Join(fx, "usage-exit-1")}, DriverFlags: grade.DriverFlags{AdversaryScripts: advScripts}}}
	if err := runLadder(ctx, opts); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{"expect: met (go-port)\n", "expect: met (usage-exit-1)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, stage := range []string{"behavioural", "verification"} {
		if !strings.Contains(errOut.String(), "srb: ladder: the "+stage+" image of lang90-tally-c-to-go is ready") {
			t.Errorf("the %s image was not readied before the submissions:\n%s", stage, errOut.String())
		}
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

	// Stage 3: the port's six rounds in containers of the verification
	// image; the defective port never reached it.
	if _, err := os.Stat(filepath.Join(results, "usage-exit-1", "verification.json")); !os.IsNotExist(err) {
		t.Errorf("usage-exit-1 has a verification.json (%v)", err)
	}
	st, err := result.ReadStage(filepath.Join(results, "go-port", "verification.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The image images.lock vouches for (the tag itself may have moved
	// since: other builds of the fixture share this engine).
	lock, err := image.ReadLock(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	want := lock.Images["verification"].Config
	if im, _ := st.Metadata["image"].(map[string]any); st.Metadata["where"] != "container" || want == "" || im["id"] != want {
		t.Errorf("stage 3 ran %v in %v, not in a container of %s", st.Metadata["where"], st.Metadata["image"], want)
	}
	if st.Status != result.StatusOK || num(st.Metadata["survived"]) != 6 || num(st.Metadata["broken"]) != 0 || num(st.Metadata["errored"]) != 0 {
		t.Errorf("status %s, survived %v, broken %v, errored %v", st.Status, st.Metadata["survived"], st.Metadata["broken"], st.Metadata["errored"])
	}
	for _, c := range st.Checks {
		if c.Verdict != result.VerdictPass {
			t.Errorf("%s: %s (%s)", c.ID, c.Verdict, c.Summary)
		}
	}
	rounds := roundsByID(t, st)
	if len(rounds) != 6 {
		t.Errorf("%d rounds", len(rounds))
	}
	a05 := rounds["a05-usage"]
	cands, _ := a05["candidates"].([]any)
	if len(cands) != 1 || num(a05["candidate_runs"]) != 2 {
		t.Fatalf("a05's candidates %v", a05["candidates"])
	}
	for _, r := range cands[0].(map[string]any)["runs"].([]any) {
		if m := r.(map[string]any); m["passed"] != true || num(m["exit_code"]) != 0 {
			t.Errorf("a05's %s run: exit %v\n%s", m["target"], m["exit_code"], m["stderr"])
		}
	}
	for id, r := range rounds {
		if id != "a05-usage" && num(r["candidate_runs"]) != 0 {
			t.Errorf("%s ran %v candidate(s)", id, r["candidate_runs"])
		}
	}
}
