package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/models"
)

// Loop outcomes (HARNESS.md §4.0). Only OutcomeSubmitted carries an
// answer; OutcomeError means the harness or the endpoint broke and nothing
// about the submission was learned.
const (
	OutcomeSubmitted = "submitted"
	OutcomeTurnLimit = "turn-limit" // only with an explicit MaxTurns
	OutcomeTimeLimit = "time-limit"
	OutcomeAbandoned = "abandoned"
	OutcomeError     = "error"
)

// Loop defaults (HARNESS.md §4.0): the wall-clock budget, how many times
// one turn may be re-sent after a retryable failure, the resume backoff
// (15 s doubling, at most 240 s, jittered ×0.5–1.5), the least budget
// worth resuming with, and how much of a tool result a transcript keeps.
const (
	DefaultBudgetSec     = 3600
	DefaultMaxResumes    = 6
	ResumeBaseDelaySec   = 15
	ResumeMaxDelaySec    = 240
	ResumeMinBudgetSec   = 30
	MaxLoggedResultChars = 4000
)

// Resumes returns a pointer to n, for [Config.MaxResumes].
func Resumes(n int) *int { return &n }

// Config is one run of the loop.
//
// Driver answers the turns; System and Opening are the system prompt and
// the one opening user message. Toolbox may be nil (no filesystem tools).
// Extra are stage tools dispatched by ExtraDispatch (the toolbox first).
// Submit is the tool that ends the run; OnSubmit may refuse a payload by
// returning a sentence, which goes back to the model as that call's
// result, as often as it takes. MaxTurns 0 means no turn cap. BudgetSec is
// wall-clock seconds (0 means [DefaultBudgetSec]). MaxResumes nil means
// [DefaultMaxResumes]; a negative value is clamped to 0 (HARNESS.md §7
// bug 56). Transcript is the JSONL path ("" for none). Now, Sleep and Rand
// default to the real clock, [models.Sleep] and math/rand. Log, when set,
// receives one line per resume as it happens ("<Label>: turn N failed
// (<error>); resuming in S s (resume R of M)") and one when the loop ends
// on a fault; Label names the run in them (e.g. "audit: review 2").
// Uncounted, when set, says how much of the run's wall-clock time so far
// the budget does not count: the grader's own work inside tool calls
// (verification's placing, clearing and restoring of a tree around each
// candidate run), which the party whose budget it is neither chose nor
// controls, and which a graded tree could otherwise make slow to use the
// budget up. nil counts all of it.
type Config struct {
	Driver        models.Driver
	System        string
	Opening       string
	Toolbox       *Toolbox
	Extra         []models.ToolSpec
	ExtraDispatch func(ctx context.Context, name string, args map[string]any) string
	Submit        models.ToolSpec
	OnSubmit      func(payload map[string]any) string
	MaxTurns      int
	BudgetSec     float64
	MaxResumes    *int
	Transcript    string
	Log           io.Writer
	Label         string
	Uncounted     func() time.Duration

	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
	Rand  func() float64
}

// Result is how one run ended (HARNESS.md §4.0 "Result"). Payload is the
// accepted submit arguments (nil unless submitted). ToolCalls counts calls
// to tools other than submit, ToolErrors those whose result began
// "ERROR". ElapsedSec is wall-clock seconds; Resumes the turns re-sent
// after retryable failures. Error is the fault, in one sentence, when
// Outcome is "error". LastText is the model's last prose.
type Result struct {
	Outcome      string
	Payload      map[string]any
	Turns        int
	ToolCalls    int
	ToolErrors   int
	ElapsedSec   float64
	UncountedSec float64
	Resumes      int
	Usage        models.Usage
	Transcript   string
	Error        string
	LastText     string
	// Unreachable says the run ended because the endpoint could not be
	// connected to at all, after the driver's bounded retries
	// (models.UnreachableSec): a stage may skip its other calls to it.
	Unreachable bool
}

// OK reports whether the model submitted an answer.
func (r *Result) OK() bool { return r.Outcome == OutcomeSubmitted && r.Payload != nil }

