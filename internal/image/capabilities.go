package image

import (
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// Capabilities are a task's effective capability assertions (srb validate
// --capabilities, its --json shape): its stacks and, per stage image in
// build order, every check srb build's probes make ([Checks]).
type Capabilities struct {
	Task         string            `json:"task"`
	Class        string            `json:"class"`
	Stacks       CapabilityStacks  `json:"stacks"`
	Capabilities []CapabilityCheck `json:"checks"`
}

// CapabilityStacks are a task's images.stacks and where the shared ones
// came from (declared or derived).
type CapabilityStacks struct {
	Old          []string `json:"old"`
	New          []string `json:"new"`
	Shared       []string `json:"shared"`
	SharedOrigin string   `json:"shared_origin"`
}

// CapabilityCheck is one check of a stage image: the capability, whether
// the image must have it, lack it or observe it, the task.cue field that
// asks for it and its origin.
type CapabilityCheck struct {
	Stage      string `json:"stage"`
	Capability string `json:"capability"`
	// Assert is "have", "lack" or "observe" (present, behind a recording
	// wrapper).
	Assert string `json:"assert"`
	Field  string `json:"field"`
	Origin string `json:"origin"`
}

// CapabilitiesOf are t's effective capability assertions.
func CapabilitiesOf(t *task.Task) *Capabilities {
	st := t.Images.Stacks
	c := &Capabilities{Task: t.ID, Class: t.Class,
		Stacks:       CapabilityStacks{Old: nonNil(st.Old), New: nonNil(st.New), Shared: nonNil(st.Shared), SharedOrigin: t.SharedOrigin()},
		Capabilities: []CapabilityCheck{}}
	for _, s := range task.StageNames {
		for _, k := range Checks(t, s) {
			a := "lack"
			switch {
			case strings.Contains(k.Field, ".observe["):
				a = "observe"
			case k.Present:
				a = "have"
			}
			c.Capabilities = append(c.Capabilities, CapabilityCheck{Stage: s, Capability: k.Capability, Assert: a, Field: k.Field, Origin: k.Origin})
		}
	}
	return c
}

// nonNil is xs, or an empty list for nil (so JSON says [], never null).
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
