package harbor

import (
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/collect"
)

// TestWorkspaceBounds: the flags lower the copy's bounds and never raise
// them, and the skip filter is the artifact excludes.
func TestWorkspaceBounds(t *testing.T) {
	set, err := collect.CompileAll([]string{"target", "*.o"})
	if err != nil {
		t.Fatal(err)
	}
	b := WorkspaceBounds(0, 0, set)
	if b.MaxBytes != WorkspaceBytesLimit || b.MaxStreamBytes != 2*WorkspaceBytesLimit || b.MaxEntries != WorkspaceEntriesLimit ||
		b.MaxDepth != 128 || b.MaxPathBytes != 2048 {
		t.Errorf("default bounds %+v", b)
	}
	if !b.Skip("target") || !b.Skip("src/a.o") || b.Skip("src/a.c") {
		t.Error("the skip filter is not artifacts.exclude")
	}
	b = WorkspaceBounds(1<<20, 10, set)
	if b.MaxBytes != 1<<20 || b.MaxStreamBytes != 2<<20 || b.MaxEntries != 10 {
		t.Errorf("lowered bounds %+v", b)
	}
	b = WorkspaceBounds(1<<50, 1<<30, set)
	if b.MaxBytes != WorkspaceBytesLimit || b.MaxEntries != WorkspaceEntriesLimit {
		t.Errorf("the flags raised the bounds: %+v", b)
	}
}
