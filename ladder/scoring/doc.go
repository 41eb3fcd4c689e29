// Package scoring grades a submission's three stage results into a
// [result.Verdict]: it is the one place the scoring policy (100/40/60/6/10)
// and the status rules of the ladder live (HARNESS.md §4.4).
//
// The ladder: stage 1 (the audit gate) passes or the score is 0; stage 2
// pays all of its points when every scored check of every weighted module
// passed, or nothing; stage 3 pays per adversary that found no valid
// breaking test, and only above a complete stage 2. A stage that could not
// run makes the verdict invalid (HarnessError, BlockedBy) rather than
// lowering the score, and a stage that ran above the rung where the ladder
// stopped is recorded, never counted.
//
// Every function here is pure: it reads stage results and returns a
// verdict, and writes nothing.
package scoring
