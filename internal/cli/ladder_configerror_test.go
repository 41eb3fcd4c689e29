package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestLadderStageImageBuildExitCodes: when srb ladder must build a stage
// image first and srb build refuses on the task's own configuration (exit
// 2), srb ladder exits 2 and its published verdict is invalid with
// metadata.config_error, as srb behavioural and srb verification report
// it; a build that could not run stays a harness fault (exit 1, no
// config_error). No engine is needed: the engine is a fake without the
// images, and nothing is graded.
func TestLadderStageImageBuildExitCodes(t *testing.T) {
	taskDir := fixtureCopy(t)
	sub, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "tally-go"))
	dir := t.TempDir()
	nothing := scriptFile(t, dir, "nothing.json", reportCall(false, "", "nothing to try"))
	for _, c := range []struct {
		name     string
		buildErr error
		code     int
	}{
		{"task's fault", silent(ExitBadTask, errors.New("1 task(s) failed the identity run: their truth does not reproduce on State A")), ExitBadTask},
		{"harness fault", couldNotRun(errors.New("buildkitd: connection refused")), ExitCouldNotRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			var built []string
			build := func(_ context.Context, _ *task.Task, stage string) error {
				built = append(built, stage)
				return c.buildErr
			}
			newEngine := func() (engine.Runner, error) { return &engine.Fake{Images: map[string]engine.ImageInfo{}}, nil }
			results := t.TempDir()
			var errOut bytes.Buffer
			opts := &LadderOptions{IO: IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, Task: taskDir,
				Ladder: grade.Ladder{Now: time.Now, Lookup: func(string) (string, bool) { return "", false }, Submissions: []string{sub},
					Results: results, Jobs: 1, Cache: t.TempDir(),
					DriverFlags: grade.DriverFlags{Driver: "scripted", AuditScripts: []string{nothing}, AdjudicatorScript: nothing}},
				Engine: newEngine, BuildImage: build}
			for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
				opts.AdversaryScripts = append(opts.AdversaryScripts, id+"="+nothing)
			}
			err := runLadder(t.Context(), opts)
			if got := exitCode(err); got != c.code {
				t.Fatalf("exit %d (%v), want %d\n%s", got, err, c.code, errOut.String())
			}
			if len(built) != 1 || built[0] != result.StageBehavioural {
				t.Errorf("builds %q, want the behavioural image's alone (the first the ladder readies)", built)
			}
			v, err := result.ReadVerdict(filepath.Join(results, result.ScoreFile))
			if err != nil {
				t.Fatal(err)
			}
			if v.Valid() || !strings.Contains(v.HarnessError, c.buildErr.Error()) {
				t.Errorf("verdict valid=%v, harness error %q: want an invalid verdict naming the build's error", v.Valid(), v.HarnessError)
			}
			if got := v.Metadata["config_error"] == true; got != (c.code == ExitBadTask) {
				t.Errorf("metadata.config_error %v for exit %d", v.Metadata["config_error"], c.code)
			}
			if rw, err := result.ReadReward(filepath.Join(results, result.RewardFile)); err != nil || rw["valid"] != 0 || rw["reward"] != 0 {
				t.Errorf("reward.json %v, %v: want an invalid 0", rw, err)
			}
		})
	}
}
