package archive

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDerived: the first call computes and keeps the value beside the
// archive; the next reads it without computing; a rewritten archive, a
// kept file from another build and a corrupt kept file are computed
// again; an error is not kept; an unwritable folder still answers.
func TestDerived(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "original.tar.gz")
	os.WriteFile(arch, []byte("archive one"), 0o600)
	calls := 0
	compute := func(v []string) func() ([]string, error) {
		return func() ([]string, error) { calls++; return v, nil }
	}
	got, err := Derived(arch, "files", compute([]string{"a", "b/"}))
	if err != nil || calls != 1 || len(got) != 2 || got[1] != "b/" {
		t.Fatalf("first: %v %v, %d calls", got, err, calls)
	}
	kept := DerivedPath(arch, "files")
	if st, err := os.Stat(kept); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kept file: %v", err)
	}
	got, err = Derived(arch, "files", compute([]string{"other"}))
	if err != nil || calls != 1 || got[0] != "a" {
		t.Fatalf("second: %v %v, %d calls, want the kept value", got, err, calls)
	}
	before, _ := os.ReadFile(kept)

	// The same name rewritten with other bytes: computed again.
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(arch, []byte("archive two"), 0o600)
	got, _ = Derived(arch, "files", compute([]string{"two"}))
	if calls != 2 || got[0] != "two" {
		t.Fatalf("rewritten archive: %v, %d calls", got, calls)
	}

	// A kept file of another srb build is not read.
	var d derivedFile
	b, _ := os.ReadFile(kept)
	json.Unmarshal(b, &d)
	d.Build = "another build"
	d.Value = json.RawMessage(`["forged"]`)
	b, _ = json.Marshal(d)
	os.WriteFile(kept, b, 0o600)
	got, _ = Derived(arch, "files", compute([]string{"three"}))
	if calls != 3 || got[0] != "three" {
		t.Fatalf("other build's file: %v, %d calls", got, calls)
	}

	// A corrupt kept file is computed over.
	os.WriteFile(kept, []byte("{not json"), 0o600)
	if got, _ = Derived(arch, "files", compute([]string{"four"})); calls != 4 || got[0] != "four" {
		t.Fatalf("corrupt file: %v, %d calls", got, calls)
	}
	if after, _ := os.ReadFile(kept); string(after) == string(before) {
		t.Error("kept file not replaced")
	}

	// An error is returned, never kept.
	boom := errors.New("boom")
	os.Remove(kept)
	if _, err := Derived(arch, "files", func() ([]string, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("error: %v", err)
	}
	if _, err := os.Stat(kept); err == nil {
		t.Error("a failed computation left a kept file")
	}

	// A missing archive is an error.
	if _, err := Derived(filepath.Join(dir, "absent.tar.gz"), "files", compute(nil)); err == nil {
		t.Error("missing archive: no error")
	}
}

// TestDerivedUnwritable: a kept file that cannot be written (a folder
// stands at its path) still gives the value, computed each time.
func TestDerivedUnwritable(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "original.tar.gz")
	os.WriteFile(arch, []byte("x"), 0o600)
	if err := os.Mkdir(DerivedPath(arch, "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for range 2 {
		got, err := Derived(arch, "files", func() ([]string, error) { calls++; return []string{"v"}, nil })
		if err != nil || got[0] != "v" {
			t.Fatalf("%v %v", got, err)
		}
	}
	if calls != 2 {
		t.Errorf("%d computations, want 2", calls)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries left in the folder, want the archive and the folder (no temporary file)", len(ents))
	}
}
