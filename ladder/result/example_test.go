package result_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// A module's $SRB_RESULT is collected into checks namespaced by the module
// id; a weight-0 row is dropped and counted.
func ExampleParseModuleResult() {
	data := []byte(`{"checks": [
	  {"id": "get-index", "verdict": "PASS"},
	  {"id": "x-powered-by", "verdict": "fail", "weight": 0},
	  {"name": "put", "verdict": "fail", "required": true}
	]}`)
	mr, err := result.ParseModuleResult("routes", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	u := result.Unit{ID: "routes", Weight: 1, Status: result.UnitOK}
	mr.Apply(&u)
	for _, c := range mr.Checks {
		fmt.Println(c.ID, c.Verdict, c.Unit, c.Required)
	}
	fmt.Println(u.Metadata["unscored_observations"])
	// Output:
	// routes/get-index pass routes false
	// routes/put fail routes false
	// 1
}

// Publish writes score.json, summary.txt and, last, reward.json.
func ExamplePublish() {
	dir, _ := os.MkdirTemp("", "results")
	defer os.RemoveAll(dir)
	v := result.ErrorVerdict("fw06", "the verifier image is missing")
	if err := result.Publish(dir, v, "report text"); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{result.ScoreFile, result.SummaryFile, result.RewardFile} {
		_, err := os.Stat(filepath.Join(dir, name))
		fmt.Println(name, err == nil)
	}
	flat := result.Reward(v)
	fmt.Println(flat["valid"], flat["reward"])
	// Output:
	// score.json true
	// summary.txt true
	// reward.json true
	// 0 0
}

// A stage result is stamped with the running harness once; writing and
// reading it back keeps that stamp.
func ExampleNewStage() {
	s := result.NewStage(result.StageAudit, "fw06", t0)
	fmt.Println(s.Status, s.StartedAt, s.Harness["fingerprint"] == result.Fingerprint())
	// Output:
	// ok 2026-07-30T09:00:00Z true
}
