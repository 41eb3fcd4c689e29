package result

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/schema/contract"
)

// TestProvenance: a stage's provenance is written into its metadata,
// validates against the stage-result schema, reads back equal, and a
// malformed one is refused by the schema; stages that disagree on the
// task commit or State A digest are named, stages without provenance are
// compared with nothing.
func TestProvenance(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	p := Provenance{TaskCommit: "c0ffee", StateA: "aaaa", Images: map[string]string{"behavioural": "sha256:1234"},
		Toolchains: map[string]string{"go": "1.22.5"}, SRB: "0123456789ab", Where: "container"}
	st := NewStage(StageBehavioural, "t", at)
	p.Apply(st)
	path := filepath.Join(t.TempDir(), "behavioural.json")
	if err := st.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadStage(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ProvenanceOf(back)
	if err != nil || got == nil || got.TaskCommit != "c0ffee" || got.Images["behavioural"] != "sha256:1234" || got.Toolchains["go"] != "1.22.5" || got.Where != "container" {
		t.Fatalf("read back %+v, %v", got, err)
	}

	bad := NewStage(StageBehavioural, "t", at)
	bad.Metadata[MetaProvenance] = map[string]any{"task_commit": "c0ffee", "where": "moon"}
	var ve *contract.ValidationError
	if err := bad.Write(filepath.Join(t.TempDir(), "b.json")); !errors.As(err, &ve) || !strings.Contains(err.Error(), "provenance") {
		t.Errorf("a malformed provenance was written: %v", err)
	}

	audit, verification, old := NewStage(StageAudit, "t", at), NewStage(StageVerification, "t", at), NewStage(StageVerification, "t", at)
	p.Apply(audit)
	q := p
	q.StateA = "bbbb"
	q.Apply(verification)
	if why, err := ProvenanceMismatch(audit, back, old, nil); why != "" || err != nil {
		t.Errorf("agreeing stages: %q, %v", why, err)
	}
	why, err := ProvenanceMismatch(audit, back, verification)
	if err != nil || why != "the stages were graded from different State A digests (audit, behavioural aaaa; verification bbbb)" {
		t.Errorf("mismatch = %q, %v", why, err)
	}
	q.TaskCommit = "beef"
	q.Apply(verification)
	if why, _ := ProvenanceMismatch(audit, verification); !strings.Contains(why, "different task commits (verification beef; audit c0ffee)") ||
		!strings.Contains(why, "different State A digests") {
		t.Errorf("both fields: %q", why)
	}
}
