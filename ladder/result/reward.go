package result

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/schema/contract"
)

// File names [Publish] writes into a results directory (HARNESS.md §3.8).
const (
	ScoreFile   = "score.json"
	SummaryFile = "summary.txt"
	RewardFile  = "reward.json"
)

// ErrCouldNotRun marks an error meaning a stage or the grader could not
// run at all. It is a typed outcome, never a lower score: callers wrap it
// (fmt.Errorf("…: %w", ErrCouldNotRun)), test it with errors.Is, and
// publish [ErrorVerdict] rather than a zero that reads like a judgement.
var ErrCouldNotRun = errors.New("could not run")

// ErrorVerdict is the verdict the earlier harness's publish_error
// published for a grader that could not complete: score 0, valid false
// (HarnessError = message), the audit gate not run, and a note that the
// score is not a judgement about the submission. MaxScore is 100.
func ErrorVerdict(task, message string) *Verdict {
	v := NewVerdict(task, 100)
	v.HarnessError = message
	v.Notes = append(v.Notes, "the score below is not a judgement about the submission; the grader did not complete")
	return v
}

// RewardKey turns an id into a reward.json key fragment: lower case, every
// character that is not a letter or digit replaced by "_", leading and
// trailing "_" trimmed, and "unnamed" if nothing is left (HARNESS.md §3.8).
// Letters and digits are Unicode ones, as Python's str.isalnum.
func RewardKey(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.No, r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if k := strings.Trim(b.String(), "_"); k != "" {
		return k
	}
	return "unnamed"
}

