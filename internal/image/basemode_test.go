package image

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// A made base's tree holds world-writable folders (its tmp and var/tmp,
// 1777): under a folder other users could pass, a graded process on this
// machine (--host) planted files in, or filled, the tree that later builds
// trust by its recorded digest. A base found in the cache, one made by an
// earlier srb included, is closed to other users before it is used.
func TestBaseClosedToOtherUsers(t *testing.T) {
	root := t.TempDir()
	b := task.Base{Suite: "bookworm", Mirror: "http://127.0.0.1:9/debian"}
	dir := filepath.Join(root, "base", baseKey(b, b.Mirror))
	if err := os.MkdirAll(filepath.Join(dir, "rootfs", "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "rootfs", "tmp"), 0o1777)
	os.Chmod(dir, 0o755)
	for f, v := range map[string]string{"digest": "sha256:abc\n", "manifest": "sha256:def\n"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := prepareBase(t.Context(), b, root, false, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if in.Digest != "sha256:def" {
		t.Errorf("input %+v, want the recorded manifest", in)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("the base folder is %v, want 0700 (closed to other users)", st.Mode().Perm())
	}
}
