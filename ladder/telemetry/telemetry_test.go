package telemetry

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
)

// run grades stage results that carry review and round usage the way the
// stage drivers record it, publishes them into <tmp>/lang90-x/gpt-5.6-sol/run-1
// and returns that folder.
func run(t *testing.T) string {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	a := result.NewStage(result.StageAudit, "lang90-x", t0)
	a.Add(result.Check{ID: "g", Verdict: "pass", Summary: "ok", Weight: 1, Required: true})
	a.Metadata = map[string]any{"samples": []any{
		map[string]any{"index": 1, "outcome": "submitted", "elapsed_sec": 61.5, "usage": map[string]any{"driver": "openai", "model": "gpt-5.6-sol", "calls": 14, "input_tokens": 120000, "output_tokens": 3100}},
		map[string]any{"index": 2, "outcome": "error", "elapsed_sec": 3.25, "usage": map[string]any{}},
	}}
	b := result.NewStage(result.StageBehavioural, "lang90-x", t0)
	b.Units = []result.Unit{{ID: "m", Title: "m", Weight: 1, Status: "ok"}}
	b.Add(result.Check{ID: "m/c", Unit: "m", Verdict: "pass", Weight: 1})
	v := result.NewStage(result.StageVerification, "lang90-x", t0)
	v.Add(result.Check{ID: "a01", Unit: "a01", Verdict: "pass", Weight: 1, Metadata: map[string]any{"kind": "round"}})
	v.Add(result.Check{ID: "a02", Unit: "a02", Verdict: "fail", Summary: "x", Weight: 1, Metadata: map[string]any{"kind": "round"}})
	v.Add(result.Check{ID: "a03", Unit: "a03", Verdict: "pass", Weight: 1, Metadata: map[string]any{"kind": "round"}})
	v.Metadata = map[string]any{"rounds": []any{
		map[string]any{"adversary": "a01", "outcome": "survived", "elapsed_sec": 1800, "usage": map[string]any{"driver": "anthropic", "model": "claude-opus-5", "calls": 40, "input_tokens": 900000, "output_tokens": 20000, "credits": 1.75}},
		// A claim the adjudicator ruled on: its usage is its own row part.
		map[string]any{"adversary": "a02", "outcome": "broken", "elapsed_sec": 950.5, "usage": map[string]any{"driver": "openai", "model": "gpt-5.6-sol", "calls": 12, "input_tokens": 300000, "output_tokens": 9000},
			"adjudication": map[string]any{"decision": "upheld", "elapsed_sec": 14.2, "usage": map[string]any{"driver": "anthropic", "model": "claude-opus-5", "calls": 2, "input_tokens": 7100, "output_tokens": 310, "credits": 0.4}}},
		// A claim decided on its runs alone: no adjudicator call, null.
		map[string]any{"adversary": "a03", "outcome": "survived", "elapsed_sec": 400, "usage": map[string]any{"driver": "openai", "model": "gpt-5.6-sol", "calls": 5, "input_tokens": 80000, "output_tokens": 2000},
			"adjudication": map[string]any{"decision": "invalid", "reproduced": 0}},
	}}
	verdict := scoring.Grade("lang90-x", scoring.Stages{Audit: a, Behavioural: b, Verification: v, Declared: []string{"audit", "behavioural", "verification"}}, scoring.Published())
	dir := filepath.Join(t.TempDir(), "lang90-x", "gpt-5.6-sol", "run-1")
	if err := result.Publish(dir, verdict, "report"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWrite(t *testing.T) {
	dir := run(t)
	out, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want := `{
  "schema": "swerefactor.telemetry/1",
  "task": "lang90-x",
  "model": "gpt-5.6-sol",
  "run": "run-1",
  "stage1": [
    {
      "index": 1,
      "driver": "openai",
      "model": "gpt-5.6-sol",
      "elapsed_sec": 61.5,
      "calls": 14,
      "input_tokens": 120000,
      "output_tokens": 3100,
      "credits": null
    },
    {
      "index": 2,
      "driver": null,
      "model": null,
      "elapsed_sec": 3.25,
      "calls": null,
      "input_tokens": null,
      "output_tokens": null,
      "credits": null
    }
  ],
  "stage3": [
    {
      "adversary": "a01",
      "driver": "anthropic",
      "model": "claude-opus-5",
      "outcome": "survived",
      "elapsed_sec": 1800,
      "calls": 40,
      "input_tokens": 900000,
      "output_tokens": 20000,
      "credits": 1.75,
      "adjudicator": null
    },
    {
      "adversary": "a02",
      "driver": "openai",
      "model": "gpt-5.6-sol",
      "outcome": "broken",
      "elapsed_sec": 950.5,
      "calls": 12,
      "input_tokens": 300000,
      "output_tokens": 9000,
      "credits": null,
      "adjudicator": {
        "driver": "anthropic",
        "model": "claude-opus-5",
        "decision": "upheld",
        "elapsed_sec": 14.2,
        "calls": 2,
        "input_tokens": 7100,
        "output_tokens": 310,
        "credits": 0.4
      }
    },
    {
      "adversary": "a03",
      "driver": "openai",
      "model": "gpt-5.6-sol",
      "outcome": "survived",
      "elapsed_sec": 400,
      "calls": 5,
      "input_tokens": 80000,
      "output_tokens": 2000,
      "credits": null,
      "adjudicator": null
    }
  ]
}
`
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("telemetry.json (-want +got):\n%s", d)
	}
}

func TestMissingScore(t *testing.T) {
	if _, err := ForRun(t.TempDir()); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("want a not-exist error, got %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

func TestTaskFallsBackToFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fw06-x", "m", "r")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "score.json"), []byte(`{"task": "", "metadata": {}}`), 0o644)
	tm, err := ForRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Task != "fw06-x" || tm.Model != "m" || tm.Run != "r" || len(tm.Stage1) != 0 || len(tm.Stage3) != 0 {
		t.Errorf("%+v", tm)
	}
}

// A score.json that records a round twice under one key is refused: the
// second "rounds" would hide the first's cost.
func TestDuplicateKeyRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lang90-x", "m", "r")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "score.json"), []byte(`{"task": "lang90-x", "metadata": {"verification": {"rounds": [{"adversary": "a01", "usage": {"calls": 40}}], "rounds": []}}}`), 0o644)
	_, err := ForRun(dir)
	want := filepath.Join(dir, "score.json") + `: score: at /metadata/verification: key "rounds" appears more than once in this object; a field with two values is refused, not read`
	if err == nil || err.Error() != "telemetry: "+want {
		t.Fatalf("err = %v", err)
	}
}