// Reward flattens v into reward.json's numbers (HARNESS.md §3.8): reward,
// score, max_score, valid (0/1), stage1_* (ran, passed, failures),
// stage2_* (ran, scored, points, rate, modules), stage3_* (ran, scored,
// points, models, survived, broken), blocked_by_audit_gate,
// blocked_by_behavioural_incomplete, stage2_uncounted_{ran, points, rate,
// modules, complete}, stage3_uncounted_{ran, points, models, survived},
// per module module_<key>_{rate, weight, passed, failed, errored, skipped,
// ran}, per verification round that survived or broke
// adversary_<key>_survived (errored rounds are absent), and
// harnesses_distinct (the number of distinct [Grader]s of v.Harnesses: a
// stage written by srb's in-image helper counts as the srb that
// orchestrated it). Keys are derived with [RewardKey]. Flags are 0 or 1.
func Reward(v *Verdict) map[string]float64 {
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	has := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	flat := map[string]float64{
		"reward":          v.Reward(),
		"score":           py.Round(v.Score, 4),
		"max_score":       v.MaxScore,
		"valid":           b(v.Valid()),
		"stage1_ran":      b(v.AuditGate != GateNotRun && v.AuditGate != ""),
		"stage1_passed":   b(v.AuditGate == GatePass),
		"stage1_failures": float64(len(v.AuditFailures)),
		"stage2_ran": b(has(v.StagesRun, StageBehavioural) ||
			v.UnscoredStages[StageBehavioural] != ""),
		"stage2_scored":  b(has(v.StagesRun, StageBehavioural)),
		"stage2_points":  py.Round(v.BehaviouralPoints, 4),
		"stage2_rate":    py.Round(v.BehaviouralRate, 6),
		"stage2_modules": float64(len(v.Modules)),
		"stage3_ran": b(has(v.StagesRun, StageVerification) ||
			v.UnscoredStages[StageVerification] != ""),
		"stage3_scored":   b(has(v.StagesRun, StageVerification)),
		"stage3_points":   py.Round(v.VerificationPoints, 4),
		"stage3_models":   float64(v.AdversariesTotal),
		"stage3_survived": float64(v.AdversariesSurvived),
		"stage3_broken":   float64(len(v.VerificationBreaks)),
	}
	for _, stop := range []string{"audit-gate", "behavioural-incomplete"} {
		flat["blocked_by_"+strings.ReplaceAll(stop, "-", "_")] = b(v.BlockedBy == stop)
	}

	unc := v.Uncounted()
	fn := unc[StageBehavioural]
	adv := unc[StageVerification]
	flat["stage2_uncounted_ran"] = b(py.Truthy(fn["ran"]))
	flat["stage2_uncounted_points"] = py.Round(py.Num(getOr(fn, "points", 0.0)), 4)
	flat["stage2_uncounted_rate"] = py.Round(py.Num(getOr(fn, "rate", 0.0)), 6)
	flat["stage2_uncounted_modules"] = float64(py.Int(getOr(fn, "modules", 0)))
	complete := py.Num(fn["points"]) > 0
	if c, ok := fn["complete"]; ok {
		complete = py.Truthy(c)
	}
	flat["stage2_uncounted_complete"] = b(complete)
	flat["stage3_uncounted_ran"] = b(py.Truthy(adv["ran"]))
	flat["stage3_uncounted_points"] = py.Round(py.Num(getOr(adv, "points", 0.0)), 4)
	flat["stage3_uncounted_models"] = float64(py.Int(getOr(adv, "models_total", 0)))
	flat["stage3_uncounted_survived"] = float64(py.Int(getOr(adv, "models_survived", 0)))

	for _, m := range v.Modules {
		k := "module_" + RewardKey(m.ID) + "_"
		flat[k+"rate"] = py.Round(m.Rate, 6)
		flat[k+"weight"] = py.Round(m.Weight, 6)
		flat[k+"passed"] = float64(m.Passed)
		flat[k+"failed"] = float64(m.Failed)
		flat[k+"errored"] = float64(m.Errored)
		flat[k+"skipped"] = float64(m.Skipped)
		flat[k+"ran"] = b(m.Status == UnitOK)
	}

	for _, e := range py.AsList(py.AsMap(v.Metadata[StageVerification])["rounds"]) {
		entry, ok := e.(map[string]any)
		if !ok {
			continue
		}
		rid := entry["adversary"]
		if !py.Truthy(rid) {
			rid = entry["id"]
		}
		id := ""
		if py.Truthy(rid) {
			id = py.Str(rid)
		}
		outcome := ""
		if py.Truthy(entry["outcome"]) {
			outcome = py.Str(entry["outcome"])
		}
		if id == "" || (outcome != "survived" && outcome != "broken") {
			continue
		}
		flat["adversary_"+RewardKey(id)+"_survived"] = b(outcome == "survived")
	}

	distinct := map[string]bool{}
	for _, h := range v.Harnesses {
		if g := Grader(h); g != "" {
			distinct[g] = true
		}
	}
	flat["harnesses_distinct"] = float64(len(distinct))
	return flat
}

// rewardIsFloat says which reward.json keys the earlier harness wrote as
// floats (1.0) rather than integers (1), so the file reads the same.
func rewardIsFloat(key string) bool {
	switch key {
	case "reward", "score", "max_score":
		return true
	}
	return strings.HasSuffix(key, "_points") || strings.HasSuffix(key, "_rate") ||
		(strings.HasPrefix(key, "module_") && strings.HasSuffix(key, "_weight"))
}

// marshalReward renders flat as reward.json: keys sorted, indent 2,
// trailing newline.
func marshalReward(flat map[string]float64) ([]byte, error) {
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := make(object, 0, len(keys))
	for _, k := range keys {
		if rewardIsFloat(k) {
			o.add(k, flat[k])
		} else {
			o.add(k, pyInt(int64(flat[k])))
		}
	}
	return marshalPy(o)
}

