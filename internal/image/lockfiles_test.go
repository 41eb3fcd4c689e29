package image

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedLockfiles: every images.lock in the repository's tasks
// reads (and so satisfies the images-lock schema).
func TestCommittedLockfiles(t *testing.T) {
	repo := findRepoRoot("")
	dirs, _ := filepath.Glob(filepath.Join(repo, "tasks", "*"))
	fx, _ := filepath.Glob(filepath.Join(repo, "testdata", "tasks", "*"))
	n := 0
	for _, d := range append(dirs, fx...) {
		if _, err := os.Stat(filepath.Join(d, LockName)); err != nil {
			continue
		}
		n++
		if _, err := ReadLock(d); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d lockfile(s) read", n)
}
