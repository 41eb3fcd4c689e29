package verification

import (
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestSameHardening: a round's later tree sandboxes (both sides,
// FreshPerRun's) must hide other uids' processes in /proc where its first
// did; one that does not is an error (the grader's), and the round's
// Hardening is the first's. Where the first could not (a remote engine),
// later ones are not held to it and the metadata says "no".
func TestSameHardening(t *testing.T) {
	c := &Container{}
	if err := c.sameHardening(engine.Hardening{}); err != nil {
		t.Fatalf("the first: %v", err)
	}
	if err := c.sameHardening(engine.Hardening{OOMGuard: "no"}); err != nil {
		t.Errorf("a later one with /proc hidden: %v", err)
	}
	err := c.sameHardening(engine.Hardening{ProcHidden: "fspick: operation not permitted"})
	if err == nil || !strings.Contains(err.Error(), "fspick: operation not permitted") {
		t.Errorf("a later one that shows every process: %v, want an error naming why", err)
	}
	if h := c.Hardening(); h.ProcHidden != "" {
		t.Errorf("the round's hardening %+v, want the first's", h)
	}
	remote := &Container{}
	for i := 0; i < 2; i++ {
		if err := remote.sameHardening(engine.Hardening{ProcHidden: "not a container of a local engine"}); err != nil {
			t.Errorf("a round that could never hide: %v", err)
		}
	}
	if h := remote.Hardening(); h.ProcHidden == "" {
		t.Error("a round that could not hide reports /proc hidden")
	}
}
