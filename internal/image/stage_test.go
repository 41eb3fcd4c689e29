package image

import (
	"context"
	"fmt"
	"os"
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
	t.Setenv("SRB_CACHE", t.TempDir())
	taskDir := fixtureCopy(t)
	tk, problems := task.Load(taskDir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	assets := currentAssets(t, tk)
	tag := Tag(tk, "behavioural")
	labels := map[string]string{LabelTask: tk.ID, LabelStateA: tk.StateA.SHA256, LabelStage: "behavioural"}
	dg := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	writeLock := func(config, helper string) {
		in := map[string]string{"base": dg("b"), "assets": assets}
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

// currentAssets is the digest srb build gives tk's assets now.
func currentAssets(t *testing.T, tk *task.Task) string {
	t.Helper()
	in, err := prepareAssets(tk, t.TempDir())
	if err != nil || in == nil {
		t.Fatalf("assets: %v %v", in, err)
	}
	return in.Digest
}

// TestFindStageStaleAssets: an image the lockfile records, present and
// labelled right, is not used when the task folder's assets changed since
// it was built (a scenario edited under data/): without a builder the
// error names the task, the stage and the file; with one it is rebuilt
// and the rebuilt image (whose lockfile records the new assets) is used.
// The audit image holds no assets and is not affected.
func TestFindStageStaleAssets(t *testing.T) {
	t.Setenv("SRB_CACHE", t.TempDir())
	taskDir := fixtureCopy(t)
	tk, problems := task.Load(taskDir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	dg := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	fake := &engine.Fake{Images: map[string]engine.ImageInfo{}}
	put := func(stage, id string) {
		fake.Images[id] = engine.ImageInfo{ID: id, Labels: map[string]string{LabelTask: tk.ID, LabelStateA: tk.StateA.SHA256, LabelStage: stage}}
	}
	writeLock := func(assets, config string) {
		l := &Lock{Schema: LockSchema, Task: tk.ID, TaskCommit: "uncommitted", BuildKit: "v0.26.3", Inputs: map[string]LockInput{"assets": {About: "assets", Digest: assets}}, Images: map[string]LockImage{
			"behavioural": {Digest: dg("d"), Config: config, LLB: dg("e"), Inputs: map[string]string{"assets": assets, "helper": dg("3")}},
			"audit":       {Digest: dg("a"), Config: dg("a"), LLB: dg("e"), Inputs: map[string]string{"base": dg("b")}}}}
		if err := WriteLock(taskDir, l); err != nil {
			t.Fatal(err)
		}
	}
	// As srb build leaves it: the image staged from the current assets.
	root, _, err := assetsRoot()
	if err != nil {
		t.Fatal(err)
	}
	built, err := prepareAssets(tk, root)
	if err != nil {
		t.Fatal(err)
	}
	put("behavioural", dg("1"))
	put("audit", dg("a"))
	writeLock(built.Digest, dg("1"))
	logf := func(string, ...any) {}
	if si, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err != nil || si.Ref != dg("1") {
		t.Fatalf("current assets: %+v %v", si, err)
	}

	// A scenario is edited after the build.
	corpus := filepath.Join(taskDir, "data", "corpus")
	ents, err := os.ReadDir(corpus)
	if err != nil || len(ents) == 0 {
		t.Fatal(ents, err)
	}
	edited := filepath.Join(corpus, ents[0].Name())
	if err := os.WriteFile(edited, []byte("an edited scenario\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = FindStage(t.Context(), tk, "behavioural", fake, nil, logf)
	want := []string{tk.ID + ": the task's modules/, data/, truth/ folders changed since the behavioural image was built",
		"data/corpus/" + ents[0].Name() + " changed", "run srb build --load --stage behavioural " + tk.ID}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("edited scenario: error %v, want it to say %q", err, w)
		}
	}
	if si, err := FindStage(t.Context(), tk, "audit", fake, nil, logf); err != nil || si.Ref != dg("a") {
		t.Errorf("the audit image holds no assets: %+v %v", si, err)
	}

	// With a builder: rebuilt once, and the new image is used.
	builds := 0
	build := func(_ context.Context, tk *task.Task, stage string) error {
		builds++
		put(stage, dg("2"))
		writeLock(currentAssets(t, tk), dg("2"))
		return nil
	}
	var logged []string
	logb := func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
	if si, err := FindStage(t.Context(), tk, "behavioural", fake, build, logb); err != nil || builds != 1 || si.Ref != dg("2") {
		t.Fatalf("rebuild: %+v %v after %d build(s)", si, err, builds)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "data/corpus/"+ents[0].Name()+" changed: building it") {
		t.Errorf("rebuild logged %q", logged)
	}
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, build, logf); err != nil || builds != 1 {
		t.Errorf("after the rebuild: %v, %d build(s)", err, builds)
	}

	// A file added under modules/ is named too.
	if err := os.WriteFile(filepath.Join(taskDir, "modules", "notes", "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindStage(t.Context(), tk, "behavioural", fake, nil, logf); err == nil || !strings.Contains(err.Error(), "modules/notes/new.txt added") {
		t.Errorf("added file: %v", err)
	}
}
