package image

import (
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestChecksDerived: the probe of a stage image asserts the programs the
// task's build commands run there (task.CommandNeeds, the list srb
// validate checks the declaration against), except what must_have or
// observe already names; a miss names the command.
func TestChecksDerived(t *testing.T) {
	tk, problems := task.Load(fixture)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	// The fixture's verification image must have make by default: no
	// derived check repeats it.
	for _, c := range Checks(tk, "verification") {
		if c.Field == "behavioural.configurations.default.original[0]" {
			t.Errorf("derived check beside must_have: %+v", c)
		}
	}
	tk.Images.Verification.MustHave = []string{"go"}
	var got *Check
	for _, c := range Checks(tk, "verification") {
		if c.Field == "behavioural.configurations.default.original[0]" {
			got = &c
		}
	}
	want := Check{Field: "behavioural.configurations.default.original[0]", Capability: "make", Present: true,
		Origin: "derived: behavioural.configurations.default.original[0] runs make in this image"}
	if got == nil || *got != want {
		t.Fatalf("derived check = %+v, want %+v", got, want)
	}
	e := &CapabilityError{Stage: "verification", Check: want, Found: "it is missing"}
	if s := e.Error(); s != "capability make: the verification image must have it (behavioural.configurations.default.original[0] runs it there), but it is missing" {
		t.Errorf("error = %q", s)
	}
}
