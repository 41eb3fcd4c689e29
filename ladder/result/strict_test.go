package result_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

const envelope = `{"schema":"swerefactor.stage-result/1","stage":"%s","task":"t","status":"ok","started_at":"2026-11-30T09:00:00Z","duration_sec":1.0,"harness":{},"units":%s,"checks":%s,"metadata":%s,"notes":[]}`

func stageDoc(stage, units, checks, meta string) []byte {
	out := envelope
	for _, part := range []string{stage, units, checks, meta} {
		out = strings.Replace(out, "%s", part, 1)
	}
	return []byte(out)
}

// Each stage result below contradicts itself in a way that could change
// what is scored or published; each is refused naming the field.
func TestParseStageRefusesContradictions(t *testing.T) {
	unit := `[{"id":"m","title":"m","weight":1.0,"status":"ok"}]`
	pass := `{"id":"m/a","verdict":"pass","summary":"","weight":1.0,"unit":"m"}`
	fail := `{"id":"m/b","verdict":"fail","summary":"","weight":1.0,"unit":"m"}`
	round := func(id, verdict string) string {
		return `{"id":"` + id + `","verdict":"` + verdict + `","summary":"","weight":1.0,"unit":"` + id + `","metadata":{"kind":"round"}}`
	}
	tests := []struct {
		name, doc, ptr, msg string
	}{
		{"a repeated key deep inside", strings.Replace(string(stageDoc("behavioural", unit, "["+fail+"]", "{}")), `"verdict":"fail"`, `"verdict":"fail","verdict":"pass"`, 1),
			"/checks/0", `key "verdict" appears more than once in this object`},
		{"a duplicated checks key", strings.Replace(string(stageDoc("behavioural", unit, "["+fail+"]", "{}")), `"checks":[`, `"checks":[`+pass+`],"checks":[`, 1),
			"", `key "checks" appears more than once in this object`},
		{"a check of no unit", string(stageDoc("behavioural", unit, `[{"id":"x/a","verdict":"fail","summary":"","weight":1.0,"unit":"x"}]`, "{}")),
			"/checks/0/unit", `check "x/a" names unit "x", which is not a unit of this stage`},
		{"passing count", string(stageDoc("behavioural", unit, "["+pass+","+fail+"]", `{"checks":2,"checks_passed":2}`)),
			"/metadata/checks_passed", "metadata.checks_passed is 2 but the file holds 1 passing check(s)"},
		{"survivor count", string(stageDoc("verification", "[]", "["+round("a1", "pass")+","+round("a2", "fail")+"]", `{"survived":2}`)),
			"/metadata/survived", "metadata.survived is 2 but the file holds 1 surviving round(s)"},
		{"a round record against its check", string(stageDoc("verification", "[]", "["+round("a1", "fail")+"]", `{"rounds":[{"adversary":"a1","outcome":"survived"}]}`)),
			"/metadata/rounds/0/outcome", `round "a1" is recorded as "survived" but its check's verdict is "fail"`},
		{"a round record of no round", string(stageDoc("verification", "[]", "["+round("a1", "pass")+"]", `{"rounds":[{"adversary":"a9","outcome":"survived"}]}`)),
			"/metadata/rounds/0/adversary", `round record "a9" matches no round check, or repeats one`},
		{"a round under another's unit", string(stageDoc("verification", "[]", `[{"id":"a1","verdict":"pass","summary":"","weight":1.0,"unit":"a2","metadata":{"kind":"round"}}]`, "{}")),
			"/checks/0/unit", `round "a1" names unit "a2": a round's unit is its adversary, its own id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := result.ParseStage([]byte(tt.doc))
			var ve *contract.ValidationError
			if !errors.As(err, &ve) || ve.Pointer != tt.ptr || !strings.Contains(ve.Msg, tt.msg) {
				t.Fatalf("err = %v, want %s: %s", err, tt.ptr, tt.msg)
			}
		})
	}
	// The same shapes, consistent, are read.
	if _, err := result.ParseStage(stageDoc("behavioural", unit, "["+pass+","+fail+"]", `{"modules":1,"modules_ok":1,"checks":2,"checks_passed":1}`)); err != nil {
		t.Errorf("a consistent behavioural result: %v", err)
	}
	if _, err := result.ParseStage(stageDoc("verification", "[]", "["+round("a1", "pass")+","+round("a2", "error")+"]",
		`{"adversaries":2,"survived":1,"broken":0,"errored":1,"rounds":[{"adversary":"a1","outcome":"survived"},{"adversary":"a2","outcome":"error"}]}`)); err != nil {
		t.Errorf("a consistent verification result: %v", err)
	}
}

// reward.json is read like every contract: its own arithmetic must close.
func TestParseReward(t *testing.T) {
	v := result.NewVerdict("t", 100)
	v.AuditGate, v.BehaviouralPoints, v.Score, v.StagesRun = result.GatePass, 40, 40, []string{result.StageAudit, result.StageBehavioural}
	v.BehaviouralRate = 1
	v.Modules = []result.ModuleScore{{ID: "m", Weight: 1, Rate: 1, Complete: true, Status: result.UnitOK, ScoredWeight: 2, Passed: 2}}
	dir := t.TempDir()
	if err := result.Publish(dir, v, "x"); err != nil {
		t.Fatal(err)
	}
	flat, err := result.ReadReward(dir + "/reward.json")
	if err != nil || flat["reward"] != 0.4 || flat["stage2_points"] != 40 {
		t.Fatalf("ReadReward = %v, %v", flat, err)
	}
	if err := result.RewardAgrees(v, flat); err != nil {
		t.Errorf("RewardAgrees on its own verdict: %v", err)
	}
	v.Score = 100
	var ve *contract.ValidationError
	if err := result.RewardAgrees(v, flat); !errors.As(err, &ve) || ve.Pointer != "/reward" {
		t.Errorf("RewardAgrees with another verdict = %v", err)
	}
	// Forged files that keep reward = score / max_score but not formula
	// (4): a score stage 1 did not let through, a score above what the
	// stages paid or above max_score, stage 2 paid below rate 1, stage 3
	// paid with no survivor.
	good, err := os.ReadFile(dir + "/reward.json")
	if err != nil {
		t.Fatal(err)
	}
	forge := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(string(good)) }
	for name, tc := range map[string]struct{ doc, ptr string }{
		"gate not passed":         {forge(`"stage1_passed": 1`, `"stage1_passed": 0`), "/score"},
		"score beyond the stages": {forge(`"score": 40.0`, `"score": 100.0`, `"reward": 0.4`, `"reward": 1.0`), "/score"},
		"score beyond max_score":  {forge(`"max_score": 100.0`, `"max_score": 0.0`, `"reward": 0.4`, `"reward": 0.0`), "/score"},
		"stage 2 below rate 1":    {forge(`"stage2_rate": 1.0`, `"stage2_rate": 0.5`), "/stage2_points"},
		"stage 3 with no survivor": {forge(`"score": 40.0`, `"score": 100.0`, `"reward": 0.4`, `"reward": 1.0`, `"stage3_points": 0.0`, `"stage3_points": 60.0`,
			`"stage3_scored": 0`, `"stage3_scored": 1`, `"stage3_ran": 0`, `"stage3_ran": 1`), "/stage3_points"},
	} {
		if tc.doc == string(good) {
			t.Fatalf("%s: the forgery changed nothing", name)
		}
		if _, err := result.ParseReward([]byte(tc.doc)); !errors.As(err, &ve) || ve.Pointer != tc.ptr {
			t.Errorf("%s: ParseReward = %v, want an error at %s", name, err, tc.ptr)
		}
	}
	for doc, ptr := range map[string]string{
		`{"reward": 0.4, "reward": 0.4}`: "",
	} {
		if _, err := result.ParseReward([]byte(doc)); !errors.As(err, &ve) || ve.Pointer != ptr {
			t.Errorf("ParseReward(%s) = %v", doc, err)
		}
	}
}
