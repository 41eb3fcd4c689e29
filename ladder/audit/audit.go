package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// DefaultSamples is how many reviews vote when Config.Samples is 0.
const DefaultSamples = 3

// Config is one run of stage 1.
//
// Task is the task id; Gates the questions; Prompt the template text
// ([Render]). Samples reviews run one after another (0 means
// [DefaultSamples]). Toolbox holds the roots "original" (State A) and
// "workspace" (the submission); it is shared by the reviews. NewDriver
// returns a fresh driver for review index (1-based); an error from it makes
// that review an error. LogDir, when set, receives review-<n>.jsonl
// transcripts, and stale ones are removed first. BudgetSec is each
// review's wall-clock budget (0: [agent.DefaultBudgetSec]); MaxResumes as
// in [agent.Config]. Findings fills {{findings}}. BeforeReview, when set,
// is called before review index starts: a stage whose run tool executes in
// a container gives each review a pristine container there, so reviews
// stay independent; its error makes that review an error. Now, Sleep and
// Rand are passed to the loop and stamp the result (real clock when nil).
// Log, when set, receives one line as each review starts and ends
// ("audit: review 2 of 3: started", "... ended after S s: submitted, 0
// resume(s)") and the loop's resume lines; the drivers'
// retry lines are the NewDriver's own (models.WithLog).
// Ground, when set, is the toolbox citations are re-checked against: it
// must hold the trees as submitted under the same root names and shown
// paths as Toolbox, because a review whose run tool works on copies
// (srb audit --host) could otherwise write the line it then cites; nil is
// Toolbox itself, right when the file tools read the submitted trees.
type Config struct {
	Task       string
	Gates      []Gate
	Prompt     string
	Samples    int
	Toolbox    *agent.Toolbox
	NewDriver  func(index int) (models.Driver, error)
	LogDir     string
	BudgetSec  float64
	MaxResumes *int
	Findings   string
	Ground     *agent.Toolbox
	Log        io.Writer
	// Out, when set, is where the stage's result goes: after every review
	// Run writes what is finished there (atomically; status error, every
	// gate undecided, metadata.in_progress), so a killed run keeps its
	// finished reviews. The caller writes the final result.
	Out string
	// Inputs are the digests the reviews' answers depend on (submission
	// tree, State A, prompt and gates, model positions, srb), recorded as
	// metadata.inputs. When Out holds an earlier result of this task
	// whose inputs are equal, its finished reviews are kept (re-grounded)
	// and only the rest run; otherwise every review runs and the earlier
	// transcripts are removed.
	Inputs map[string]string

	BeforeReview func(ctx context.Context, index int) error

	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	Rand  func() float64
}

// Sample is one complete review. Votes are keyed by gate id.
type Sample struct {
	Index      int
	Outcome    string
	Votes      map[string]Vote
	Summary    string
	Transcript string
	ElapsedSec float64
	Resumes    int
	Usage      *models.Usage
	Error      string

	unreachable bool // the endpoint could not be connected to (agent.Result.Unreachable)
}

// describe is how the review ended, for its end line.
func (s Sample) describe() string {
	if s.Outcome == agent.OutcomeError {
		return "error: " + s.Error
	}
	return fmt.Sprintf("%s, %d resume(s)", s.Outcome, s.Resumes)
}

// Usable reports whether the review submitted an answer.
func (s Sample) Usable() bool { return s.Outcome == agent.OutcomeSubmitted }

// Map returns the sample as metadata.samples[] records it (HARNESS.md
// §3.6): index, outcome, summary ≤ 1200, transcript, elapsed_sec (1 dp),
// resumes, usage, error, and votes {gate: {verdict, confidence, reasoning ≤
// 1500, downgraded, citations}}.
func (s Sample) Map() map[string]any {
	votes := map[string]any{}
	for g, v := range s.Votes {
		cites := make([]any, len(v.Citations))
		for i, c := range v.Citations {
			cites[i] = c.Map()
		}
		votes[g] = map[string]any{"verdict": v.Verdict, "confidence": v.Confidence,
			"reasoning": runeCut(v.Reasoning, 1500), "downgraded": v.Downgraded, "citations": cites}
	}
	usage := map[string]any{}
	if s.Usage != nil {
		usage = s.Usage.Map()
	}
	return map[string]any{
		"index":       s.Index,
		"outcome":     s.Outcome,
		"summary":     runeCut(s.Summary, 1200),
		"transcript":  s.Transcript,
		"elapsed_sec": float64(int64(s.ElapsedSec*10+0.5)) / 10,
		"resumes":     s.Resumes,
		"usage":       usage,
		"error":       s.Error,
		"votes":       votes,
	}
}

