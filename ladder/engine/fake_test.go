package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFakeSession: the fake's container is a folder — copies land under
// Root, host commands run there with the timeout killing their group, and
// Close removes it.
func TestFakeSession(t *testing.T) {
	t.Parallel()
	src := sampleTree(t)
	f := &Fake{}
	s, err := f.Start(t.Context(), Spec{Image: "img", Copies: []Copy{{HostPath: src, ContainerPath: "/srb/statea"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Containers()[0]
	if diff := cmp.Diff(tree(t, src), tree(t, c.Path("/srb/statea"))); diff != "" {
		t.Errorf("copied in (-want +got):\n%s", diff)
	}
	os.MkdirAll(c.Path("/work"), 0o755)
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"sh", "-c", `echo "$X" > out; cat; exit 4`}, WorkDir: "/work", Env: []string{"X=y"}, Stdin: strings.NewReader("in")})
	if err != nil || r.ExitCode != 4 || string(r.Stdout) != "in" {
		t.Fatalf("exec: %+v %v", r, err)
	}
	out := filepath.Join(t.TempDir(), "o")
	if err := s.CopyOut(t.Context(), "/work/out", out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "y\n" {
		t.Errorf("copied out %q", b)
	}
	start := time.Now()
	r, err = s.Exec(t.Context(), ExecSpec{Argv: []string{"sh", "-c", "trap '' TERM; sleep 30 & wait"}, Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err != nil || !r.TimedOut || time.Since(start) > 5*time.Second {
		t.Errorf("timeout: %+v %v after %v", r, err, time.Since(start))
	}
	if got := len(c.Execs()); got != 2 {
		t.Errorf("%d execs recorded, want 2", got)
	}
	s.Kill(t.Context())
	if _, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"true"}}); err == nil {
		t.Error("exec in a killed fake container succeeded")
	}
	if err := s.Close(t.Context()); err != nil || !c.Closed() {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Root); !os.IsNotExist(err) {
		t.Errorf("root %s still there after Close", c.Root)
	}
}

// TestLimitStart: a session holds its slot until it is closed.
func TestLimitStart(t *testing.T) {
	t.Parallel()
	r := Limit(&Fake{}, 1)
	s1, err := r.Start(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Start(ctx, Spec{}); err == nil {
		t.Fatal("a second session started while the first held the only slot")
	}
	s1.Close(t.Context())
	s2, err := r.Start(t.Context(), Spec{})
	if err != nil {
		t.Fatalf("after Close the slot is free: %v", err)
	}
	s2.Close(t.Context())
}

// A tail-capped stream keeps the last bytes whatever the writes' sizes
// (one past the bound, many small ones), and counts those before them.
func TestCappedTail(t *testing.T) {
	c := &capped{max: 8, tail: true}
	c.Write([]byte("0123456789abcdef"))
	for _, b := range []byte("ghijklmnopqrstuvwxyz") {
		c.Write([]byte{b})
	}
	got, dropped := c.kept()
	if string(got) != "stuvwxyz" || dropped != 28 {
		t.Errorf("kept %q, dropped %d; want stuvwxyz, 28", got, dropped)
	}
	h := &capped{max: 8}
	h.Write([]byte("0123456789"))
	if got, dropped := h.kept(); string(got) != "01234567" || dropped != 2 {
		t.Errorf("head: kept %q, dropped %d", got, dropped)
	}
}
