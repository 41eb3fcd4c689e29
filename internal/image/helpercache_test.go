package image

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"
)

// minimalELF is an ELF64 header for this machine with no program
// header: a "static executable" as far as CheckStatic can tell.
func minimalELF(tb testing.TB, tag byte) []byte {
	machine := map[string]uint16{"amd64": 62, "arm64": 183}[runtime.GOARCH]
	if machine == 0 {
		tb.Skipf("no ELF machine for %s", runtime.GOARCH)
	}
	var b bytes.Buffer
	b.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, tag, 0, 0, 0, 0, 0, 0, 0})
	for _, v := range []any{uint16(2), machine, uint32(1), uint64(0), uint64(0), uint64(0), uint32(0),
		uint16(64), uint16(56), uint16(0), uint16(64), uint16(0), uint16(0)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// TestHelperBuildReused: a second build under the same key copies the
// kept binary instead of building; another key (another source digest,
// Go release) builds again; a kept file that is not a static executable
// is not reused.
func TestHelperBuildReused(t *testing.T) {
	base := t.TempDir()
	builds := 0
	build := func(out string, tag byte) func() error {
		return func() error {
			builds++
			return os.WriteFile(out, minimalELF(t, tag), 0o755)
		}
	}
	logf := func(string, ...any) {}
	k1, k2 := helperBuildKey("sha256:aa", "1.26.8"), helperBuildKey("sha256:aa", "1.26.9")
	if k1 == k2 || k1 == helperBuildKey("sha256:ab", "1.26.8") {
		t.Fatal("the key ignores the Go release or the source digest")
	}
	out1 := filepath.Join(t.TempDir(), "srb-helper")
	if err := cachedBuild(base, k1, out1, logf, build(out1, 1)); err != nil || builds != 1 {
		t.Fatalf("first build: %v, %d builds", err, builds)
	}
	out2 := filepath.Join(t.TempDir(), "srb-helper")
	if err := cachedBuild(base, k1, out2, logf, build(out2, 2)); err != nil || builds != 1 {
		t.Fatalf("same key: %v, %d builds, want the kept one reused", err, builds)
	}
	a, _ := os.ReadFile(out1)
	b, _ := os.ReadFile(out2)
	if !bytes.Equal(a, b) {
		t.Error("the reused helper differs from the one built")
	}
	if st, err := os.Stat(out2); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("reused helper: %v, %v, want mode 0755", st.Mode(), err)
	}
	out3 := filepath.Join(t.TempDir(), "srb-helper")
	if err := cachedBuild(base, k2, out3, logf, build(out3, 3)); err != nil || builds != 2 {
		t.Fatalf("another key: %v, %d builds, want a build", err, builds)
	}
	// A kept file that is not an executable is built over.
	kept := filepath.Join(base, "built", k1, "srb-helper")
	os.WriteFile(kept, []byte("#!/bin/sh\n"), 0o755)
	out4 := filepath.Join(t.TempDir(), "srb-helper")
	if err := cachedBuild(base, k1, out4, logf, build(out4, 4)); err != nil || builds != 3 {
		t.Fatalf("corrupt kept file: %v, %d builds, want a build", err, builds)
	}
	if got, _ := os.ReadFile(kept); !bytes.Equal(got, minimalELF(t, 4)) {
		t.Error("the rebuilt helper was not kept")
	}
}

// TestRepoDigest: the checkout digest moves with a Go file and go.sum,
// not with tests, test data, tasks or docs.
func TestRepoDigest(t *testing.T) {
	base := fstest.MapFS{"go.mod": {Data: []byte("module m\n")}, "go.sum": {Data: []byte("x\n")}, "p/p.go": {Data: []byte("package p\n")}}
	digest := func(extra map[string]string) string {
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		for k, v := range extra {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
		d, err := sourceDigest(repoFS{fsys})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d0 := digest(nil)
	for _, same := range []string{"p/p_test.go", "p/testdata/x.go", "tasks/t/task.cue", "docs/X.md", ".git/HEAD"} {
		if d := digest(map[string]string{same: "changed"}); d != d0 {
			t.Errorf("%s moved the digest", same)
		}
	}
	for _, moves := range []string{"p/p.go", "go.sum", "schema/task.cue", "q/q.go"} {
		if d := digest(map[string]string{moves: "changed"}); d == d0 {
			t.Errorf("%s did not move the digest", moves)
		}
	}
}
