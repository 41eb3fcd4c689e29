package behavioural

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A module that leaves setsid'd and double-forked processes behind, and
// one that does so and then hangs past its deadline: nothing of either
// outlives its module (on --host they used to, reaped: false).
func TestSetsidLeftoversAreGone(t *testing.T) {
	r, dir := newRunner(t)
	kv := "SRB_TEST_LEFTOVER=" + filepath.Base(dir)
	leave := `export ` + kv + `; setsid sh -c 'sleep 300 & sleep 300' & ( setsid sleep 300 & ) & sleep 0.2; `
	s := suite(dir,
		sh("leaves", leave+pass, 10*time.Second),
		sh("hangs", leave+pass+`; trap '' TERM; sleep 30`, time.Second),
	)
	st, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"leaves", "hangs"} {
		if st.Unit(id).Metadata["reaped_process_group"] != true {
			t.Errorf("%s: leftovers not recorded: %v", id, st.Unit(id).Metadata)
		}
	}
	if got := statuses(st); got[0] != "leaves=ok" || got[1] != "hangs=timeout" {
		t.Errorf("statuses %v, want leaves=ok, hangs=timeout", got)
	}
	if pid := markedAlive(kv); pid != 0 {
		t.Errorf("process %d outlived its module", pid)
	}
}
