package verification

import (
	"fmt"
	"strings"
)

// Candidate is one test an adversary wrote with try_test (HARNESS.md §4.3
// "Round tools"). Filename is a bare file name; Runs are every execution
// of it, in order, against either tree (the try_test pair and the
// adjudicator's reruns alike).
type Candidate struct {
	Name      string
	Filename  string
	Code      string
	Rationale string
	Contract  string
	Runs      []CandidateRun
}

// Candidate verdicts: what the latest pair of runs says about a candidate.
const (
	// CandidateDiscriminates: passes on State A, fails on the submission;
	// also a fault code on the submission's side beside a passing State A
	// run, which is the submission's failure
	// ([CandidateRun.untestableAgainst]).
	CandidateDiscriminates = "discriminates"
	// CandidateInvalid: State A's tree could not be tested (a fault
	// code); it counts neither way (HARNESS.md §7 bug 87, which this
	// keeps for State A's side only).
	CandidateInvalid = "invalid"
	// CandidateUndecided: a tree's run of the pair timed out
	// (candidate_timeout_sec) or srb could not carry it out; the pair
	// counts neither way (a hang is a break only when the candidate bounds
	// it itself; in the adjudicator's reruns a timeout counts against its
	// side, [reproduce]).
	CandidateUndecided = "undecided"
	// CandidateBrokenTest: does not pass on State A.
	CandidateBrokenTest = "broken-test"
	// CandidateNoDifference: passes on both trees.
	CandidateNoDifference = "no-difference"
	// CandidateUntested: never ran on both trees.
	CandidateUntested = "untested"
)

// latest returns the last run of the round against each tree (nil when
// none): the adjudicator's reruns ([CandidateRun.Seq] > 0) are left out,
// so after an adjudication it is the claimed pair, what the adjudicator,
// the break's evidence and the candidate's verdict describe (a program
// that hangs once found must not show them a hang in place of the
// failure that was claimed).
func (c *Candidate) latest() (orig, sub *CandidateRun) {
	for i := len(c.Runs) - 1; i >= 0; i-- {
		r := &c.Runs[i]
		switch {
		case r.Seq > 0:
		case r.Target == RoleOriginal && orig == nil:
			orig = r
		case r.Target == RoleSubmission && sub == nil:
			sub = r
		}
	}
	return orig, sub
}

// Verdict classifies the candidate by its latest pair of runs: untested
// without both; discriminates when State A's run passed and the
// submission's could not test its tree ([CandidateRun.untestableAgainst]);
// invalid when either tree faulted; undecided when either timed out or
// could not be carried out; then broken-test, then no-difference, else
// discriminates.
func (c *Candidate) Verdict() string {
	orig, sub := c.latest()
	return pairVerdict(orig, sub)
}

func pairVerdict(orig, sub *CandidateRun) string {
	switch {
	case orig == nil || sub == nil:
		return CandidateUntested
	case sub.untestableAgainst(*orig):
		return CandidateDiscriminates
	case orig.Fault || sub.Fault:
		return CandidateInvalid
	case !orig.decided() || !sub.decided():
		return CandidateUndecided
	case !orig.Passed:
		return CandidateBrokenTest
	case sub.Passed:
		return CandidateNoDifference
	}
	return CandidateDiscriminates
}

// Map returns the candidate as verification.json records it: name,
// filename, verdict, rationale ≤ 2000, contract ≤ 1000, code ≤ 20000 when
// withCode, and every run.
func (c *Candidate) Map(withCode bool) map[string]any {
	runs := make([]any, len(c.Runs))
	for i, r := range c.Runs {
		runs[i] = r.Map()
	}
	m := map[string]any{
		"name":      c.Name,
		"filename":  c.Filename,
		"verdict":   c.Verdict(),
		"rationale": runeCut(c.Rationale, 2000),
		"contract":  runeCut(c.Contract, 1000),
		"runs":      runs,
	}
	if withCode {
		m["code"] = runeCut(c.Code, 20000)
	}
	return m
}

// pairReport is try_test's answer for one pair of runs (HARNESS.md §4.3
// try_test): PASS/FAIL per tree with exit status and duration, then the
// advice — a fault first, naming the tree, since it counts neither way —
// then the tails of both outputs.
func pairReport(c *Candidate, orig, sub CandidateRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "candidate %s (%s)\n", c.Name, c.Filename)
	for _, r := range []CandidateRun{orig, sub} {
		word := "FAIL"
		if r.Passed {
			word = "PASS"
		}
		extra := ""
		if r.TimedOut {
			extra = ", timed out"
		}
		fmt.Fprintf(&b, "  %-10s %s  (exit %d%s, %.1fs)\n", r.Target, word, r.ExitCode, extra, r.DurationSec)
	}
	switch pairVerdict(&orig, &sub) {
	case CandidateInvalid:
		var sides []string
		for _, r := range []CandidateRun{orig, sub} {
			if r.Fault {
				sides = append(sides, fmt.Sprintf("the %s tree (exit %d)", r.Target, r.ExitCode))
			}
		}
		fmt.Fprintf(&b, "\nInfrastructure fault: %s could not be tested, so this run cannot count either way. "+
			"A tree that does not build is the behavioural stage's business, not a break; "+
			"look at the output below, and change the candidate only if it caused the fault.\n", strings.Join(sides, " and "))
	case CandidateUndecided:
		var sides []string
		for _, r := range []CandidateRun{orig, sub} {
			switch {
			case r.Harness != "":
				sides = append(sides, fmt.Sprintf("the %s tree's run could not be carried out (%s)", r.Target, r.Harness))
			case r.TimedOut:
				sides = append(sides, fmt.Sprintf("the %s tree's run was stopped at the time limit", r.Target))
			}
		}
		fmt.Fprintf(&b, "\nUndecided: %s, so this run cannot count either way. "+
			"To test for a hang, bound the program yourself (for example with timeout) so that the candidate fails on its own.\n", strings.Join(sides, " and "))
	case CandidateDiscriminates:
		if sub.Fault {
			b.WriteString("\nThis discriminates: the original passed and the submission's tree could not be tested (a fault code: it did not build or start here, though the behavioural stage built it), which counts as the submission's failure. " +
				"Check that the candidate itself does not cause it and asserts on promised behaviour within the scope, then report it.\n")
			break
		}
		b.WriteString("\nThis discriminates. Check that it asserts on promised behaviour within the scope, then report it.\n")
	case CandidateBrokenTest:
		b.WriteString("\nIt does not pass on the original, so it cannot count. Most often the test itself is wrong.\n")
	default:
		b.WriteString("\nBoth pass; nothing found here.\n")
	}
	for _, r := range []CandidateRun{orig, sub} {
		out := strings.TrimSpace(r.Stdout + "\n" + r.Stderr)
		if out == "" {
			continue
		}
		fmt.Fprintf(&b, "\n--- %s output (last %d characters) ---\n%s\n", r.Target, 1200, lastRunes(out, 1200))
	}
	return strings.TrimRight(b.String(), "\n")
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

func runeCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
