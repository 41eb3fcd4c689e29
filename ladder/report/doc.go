// Package report renders a [result.Verdict] as the text report a person
// opens first when a submission scored 0 and they want to know whether
// that was the submission's fault or the grader's (HARNESS.md §4.5).
//
// The text is the earlier harness's, phrase for phrase ("RAN, NOT
// COUNTED", "NOT RUN (the audit gate failed)", "score = 0.00  (stage 1
// fail)", the module table), so reports from either grader can be compared
// line by line; only the footer names srb instead of swerefactor.
package report
