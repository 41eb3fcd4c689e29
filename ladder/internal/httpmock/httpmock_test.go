package httpmock

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// tb records failures instead of failing the real test.
type tb struct {
	testing.TB
	errs []string
}

func (f *tb) Helper() {}

func (f *tb) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func TestVerifyFailsOnUnusedStubs(t *testing.T) {
	fake := &tb{TB: t}
	reg := New(t)
	reg.t = fake
	reg.Register("POST", "/v1/messages", JSON(`{}`))
	reg.Register("POST", "/v1/chat/completions", Status(503, "busy"))
	resp, err := http.Post(reg.URL()+"/v1/messages", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reg.Verify(fake)
	if len(fake.errs) != 1 || fake.errs[0] != "httpmock: stub 1 (POST /v1/chat/completions) was never used" {
		t.Errorf("errors %q", fake.errs)
	}
	if got := reg.Requests(); len(got) != 1 || string(got[0].Body) != `{"a":1}` {
		t.Errorf("requests %+v", got)
	}
}

func TestUnmatchedRequestFails(t *testing.T) {
	fake := &tb{TB: t}
	reg := New(t)
	reg.t = fake
	resp, err := http.Get(reg.URL() + "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented || len(fake.errs) != 1 || !strings.Contains(string(body), "no stub") {
		t.Errorf("status %d errors %q", resp.StatusCode, fake.errs)
	}
}
