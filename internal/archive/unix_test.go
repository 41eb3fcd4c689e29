//go:build unix

package archive

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// TestDigestIgnoresUmask recreates the fixture under a strict umask. It changes the
// process's umask, so it must not run in parallel.
func TestDigestIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dst := filepath.Join(t.TempDir(), "umask")
	copyTree(t, fixtureTree(t), dst, false)
	got, err := WriteCanonical(io.Discard, dst, fixtureTop)
	if err != nil {
		t.Fatal(err)
	}
	if got != fixtureDigest {
		t.Errorf("digest under umask 077 = %s, want %s", got, fixtureDigest)
	}
}