// HarnessFault reports whether the run ended on a fault, not on the
// model's own account.
func (r *Result) HarnessFault() bool { return r.Outcome == OutcomeError }

// Run drives cfg.Driver until it submits, the budget or turn cap runs out,
// it answers twice without calling a tool (once nudged), or a model
// failure cannot be resumed (HARNESS.md §4.0 "Loop"). It never returns
// nil; every way of ending is an Outcome. The transcript ends with an
// "end" record.
func Run(ctx context.Context, cfg Config) *Result {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	sleep := cfg.Sleep
	if sleep == nil {
		sleep = models.Sleep
	}
	rnd := cfg.Rand
	if rnd == nil {
		rnd = rand.Float64
	}
	budget := cfg.BudgetSec
	if budget <= 0 {
		budget = DefaultBudgetSec
	}
	maxResumes := DefaultMaxResumes
	if cfg.MaxResumes != nil {
		maxResumes = max(0, *cfg.MaxResumes)
	}
	var tools []models.ToolSpec
	if cfg.Toolbox != nil {
		tools = append(tools, cfg.Toolbox.Specs()...)
	}
	tools = append(tools, cfg.Extra...)
	tools = append(tools, cfg.Submit)
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}

	started := now()
	uncounted := func() float64 {
		if cfg.Uncounted == nil {
			return 0
		}
		return cfg.Uncounted().Seconds()
	}
	// elapsed is what the budget counts: the wall clock less what
	// Uncounted says is the grader's own.
	elapsed := func() float64 { return now().Sub(started).Seconds() - uncounted() }
	res := &Result{Outcome: OutcomeAbandoned, Transcript: cfg.Transcript}
	var log *Transcript
	if cfg.Transcript != "" {
		var err error
		if log, err = CreateTranscript(cfg.Transcript, now); err != nil {
			res.Outcome, res.Error = OutcomeError, err.Error()
			res.Usage = cfg.Driver.Usage()
			return res
		}
	}
	var maxTurns any
	if cfg.MaxTurns > 0 {
		maxTurns = cfg.MaxTurns
	}
	log.Write("start", Field{"model", cfg.Driver.Model()}, Field{"driver", cfg.Driver.Name()},
		Field{"max_turns", maxTurns}, Field{"budget_sec", budget}, Field{"max_resumes", maxResumes},
		Field{"tools", names})
	log.Write("system", Field{"text", cfg.System})
	log.Write("user", Field{"text", cfg.Opening})

	messages := []models.Message{{Role: "user", Content: []models.Block{models.TextBlock(cfg.Opening)}}}
	nudged := false
	defer func() {
		res.ElapsedSec, res.UncountedSec = now().Sub(started).Seconds(), uncounted()
		res.Usage = cfg.Driver.Usage()
		log.Write("end", Field{"outcome", res.Outcome}, Field{"resumes", res.Resumes},
			Field{"elapsed_sec", round(res.ElapsedSec, 1)}, Field{"usage", res.Usage.Map()})
		if err := log.Close(); err != nil && res.Error == "" && res.Outcome == OutcomeError {
			res.Error = err.Error()
		}
	}()

	for turnNo := 1; ; turnNo++ {
		if cfg.MaxTurns > 0 && turnNo > cfg.MaxTurns {
			res.Outcome = OutcomeTurnLimit
			log.Write("stop", Field{"reason", OutcomeTurnLimit}, Field{"turns", cfg.MaxTurns})
			return res
		}
		if e := elapsed(); e >= budget {
			res.Outcome = OutcomeTimeLimit
			log.Write("stop", Field{"reason", OutcomeTimeLimit}, Field{"elapsed_sec", round(e, 1)})
			return res
		}
		var turn *models.Turn
		for attempt := 0; ; attempt++ {
			// The request carries the budget as its deadline, so a
			// driver never sleeps, or waits on an endpoint, past it.
			left := budget - elapsed()
			tctx, cancel := context.WithTimeout(ctx, time.Duration(math.Max(0, left)*float64(time.Second)))
			t, err := cfg.Driver.Complete(tctx, models.Request{System: cfg.System, Messages: messages, Tools: tools})
			overran := tctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
			cancel()
			if err == nil {
				turn = t
				break
			}
			remaining := budget - elapsed()
			if overran {
				res.Outcome = OutcomeTimeLimit
				log.Write("stop", Field{"reason", OutcomeTimeLimit}, Field{"elapsed_sec", round(elapsed(), 1)}, Field{"message", err.Error()})
				progress(cfg, "turn %d ran out of the %.0f s budget waiting on the model (%s)", turnNo, budget, err)
				return res
			}
			retryable := models.IsRetryable(err)
			ra := models.RetryAfterOf(err).Seconds()
			waitTooLong := retryable && ra > math.Max(0, remaining-ResumeMinBudgetSec)
			if !retryable || attempt >= maxResumes || remaining <= ResumeMinBudgetSec || ctx.Err() != nil || waitTooLong {
				msg := err.Error()
				if waitTooLong && ctx.Err() == nil && attempt < maxResumes {
					msg = fmt.Sprintf("%s; the endpoint asks to wait %.1f s (Retry-After), more than the %.1f s the budget has left to resume in", msg, ra, math.Max(0, remaining-ResumeMinBudgetSec))
				}
				res.Outcome, res.Error = OutcomeError, msg
				var me *models.Error
				res.Unreachable = errors.As(err, &me) && me.Unreachable && !me.Retryable
				log.Write("error", Field{"message", msg}, Field{"retryable", retryable},
					Field{"turn", turnNo}, Field{"resumes", res.Resumes},
					Field{"resumes_left", maxResumes - attempt}, Field{"budget_left_sec", round(remaining, 1)})
				progress(cfg, "turn %d failed for good: %s", turnNo, msg)
				return res
			}
			delay := math.Min(ResumeMaxDelaySec, ResumeBaseDelaySec*math.Pow(2, float64(attempt))) * (0.5 + rnd())
			delay = math.Max(delay, ra)
			delay = math.Min(delay, math.Max(0, remaining-ResumeMinBudgetSec))
			res.Resumes++
			log.Write("resume", Field{"turn", turnNo}, Field{"attempt", attempt + 1}, Field{"of", maxResumes},
				Field{"message", err.Error()}, Field{"sleep_sec", round(delay, 1)}, Field{"budget_left_sec", round(remaining, 1)})
			progress(cfg, "turn %d failed (%s); resuming in %.1f s (resume %d of %d)", turnNo, cutLine(err.Error(), 300), delay, attempt+1, maxResumes)
			if serr := sleep(ctx, time.Duration(delay*float64(time.Second))); serr != nil {
				res.Outcome, res.Error = OutcomeError, "cancelled: "+serr.Error()
				log.Write("error", Field{"message", res.Error}, Field{"retryable", false}, Field{"turn", turnNo})
				return res
			}
		}

		res.Turns = turnNo
		if turn.Text != "" {
			res.LastText = turn.Text
		}
		calls := make([]map[string]any, len(turn.ToolCalls))
		for i, c := range turn.ToolCalls {
			args := c.Arguments
			if args == nil {
				args = map[string]any{}
			}
			calls[i] = map[string]any{"name": c.Name, "arguments": args}
		}
		log.Write("assistant", Field{"turn", turnNo}, Field{"text", turn.Text},
			Field{"stop_reason", turn.StopReason}, Field{"tool_calls", calls})
		messages = append(messages, models.Message{Role: "assistant", Content: turn.Blocks()})

		if len(turn.ToolCalls) == 0 {
			if nudged {
				res.Outcome = OutcomeAbandoned
				log.Write("stop", Field{"reason", OutcomeAbandoned})
				return res
			}
			nudged = true
			reminder := fmt.Sprintf("You have not called %s yet. Nothing you write outside that tool call is recorded as your answer. Continue investigating if you need to, then call %s.", cfg.Submit.Name, cfg.Submit.Name)
			messages = append(messages, models.Message{Role: "user", Content: []models.Block{models.TextBlock(reminder)}})
			log.Write("nudge", Field{"text", reminder})
			continue
		}

		var blocks []models.Block
		finished := false
		for _, call := range turn.ToolCalls {
			args := call.Arguments
			if args == nil {
				args = map[string]any{}
			}
			if call.Name == cfg.Submit.Name {
				complaint := ""
				if _, bad := args[models.UnparsedKey]; bad {
					complaint = "Your " + cfg.Submit.Name + " arguments were not valid JSON, so nothing was recorded. Send the call again with well-formed arguments."
				} else if cfg.OnSubmit != nil {
					complaint = cfg.OnSubmit(args)
				}
				if complaint != "" {
					log.Write("submit_rejected", Field{"reason", complaint}, Field{"payload", args})
					blocks = append(blocks, models.ToolResultBlock(call.ID, complaint))
					continue
				}
				res.Payload, res.Outcome, finished = args, OutcomeSubmitted, true
				log.Write("submit", Field{"payload", args})
				blocks = append(blocks, models.ToolResultBlock(call.ID, "recorded"))
				continue
			}
			res.ToolCalls++
			text := dispatch(ctx, cfg, call.Name, args)
			if strings.HasPrefix(text, "ERROR") {
				res.ToolErrors++
			}
			logged := text
			if r := []rune(text); len(r) > MaxLoggedResultChars {
				logged = string(r[:MaxLoggedResultChars]) + fmt.Sprintf("\n... [transcript kept %d of %d characters; the model received all of it]", MaxLoggedResultChars, len(r))
			}
			log.Write("tool", Field{"name", call.Name}, Field{"arguments", args}, Field{"result", logged},
				Field{"result_bytes", len([]rune(text))})
			blocks = append(blocks, models.ToolResultBlock(call.ID, text))
		}
		messages = append(messages, models.Message{Role: "user", Content: blocks})
		if finished {
			return res
		}
	}
}

