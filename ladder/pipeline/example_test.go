package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/cli"
	"github.com/swe-refactor-bench/srb/internal/grade"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/internal/testenv"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
)

// TestMain lets this test binary double as srb's host helper: stage 2 on
// the host runs "<this binary> helper …" for its declarative modules.
func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	if len(os.Args) > 1 && os.Args[1] == "helper" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// Grade the fixture task's Go port (testdata/submissions/tally-go) on
// this machine (the host backend) with the scripted driver in every model
// position, replaying the go-port fixture's scripts: stage 1 passes, stage
// 2 is complete, stage 3 is earned and all six adversaries survive.
// The stages are srb's own (grade.Ladder.Stages, with the host backend); the
// task model is srb's internal/task, of which the pipeline reads only
// pipeline.Task.
func ExampleGrader_Grade() {
	repo := filepath.Join("..", "..")
	t, problems := task.Load(filepath.Join(repo, "testdata", "tasks", "lang90-tally-c-to-go"))
	if len(problems) > 0 {
		fmt.Println("task:", problems[0].Format(""))
		return
	}
	tmp, err := os.MkdirTemp("", "srb-pipeline-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	// State A is the task's local source; the stages get a copy of it.
	original := filepath.Join(tmp, "state-a")
	if _, err := copytree.Copy(filepath.Join(repo, "testdata", "statea", "tally-1.0"), original, copytree.Options{Times: true}); err != nil {
		fmt.Println(err)
		return
	}

	scripts := filepath.Join(repo, "testdata", "submissions", "lang90-tally-c-to-go", "go-port")
	scripted := func(files ...string) pipeline.Driver {
		return pipeline.Driver{Driver: models.DriverScripted, Scripts: files}
	}
	drivers := pipeline.Drivers{
		Audit:       scripted(filepath.Join(scripts, "audit", "review-1.json"), filepath.Join(scripts, "audit", "review-2.json"), filepath.Join(scripts, "audit", "review-3.json")),
		Adjudicator: scripted(filepath.Join(scripts, "adjudicator.json")),
		Adversaries: map[string]pipeline.Driver{},
	}
	for _, a := range t.Verification.Adversaries {
		drivers.Adversaries[a.ID] = scripted(filepath.Join(scripts, "adversaries", a.ID+".json"))
	}

	// The host backend: every stage runs on this machine.
	backend := &grade.Ladder{Host: true, Now: time.Now, Lookup: func(string) (string, bool) { return "", false }}
	g := &pipeline.Grader{
		Task:     pipeline.Task{ID: t.ID, Exclude: t.Artifacts.Exclude, Policy: grade.TaskPolicy(t), AuditDriver: t.Audit.Driver},
		Original: original,
		Stages:   backend.Stages(t),
	}
	var log strings.Builder
	o := g.Grade(context.Background(), pipeline.Submission{
		Name:    "tally-go",
		Tree:    filepath.Join(repo, "testdata", "submissions", "tally-go"),
		Results: filepath.Join(tmp, "results"),
		Drivers: drivers,
		Log:     &log,
	})
	if o.Err != nil || !o.Verdict.Valid() {
		fmt.Println("not graded:", o.Err, o.Verdict.HarnessError, "\n", log.String())
		return
	}
	v := o.Verdict
	fmt.Printf("score %.0f of %.0f; audit gate %s; stage 2 rate %.1f (%.0f points); %d of %d adversaries survived\n",
		v.Score, v.MaxScore, v.AuditGate, v.BehaviouralRate, v.BehaviouralPoints, v.AdversariesSurvived, v.AdversariesTotal)
	// Output: score 100 of 100; audit gate pass; stage 2 rate 1.0 (40 points); 6 of 6 adversaries survived
}
