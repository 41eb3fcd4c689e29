package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// TestGradeStagesThatLeaveNothing: a stage that returns without a result
// is recorded as failed by the ladder (never "not run"), stage 3 is not
// earned, and the published verdict is invalid, never a zero; the stage's
// error is reported; the collection leaves out what the task excludes.
func TestGradeStagesThatLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	for name, body := range map[string]string{"main.go": "package main\n", "tally": "binary\n"} {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ran []string
	var seen []string
	stage := func(name string, err error) Stage {
		return StageFunc(func(_ context.Context, in StageInput) error {
			ran = append(ran, name)
			ents, _ := os.ReadDir(in.Submission)
			seen = nil
			for _, e := range ents {
				seen = append(seen, e.Name())
			}
			return err
		})
	}
	boom := errors.New("the engine went away")
	g := &Grader{
		Task:     Task{ID: "t1", Exclude: []string{"tally"}, Policy: scoring.Published(), AuditDriver: "openai"},
		Original: dir,
		Stages:   Stages{Audit: stage("audit", nil), Behavioural: stage("behavioural", boom), Verification: stage("verification", nil)},
		Now:      func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) },
	}
	results := filepath.Join(dir, "out")
	var log strings.Builder
	o := g.Grade(context.Background(), Submission{Name: "sub", Tree: sub, Results: results, Log: &log})
	if o.Err != nil {
		t.Fatalf("Grade: %v", o.Err)
	}
	if want := []string{"audit", "behavioural"}; !slices.Equal(ran, want) {
		t.Errorf("stages run %v, want %v (stage 3 is not earned)", ran, want)
	}
	if want := []string{"main.go"}; !slices.Equal(seen, want) {
		t.Errorf("the stages saw %v, want %v (tally excluded)", seen, want)
	}
	if !errors.Is(o.StageErrors[result.StageBehavioural], boom) || len(o.StageErrors) != 1 {
		t.Errorf("StageErrors = %v, want behavioural's only", o.StageErrors)
	}
	for _, stage := range []string{result.StageAudit, result.StageBehavioural} {
		st, err := result.ReadStage(filepath.Join(results, stage+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != result.StatusError || st.Metadata["recorded_by"] != "ladder" {
			t.Errorf("%s.json: status %s, recorded_by %v; want error by the ladder", stage, st.Status, st.Metadata["recorded_by"])
		}
	}
	if _, err := os.Stat(filepath.Join(results, "verification.json")); !os.IsNotExist(err) {
		t.Errorf("verification.json exists (err %v), want none", err)
	}
	if o.Verdict == nil || o.Verdict.Valid() {
		t.Fatalf("verdict %+v: want an invalid one", o.Verdict)
	}
	if _, err := os.Stat(filepath.Join(results, "reward.json")); err != nil {
		t.Errorf("reward.json: %v", err)
	}
	for _, line := range []string{"collected 1 file(s), 0 link(s); excluded tally: 1", "stage 1 (audit) with the openai driver", "behavioural: the engine went away", "verification: not run -- "} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, log.String())
		}
	}
}

// TestClearResults: a re-run removes every result file; with resume the
// audit's and the verification's are kept.
func TestClearResults(t *testing.T) {
	dir := t.TempDir()
	write := func() {
		for _, f := range ResultFiles {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	if got := ClearResults(dir, false); !slices.Equal(got, ResultFiles) {
		t.Errorf("ClearResults = %v, want %v", got, ResultFiles)
	}
	write()
	want := []string{"behavioural.json", "score.json", "summary.txt", "reward.json"}
	if got := ClearResults(dir, true); !slices.Equal(got, want) {
		t.Errorf("ClearResults(resume) = %v, want %v", got, want)
	}
}

// TestDriverApply: a new driver drops the task's options; scripts rotate
// by the call's index.
func TestDriverApply(t *testing.T) {
	d := Driver{Driver: "scripted", Model: "m", Scripts: []string{"a.json", "b.json"}}
	task := d.Apply(modelsConfig("openai", map[string]any{"effort": "high"}), 3)
	if task.Driver != "scripted" || task.Model != "m" || task.Options["script"] != "a.json" || task.Options["effort"] != nil {
		t.Errorf("Apply = %+v", task)
	}
	same := Driver{Scripts: []string{"x.json"}}.Apply(modelsConfig("scripted", map[string]any{"keep": 1}), 0)
	if same.Options["keep"] != 1 || same.Options["script"] != "x.json" {
		t.Errorf("Apply keeping the driver = %+v", same)
	}
}

func modelsConfig(driver string, opts map[string]any) models.Config {
	return models.Config{Driver: driver, Options: opts}
}

// TestGradeAnnotates: Annotate sees every published verdict, the invalid
// one of a submission that could not be made included.
func TestGradeAnnotates(t *testing.T) {
	dir := t.TempDir()
	never := StageFunc(func(context.Context, StageInput) error { t.Error("a stage ran"); return nil })
	g := &Grader{Task: Task{ID: "t1", Policy: scoring.Published()}, Original: dir, Stages: Stages{Audit: never, Behavioural: never, Verification: never}}
	results := filepath.Join(dir, "out")
	o := g.Grade(context.Background(), Submission{Name: "broken", Results: results,
		Apply:    func(string, string) (string, error) { return "", errors.New("delete.txt: line 1: no such path") },
		Annotate: func(v *result.Verdict) { v.Metadata["run"] = map[string]any{"model": "fake"} }})
	if o.Err == nil || o.Verdict == nil || o.Verdict.Valid() {
		t.Fatalf("outcome %+v: want an invalid verdict and the error", o)
	}
	b, err := os.ReadFile(filepath.Join(results, "score.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"model": "fake"`, "delete.txt: line 1: no such path"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("score.json lacks %s:\n%s", want, b)
		}
	}
}

// TestGradeRefusesATreePastItsBounds: a submitted tree that cannot be
// collected within collect.DefaultBounds (a chain of folders whose path
// passes the system's PATH_MAX, made one relative step at a time, as a
// build can) is refused: a valid 0 saying why, no stage run, and no
// error, since it is the submission's doing (it was an invalid verdict:
// the copy failed on lstat).
func TestGradeRefusesATreePastItsBounds(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	seg := strings.Repeat("d", 200)
	p := seg
	for range 30 { // 30 × 201 bytes: past 4096
		if err := root.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		p += "/" + seg
	}
	never := StageFunc(func(context.Context, StageInput) error { t.Error("a stage ran"); return nil })
	g := &Grader{Task: Task{ID: "t1", Policy: scoring.Published()}, Original: dir, Stages: Stages{Audit: never, Behavioural: never, Verification: never}}
	results := filepath.Join(dir, "out")
	o := g.Grade(context.Background(), Submission{Name: "deep", Tree: sub, Results: results,
		Annotate: func(v *result.Verdict) { v.Metadata["run"] = map[string]any{"model": "fake"} }})
	if o.Err != nil || o.Verdict == nil || !o.Verdict.Valid() || o.Verdict.Reward() != 0 {
		t.Fatalf("outcome %+v (err %v): want a valid 0", o, o.Err)
	}
	why, _ := o.Verdict.Metadata["submission_refused"].(string)
	if !strings.Contains(why, "the submitted tree cannot be collected: the tree holds a path longer than 2048 bytes") {
		t.Errorf("submission_refused %q", why)
	}
	b, err := os.ReadFile(filepath.Join(results, "score.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"model": "fake"`) {
		t.Errorf("score.json is not annotated:\n%s", b)
	}
}
