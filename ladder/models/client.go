package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Driver is one model position's connection: it answers one turn at a
// time and counts what it spent. Complete retries retryable failures
// itself (HARNESS.md §4.0) and returns an *[Error] when it gives up.
// A Driver is safe for use by one goroutine at a time.
type Driver interface {
	// Name is the driver's name: anthropic, openai, command or scripted.
	Name() string
	// Model is the model's name as configured.
	Model() string
	// Complete sends req and returns the model's turn.
	Complete(ctx context.Context, req Request) (*Turn, error)
	// Usage is what the driver has spent so far.
	Usage() Usage
}

// Driver names.
const (
	DriverAnthropic = "anthropic"
	DriverOpenAI    = "openai"
	DriverCommand   = "command"
	DriverScripted  = "scripted"
)

// DriverNames returns the four driver names, sorted.
func DriverNames() []string {
	return []string{DriverAnthropic, DriverCommand, DriverOpenAI, DriverScripted}
}

// Efforts are the reasoning effort names both dialects take, passed on the
// wire untranslated (HARNESS.md §7 bug 53).
var Efforts = []string{"low", "medium", "high", "xhigh", "max"}

// Defaults of a driver (HARNESS.md §4.0): the output-token ceiling, the
// per-request timeout and the number of retries after the first attempt.
const (
	DefaultMaxTokens  = 128000
	DefaultTimeoutSec = 300
	DefaultRetries    = 4
)

// Config selects and configures one driver: a model position of a task
// (audit, adjudicator, adversary). Effort is one of [Efforts] or "".
// Options are the position's driver options; every driver takes
// max_tokens, temperature, timeout_sec, retries and extra_headers, and
// the rest is per driver (docs/LADDER.md "Drivers"). An option a
// driver does not take is an error naming the ones it does.
type Config struct {
	Driver  string
	Model   string
	Effort  string
	Options map[string]any
}

// Option adjusts how [New] builds a driver: the environment, the HTTP
// client, the clock. Tests use them so nothing waits or leaks.
type Option func(*settings)

type settings struct {
	lookup func(string) (string, bool)
	http   *http.Client
	sleep  func(context.Context, time.Duration) error
	rand   func() float64
	now    func() time.Time
	log    io.Writer
	label  string
}

// WithClock replaces the clock the driver reads Retry-After dates, the
// time left before its context's deadline and the unreachable bound with.
func WithClock(now func() time.Time) Option { return func(s *settings) { s.now = now } }

// WithLog makes the driver write one line to w, as it happens, for every
// retry: "<label>: <driver> <model>: attempt N of M failed (<error>);
// retrying in S s[ (Retry-After)]", and one when it gives up early on
// an unreachable endpoint or a wait its budget cannot hold. Each line is
// a single Write. label "" leaves the prefix out.
func WithLog(w io.Writer, label string) Option {
	return func(s *settings) { s.log, s.label = w, label }
}

// WithEnv makes the driver read environment variables through lookup
// (os.LookupEnv's shape) instead of the process environment.
func WithEnv(lookup func(string) (string, bool)) Option {
	return func(s *settings) { s.lookup = lookup }
}

// WithSleep replaces the backoff sleep; it must return ctx.Err() when ctx
// ends first.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(s *settings) { s.sleep = sleep }
}

// WithRand replaces the jitter source, a function returning a number in
// [0, 1).
func WithRand(r func() float64) Option { return func(s *settings) { s.rand = r } }

// Sleep waits d or until ctx ends, returning ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// turnTaker is one driver's single attempt.
type turnTaker interface {
	once(ctx context.Context, req Request) (*Turn, error)
}

// client is the retrying, accounting shell every driver shares.
type client struct {
	name, model string
	common      commonOptions
	impl        turnTaker
	set         settings

	mu    sync.Mutex
	usage Usage
}

type commonOptions struct {
	maxTokens   int
	temperature *float64
	timeout     time.Duration
	retries     int
	effort      string
	headers     map[string]string // from options.extra_headers
}