// Publish writes the three files Harbor reads into dir (HARNESS.md §3.8),
// each atomically and in this order: score.json (v, validated against the
// "score" schema), summary.txt (summary plus a newline; render it with the
// report package), and reward.json (the flat numbers of [Reward], keys
// sorted, validated against the "reward" schema) LAST, so a consumer polling
// for reward.json never sees a reward whose detail has not landed. dir is
// created if needed. Both documents are validated before anything is
// written, and an existing reward.json is removed before score.json is
// replaced, so a publish that fails half-way never leaves an earlier
// reward beside a newer verdict.
func Publish(dir string, v *Verdict, summary string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	scorePath := filepath.Join(dir, ScoreFile)
	rewardPath := filepath.Join(dir, RewardFile)
	score, err := v.marshalValid(scorePath)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	reward, err := marshalReward(Reward(v))
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := contract.ValidateBytes(contract.Reward, reward); err != nil {
		return fmt.Errorf("publish: write reward %s: %w", rewardPath, withFile(err, rewardPath))
	}
	// A reward.json from an earlier grading must not outlive a failed
	// publish: consumers read it as the verdict.
	if err := os.Remove(rewardPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("publish: remove the stale %s: %w", rewardPath, err)
	}
	if err := writeAtomic(scorePath, score); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, SummaryFile), []byte(summary+"\n")); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := writeAtomic(rewardPath, reward); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return nil
}

// ParseReward reads reward.json from data: one JSON object, no key twice
// at any depth, valid against the "reward" JSON Schema, and consistent
// with itself: reward is score / max_score (6 dp, 0 when max_score is
// 0); score is 0 unless stage1_passed, else stage2_points +
// stage3_points capped at max_score; stage 2 paid only when scored at
// rate 1, stage 3 only when scored with a survivor; a stage that scored
// or passed ran (stage1_passed ≤ stage1_ran,
// stage2_scored ≤ stage2_ran, stage3_scored ≤ stage3_ran); stage 3's
// survivors and breaks fit in its models (stage3_survived +
// stage3_broken ≤ stage3_models, and likewise for the uncounted
// figures); and the per-round adversary_<key>_survived flags number at
// most stage3_models and show at most stage3_survived survivors.
// Violations are a *contract.ValidationError naming the key.
func ParseReward(data []byte) (map[string]float64, error) {
	doc, err := contract.DecodeStrict(contract.Reward, data)
	if err != nil {
		return nil, err
	}
	if err := contract.Validate(contract.Reward, doc); err != nil {
		return nil, err
	}
	raw, _ := doc.(map[string]any)
	flat := make(map[string]float64, len(raw))
	for k, v := range raw {
		f, ok := py.Float(v)
		if !ok {
			return nil, &contract.ValidationError{Contract: contract.Reward, Pointer: "/" + k, Msg: "not a number"}
		}
		flat[k] = f
	}
	bad := func(key, format string, args ...any) error {
		return &contract.ValidationError{Contract: contract.Reward, Pointer: "/" + key, Msg: fmt.Sprintf(format, args...)}
	}
	want := 0.0
	if flat["max_score"] != 0 {
		want = py.Round(flat["score"]/flat["max_score"], 6)
	}
	if math.Abs(flat["reward"]-want) > 1e-6 {
		return nil, bad("reward", "reward is %s but score / max_score is %s / %s = %s",
			py.Repr(flat["reward"]), py.Repr(flat["score"]), py.Repr(flat["max_score"]), py.Repr(want))
	}
	for _, p := range [][2]string{{"stage1_passed", "stage1_ran"}, {"stage2_scored", "stage2_ran"}, {"stage3_scored", "stage3_ran"}} {
		if flat[p[0]] > flat[p[1]] {
			return nil, bad(p[0], "%s is 1 but %s is 0", p[0], p[1])
		}
	}
	if s, b, m := flat["stage3_survived"], flat["stage3_broken"], flat["stage3_models"]; s+b > m {
		return nil, bad("stage3_survived", "%s model(s) survived and %s broke it, but stage 3 ran %s", py.FormatG(s), py.FormatG(b), py.FormatG(m))
	}
	if s, m := flat["stage3_uncounted_survived"], flat["stage3_uncounted_models"]; s > m {
		return nil, bad("stage3_uncounted_survived", "%s of %s uncounted models survived", py.FormatG(s), py.FormatG(m))
	}
	rounds, survivors := 0.0, 0.0
	for k, v := range flat {
		if strings.HasPrefix(k, "adversary_") && strings.HasSuffix(k, "_survived") {
			rounds++
			survivors += v
		}
	}
	if rounds > flat["stage3_models"] || survivors > flat["stage3_survived"] {
		return nil, bad("stage3_survived", "%s adversary flag(s) show %s survivor(s), but stage 3 counts %s survivor(s) of %s model(s)",
			py.FormatG(rounds), py.FormatG(survivors), py.FormatG(flat["stage3_survived"]), py.FormatG(flat["stage3_models"]))
	}
	// Formula (4) over the stage points, as [ParseVerdict] checks it on
	// score.json: nothing unless stage 1 passed, else the two stages'
	// points capped at max_score; stage 2 pays only at rate 1, stage 3
	// only with a survivor, and neither without having been scored.
	paid := 0.0
	if flat["stage1_passed"] == 1 {
		paid = math.Min(flat["stage2_points"]+flat["stage3_points"], flat["max_score"])
	}
	if math.Abs(flat["score"]-paid) > 1e-3 {
		return nil, bad("score", "score is %s but the stages give %s (stage1_passed %s, stage2_points %s, stage3_points %s, max_score %s)",
			py.Repr(flat["score"]), py.Repr(paid), py.FormatG(flat["stage1_passed"]), py.Repr(flat["stage2_points"]), py.Repr(flat["stage3_points"]), py.Repr(flat["max_score"]))
	}
	if flat["stage2_points"] > 0 && (flat["stage2_scored"] != 1 || flat["stage2_rate"] < 1-1e-6) {
		return nil, bad("stage2_points", "stage 2 paid %s points but stage2_scored is %s and stage2_rate %s: it pays only when scored at rate 1",
			py.Repr(flat["stage2_points"]), py.FormatG(flat["stage2_scored"]), py.Repr(flat["stage2_rate"]))
	}
	if flat["stage3_points"] > 0 && (flat["stage3_scored"] != 1 || flat["stage3_survived"] < 1) {
		return nil, bad("stage3_points", "stage 3 paid %s points but stage3_scored is %s and %s model(s) survived",
			py.Repr(flat["stage3_points"]), py.FormatG(flat["stage3_scored"]), py.FormatG(flat["stage3_survived"]))
	}
	return flat, nil
}

