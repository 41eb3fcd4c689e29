package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// httpDriver holds what both HTTP dialects share: where to post, the key,
// and the headers.
type httpDriver struct {
	c          *client
	base       string
	key        string
	headersEnv string // e.g. OPENAI_EXTRA_HEADERS
}

// headers merges base, then $<headersEnv> (a JSON object), then
// options.extra_headers: config wins over the environment, and both may
// override what the driver sets (a gateway that wants authorization where
// the vendor wants x-api-key).
func (h *httpDriver) headers(base map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(base))
	for k, v := range base {
		out[strings.ToLower(k)] = v
	}
	if blob := strings.TrimSpace(h.c.env(h.headersEnv)); blob != "" {
		var raw any
		if err := json.Unmarshal([]byte(blob), &raw); err != nil {
			return nil, h.c.errorf(false, "$%s is not JSON: %v", h.headersEnv, err)
		}
		m, err := headerMap(raw, "$"+h.headersEnv)
		if err != nil {
			return nil, h.c.errorf(false, "%v", err)
		}
		for k, v := range m {
			out[strings.ToLower(k)] = v
		}
	}
	for k, v := range h.c.common.headers {
		out[strings.ToLower(k)] = v
	}
	return out, nil
}

// maxErrorBody is how much of an error response is kept (HARNESS.md §4.0).
const maxErrorBody = 600

// response is an open HTTP response whose body is guarded by an idle
// timeout: every read that returns bytes re-arms it, and when it fires the
// request is cancelled and the read fails as a retryable timeout.
type response struct {
	body     io.ReadCloser
	dog      *time.Timer
	idle     time.Duration
	fired    *atomic.Bool
	cancel   context.CancelFunc
	c        *client
	url      string
	received int64
	// contentType is the response's Content-Type header.
	contentType string
}

// Read implements io.Reader.
func (r *response) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if n > 0 {
		r.received += int64(n)
		r.dog.Reset(r.idle)
	}
	if err != nil && err != io.EOF {
		return n, r.classify(err)
	}
	return n, err
}

// Close implements io.Closer.
func (r *response) Close() error {
	r.dog.Stop()
	r.cancel()
	return r.body.Close()
}

func (r *response) classify(err error) error {
	if r.fired.Load() {
		return r.c.errorf(true, "timed out after %s without a byte from %s (%d byte(s) received)", r.idle, r.url, r.received)
	}
	return &Error{Driver: r.c.name, Msg: fmt.Sprintf("connection to %s broke after %d byte(s): %v", r.url, r.received, err), Retryable: true, Err: err}
}

// post sends payload as JSON and returns the open body of a 2xx response.
// A non-2xx status is an *Error carrying the status and up to 600 bytes of
// the body, retryable as [Retryable] decides; a connection failure or a
// server silent for timeout_sec (the first byte included) is retryable.
func (h *httpDriver) post(ctx context.Context, url string, headers map[string]string, payload any) (*response, error) {
	c := h.c
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, c.errorf(false, "encode request: %v", err)
	}
	rctx, cancel := context.WithCancel(ctx)
	fired := new(atomic.Bool)
	idle := c.common.timeout
	dog := time.AfterFunc(idle, func() { fired.Store(true); cancel() })
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		dog.Stop()
		cancel()
		return nil, c.errorf(false, "bad endpoint %s: %v", url, err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("content-type", "application/json")
	resp, err := c.set.http.Do(req)
	if err != nil {
		dog.Stop()
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil, &Error{Driver: c.name, Msg: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		case fired.Load():
			return nil, c.errorf(true, "timed out after %s waiting for the first byte from %s", idle, url)
		}
		return nil, &Error{Driver: c.name, Msg: fmt.Sprintf("cannot reach %s: %v", url, unwrapURL(err)), Retryable: true, Unreachable: unreachable(err), Err: err}
	}
	r := &response{body: resp.Body, dog: dog, idle: idle, fired: fired, cancel: cancel, c: c, url: url,
		contentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode/100 != 2 {
		defer r.Close()
		detail, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
		text := string(bytes.ToValidUTF8(detail, []byte("\uFFFD")))
		e := &Error{Driver: c.name, Status: resp.StatusCode,
			Msg:       fmt.Sprintf("HTTP %d from %s: %s", resp.StatusCode, url, text),
			Retryable: Retryable(resp.StatusCode, text)}
		if d, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), c.set.now()); ok {
			e.RetryAfter = d
		}
		return nil, e
	}
	dog.Reset(idle)
	return r, nil
}

func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}
