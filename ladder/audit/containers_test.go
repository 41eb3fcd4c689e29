package audit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// A command whose processes reach the audit container's memory limit and
// leave it unusable (the OOM killer took its keep-alive: on a machine
// where srb cannot exempt it, a submission's tests that lower their own
// OOM score can make the kernel choose it) took the run tool from the
// rest of the review: every later command failed to start. The review's
// next command now runs in a fresh container.
func TestUnusableContainerAtMemoryLimitIsReplaced(t *testing.T) {
	const limit = 64 << 20
	dead := map[*engine.FakeContainer]bool{}
	fake := &engine.Fake{ExecFunc: func(ctx context.Context, c *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		if dead[c] {
			return nil, errors.New("container is not running")
		}
		if es.Argv[0] == "hog" {
			c.Hits.OOMKills++
			return &engine.Result{ExitCode: 137}, nil
		}
		if es.Argv[0] == "bomb" {
			c.Hits = engine.LimitHits{OOMKilled: true, OOMKills: 3, MemoryPeak: limit}
			dead[c] = true
			return &engine.Result{ExitCode: 137}, nil
		}
		return &engine.Result{ExitCode: 0}, nil
	}}
	a, err := StartContainers(t.Context(), fake, engine.Spec{Image: "img", Memory: limit}, "img")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	r, err := a.Exec(t.Context(), engine.ExecSpec{Argv: []string{"bomb"}})
	if err != nil || r.ExitCode != 137 || !strings.Contains(string(r.Stderr), "fresh container") {
		t.Fatalf("the bomb: %+v, %v", r, err)
	}
	r, err = a.Exec(t.Context(), engine.ExecSpec{Argv: []string{"make", "test"}})
	if err != nil || r.ExitCode != 0 {
		t.Errorf("the command after the bomb: %+v, %v", r, err)
	}
	if cs := fake.Containers(); len(cs) != 2 || !cs[0].Closed() {
		t.Errorf("%d containers, want the first removed and a second", len(cs))
	}
	// A command that reached the limit but left the container usable
	// keeps it.
	r, err = a.Exec(t.Context(), engine.ExecSpec{Argv: []string{"hog"}})
	if cs := fake.Containers(); err != nil || len(cs) != 2 || strings.Contains(string(r.Stderr), "fresh container") {
		t.Errorf("%d containers after a command killed at the limit in a usable container (%+v, %v)", len(cs), r, err)
	}
}
