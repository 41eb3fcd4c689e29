package task

import (
	"strings"
	"testing"
)

// TestIDsCollidingInRewardJSON: two module (or adversary) ids that
// differ only in punctuation name one reward.json key (module_a_b_rate
// for "a-b" and "a_b"; "routes" and "routes-" both give module_routes_),
// so one module's figures would silently overwrite the other's. They
// are a duplicate id.
func TestIDsCollidingInRewardJSON(t *testing.T) {
	r := Validate("../../testdata/tasks/lang90-tally-c-to-go")
	if r.Task == nil || len(r.Task.Behavioural.Modules) < 2 || len(r.Task.Verification.Adversaries) < 2 {
		t.Fatalf("fixture: %+v", r.Task)
	}
	tk := *r.Task
	mods := append([]Module(nil), tk.Behavioural.Modules...)
	mods[0].ID, mods[1].ID = "x-y", "x_y"
	tk.Behavioural.Modules = mods
	advs := append([]Adversary(nil), tk.Verification.Adversaries...)
	advs[0].ID, advs[1].ID = "a1", "a1-"
	tk.Verification.Adversaries = advs
	v := &validator{t: &tk, r: &Report{}}
	v.duplicateIDs()
	var got []string
	for _, p := range v.r.Problems {
		got = append(got, p.Path+": "+p.Msg)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`behavioural.modules[1].id: id "x_y" gives the reward.json key "x_y" that behavioural.modules[0] ("x-y") gives`,
		`verification.adversaries[1].id: id "a1-" gives the reward.json key "a1" that verification.adversaries[0] ("a1") gives`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems:\n%s\nwant %s", all, want)
		}
	}
}
