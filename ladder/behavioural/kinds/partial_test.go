package kinds

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// The result file written while a module runs is a complete module result
// after every flush, holding exactly the checks flushed so far, each
// written once.
func TestPartialResult(t *testing.T) {
	p := filepath.Join(t.TempDir(), "result.json")
	r, err := openPartial(p)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []result.Check {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		mr, err := result.ParseModuleResult("m", b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return mr.Checks
	}
	if n := len(read()); n != 0 {
		t.Fatalf("fresh file has %d checks", n)
	}
	sizes := []int64{}
	for round, k := range []int{1, 3, 5} {
		for i := range k {
			r.add(check{ID: fmt.Sprintf("r%d-c%d", round, i), Verdict: "pass", Summary: "ok"})
		}
		if err := r.flush(); err != nil {
			t.Fatal(err)
		}
		info, _ := os.Stat(p)
		sizes = append(sizes, info.Size())
	}
	got := read()
	if len(got) != 9 || got[0].ID != "m/r0-c0" || got[8].ID != "m/r2-c4" {
		t.Fatalf("checks %v", got)
	}
	// Appending, not rewriting: the file grew by what each round added.
	if !(sizes[0] < sizes[1] && sizes[1] < sizes[2]) {
		t.Errorf("sizes %v", sizes)
	}
	r.close()
}
