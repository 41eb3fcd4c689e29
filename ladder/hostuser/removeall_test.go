package hostuser

import (
	"os"
	"path/filepath"
	"testing"
)

// The fallback of RemoveAll opens every folder under the tree (a user
// left them without permission) and only those: a link in the tree to a
// folder outside it, absolute or relative, leaves that folder's mode as
// it was; and the tree is then removed, the outside folder kept.
func TestRemoveAllOpensOnlyTheTree(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	tree := filepath.Join(base, "tree")
	for _, d := range []string{outside, filepath.Join(tree, "a", "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "a", "b", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"abs": outside, "rel": "../../outside"} {
		if err := os.Symlink(target, filepath.Join(tree, "a", name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(tree, "a", "b"), filepath.Join(tree, "a"), outside} {
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
	}
	openFolders(tree)
	for _, d := range []string{tree, filepath.Join(tree, "a"), filepath.Join(tree, "a", "b")} {
		if fi, err := os.Lstat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want 0700", d, fi.Mode(), err)
		}
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("the folder outside the tree: %v %v, want its 0500 kept", fi.Mode(), err)
	}
	if err := RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Errorf("the tree is still there: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the folder outside the tree: %v", err)
	}
	os.Chmod(outside, 0o755)
}
