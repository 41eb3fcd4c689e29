package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

const (
	rule = "=================================================================" +
		"============="
	thin = "-----------------------------------------------------------------" +
		"-------------"
)

// Footer is how the report's last line names the grader: "graded by srb
// <fingerprint>[, <fingerprint>…]". The earlier harness printed "graded by
// swerefactor …" (HARNESS.md §4.5).
const Footer = "graded by srb"

// blocked maps each blocked_by id to the sentence a reader needs; an id
// not listed is echoed raw (HARNESS.md §4.5 _BLOCKED).
var blocked = map[string]string{
	"audit-gate":              "the audit gate failed",
	"audit-missing":           "the audit stage produced no result",
	"audit-error":             "the audit stage did not complete",
	"audit-undecided":         "the audit gate could not be decided",
	"audit-empty":             "the audit gate declares no required checks",
	"behavioural-incomplete":  "a behavioural module did not pass every scored check",
	"behavioural-error":       "the behavioural stage did not complete",
	"behavioural-missing":     "the behavioural stage produced no result",
	"behavioural-empty":       "the behavioural stage declared no modules",
	"behavioural-weights":     "the behavioural module weights are unusable",
	"verification-missing":    "the verification stage produced no result",
	"verification-error":      "the verification stage did not complete",
	"verification-incomplete": "some verification rounds did not complete",
}

// Reason returns the report's sentence for a blocked_by id, or the id
// itself when it has none.
func Reason(blockedBy string) string {
	if s, ok := blocked[blockedBy]; ok {
		return s
	}
	return blockedBy
}

