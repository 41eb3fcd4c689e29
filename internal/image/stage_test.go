package image

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// fixtureCopy copies the fixture task and its State A (testdata/tasks
// and testdata/statea) to a temporary folder and returns the task's
// folder there, so a test may write its images.lock.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, sub := range []string{"tasks", "statea"} {
		if _, err := copytree.Copy(filepath.Join("..", "..", "testdata", sub), filepath.Join(root, sub), copytree.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "tasks", "lang90-tally-c-to-go")
}

// TestFindStageImage: the tagged image is used only when images.lock
// vouches for it; otherwise it is built (once) and looked up again, and a
// helperless image is refused with the fix.
func TestFindStageImage(t *testing.T) {
	taskDir := fixtureCopy(t)
	tk, problems := task.Load(taskDir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tag := Tag(tk, "behavioural")
	labels := map[string]string{LabelTask: tk.ID, LabelStateA: tk.StateA.SHA256, LabelStage: "behavioural"}
	dg := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	writeLock := func(config, helper string) {
		in := map[string]string{"base": dg("b")}
		if helper != "" {
			in["helper"] = helper
		}
		l := &Lock{Schema: LockSchema, Task: tk.ID, TaskCommit: "uncommitted", BuildKit: "v0.26.3", Inputs: map[string]LockInput{"base": {About: "base", Digest: dg("b")}}, Images: map[string]LockImage{
			"behavioural": {Digest: dg("d"), Config: config, LLB: dg("e"), Inputs: in}}}
		if err := WriteLock(taskDir, l); err != nil {
			t.Fatal(err)
		}
	}
	fake := &engine.Fake{Images: map[string]engine.ImageInfo{}}
	builds := 0
	build := func(_ context.Context, _ *task.Task, stage string) error {
		builds++
		fake.Images[tag] = engine.ImageInfo{ID: dg("1"), Labels: labels}
		writeLock(dg("1"), dg("3"))
		return nil
	}
	logf := func(string, ...any) {}

	// No image, no lock: built.
	si, err := FindStage(t.Context(), tk, "behavioural", fake, build, logf)
	if err != nil || builds != 1 || si.Ref != dg("1") || si.Digest != dg("d") {
		t.Fatalf("%+v %v after %d build(s)", si, err, builds)
	}
	// Current: used as it is.
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, build, logf); err != nil || builds != 1 {
		t.Errorf("current image: %v, %d build(s)", err, builds)
	}
	// Another srb moved the tag, but the image the lock records is still
	// there by its id: used, not rebuilt.
	fake.Images["dangling"] = fake.Images[tag]
	fake.Images[tag] = engine.ImageInfo{ID: dg("2"), Labels: labels}
	if si, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err != nil || si.Ref != dg("1") || si.Tag != tag {
		t.Errorf("re-tagged elsewhere: %+v %v", si, err)
	}
	// The tag moved away from the lock and the locked image is gone:
	// rebuilt; without a builder, named.
	delete(fake.Images, "dangling")
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil ||
		!strings.Contains(err.Error(), "is sha256:222222222222, not the image images.lock records (sha256:111111111111)") {
		t.Errorf("stale image without a builder: %v", err)
	}
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, build, logf); err != nil || builds != 2 {
		t.Errorf("stale image: %v, %d build(s)", err, builds)
	}
	// Another task's image under the tag is stale too.
	fake.Images[tag] = engine.ImageInfo{ID: dg("1"), Labels: map[string]string{LabelTask: "other"}}
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil || !strings.Contains(err.Error(), `labelled for task "other"`) {
		t.Errorf("another task's image: %v", err)
	}
	// A lockfile (merged by hand) that records the verification image's
	// id for the behavioural image: that image is not used by its id, and
	// the tag it also carries is refused for its stage label.
	fake.Images[tag] = engine.ImageInfo{ID: dg("1"), Labels: labels}
	verLabels := map[string]string{LabelTask: tk.ID, LabelStateA: tk.StateA.SHA256, LabelStage: "verification"}
	fake.Images["srb/other:verification"] = engine.ImageInfo{ID: dg("5"), Labels: verLabels}
	writeLock(dg("5"), dg("3"))
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil ||
		!strings.Contains(err.Error(), "is sha256:111111111111, not the image images.lock records (sha256:555555555555)") {
		t.Errorf("lock naming the verification image: %v", err)
	}
	fake.Images[tag] = engine.ImageInfo{ID: dg("5"), Labels: verLabels}
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil ||
		!strings.Contains(err.Error(), `is labelled as the "verification" image`) {
		t.Errorf("the verification image under the behavioural tag: %v", err)
	}
	delete(fake.Images, "srb/other:verification")
	// An image built without the helper cannot run the suite.
	fake.Images[tag] = engine.ImageInfo{ID: dg("1"), Labels: labels}
	writeLock(dg("1"), "")
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil || !strings.Contains(err.Error(), "has no srb-helper") {
		t.Errorf("helperless image: %v", err)
	}
}
