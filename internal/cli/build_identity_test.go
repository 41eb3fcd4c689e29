package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestBuildIdentityRun builds the fixture's verification and behavioural
// images without --load: the identity run loads them, builds State A in
// the verification image and checks it against the behavioural image's
// truth (38/38), and images.lock records it; a second build remembers it
// instead of running it again; a truth file altered by hand fails the
// build (exit 2) naming the module and check that did not reproduce, and
// leaves images.lock as it was; --no-identity builds it and the lockfile
// says it was skipped; a task without truth/ says it is not frozen.
func TestBuildIdentityRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two images and runs the identity run")
	}
	requireEngines(t)
	taskDir := fixtureCopy(t)
	remembered := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Minute)
	defer cancel()
	build := func(noIdentity bool) (string, string, error) {
		var out, errOut bytes.Buffer
		err := runBuild(ctx, &BuildOptions{IO: IOStreams{Out: &out, ErrOut: &errOut}, Tasks: []string{taskDir},
			Builds:     image.Builds{Stages: []string{result.StageVerification, result.StageBehavioural}, Progress: "quiet", IdentityCache: remembered},
			NoIdentity: noIdentity})
		return out.String(), errOut.String(), err
	}

	out, errOut, err := build(false)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "lang90-tally-c-to-go: identity run passed (38 checks)\n") ||
		!strings.Contains(errOut, "identity run: 6 module(s), 38/38 checks passed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	lock, err := image.ReadLock(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	beh := lock.Images[result.StageBehavioural]
	if id := beh.IdentityRun; id == nil || id.Status != image.IdentityPassed || id.Checks != 38 ||
		id.Verification != lock.Images[result.StageVerification].Digest {
		t.Errorf("images.lock identity_run %+v (verification %s)", beh.IdentityRun, lock.Images[result.StageVerification].Digest)
	}
	entries, _ := filepath.Glob(filepath.Join(remembered, "*.json"))
	if len(entries) != 1 {
		t.Errorf("remembered identity runs %v, want one", entries)
	}

	// The same images again: remembered, not run.
	out, errOut, err = build(false)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "identity run passed (38 checks; remembered from an earlier run on the same images)") ||
		strings.Contains(errOut, "checks passed (") {
		t.Errorf("second build did not remember the identity run:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}

	// A truth file altered by hand: the build fails, naming what did not
	// reproduce, and the lockfile is not rewritten.
	before, _ := os.ReadFile(filepath.Join(taskDir, image.LockName))
	truth := filepath.Join(taskDir, "truth", "usage.json")
	b, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	altered := strings.Replace(string(b), `"inline-stdin/stdout": "1 3 6\n"`, `"inline-stdin/stdout": "1 3 7\n"`, 1)
	if altered == string(b) {
		t.Fatal("the fixture's usage truth moved; update the test")
	}
	os.WriteFile(truth, []byte(altered), 0o644)
	out, errOut, err = build(false)
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != ExitBadTask {
		t.Fatalf("altered truth: err %v, want exit %d\nstdout:\n%s\nstderr:\n%s", err, ExitBadTask, out, errOut)
	}
	if !strings.Contains(errOut, "State A does not reproduce its truth in the behavioural image") ||
		!strings.Contains(errOut, "usage/inline-stdin/stdout: ") || strings.Contains(errOut, "counts/") {
		t.Errorf("the failure does not name exactly the altered check:\n%s", errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(taskDir, image.LockName)); !bytes.Equal(before, after) {
		t.Errorf("images.lock was rewritten after a failed identity run")
	}

	// --no-identity builds it anyway and says so in the lockfile.
	out, errOut, err = build(true)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if lock, err = image.ReadLock(taskDir); err != nil {
		t.Fatal(err)
	}
	if id := lock.Images[result.StageBehavioural].IdentityRun; id == nil || id.Status != image.IdentitySkipped ||
		!strings.Contains(out, "identity run skipped (--no-identity)") {
		t.Errorf("--no-identity: lock %+v\nstdout:\n%s", id, out)
	}

	// Not frozen yet: no identity run, and it says so.
	os.RemoveAll(filepath.Join(taskDir, "truth"))
	out, errOut, err = build(false)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if lock, err = image.ReadLock(taskDir); err != nil {
		t.Fatal(err)
	}
	if id := lock.Images[result.StageBehavioural].IdentityRun; id == nil || id.Status != image.IdentityNotFrozen ||
		!strings.Contains(errOut, "not frozen yet (no truth/): no identity run") {
		t.Errorf("not frozen: lock %+v\nstderr:\n%s", id, errOut)
	}
}