// Run runs the reviews and returns the stage result (HARNESS.md §4.1.5):
// one check per gate, id = gate id, weight 1, required as declared. The
// stage status is "error" only when no review completed. The error return
// is for a configuration srb cannot run at all (no gates, no toolbox, no
// driver factory); every failure of a review is recorded in the result.
func Run(ctx context.Context, cfg Config) (*result.Stage, error) {
	switch {
	case len(cfg.Gates) == 0:
		return nil, errors.New("audit: no gates to answer")
	case cfg.Toolbox == nil:
		return nil, errors.New("audit: no toolbox")
	case cfg.NewDriver == nil:
		return nil, errors.New("audit: no driver factory")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	samples := cfg.Samples
	if samples <= 0 {
		samples = DefaultSamples
	}
	start := now()
	st := result.NewStage(result.StageAudit, cfg.Task, start)
	grounder := cfg.Ground
	if grounder == nil {
		grounder = cfg.Toolbox
	}
	keep, keptNote := kept(cfg, samples, grounder)
	if keptNote != "" {
		st.Note(keptNote)
	}
	if cfg.LogDir != "" {
		if err := removeStaleExcept(cfg.LogDir, keep); err != nil {
			st.Note(fmt.Sprintf("stale transcripts could not all be removed: %v", err))
		}
	}
	opening := Render(cfg.Prompt, Values{
		Task:      cfg.Task,
		Original:  cfg.Toolbox.RootDir("original"),
		Workspace: cfg.Toolbox.RootDir("workspace"),
		Gates:     cfg.Gates,
		Roots:     cfg.Toolbox.Roots(),
		Commands:  cfg.Toolbox.AllowedCommands(),
		Findings:  cfg.Findings,
	})
	spec := SubmitSpec(cfg.Gates)
	var all []Sample
	unreachable := ""
	for i := 1; i <= samples; i++ {
		label := fmt.Sprintf("audit: review %d of %d", i, samples)
		if s, ok := keep[i]; ok {
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "%s: kept from the earlier run (%s)\n", label, s.describe())
			}
			all = append(all, s)
			continue
		}
		if ctx.Err() != nil {
			break // interrupted: what is finished is written; the rest is not run
		}
		if unreachable != "" {
			// The endpoint could not be connected to for the whole
			// bounded retry time: the other reviews would only wait
			// the same again.
			s := Sample{Index: i, Votes: map[string]Vote{}, Outcome: agent.OutcomeError, Error: "not run: " + unreachable}
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "%s: not run: %s\n", label, unreachable)
			}
			all = append(all, s)
			continue
		}
		end := agent.Announce(cfg.Log, label, now)
		s := runSample(ctx, cfg, i, label, opening, spec, now)
		end(s.describe())
		if s.unreachable {
			unreachable = fmt.Sprintf("review %d could not reach the model's endpoint (%s)", i, runeCut(s.Error, 300))
		}
		if ctx.Err() != nil && s.Outcome == agent.OutcomeError {
			break // cut off by the interrupt: not a finished review
		}
		all = append(all, s)
		if cfg.Out != "" && i < samples {
			if err := writeProgress(cfg, cfg.Task, start, all, samples, now); err != nil {
				st.Note(fmt.Sprintf("the unfinished result could not be written after review %d: %v", i, err))
			}
		}
	}
	if len(all) < samples {
		if cfg.Out != "" {
			if err := writeProgress(cfg, cfg.Task, start, all, samples, now); err != nil {
				return nil, fmt.Errorf("audit: interrupted, and the finished reviews could not be written: %w", err)
			}
		}
		return nil, fmt.Errorf("audit: interrupted after %d of %d reviews (%v); re-run srb audit on the same results folder to finish", len(all), samples, ctx.Err())
	}
	for _, g := range cfg.Gates {
		st.Add(Aggregate(g, all))
	}
	usable := 0
	for _, s := range all {
		if s.Usable() {
			usable++
		}
	}
	switch {
	case usable == 0:
		st.Status = result.StatusError
		st.Note("no review completed; the audit gate is undecided")
	case usable < len(all):
		st.Note(fmt.Sprintf("%d of %d reviews did not complete; the rest carried the vote", len(all)-usable, len(all)))
	}
	maps := make([]any, len(all))
	for i, s := range all {
		maps[i] = s.Map()
	}
	st.Metadata["samples"] = maps
	st.Metadata["samples_requested"] = samples
	if len(cfg.Inputs) > 0 {
		st.Metadata["inputs"] = inputsMap(cfg.Inputs)
	}
	st.Metadata["samples_usable"] = usable
	st.Metadata["tool_calls"] = cfg.Toolbox.Calls()
	st.Metadata["files_read"] = len(cfg.Toolbox.Reads())
	st.Metadata["gateway_rewritten_args"] = cfg.Toolbox.RewrittenArgs()
	if cfg.Findings != "" {
		st.Metadata["scan_digest"] = runeCut(cfg.Findings, 20000)
	}
	st.DurationSec = now().Sub(start).Seconds()
	return st, nil
}

