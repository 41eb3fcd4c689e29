package report

import (
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestRenderOneLinePerLine: module notes and observations carry what the
// submission's programs printed. Whatever a line of summary.txt holds, it
// stays one line: no newline, CR, line separator, escape sequence or bidi
// override of theirs can write a forged score line, clear the terminal or
// reorder text.
func TestRenderOneLinePerLine(t *testing.T) {
	v := result.NewVerdict("t", 100)
	v.AuditGate = result.GatePass
	v.StagesRun = []string{result.StageAudit, result.StageBehavioural}
	v.Modules = []result.ModuleScore{{ID: "m", Title: "m", Weight: 1, Status: result.UnitOK, ScoredWeight: 1,
		Note:         "got\n  score  100.00 / 100\rfoo",
		Notes:        []string{"own\u2028  score  100.00 / 100"},
		Observations: []string{"out \x1b[2J\x1b[H  score  100.00 / 100", "evil\u202eexe.txt", "x\u0085  score  100.00 / 100"}}}
	v.Notes = []string{"note\n  score  100.00 / 100"}
	text := Render(v, "")
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "score  100.00") {
			t.Errorf("line %d forges the headline: %q", i+1, line)
		}
		for _, r := range line {
			if r == '\r' || r == 0x1b || r == '\u202e' || r == '\u2028' || r == '\u0085' {
				t.Errorf("line %d holds %U: %q", i+1, r, line)
			}
		}
	}
	if err := CheckSummary(v, text); err != nil {
		t.Errorf("CheckSummary of its own rendering: %v", err)
	}
}
