package behavioural

import (
	"fmt"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// MetaTruthGaps is the key of a declarative module's result metadata
// listing the check ids (without the module prefix) it observed and
// found no truth for: the truth file lacks an observation the
// declaration checks. The runner makes such a stage a configuration
// fault ([MarkTruthGaps]): a gap in the task's truth is never charged to
// the tree under test.
const MetaTruthGaps = "truth_gaps"

// TruthGaps returns the check ids unit's module reported under
// [MetaTruthGaps] in its result metadata (carried into the unit's
// metadata as "metadata"), or nil.
func TruthGaps(u result.Unit) []string {
	meta, _ := u.Metadata["metadata"].(map[string]any)
	var out []string
	switch v := meta[MetaTruthGaps].(type) {
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	}
	return out
}

// MarkTruthGaps makes st a stage error when unit reported truth gaps: its
// status becomes error, metadata "config_error" true and "error" names
// the module and its checks (at most five, then a count), so the verdict
// is invalid (scoring's behavioural-error) instead of a failed check
// charged to the submission. It reports whether it marked st; a stage
// already in error keeps its first error.
func MarkTruthGaps(st *result.Stage, unit result.Unit) bool {
	gaps := TruthGaps(unit)
	if len(gaps) == 0 {
		return false
	}
	named := gaps
	more := ""
	if len(named) > 5 {
		named, more = named[:5], fmt.Sprintf(" and %d more", len(gaps)-5)
	}
	reason := fmt.Sprintf("the truth of module %s (%s/%s.json) has no observation of %s%s, which the module checks: the task's truth is incomplete (run srb freeze %s), so the stage could not grade the submission",
		unit.ID, TruthDir, unit.ID, strings.Join(named, ", "), more, st.Task)
	if st.Status != result.StatusError {
		st.Status = result.StatusError
		st.Metadata["error"] = reason
	}
	st.Metadata["config_error"] = true
	st.Note(reason)
	return true
}
