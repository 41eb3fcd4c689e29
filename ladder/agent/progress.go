package agent

import (
	"fmt"
	"io"
	"time"
)

// Announce writes "<what>: started" to w at once and returns the function
// that writes "<what>: ended after S s: <how>" when the work is done: the
// start and end lines of a stage-1 review or a stage-3 round, each one
// line, written as it happens (a nil w writes nothing). now defaults to
// the real clock. A stage-3 round calls it as
//
//	end := agent.Announce(stderr, "verification: round "+id, now)
//	... run the round ...
//	end(outcome) // e.g. "survived", "broke through", "error: <why>"
func Announce(w io.Writer, what string, now func() time.Time) func(how string) {
	if now == nil {
		now = time.Now
	}
	start := now()
	if w != nil {
		fmt.Fprintf(w, "%s: started\n", what)
	}
	return func(how string) {
		if w == nil {
			return
		}
		fmt.Fprintf(w, "%s: ended after %.1f s: %s\n", what, now().Sub(start).Seconds(), cutLine(how, 400))
	}
}

// Describe is how a loop ended, in a few words for [Announce]:
// "submitted after 4 turn(s), 1 resume(s)", "time-limit after …", or
// "error: <the fault>".
func (r *Result) Describe() string {
	if r.Outcome == OutcomeError {
		return "error: " + r.Error
	}
	return fmt.Sprintf("%s after %d turn(s), %d resume(s)", r.Outcome, r.Turns, r.Resumes)
}
