package result

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
)

// MetaProvenance is the metadata key under which a stage result (and,
// for the stages it graded, score.json) records its [Provenance]. The
// key is srb's addition to the earlier harness's contracts: a file
// without it still reads (earlier results have none).
const MetaProvenance = "provenance"

// Provenance says what a stage ran with (ARCHITECTURE.md principle 5), so
// a published number can be traced to the task, the archive and the
// images it came from. It is recorded in the stage result's metadata
// under [MetaProvenance] (see [Provenance.Apply]); [ProvenanceOf] reads
// it back.
type Provenance struct {
	// TaskCommit is the last commit of the task folder (its generated
	// images.lock and truth/ aside), with "-dirty" when the folder has
	// uncommitted changes, or "uncommitted" outside a git checkout.
	TaskCommit string `json:"task_commit"`
	// StateA is the task's pinned State A digest (state_a.sha256, hex).
	StateA string `json:"state_a_sha256"`
	// Images maps a stage image (audit, behavioural, verification) to the
	// digest the stage ran in: images.lock's "sha256:…" for the task's
	// own image, or the reference given with --image. Empty for a stage
	// run on the host.
	Images map[string]string `json:"images"`
	// Toolchains are the tool versions the stage ran with, by name: for
	// an image, what the task pins in it (Debian packages name → version,
	// "go" → versions joined by ", ", npm packages name → version); empty
	// for a host run, whose tools are the machine's.
	Toolchains map[string]string `json:"toolchains"`
	// SRB is the [Fingerprint] of the srb that ran the stage.
	SRB string `json:"srb"`
	// Where is "host" or "container".
	Where string `json:"where"`
}

// Apply records p in st's metadata under [MetaProvenance] (as a JSON
// object with every field present; nil maps as {}).
func (p Provenance) Apply(st *Stage) {
	if st.Metadata == nil {
		st.Metadata = map[string]any{}
	}
	st.Metadata[MetaProvenance] = p.Map()
}

// Map is p as the JSON object a stage result records.
func (p Provenance) Map() map[string]any {
	strs := func(m map[string]string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return map[string]any{
		"task_commit":    p.TaskCommit,
		"state_a_sha256": p.StateA,
		"images":         strs(p.Images),
		"toolchains":     strs(p.Toolchains),
		"srb":            p.SRB,
		"where":          p.Where,
	}
}

// ProvenanceOf returns the provenance st records, or nil when it records
// none (a stage result of the earlier harness) or st is nil. A
// provenance that is not an object with string fields is an error naming
// the field.
func ProvenanceOf(st *Stage) (*Provenance, error) {
	if st == nil {
		return nil, nil
	}
	raw, ok := st.Metadata[MetaProvenance]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s stage result: metadata.%s: %w", st.Stage, MetaProvenance, err)
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s stage result: metadata.%s: %w", st.Stage, MetaProvenance, err)
	}
	return &p, nil
}

// ProvenanceMismatch compares the provenance of the stages graded
// together (nil stages and stages recording none are skipped) and returns
// one sentence per field on which they disagree — the task commit or the
// State A digest — naming each stage's value, or "" when they agree.
// Stages graded from different task commits or State A archives do not
// measure one submission against one task: scoring them together is a
// fault of whoever assembled the results folder, so the verdict is
// invalid (docs/LADDER.md, "Provenance of results").
func ProvenanceMismatch(stages ...*Stage) (string, error) {
	type rec struct {
		stage string
		p     *Provenance
	}
	var recs []rec
	for _, st := range stages {
		p, err := ProvenanceOf(st)
		if err != nil {
			return "", err
		}
		if p != nil {
			recs = append(recs, rec{st.Stage, p})
		}
	}
	var parts []string
	for _, f := range []struct {
		name string
		get  func(*Provenance) string
	}{
		{"task commit", func(p *Provenance) string { return p.TaskCommit }},
		{"State A digest", func(p *Provenance) string { return p.StateA }},
	} {
		seen := map[string][]string{}
		for _, r := range recs {
			if v := f.get(r.p); v != "" {
				seen[v] = append(seen[v], r.stage)
			}
		}
		if len(seen) < 2 {
			continue
		}
		var each []string
		for _, v := range slices.Sorted(maps.Keys(seen)) {
			each = append(each, fmt.Sprintf("%s %s", strings.Join(seen[v], ", "), py.Head(v, 19)))
		}
		parts = append(parts, fmt.Sprintf("the stages were graded from different %ss (%s)", f.name, strings.Join(each, "; ")))
	}
	return strings.Join(parts, "; "), nil
}
