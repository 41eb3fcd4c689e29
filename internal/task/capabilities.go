package task

import (
	"cuelang.org/go/cue"
)

// CapabilityLists are the capability lists of a stage image, in the
// order srb reports them.
var CapabilityLists = []string{"must_have", "must_lack", "observe"}

// capabilityDefaults says in words what schema/task.cue's #Images gives
// a stage's capability list when the task does not write it
// (docs/SCHEMA.md "Capability defaults"); a list that is absent here
// defaults to [].
var capabilityDefaults = map[string]string{
	"agent.must_have":        "stacks.old + stacks.new + stacks.shared",
	"audit.must_lack":        "stacks.old + stacks.new + stacks.shared + the tools every build configuration watches",
	"behavioural.must_have":  "stacks.new + stacks.shared",
	"behavioural.must_lack":  "stacks.old, minus what the image observes and what stacks.new or stacks.shared name",
	"verification.must_have": "stacks.old + stacks.new + stacks.shared",
}

// sharedDefaults says in words what stacks.shared defaults to, per debt
// class.
var sharedDefaults = map[string]string{
	"language":  "none: a language rewrite moves the whole toolchain",
	"framework": "the watched tools neither stack names: a framework rewrite keeps the language",
	"platform":  "the watched tools neither stack names: a platform port keeps the toolchain it retargets",
	"build":     "the watched tools neither stack names: a build-system rewrite keeps the compiler the build drives",
}

// Declares reports whether the task file itself writes the field at
// path ("images.audit.must_lack", "images.stacks.shared"), as opposed to
// the schema's default filling it in. A task not loaded from a file
// declares nothing.
func (t *Task) Declares(path string) bool {
	if !t.source.Exists() {
		return false
	}
	return t.source.LookupPath(cue.ParsePath(path)).Exists()
}

// CapabilityOrigin says where the value of images.<stage>.<list> comes
// from: "declared" when the task file writes it, else "default: " and
// the rule schema/task.cue applies ("default: []" for a list whose
// default is empty).
func (t *Task) CapabilityOrigin(stage, list string) string {
	if t.Declares("images." + stage + "." + list) {
		return "declared"
	}
	if d, ok := capabilityDefaults[stage+"."+list]; ok {
		return "default: " + d
	}
	return "default: []"
}

// SharedOrigin says where images.stacks.shared comes from: "declared",
// or the default of the task's debt class.
func (t *Task) SharedOrigin() string {
	if t.Declares("images.stacks.shared") {
		return "declared"
	}
	return "default for class " + t.Class + ": " + sharedDefaults[t.Class]
}
