package models

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Error is a failed model call. Retryable separates "the endpoint was busy
// or the answer was cut off" (worth re-sending; the agent loop resumes on
// it) from "the request can never succeed" (a missing key, a malformed
// request, a context overflow). Status is the HTTP status, 0 when there was
// none. Neither kind is ever the submission's fault: a stage that ends on
// one reports status error, never a verdict. RetryAfter is how long the
// endpoint asked to be left alone (its Retry-After header, as
// delta-seconds or an HTTP-date; 0 when it sent none). Unreachable marks a
// failure to connect at all (refused, no such host, no route, connect
// timeout).
type Error struct {
	Driver      string
	Msg         string
	Retryable   bool
	Status      int
	RetryAfter  time.Duration
	Unreachable bool
	Err         error
}

// Error returns "<driver>: <message>", or the message alone for an error
// raised before a driver was chosen.
func (e *Error) Error() string {
	if e.Driver == "" {
		return e.Msg
	}
	return e.Driver + ": " + e.Msg
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is, or wraps, a retryable *[Error].
func IsRetryable(err error) bool {
	var me *Error
	return errors.As(err, &me) && me.Retryable
}

// RetryableStatus lists the HTTP statuses worth re-sending: timeouts,
// conflicts, rate limits, overload, the 5xx family, and Cloudflare's
// 520–524, which no vendor documents and which decided real runs
// (HARNESS.md §7 bug 50).
var RetryableStatus = []int{408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529}

// RetryableBody lists phrases that make a 400 retryable: a stochastic
// safety filter declining, not a malformed request (HARNESS.md §7 bug 52).
var RetryableBody = []string{"flagged for possible cybersecurity risk"}

// FatalBody lists phrases that make any failure permanent, whatever its
// status: a context overflow repeats on every attempt (HARNESS.md §7
// bug 51).
var FatalBody = []string{
	"exceeds the context window", // gateways' upstream_error
	"maximum context length",     // OpenAI
	"prompt is too long",         // Anthropic
}

// Retryable is the whole retry decision for an HTTP failure with status
// and response body: a fatal body phrase vetoes everything; otherwise a
// status in [RetryableStatus] retries; otherwise a 400 carrying a
// [RetryableBody] phrase retries.
func Retryable(status int, body string) bool {
	for _, p := range FatalBody {
		if strings.Contains(body, p) {
			return false
		}
	}
	if slices.Contains(RetryableStatus, status) {
		return true
	}
	if status == 400 {
		for _, p := range RetryableBody {
			if strings.Contains(body, p) {
				return true
			}
		}
	}
	return false
}

// RetryAfterOf returns the wait the endpoint asked for with err's
// Retry-After header ([Error].RetryAfter), or 0.
func RetryAfterOf(err error) time.Duration {
	var me *Error
	if errors.As(err, &me) {
		return me.RetryAfter
	}
	return 0
}

// MaxRetryAfter is the longest Retry-After srb waits for: an endpoint
// asking for more fails the call at once, as a harness fault.
const MaxRetryAfter = 10 * time.Minute

// ParseRetryAfter reads a Retry-After header value: delta-seconds (a
// non-negative whole or decimal number) or an HTTP-date, measured from
// now. ok is false for an empty or unreadable value; a date in the past is
// 0 with ok true.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || f != f || f > 1e9 {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// unreachable reports whether err is a failure to connect at all: a dial
// error (refused, no route, connect timeout) or a name that does not
// resolve.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