// Render renders v as the text report a person reads first (HARNESS.md
// §4.5): a headline score (with "*** NOT A VALID RESULT ***" when the
// grader could not complete), one section per stage (PASS/FAIL/NOT RUN,
// points and rate with the module table, "RAN, NOT COUNTED" for a stage
// that ran above the rung where the ladder stopped, "NO RESULT" for one
// that left nothing), the arithmetic line, the notes, and a footer naming
// the fingerprints of the harnesses that graded the stages. title defaults
// to the task id. Lines are joined with "\n" and end with one; the text is
// byte-compatible with the earlier harness's report.render except for the
// footer's program name (see [Footer]).
func Render(v *result.Verdict, title string) string {
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	if title == "" {
		title = v.Task
	}
	add(rule, " SWERefactorBench  "+title, rule, "")

	headline := fmt.Sprintf("score  %.2f / %s", v.Score, fmtG(v.MaxScore))
	if !v.Valid() {
		add("  "+headline+"   *** NOT A VALID RESULT ***",
			"  the grader could not complete: "+v.HarnessError,
			"  this run says nothing about the submission and should be re-run.")
	} else {
		add("  " + headline)
	}
	add("")

	// -- stage 1
	gate := map[string]string{result.GatePass: "PASS", result.GateFail: "FAIL", result.GateNotRun: "NOT RUN"}[v.AuditGate]
	if gate == "" {
		gate = strings.ToUpper(v.AuditGate)
	}
	add("  stage 1  agentic audit gate .......... " + gate)
	if v.AuditGate == result.GateFail {
		add("           the migration is not honest; the score is 0 by policy.")
	}
	for i, f := range v.AuditFailures {
		if i == 12 {
			break
		}
		add(fmt.Sprintf("           [%s] %s: %s", str(f["verdict"]), str(f["id"]), str(f["summary"])))
		detail := ""
		if d, ok := f["detail"]; ok {
			detail = str(d)
		}
		for j, line := range splitLines(detail) {
			if j == 6 {
				break
			}
			add("                 " + line)
		}
		for j, ev := range list(f["evidence"]) {
			if j == 4 {
				break
			}
			add("                 evidence: " + evidenceLine(ev))
		}
	}
	if len(v.AuditFailures) > 12 {
		add(fmt.Sprintf("           ... and %d more", len(v.AuditFailures)-12))
	}

	// -- stage 2
	if contains(v.StagesRun, result.StageBehavioural) {
		add("")
		if truthy(v.Metadata["behavioural_measured_not_counted"]) {
			add(fmt.Sprintf("  stage 2  behavioural modules ............. RAN, NOT COUNTED  (would have been %.2f points, rate %.4f)",
				numOr(v.Metadata, "behavioural_measured_points"), numOr(v.Metadata, "behavioural_measured_rate")),
				"           stage 1 stopped the ladder; this ran and is shown so a zero can be attributed")
			if wb := v.Metadata["behavioural_would_have_blocked"]; truthy(wb) {
				add("           on its own it would also have stopped the ladder: " + str(wb))
			}
		} else {
			add(fmt.Sprintf("  stage 2  behavioural modules ............. %.2f points  (%.4f of weighted checks passed)",
				v.BehaviouralPoints, v.BehaviouralRate))
		}
		add("")
		add(moduleHeader())
		for _, m := range sortedModules(v.Modules) {
			add(moduleRow(m))
			if m.Note != "" {
				add("      -> " + m.Note)
			}
			for _, own := range m.Notes {
				add(wrap(own, 74, "      note: ", "            ")...)
			}
			for _, obs := range m.Observations {
				add("         . " + obs)
			}
		}
	} else {
		add("")
		seen := v.Uncredited()[result.StageBehavioural]
		summary := v.UnscoredStages[result.StageBehavioural]
		stageError := strings.TrimSpace(strOrEmpty(mapOf(v.Metadata[result.StageBehavioural])["error"]))
		rows, _ := seen["modules"].([]result.ModuleScore)
		measured := result.ReportedModules(rows) > 0 || truthy(seen["module_count"])
		_, hasRate := seen["rate"]
		switch {
		case len(seen) == 0:
			reason := stageError
			if reason == "" {
				reason = blockedOr(v.BlockedBy, "an earlier stage stopped the ladder")
			}
			label := "NOT RUN"
			if stageError != "" {
				label = "NO RESULT"
			}
			add(fmt.Sprintf("  stage 2  behavioural modules ............. %s (%s)", label, reason))
		case !hasRate:
			add("  stage 2  behavioural modules ............. RAN, NOT COUNTED (could not be summarised: "+strOrEmpty(seen["error"])+")",
				"           "+strOrEmpty(seen["note"]))
			if summary != "" {
				add("           the stage reported: " + summary)
			}
		case !measured:
			own := strOrEmpty(seen["harness_error"])
			if own == "" && truthy(seen["blocked_by"]) {
				own = Reason(str(seen["blocked_by"]))
			}
			reason := stageError
			if reason == "" {
				reason = own
			}
			if reason == "" {
				reason = blockedOr(v.BlockedBy, "an earlier stage stopped the ladder")
			}
			add("  stage 2  behavioural modules ............. NO RESULT (" + reason + ")")
			if summary != "" {
				add("           the stage reported: " + summary)
			}
			for _, line := range list(seen["notes"]) {
				add(wrap(str(line), 74, "           - ", "             ")...)
			}
		default:
			add(fmt.Sprintf("  stage 2  behavioural modules ............. RAN, NOT COUNTED  %.2f points uncredited  (rate %.4f measured, not credited)",
				numOr(seen, "points"), num(seen["rate"])),
				"           stage 1 failed, so by policy this earns nothing; the rate is shown because the stage ran -- it is reported, not counted.")
			if summary != "" {
				add("           the stage reported: " + summary)
			}
			if stopped := strOrEmpty(seen["blocked_by"]); stopped != "" && !strings.HasPrefix(stopped, "audit") {
				add("           stage 2 also stopped on its own account: " + Reason(stopped) + ".")
			}
			for _, line := range list(seen["notes"]) {
				add(wrap(str(line), 74, "           - ", "             ")...)
			}
			add("", moduleHeader())
			for _, m := range sortedModules(rows) {
				add(moduleRow(m))
				if m.Note != "" {
					add("      -> " + m.Note)
				}
				for _, own := range m.Notes {
					add(wrap(own, 74, "      note: ", "            ")...)
				}
			}
		}
	}

	// -- stage 3
	if contains(v.StagesRun, result.StageVerification) {
		add("", fmt.Sprintf("  stage 3  verification probe .............. %.2f points  (%d/%d models found no valid breaking test)",
			v.VerificationPoints, v.AdversariesSurvived, v.AdversariesTotal))
		for i, b := range v.VerificationBreaks {
			if i == 12 {
				break
			}
			add(fmt.Sprintf("           BROKEN BY %s: %s", str(b["adversary"]), str(b["summary"])))
			for j, line := range splitLines(strOrEmpty(b["detail"])) {
				if j == 8 {
					break
				}
				add("                 " + line)
			}
		}
	} else {
		add("")
		u := v.Unscored[result.StageVerification]
		var reason string
		switch {
		case v.BlockedBy != "":
			reason = Reason(v.BlockedBy)
		case v.HarnessError != "":
			reason = v.HarnessError
		default:
			reason = "no verification result was produced -- no stage-3 result was collected; no earlier stage blocked it"
		}
		if c, ok := u["counted"].(bool); ok && !c {
			add(fmt.Sprintf("  stage 3  verification probe .............. RAN, NOT COUNTED  %.2f points  (%s/%s models found no valid breaking test)",
				numOr(u, "points"), strOr(u, "models_survived", "0"), strOr(u, "models_total", "0")),
				"           not counted: "+reason+".",
				"           the figure above is reported, not counted.")
		} else if line := v.UnscoredStages[result.StageVerification]; line != "" {
			add("  stage 3  verification probe .............. RAN, NOT COUNTED ("+reason+")",
				"           "+line)
		} else {
			add("  stage 3  verification probe .............. NOT RUN (" + reason + ")")
		}
	}

	// -- arithmetic
	add("", thin)
	uncounted := v.Uncounted()
	switch {
	case v.AuditGate != result.GatePass:
		add(fmt.Sprintf("  score = 0.00  (stage 1 %s)", strings.ToLower(gate)))
		var ran []string
		for _, s := range []struct{ key, label string }{{result.StageBehavioural, "stage 2"}, {result.StageVerification, "stage 3"}} {
			if truthy(uncounted[s.key]["measured"]) {
				ran = append(ran, s.label)
			}
		}
		if len(ran) > 0 {
			add("  " + strings.Join(ran, " and ") + " ran: those measurements are excluded from that total by policy, not missing from it.")
		}
	case !contains(v.StagesRun, result.StageVerification):
		why := "not run"
		if _, ok := uncounted[result.StageVerification]; ok {
			why = "not counted"
		}
		add(fmt.Sprintf("  score = %.2f (stage 2) + 0.00 (stage 3 %s) = %.2f", v.BehaviouralPoints, why, v.Score))
	default:
		add(fmt.Sprintf("  score = %.2f (stage 2) + %.2f (stage 3) = %.2f", v.BehaviouralPoints, v.VerificationPoints, v.Score))
	}
	add(thin)

	if len(v.Notes) > 0 {
		add("", "notes")
		for _, n := range v.Notes {
			add("  - " + n)
		}
	}

	graders := map[string]bool{}
	for _, h := range v.Harnesses {
		if fp := h["fingerprint"]; truthy(fp) {
			graders[str(fp)] = true
		}
	}
	if len(graders) > 0 {
		fps := make([]string, 0, len(graders))
		for fp := range graders {
			fps = append(fps, fp)
		}
		sort.Strings(fps)
		line := "  " + Footer + " " + strings.Join(fps, ", ")
		if len(fps) > 1 {
			line += "   *** stages disagree on the harness ***"
		}
		add("", line)
	}
	add("")
	return strings.Join(out, "\n")
}

