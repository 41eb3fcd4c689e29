package archive

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFileAtomic replaces the file whole, with the mode asked, and leaves
// no temporary file behind, written or refused.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "NOTICE")
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err != nil || string(got) != "new\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("file %q %v %v, want \"new\\n\" 0640", got, st.Mode().Perm(), err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no-such-folder", "x"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the folder holds %d entries, want only NOTICE: %v", len(ents), ents)
	}
}
