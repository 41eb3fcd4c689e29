package notice

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestCommittedNOTICE regenerates NOTICE for the tasks in tasks/, from
// their State A archives in srb's cache ($SRB_CACHE, else the user cache
// dir; CI fetches them there), and fails when the repository's NOTICE
// differs. An archive missing from the cache is fetched, so the test
// skips with -short or SRB_OFFLINE=1 only when one is missing.
func TestCommittedNOTICE(t *testing.T) {
	root := filepath.Join("..", "..")
	matches, err := filepath.Glob(filepath.Join(root, "tasks", "*", task.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := source.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cache := &source.Cache{Dir: dir}
	entries := []Entry{}
	for _, m := range matches {
		tk, ps := task.Load(filepath.Dir(m))
		if len(ps) > 0 {
			t.Fatalf("%s does not load: %v", m, ps)
		}
		if tk.StateA.SHA256 == "" {
			t.Fatalf("%s: state A is not pinned (srb fetch --pin %s)", tk.ID, tk.ID)
		}
		archive := cache.Path(tk.StateA.SHA256)
		if _, err := os.Stat(archive); err != nil {
			needRegistries(t)
			e, err := cache.Materialise(context.Background(), tk.StateA, tk.Dir, nil)
			if err != nil {
				t.Fatalf("%s: %v", tk.ID, err)
			}
			archive = e.Archive
		}
		e, err := EntryFor(tk, archive)
		if err != nil {
			t.Fatalf("%s: %v", tk.ID, err)
		}
		entries = append(entries, e)
	}
	want, err := os.ReadFile(filepath.Join(root, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff("NOTICE", "NOTICE (regenerated)", want, Render(entries)); d != nil {
		t.Errorf("NOTICE is stale: run srb notice at the repository root\n%s", d)
	}
}
