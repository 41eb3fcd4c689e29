// Package httpmock is a registry of stubbed HTTP responses served on
// 127.0.0.1, for tests that talk to fake model endpoints: the drivers'
// and the stages' (cli/cli's pkg/httpmock, served over a real socket so
// the drivers' own transport, streaming and timeouts are exercised). Each stub answers one request, in
// registration order per route; Verify fails the test when a stub was
// never used, and a request no stub matches fails it at once.
package httpmock

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Responder writes one response.
type Responder func(w http.ResponseWriter, r *http.Request)

// Recorded is one request the server received.
type Recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

type stub struct {
	method, path string
	respond      Responder
	used         bool
}

// Registry holds the stubs and the requests received.
type Registry struct {
	t        testing.TB
	mu       sync.Mutex
	stubs    []*stub
	requests []Recorded
	server   *httptest.Server
}

// New starts a server on 127.0.0.1 answering from a new registry; it is
// closed when the test ends.
func New(t testing.TB) *Registry {
	r := &Registry{t: t}
	r.server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.server.Close)
	return r
}

// URL is the server's base URL, e.g. http://127.0.0.1:40123.
func (r *Registry) URL() string { return r.server.URL }

// Register adds a stub answering the next unanswered method+path request.
func (r *Registry) Register(method, path string, respond Responder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stubs = append(r.stubs, &stub{method: method, path: path, respond: respond})
}

// Requests returns the requests received so far.
func (r *Registry) Requests() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.requests...)
}

// Verify fails the test for every stub that was never used.
func (r *Registry) Verify(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.stubs {
		if !s.used {
			t.Errorf("httpmock: stub %d (%s %s) was never used", i, s.method, s.path)
		}
	}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests = append(r.requests, Recorded{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
	var hit *stub
	for _, s := range r.stubs {
		if !s.used && s.method == req.Method && s.path == req.URL.Path {
			hit = s
			s.used = true
			break
		}
	}
	r.mu.Unlock()
	if hit == nil {
		r.t.Errorf("httpmock: no stub for %s %s", req.Method, req.URL.Path)
		http.Error(w, "no stub", http.StatusNotImplemented)
		return
	}
	hit.respond(w, req)
}

// Status answers with status and body as JSON.
func Status(status int, body string) Responder {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// JSON answers 200 with body.
func JSON(body string) Responder { return Status(http.StatusOK, body) }

// SSE answers 200 with a text/event-stream of events, each "event: type"
// and "data: json" lines, flushed one by one. Each event is given as its
// data JSON; the event name is read from its "type".
func SSE(events ...string) Responder {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f, _ := w.(http.Flusher)
		for _, e := range events {
			name := ""
			if i := strings.Index(e, `"type":"`); i >= 0 {
				rest := e[i+len(`"type":"`):]
				name = rest[:strings.Index(rest, `"`)]
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, e)
			if f != nil {
				f.Flush()
			}
		}
	}
}

// Slow waits d before the first byte, then answers with next.
func Slow(d time.Duration, next Responder) Responder {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		next(w, r)
	}
}

// Truncated promises a body of declared bytes, writes only body, and
// drops the connection: a reply cut off in transit.
func Truncated(body string, declared int) Responder {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "application/json")
		w.Header().Set("content-length", fmt.Sprint(declared))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, body)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	}
}
