package verification

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"

	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Inputs returns what stage 3's rounds depend on, by digest
// (metadata.inputs): the submission's and State A's trees, the task
// folder, the image the rounds run in (imageRef, its id; "" is "host"
// and the host's isolation), srb's fingerprint, and each position's driver configuration
// (a scripted driver's script by its content): the adjudicator's and,
// under "adversaries", each adversary's.
func Inputs(submission, original, taskDir, imageRef string, adj models.Config, advs map[string]models.Config) (map[string]any, error) {
	in := map[string]any{"srb": result.Fingerprint()}
	for k, dir := range map[string]string{"submission": submission, "original": original, "task": taskDir} {
		d, err := TreeDigest(dir)
		if err != nil {
			return nil, fmt.Errorf("verification: inputs: %w", err)
		}
		in[k] = d
	}
	if imageRef != "" {
		in["image"] = imageRef
	} else {
		in["image"] = "host:" + HostIsolation()
	}
	var err error
	if in["adjudicator"], err = PositionDigest(adj); err != nil {
		return nil, err
	}
	a := map[string]any{}
	for id, c := range advs {
		if a[id], err = PositionDigest(c); err != nil {
			return nil, err
		}
	}
	in["adversaries"] = a
	return in, nil
}

// PositionDigest is "sha256:<hex>" of a model position's configuration,
// a script option standing for its file's content.
func PositionDigest(c models.Config) (string, error) {
	opts := maps.Clone(c.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	if p, ok := opts["script"].(string); ok && p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("verification: inputs: %w", err)
		}
		opts["script"] = fmt.Sprintf("sha256:%x", sha256.Sum256(b))
	}
	b, err := json.Marshal(map[string]any{"driver": c.Driver, "model": c.Model, "effort": c.Effort, "options": opts})
	if err != nil {
		return "", fmt.Errorf("verification: inputs: %w", err)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b)), nil
}

// KeptRounds reads an earlier verification.json at out and returns its
// finished rounds (survived or broken) that may stand: every input but
// the adversaries' is the same as now, and so is the round's adversary's.
// A file that is missing, unreadable or made from other inputs keeps
// nothing.
func KeptRounds(out string, inputs map[string]any) map[string]Kept {
	old, err := result.ReadStage(out)
	if err != nil {
		return nil
	}
	was, _ := old.Metadata["inputs"].(map[string]any)
	if was == nil {
		return nil
	}
	for k, v := range inputs {
		if k != "adversaries" && fmt.Sprint(was[k]) != fmt.Sprint(v) {
			return nil
		}
	}
	wasAdv, _ := was["adversaries"].(map[string]any)
	nowAdv, _ := inputs["adversaries"].(map[string]any)
	records, _ := old.Metadata["rounds"].([]any)
	kept := map[string]Kept{}
	for _, r := range records {
		rec, _ := r.(map[string]any)
		id, _ := rec["adversary"].(string)
		outcome, _ := rec["outcome"].(string)
		if id == "" || (outcome != OutcomeSurvived && outcome != OutcomeBroken) {
			continue
		}
		if d, ok := nowAdv[id]; !ok || fmt.Sprint(wasAdv[id]) != fmt.Sprint(d) {
			continue
		}
		var check *result.Check
		for i := range old.Checks {
			if old.Checks[i].ID == id {
				check = &old.Checks[i]
			}
		}
		unit := old.Unit(id)
		want := map[string]string{OutcomeSurvived: result.VerdictPass, OutcomeBroken: result.VerdictFail}[outcome]
		if check == nil || unit == nil || check.Verdict != want {
			continue
		}
		kept[id] = Kept{Record: rec, Check: *check, Unit: *unit}
	}
	return kept
}

// Lines is "verification: S survived, B broke through, E did
// not complete" and one line per round: id, outcome, reason.
func Lines(st *result.Stage) []string {
	count := func(k string) int { n, _ := st.Metadata[k].(int); return n }
	lines := []string{fmt.Sprintf("verification: %d survived, %d broke through, %d did not complete",
		count("survived"), count("broken"), count("errored"))}
	width := 0
	for _, c := range st.Checks {
		width = max(width, len(c.ID))
	}
	for _, c := range st.Checks {
		outcome := map[string]string{result.VerdictPass: OutcomeSurvived, result.VerdictFail: OutcomeBroken}[c.Verdict]
		if outcome == "" {
			outcome = OutcomeError
		}
		what := c.Summary
		if c.Verdict == result.VerdictFail && c.Detail != "" {
			what += " (" + c.Detail + ")"
		}
		lines = append(lines, fmt.Sprintf("  %-*s  %-8s  %s", width, c.ID, outcome, what))
	}
	return lines
}

// HostCandidateEnv is a candidate's base environment on this machine:
// PATH and LANG. No build cache of srb's is handed over (a cache both
// trees, or srb and a tree, could write is a channel between them): each
// tree's HOME is its own. Nothing else of srb's environment (credentials
// above all) reaches a candidate.
func HostCandidateEnv() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{"PATH=" + path, "LANG=C.UTF-8"}
}