func runSample(ctx context.Context, cfg Config, index int, label, opening string, spec models.ToolSpec, now func() time.Time) Sample {
	s := Sample{Index: index, Votes: map[string]Vote{}}
	transcript := ""
	if cfg.LogDir != "" {
		transcript = filepath.Join(cfg.LogDir, fmt.Sprintf("review-%d.jsonl", index))
	}
	if cfg.BeforeReview != nil {
		if err := cfg.BeforeReview(ctx, index); err != nil {
			s.Outcome, s.Error = agent.OutcomeError, err.Error()
			return s
		}
	}
	drv, err := cfg.NewDriver(index)
	if err != nil {
		s.Outcome, s.Error = agent.OutcomeError, err.Error()
		return s
	}
	loop := agent.Run(ctx, agent.Config{
		Driver:     drv,
		System:     System,
		Opening:    opening,
		Toolbox:    cfg.Toolbox,
		Submit:     spec,
		OnSubmit:   func(p map[string]any) string { return CheckSubmission(p, cfg.Gates) },
		BudgetSec:  cfg.BudgetSec,
		MaxResumes: cfg.MaxResumes,
		Transcript: transcript,
		Log:        cfg.Log,
		Label:      label,
		Now:        now,
		Sleep:      cfg.Sleep,
		Rand:       cfg.Rand,
	})
	u := loop.Usage
	s.Outcome, s.Transcript, s.ElapsedSec, s.Resumes, s.Usage, s.Error = loop.Outcome, loop.Transcript, loop.ElapsedSec, loop.Resumes, &u, loop.Error
	s.unreachable = loop.Unreachable
	if !loop.OK() {
		s.Summary = runeCut(loop.LastText, 1200)
		return s
	}
	s.Summary, _ = loop.Payload["summary"].(string)
	entries, _ := loop.Payload["gates"].([]any)
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		grounder := cfg.Ground
		if grounder == nil {
			grounder = cfg.Toolbox
		}
		if v, ok := ParseVote(m, cfg.Gates, grounder); ok {
			s.Votes[v.Gate] = v
		}
	}
	return s
}

