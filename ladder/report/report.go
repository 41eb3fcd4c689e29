package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

const (
	rule = "=================================================================" +
		"============="
	thin = "-----------------------------------------------------------------" +
		"-------------"
)

// Footer is how the report's last line names the grader: "graded by srb
// <fingerprint>[, <fingerprint>…]", one per distinct [result.Grader] of the
// verdict's harnesses (a stage written by srb's in-image helper is named by
// the srb that orchestrated it), with "*** stages disagree on the harness
// ***" after it when there is more than one. The earlier harness printed
// "graded by swerefactor …" (HARNESS.md §4.5).
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
// the srb builds that graded the stages (see [Footer]). title defaults
// to the task id. Lines are joined with "\n" and end with one; the text is
// byte-compatible with the earlier harness's report.render except for the
// footer's program name (see [Footer]).
func Render(v *result.Verdict, title string) string {
	var out []string
	add := func(s ...string) {
		for _, line := range s {
			out = append(out, oneLine(line))
		}
	}
	if title == "" {
		title = v.Task
	}
	add(rule, " SWERefactorBench  "+title, rule, "")

	if !v.Valid() {
		add(Headline(v),
			"  the grader could not complete: "+v.HarnessError,
			"  this run says nothing about the submission and should be re-run.")
	} else {
		add(Headline(v))
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
		add(fmt.Sprintf("           [%s] %s: %s", py.Str(f["verdict"]), py.Str(f["id"]), py.Str(f["summary"])))
		detail := ""
		if d, ok := f["detail"]; ok {
			detail = py.Str(d)
		}
		for j, line := range splitLines(detail) {
			if j == 6 {
				break
			}
			add("                 " + line)
		}
		for j, ev := range py.AsList(f["evidence"]) {
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
	if slices.Contains(v.StagesRun, result.StageBehavioural) {
		add("")
		if py.Truthy(v.Metadata["behavioural_measured_not_counted"]) {
			add(fmt.Sprintf("  stage 2  behavioural modules ............. RAN, NOT COUNTED  (would have been %.2f points, rate %.4f)",
				numOr(v.Metadata, "behavioural_measured_points"), numOr(v.Metadata, "behavioural_measured_rate")),
				"           stage 1 stopped the ladder; this ran and is shown so a zero can be attributed")
			if wb := v.Metadata["behavioural_would_have_blocked"]; py.Truthy(wb) {
				add("           on its own it would also have stopped the ladder: " + py.Str(wb))
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
		stageError := strings.TrimSpace(strOrEmpty(py.AsMap(v.Metadata[result.StageBehavioural])["error"]))
		rows, _ := seen["modules"].([]result.ModuleScore)
		measured := result.ReportedModules(rows) > 0 || py.Truthy(seen["module_count"])
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
			if own == "" && py.Truthy(seen["blocked_by"]) {
				own = Reason(py.Str(seen["blocked_by"]))
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
			for _, line := range py.AsList(seen["notes"]) {
				add(wrap(py.Str(line), 74, "           - ", "             ")...)
			}
		default:
			add(fmt.Sprintf("  stage 2  behavioural modules ............. RAN, NOT COUNTED  %.2f points uncredited  (rate %.4f measured, not credited)",
				numOr(seen, "points"), py.Num(seen["rate"])),
				"           stage 1 failed, so by policy this earns nothing; the rate is shown because the stage ran -- it is reported, not counted.")
			if summary != "" {
				add("           the stage reported: " + summary)
			}
			if stopped := strOrEmpty(seen["blocked_by"]); stopped != "" && !strings.HasPrefix(stopped, "audit") {
				add("           stage 2 also stopped on its own account: " + Reason(stopped) + ".")
			}
			for _, line := range py.AsList(seen["notes"]) {
				add(wrap(py.Str(line), 74, "           - ", "             ")...)
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
	if slices.Contains(v.StagesRun, result.StageVerification) {
		add("", fmt.Sprintf("  stage 3  verification probe .............. %.2f points  (%d/%d models found no valid breaking test)",
			v.VerificationPoints, v.AdversariesSurvived, v.AdversariesTotal))
		for i, b := range v.VerificationBreaks {
			if i == 12 {
				break
			}
			add(fmt.Sprintf("           BROKEN BY %s: %s", py.Str(b["adversary"]), py.Str(b["summary"])))
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
			if py.Truthy(uncounted[s.key]["measured"]) {
				ran = append(ran, s.label)
			}
		}
		if len(ran) > 0 {
			add("  " + strings.Join(ran, " and ") + " ran: those measurements are excluded from that total by policy, not missing from it.")
		}
	case !slices.Contains(v.StagesRun, result.StageVerification):
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
		if g := result.Grader(h); g != "" {
			graders[g] = true
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

// oneLine returns line with every rune that is not printable
// ([unicode.IsPrint]: newlines, CRs, tabs, escape sequences, line
// separators, bidi overrides, invalid UTF-8) written as a Go escape, so a
// line of the report stays one line whatever the text it quotes (module
// notes and observations carry what the submission's programs printed).
func oneLine(line string) string {
	plain := true
	for _, r := range line {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			plain = false
			break
		}
	}
	if plain {
		return line
	}
	var b strings.Builder
	for i, r := range line {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(line[i:]); size == 1 {
				fmt.Fprintf(&b, `\x%02x`, line[i])
				continue
			}
			b.WriteRune(r)
		case !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Headline is the report's score line for v: "  score  S.SS / M", with
// "   *** NOT A VALID RESULT ***" after it when the verdict is not valid.
func Headline(v *result.Verdict) string {
	line := fmt.Sprintf("  score  %.2f / %s", v.Score, py.FormatG(v.MaxScore))
	if !v.Valid() {
		line += "   *** NOT A VALID RESULT ***"
	}
	return line
}

// CheckSummary reports whether text, a summary.txt, shows the headline of
// v (see [Headline]): its first line that starts with "  score  " must be
// exactly that line. The error names the line (1-based) and both
// headlines.
func CheckSummary(v *result.Verdict, text string) error {
	want := Headline(v)
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  score  ") {
			if strings.TrimRight(line, " \r") != want {
				return fmt.Errorf("line %d: the headline is %q but score.json gives %q", i+1, strings.TrimSpace(line), strings.TrimSpace(want))
			}
			return nil
		}
	}
	return fmt.Errorf("no headline: no line starts with \"  score  \"; score.json gives %q", strings.TrimSpace(want))
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
		py.Head(m.ID, 26), m.Weight, m.Rate, done(m.Weight, m.Complete), m.Passed, m.Failed, m.Errored, m.Skipped)
}

// evidenceLine is one cited piece of evidence: "path:line  quote" (quote
// at most 160 characters on one line), marked when the citation could not
// be grounded.
func evidenceLine(ev any) string {
	m, ok := ev.(map[string]any)
	if !ok {
		return py.Head(py.Str(ev), 200)
	}
	path := firstTruthy(m["path"], m["file"])
	where := path
	if path != "" && py.Truthy(m["line"]) {
		where = path + ":" + py.Str(m["line"])
	}
	quote := strings.TrimSpace(firstTruthy(m["quote"], m["note"], m["excerpt"]))
	quote = py.Head(strings.ReplaceAll(quote, "\n", " "), 160)
	mark := ""
	if g, ok := m["grounded"].(bool); ok && !g {
		mark = "  [UNVERIFIED CITATION]"
	}
	return strings.TrimSpace(where + "  " + quote + mark)
}

func firstTruthy(vs ...any) string {
	for _, v := range vs {
		if py.Truthy(v) {
			return py.Str(v)
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

// strOrEmpty is str(v or "").
func strOrEmpty(v any) string {
	if !py.Truthy(v) {
		return ""
	}
	return py.Str(v)
}

// strOr is str(m.get(key, def)).
func strOr(m map[string]any, key, def string) string {
	if v, ok := m[key]; ok {
		return py.Str(v)
	}
	return def
}

// numOr is float(m.get(key, 0.0)).
func numOr(m map[string]any, key string) float64 { return py.Num(m[key]) }
