// Package audit is stage 1 of the ladder: model reviews that read State A
// and the submission and answer the task's gates, each "pass" or "fail"
// (HARNESS.md §4.1).
//
// [Run] renders the task's prompt ([Render]), runs Samples independent
// reviews through the agent loop, re-opens every citation a "fail" carries
// ([agent.Toolbox.Ground]: path, line and quote within three lines,
// whitespace and case ignored), and votes per gate. A fail is the verdict
// that has to be earned: an ungrounded fail, a verdict word that is not
// pass or fail, and a tie all resolve to pass, each recorded on the check
// as the rule that fired. A gate no review answered is "error" (the run is
// invalid, never zero), and when no review completed at all the stage
// status is "error". The result is a [result.Stage] the scorer grades.
package audit