// New builds the driver cfg names. It fails, with a non-retryable *[Error],
// on an unknown driver, an unknown option, an unknown effort, a missing
// credential or an unreadable script: before any request is made.
func New(cfg Config, opts ...Option) (Driver, error) {
	s := settings{lookup: os.LookupEnv, sleep: Sleep, rand: rand.Float64, now: time.Now, http: &http.Client{Transport: http.DefaultTransport}}
	for _, o := range opts {
		o(&s)
	}
	known, ok := driverOptions[cfg.Driver]
	if !ok {
		return nil, &Error{Msg: fmt.Sprintf("unknown driver %q; known drivers are %s", cfg.Driver, strings.Join(DriverNames(), ", "))}
	}
	fail := func(format string, args ...any) (Driver, error) {
		return nil, &Error{Driver: cfg.Driver, Msg: fmt.Sprintf(format, args...)}
	}
	allowed := append(append([]string(nil), commonOptionNames...), known...)
	var unknown []string
	for k := range cfg.Options {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		sort.Strings(allowed)
		return fail("unknown option(s) %s; this driver takes %s", strings.Join(unknown, ", "), strings.Join(allowed, ", "))
	}
	c := &client{name: cfg.Driver, model: cfg.Model, set: s}
	c.common = commonOptions{maxTokens: DefaultMaxTokens, timeout: DefaultTimeoutSec * time.Second, retries: DefaultRetries}
	o := cfg.Options
	if v, ok := o["max_tokens"]; ok {
		n, ok := asInt(v)
		if !ok || n < 1 {
			return fail("options.max_tokens must be a positive whole number, not %v", v)
		}
		c.common.maxTokens = n
	}
	if v, ok := o["temperature"]; ok {
		f, ok := asFloat(v)
		if !ok {
			return fail("options.temperature must be a number, not %v", v)
		}
		c.common.temperature = &f
	}
	if v, ok := o["timeout_sec"]; ok {
		f, ok := asFloat(v)
		if !ok || f <= 0 {
			return fail("options.timeout_sec must be a positive number of seconds, not %v", v)
		}
		c.common.timeout = time.Duration(f * float64(time.Second))
	}
	if v, ok := o["retries"]; ok {
		n, ok := asInt(v)
		if !ok {
			return fail("options.retries must be a whole number, not %v", v)
		}
		c.common.retries = max(0, n)
	}
	if cfg.Effort != "" {
		e := strings.ToLower(strings.TrimSpace(cfg.Effort))
		if !slices.Contains(Efforts, e) {
			return fail("unknown reasoning effort %q; known efforts are %s", cfg.Effort, strings.Join(Efforts, ", "))
		}
		c.common.effort = e
	}
	if v, ok := o["extra_headers"]; ok {
		h, err := headerMap(v, "options.extra_headers")
		if err != nil {
			return fail("%v", err)
		}
		c.common.headers = h
	}
	c.usage = Usage{Driver: cfg.Driver, Model: cfg.Model, ReasoningEffort: c.common.effort}
	var err error
	switch cfg.Driver {
	case DriverOpenAI:
		c.impl, err = newOpenAI(c, o)
	case DriverAnthropic:
		c.impl, err = newAnthropic(c, o)
	case DriverCommand:
		c.impl, err = newCommand(c, o)
	case DriverScripted:
		c.impl, err = newScripted(c, o)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

var commonOptionNames = []string{"max_tokens", "temperature", "timeout_sec", "retries", "extra_headers"}

var driverOptions = map[string][]string{
	DriverOpenAI:    {"base_url", "api_key_env", "top_p", "stop", "seed", "stream"},
	DriverAnthropic: {"base_url", "api_key_env", "thinking", "output_config", "top_p", "stop_sequences", "top_k"},
	DriverCommand:   {"command"},
	DriverScripted:  {"script", "turns"},
}

// Name returns the driver's name.
func (c *client) Name() string { return c.name }

// Model returns the model name the driver calls.
func (c *client) Model() string { return c.model }

// Usage returns what the driver has spent so far.
func (c *client) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usage
}

// UnreachableSec bounds how long a driver keeps retrying an endpoint it
// cannot connect to at all ([Error].Unreachable): once this many seconds
// have passed since the first such failure of a call, or the next backoff
// would pass them, the call fails for good (not retryable, so the agent
// loop does not resume it either). With the transport's 30 s connect
// timeout a call on an unreachable endpoint ends within about 90 s.
const UnreachableSec = 60

// Complete makes up to retries+1 attempts. Between attempts it sleeps
// min(60, 2^attempt) s × (0.5 + rand), jittered so adversaries sharing an
// endpoint do not retry in step (HARNESS.md §4.0), or exactly what the
// endpoint's Retry-After asked for. A wait that would end past ctx's
// deadline (the stage's budget), or a Retry-After over [MaxRetryAfter],
// fails the call at once with a non-retryable *[Error] instead of
// sleeping; so does an unreachable endpoint after [UnreachableSec]. Every
// retry is one line on the [WithLog] writer.
func (c *client) Complete(ctx context.Context, req Request) (*Turn, error) {
	var firstUnreachable time.Time
	for attempt := 0; ; attempt++ {
		turn, err := c.impl.once(ctx, req)
		if err == nil {
			c.mu.Lock()
			c.usage.Calls++
			c.usage.InputTokens += turn.InputTokens
			c.usage.OutputTokens += turn.OutputTokens
			c.usage.Credits += turn.Credits
			c.mu.Unlock()
			return turn, nil
		}
		if ctx.Err() != nil {
			return nil, &Error{Driver: c.name, Msg: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		}
		if !IsRetryable(err) {
			return nil, err
		}
		var me *Error
		errors.As(err, &me)
		now := c.set.now()
		if me != nil && me.Unreachable && firstUnreachable.IsZero() {
			firstUnreachable = now
		}
		if attempt >= c.common.retries {
			if me != nil && me.Unreachable {
				return nil, c.giveUp(me, fmt.Sprintf("unreachable after %d attempt(s) in %.0f s", attempt+1, now.Sub(firstUnreachable).Seconds()))
			}
			return nil, err
		}
		delay := time.Duration(math.Min(60, math.Pow(2, float64(attempt))) * (0.5 + c.set.rand()) * float64(time.Second))
		why := ""
		if ra := RetryAfterOf(err); ra > 0 {
			delay, why = ra, " (Retry-After)"
			if ra > MaxRetryAfter {
				return nil, c.giveUp(me, fmt.Sprintf("the endpoint asks to wait %s (Retry-After), more than the %s srb waits", secs(ra), secs(MaxRetryAfter)))
			}
		}
		if dl, ok := ctx.Deadline(); ok && now.Add(delay).After(dl) {
			return nil, c.giveUp(me, fmt.Sprintf("retrying means waiting %s%s, but the stage's budget has %s left", secs(delay), why, secs(max(0, dl.Sub(now)))))
		}
		if me != nil && me.Unreachable && now.Add(delay).Sub(firstUnreachable) > UnreachableSec*time.Second {
			return nil, c.giveUp(me, fmt.Sprintf("unreachable after %d attempt(s) in %.0f s; srb stops retrying an endpoint it cannot connect to after %d s", attempt+1, now.Sub(firstUnreachable).Seconds(), UnreachableSec))
		}
		c.logf("attempt %d of %d failed (%s); retrying in %s%s", attempt+1, c.common.retries+1, cut(err.Error(), 300), secs(delay), why)
		if serr := c.set.sleep(ctx, delay); serr != nil {
			return nil, &Error{Driver: c.name, Msg: "cancelled while backing off: " + serr.Error(), Err: serr}
		}
	}
}

// giveUp turns last, a retryable failure, into the permanent one the call
// ends on, saying why it was not retried, and logs it.
func (c *client) giveUp(last *Error, why string) *Error {
	e := &Error{Driver: c.name, Msg: why}
	if last != nil {
		e.Msg = fmt.Sprintf("%s; giving up: %s", last.Msg, why)
		e.Status, e.RetryAfter, e.Unreachable, e.Err = last.Status, last.RetryAfter, last.Unreachable, last
	}
	c.logf("giving up: %s", why)
	return e
}

// logf writes one line to the WithLog writer, if any.
func (c *client) logf(format string, args ...any) {
	if c.set.log == nil {
		return
	}
	prefix := c.name + " " + c.model + ": "
	if c.set.label != "" {
		prefix = c.set.label + ": " + prefix
	}
	fmt.Fprintln(c.set.log, prefix+strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
}

// secs renders d as seconds with one decimal: "20.0 s".
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func (c *client) errorf(retryable bool, format string, args ...any) *Error {
	return &Error{Driver: c.name, Msg: fmt.Sprintf(format, args...), Retryable: retryable}
}

func (c *client) env(name string) string {
	v, _ := c.set.lookup(name)
	return v
}

// asInt reads a whole number from a decoded option value.
func asInt(v any) (int, bool) {
	f, ok := asFloat(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case interface{ Float64() (float64, error) }:
		f, err := x.Float64()
		return f, err == nil
	case string:
		return 0, false
	}
	return 0, false
}

// headerMap reads an object of header names to string values.
func headerMap(v any, source string) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an object of header names to string values, not %T", source, v)
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		switch s := x.(type) {
		case string:
			out[k] = s
		case float64, int, int64, bool:
			out[k] = fmt.Sprint(s)
		default:
			return nil, fmt.Errorf("%s: header %s must be a string, not %T", source, k, x)
		}
	}
	return out, nil
}