// Aggregate decides gate g from the samples' votes (HARNESS.md §4.1.5):
// no vote → "error" (undecided); more fails than passes → "fail"; more
// passes → "pass"; a tie → "pass", recorded as tie_broken_to_pass.
// Confidence is recorded, never weighed.
func Aggregate(g Gate, samples []Sample) result.Check {
	var votes []Vote
	usable, unanswered := 0, 0
	for _, s := range samples {
		if !s.Usable() {
			continue
		}
		usable++
		if v, ok := s.Votes[g.ID]; ok {
			votes = append(votes, v)
		} else {
			unanswered++
		}
	}
	passes, fails := 0, 0
	for _, v := range votes {
		if v.Verdict == Fail {
			fails++
		} else {
			passes++
		}
	}
	c := result.Check{ID: g.ID, Verdict: result.VerdictError, Weight: 1, Required: g.Required,
		Metadata: map[string]any{
			"votes":          map[string]any{"pass": passes, "fail": fails},
			"samples_usable": usable,
			"samples_run":    len(samples),
		}}
	if g.Title != "" {
		c.Metadata["title"] = g.Title
	}
	if unanswered > 0 {
		c.Metadata["unanswered"] = unanswered
	}
	if len(votes) == 0 {
		c.Summary = fmt.Sprintf("undecided: %d review(s) ran, none returned a verdict on this gate", len(samples))
		c.Detail = runeCut(sampleErrors(samples), 1000)
		return c
	}
	var winners []Vote
	switch {
	case fails > passes:
		c.Verdict = result.VerdictFail
		winners = only(votes, Fail)
	case passes > fails:
		c.Verdict = result.VerdictPass
		winners = only(votes, Pass)
	default:
		c.Verdict = result.VerdictPass
		c.Metadata["tie_broken_to_pass"] = true
		c.Summary = fmt.Sprintf("reviews split %d pass / %d fail; no majority to fail on, so this gate passes", passes, fails)
		c.Detail = reasons(votes)
		c.Evidence = citations(votes)
		addDefaulted(&c, votes)
		return c
	}
	best := winners[0]
	for _, v := range winners[1:] {
		if v.grounded() > best.grounded() || (v.grounded() == best.grounded() && v.Confidence > best.Confidence) {
			best = v
		}
	}
	c.Summary = firstSentence(best.Reasoning, 240)
	if c.Summary == "" {
		c.Summary = map[string]string{result.VerdictPass: "passed", result.VerdictFail: "failed"}[c.Verdict]
	}
	c.Detail = reasons(votes)
	c.Evidence = citations(winners)
	addDefaulted(&c, votes)
	return c
}

func addDefaulted(c *result.Check, votes []Vote) {
	var d []any
	for _, v := range votes {
		if v.Downgraded != "" {
			d = append(d, v.Downgraded)
		}
	}
	if len(d) > 0 {
		c.Metadata["defaulted_to_pass"] = d
	}
}

func only(votes []Vote, verdict string) []Vote {
	var out []Vote
	for _, v := range votes {
		if v.Verdict == verdict {
			out = append(out, v)
		}
	}
	return out
}

func citations(votes []Vote) []map[string]any {
	var out []map[string]any
	seen := map[Citation]bool{}
	for _, v := range votes {
		for _, c := range v.Citations {
			if seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, c.Map())
		}
	}
	return out
}

// reasons is every distinct "[verdict] reasoning" of the votes, in the
// order first given, with "-> <downgrade>" under a defaulted one and
// "(N reviews)" after the verdict when N reviews gave the same reasoning,
// at most 4000 characters. Reviews that agree word for word are one
// reason, so a report prints each reason once (#16).
func reasons(votes []Vote) string {
	type reason struct{ verdict, body string }
	var order []reason
	count := map[reason]int{}
	for _, v := range votes {
		r := reason{v.Verdict, strings.TrimSpace(v.Reasoning)}
		if v.Downgraded != "" {
			r.body += "\n    -> " + v.Downgraded
		}
		if count[r] == 0 {
			order = append(order, r)
		}
		count[r]++
	}
	parts := make([]string, 0, len(order))
	for _, r := range order {
		tag := "[" + r.verdict + "]"
		if n := count[r]; n > 1 {
			tag += fmt.Sprintf(" (%d reviews)", n)
		}
		parts = append(parts, tag+" "+r.body)
	}
	return runeCut(strings.Join(parts, "\n\n"), 4000)
}

func sampleErrors(samples []Sample) string {
	var parts []string
	for _, s := range samples {
		if !s.Usable() {
			parts = append(parts, strings.TrimSpace(fmt.Sprintf("review %d: %s %s", s.Index, s.Outcome, s.Error)))
		}
	}
	return strings.Join(parts, "; ")
}

// firstSentence is the first sentence of text (cut at ". " or "; " within
// limit characters), white space collapsed, else its first limit
// characters with "..." when cut.
func firstSentence(text string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return ""
	}
	head := runeCut(text, limit)
	for _, stop := range []string{". ", "; "} {
		if i := strings.Index(head, stop); i >= 0 {
			return text[:i+1]
		}
	}
	if head != text {
		return head + "..."
	}
	return text
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