// ReadReward reads and checks the reward.json at path (see [ParseReward]);
// a violation is a *contract.ValidationError with File set to path.
func ReadReward(path string) (map[string]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read reward: %w", err)
	}
	flat, err := ParseReward(data)
	if err != nil {
		return nil, fmt.Errorf("read reward %s: %w", path, withFile(err, path))
	}
	return flat, nil
}

// rewardHeadline are the reward.json keys [RewardAgrees] compares with
// the verdict: the ones a consumer reads as the result.
var rewardHeadline = []string{"reward", "score", "max_score", "valid", "stage1_ran", "stage1_passed",
	"stage2_ran", "stage2_scored", "stage2_points", "stage3_ran", "stage3_scored", "stage3_points",
	"stage3_models", "stage3_survived", "stage3_broken"}

// RewardAgrees reports whether the flat numbers of a reward.json (as
// [ParseReward] returns them) say what the verdict v says: every headline
// key (reward, score, max_score, valid, the stage flags and stage points,
// stage 3's models, survivors and breaks) equal to [Reward](v)'s, within
// 1e-6. The error is a *contract.ValidationError naming the first key that
// differs.
func RewardAgrees(v *Verdict, flat map[string]float64) error {
	want := Reward(v)
	for _, k := range rewardHeadline {
		if math.Abs(want[k]-flat[k]) > 1e-6 {
			return &contract.ValidationError{Contract: contract.Reward, Pointer: "/" + k,
				Msg: fmt.Sprintf("%s is %s but score.json gives %s", k, py.Repr(flat[k]), py.Repr(want[k]))}
		}
	}
	return nil
}