func blockedOr(id, fallback string) string {
	if id == "" {
		return fallback
	}
	return Reason(id)
}

func sortedModules(rows []result.ModuleScore) []result.ModuleScore {
	out := append([]result.ModuleScore(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// done is the module table's done cell: "-" for a weight-0 row, which
// reports without judging, else "ok" or "NO".
func done(weight float64, complete bool) string {
	switch {
	case weight <= 0:
		return "-"
	case complete:
		return "ok"
	}
	return "NO"
}

func moduleHeader() string {
	return fmt.Sprintf("    %-26s %7s %8s %8s %7s %6s %5s %5s", "module", "weight", "rate", "done", "pass", "fail", "err", "skip")
}

func moduleRow(m result.ModuleScore) string {
	return fmt.Sprintf("    %-26s %7.2f %8.4f %8s %7d %6d %5d %5d",
		cut(m.ID, 26), m.Weight, m.Rate, done(m.Weight, m.Complete), m.Passed, m.Failed, m.Errored, m.Skipped)
}

// evidenceLine is one cited piece of evidence: "path:line  quote" (quote
// at most 160 characters on one line), marked when the citation could not
// be grounded.
func evidenceLine(ev any) string {
	m, ok := ev.(map[string]any)
	if !ok {
		return cut(str(ev), 200)
	}
	path := firstTruthy(m["path"], m["file"])
	where := path
	if path != "" && truthy(m["line"]) {
		where = path + ":" + str(m["line"])
	}
	quote := strings.TrimSpace(firstTruthy(m["quote"], m["note"], m["excerpt"]))
	quote = cut(strings.ReplaceAll(quote, "\n", " "), 160)
	mark := ""
	if g, ok := m["grounded"].(bool); ok && !g {
		mark = "  [UNVERIFIED CITATION]"
	}
	return strings.TrimSpace(where + "  " + quote + mark)
}

func firstTruthy(vs ...any) string {
	for _, v := range vs {
		if truthy(v) {
			return str(v)
		}
	}
	return ""
}

// splitLines is Python's str.splitlines().
func splitLines(s string) []string {
	var lines []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			lines = append(lines, string(rs[start:i]))
			start = i + 1
		case '\r':
			lines = append(lines, string(rs[start:i]))
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(rs) {
		lines = append(lines, string(rs[start:]))
	}
	return lines
}

// --- loosely typed values from a verdict ------------------------------------

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case float64:
		return x != 0
	case int:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// str is Python's str() of a scalar.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return pyRepr(x)
	}
	return fmt.Sprint(v)
}

// strOrEmpty is str(v or "").
func strOrEmpty(v any) string {
	if !truthy(v) {
		return ""
	}
	return str(v)
}

// strOr is str(m.get(key, def)).
func strOr(m map[string]any, key, def string) string {
	if v, ok := m[key]; ok {
		return str(v)
	}
	return def
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// numOr is float(m.get(key, 0.0)).
func numOr(m map[string]any, key string) float64 { return num(m[key]) }

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out
	}
	return nil
}

// cut is Python's s[:n] on code points.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// fmtG is Python's format(x, "g").
func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// pyRepr is Python's repr(float).
func pyRepr(x float64) string {
	if x == float64(int64(x)) && x < 1e16 && x > -1e16 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
