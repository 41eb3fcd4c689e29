package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// kept reads the result an earlier run left at cfg.Out and returns its
// finished reviews (index → sample) that this run may keep instead of
// running again, and a note saying what was kept or why nothing was. A
// review is kept only when the earlier result's metadata.inputs equal
// cfg.Inputs key for key (the digests of the submission, State A, the
// prompt and gates, the model positions, srb itself), its index is within
// this run's samples, and it did not end on a fault (outcome "error" is
// redone). Kept votes are re-grounded against grounder, so a kept fail
// still has to hold against the tree as it is now.
func kept(cfg Config, samples int, grounder *agent.Toolbox) (map[int]Sample, string) {
	if cfg.Out == "" || len(cfg.Inputs) == 0 {
		return nil, ""
	}
	if _, err := os.Stat(cfg.Out); errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	prev, err := result.ReadStage(cfg.Out)
	if err != nil {
		return nil, fmt.Sprintf("the earlier %s could not be read (%v); every review runs again", filepath.Base(cfg.Out), err)
	}
	if prev.Stage != result.StageAudit || prev.Task != cfg.Task {
		return nil, fmt.Sprintf("the earlier %s is not this task's audit; every review runs again", filepath.Base(cfg.Out))
	}
	if diff := inputsDiffer(prev.Metadata["inputs"], cfg.Inputs); diff != "" {
		return nil, fmt.Sprintf("the earlier %s was made from other inputs (%s); every review runs again", filepath.Base(cfg.Out), diff)
	}
	list, _ := prev.Metadata["samples"].([]any)
	out := map[int]Sample{}
	for _, raw := range list {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		s, ok := sampleFromMap(m, cfg.Gates, grounder)
		if !ok || s.Index < 1 || s.Index > samples || s.Outcome == agent.OutcomeError {
			continue
		}
		out[s.Index] = s
	}
	if len(out) == 0 {
		return nil, ""
	}
	idx := make([]string, 0, len(out))
	for i := range out {
		idx = append(idx, fmt.Sprint(i))
	}
	sort.Strings(idx)
	return out, fmt.Sprintf("kept %d finished review(s) (%s) of an earlier run with the same inputs; the rest ran now", len(out), strings.Join(idx, ", "))
}

// inputsDiffer names the first input whose digest differs, "" when all
// are equal.
func inputsDiffer(stored any, want map[string]string) string {
	m, ok := stored.(map[string]any)
	if !ok {
		return "no inputs recorded"
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got, _ := m[k].(string); got != want[k] {
			return k + " differs"
		}
	}
	if len(m) != len(want) {
		return "a different set of inputs"
	}
	return ""
}

// sampleFromMap reads back a sample as [Sample.Map] wrote it; every vote
// is decided again from the verdict the review sent and its citations,
// re-grounded against grounder.
func sampleFromMap(m map[string]any, gates []Gate, grounder *agent.Toolbox) (Sample, bool) {
	s := Sample{Votes: map[string]Vote{}}
	idx, ok := number(m["index"])
	if !ok {
		return s, false
	}
	s.Index = int(idx)
	s.Outcome, _ = m["outcome"].(string)
	s.Summary, _ = m["summary"].(string)
	s.Transcript, _ = m["transcript"].(string)
	s.Error, _ = m["error"].(string)
	s.ElapsedSec, _ = number(m["elapsed_sec"])
	r, _ := number(m["resumes"])
	s.Resumes = int(r)
	u := models.Usage{}
	if um, ok := m["usage"].(map[string]any); ok {
		u.Driver, _ = um["driver"].(string)
		u.Model, _ = um["model"].(string)
		u.ReasoningEffort, _ = um["reasoning_effort"].(string)
		c, _ := number(um["calls"])
		in, _ := number(um["input_tokens"])
		o, _ := number(um["output_tokens"])
		u.Calls, u.InputTokens, u.OutputTokens = int(c), int(in), int(o)
		u.Credits, _ = number(um["credits"])
	}
	s.Usage = &u
	votes, _ := m["votes"].(map[string]any)
	for id, raw := range votes {
		vm, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		verdict, _ := vm["verdict"].(string)
		down, _ := vm["downgraded"].(string)
		if verdict == Pass && strings.HasPrefix(down, "reported fail") {
			verdict = Fail // the review sent fail; it is grounded afresh below
		}
		entry := map[string]any{"id": id, "verdict": verdict, "reasoning": vm["reasoning"], "confidence": vm["confidence"]}
		if strings.HasPrefix(down, "sent verdict") {
			entry["verdict"] = "(kept: not pass or fail)"
		}
		if cites, ok := vm["citations"].([]any); ok {
			ev := make([]any, 0, len(cites))
			for _, c := range cites {
				cm, ok := c.(map[string]any)
				if !ok {
					continue
				}
				e := map[string]any{"path": cm["path"], "quote": cm["quote"], "note": cm["note"]}
				if l, ok := number(cm["line"]); ok {
					e["line"] = l
				}
				ev = append(ev, e)
			}
			entry["evidence"] = ev
		}
		if f, ok := number(vm["confidence"]); ok {
			entry["confidence"] = f
		}
		if v, ok := ParseVote(entry, gates, grounder); ok {
			if strings.HasPrefix(down, "sent verdict") {
				v.Downgraded = down
			}
			s.Votes[id] = v
		}
	}
	return s, true
}

// number reads a JSON number as a stage file holds it.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case interface{ Float64() (float64, error) }:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// removeStaleExcept deletes review-*.jsonl in dir except the transcripts
// of kept reviews: a transcript of an earlier run never sits beside this
// run's results unless its review is one of them.
func removeStaleExcept(dir string, keep map[int]Sample) error {
	matches, err := filepath.Glob(filepath.Join(dir, "review-*.jsonl"))
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range matches {
		held := false
		for i := range keep {
			if filepath.Base(m) == fmt.Sprintf("review-%d.jsonl", i) {
				held = true
			}
		}
		if !held {
			if err := os.Remove(m); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// writeProgress writes what is finished so far to cfg.Out: status error,
// every gate undecided, a note saying the run is unfinished, and the
// finished reviews in metadata.samples, so a run killed now keeps them and
// is never read as a verdict.
func writeProgress(cfg Config, task string, start time.Time, done []Sample, samples int, now func() time.Time) error {
	st := result.NewStage(result.StageAudit, task, start)
	st.Status = result.StatusError
	for _, g := range cfg.Gates {
		c := result.Check{ID: g.ID, Verdict: result.VerdictError, Weight: 1, Required: g.Required,
			Summary: fmt.Sprintf("undecided: the audit is unfinished (%d of %d reviews done)", len(done), samples)}
		st.Add(c)
	}
	st.Note(fmt.Sprintf("unfinished: %d of %d reviews done; re-run srb audit on this results folder to finish (finished reviews are kept when the inputs are the same)", len(done), samples))
	maps := make([]any, len(done))
	for i, s := range done {
		maps[i] = s.Map()
	}
	st.Metadata["samples"] = maps
	st.Metadata["samples_requested"] = samples
	st.Metadata["in_progress"] = true
	st.Metadata["inputs"] = inputsMap(cfg.Inputs)
	st.DurationSec = now().Sub(start).Seconds()
	return st.Write(cfg.Out)
}

func inputsMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