func dispatch(ctx context.Context, cfg Config, name string, args map[string]any) (out string) {
	if _, bad := args[models.UnparsedKey]; bad {
		return "ERROR: your tool arguments were not valid JSON, so nothing ran. Send the call again with well-formed arguments."
	}
	if cfg.Toolbox != nil && cfg.Toolbox.Handles(name) {
		return cfg.Toolbox.Dispatch(ctx, name, args)
	}
	if cfg.ExtraDispatch != nil {
		for _, t := range cfg.Extra {
			if t.Name == name {
				defer func() {
					if p := recover(); p != nil {
						out = fmt.Sprintf("ERROR: internal: %v", p)
					}
				}()
				return cfg.ExtraDispatch(ctx, name, args)
			}
		}
	}
	return fmt.Sprintf("ERROR: no such tool %q", name)
}

// progress writes one line to cfg.Log, prefixed with cfg.Label.
func progress(cfg Config, format string, args ...any) {
	if cfg.Log == nil {
		return
	}
	line := fmt.Sprintf(format, args...)
	if cfg.Label != "" {
		line = cfg.Label + ": " + line
	}
	fmt.Fprintln(cfg.Log, line)
}

// cutLine is s on one line, at most n runes.
func cutLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// Map returns the run as stage metadata records it: outcome, turns,
// tool_calls, tool_errors, elapsed_sec (2 dp), resumes (even at 0), usage,
// and transcript, error and uncounted_sec (2 dp) when set.
func (r *Result) Map() map[string]any {
	m := map[string]any{
		"outcome":     r.Outcome,
		"turns":       r.Turns,
		"tool_calls":  r.ToolCalls,
		"tool_errors": r.ToolErrors,
		"elapsed_sec": round(r.ElapsedSec, 2),
		"resumes":     r.Resumes,
		"usage":       r.Usage.Map(),
	}
	if r.Transcript != "" {
		m["transcript"] = r.Transcript
	}
	if r.Error != "" {
		m["error"] = r.Error
	}
	if r.UncountedSec > 0 {
		m["uncounted_sec"] = round(r.UncountedSec, 2)
	}
	return m
}
