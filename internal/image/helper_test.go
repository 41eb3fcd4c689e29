package image

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swe-refactor-bench/srb"
)

// TestHelperSourceComplete: every file the go command compiles or embeds
// into ./cmd/srb-helper from srb's own module is in srb.HelperSource, so
// an installed srb builds the same helper a checkout does.
func TestHelperSourceComplete(t *testing.T) {
	repo := findRepoRoot("")
	if repo == "" {
		t.Fatal("srb's module root not found from the working directory")
	}
	cmd := exec.Command("go", "list", "-deps", "-json", HelperPackage)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var p struct {
			ImportPath, Dir     string
			Module              *struct{ Path string }
			GoFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "github.com/swe-refactor-bench/srb" {
			continue
		}
		rel, err := filepath.Rel(repo, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			name := filepath.ToSlash(filepath.Join(rel, f))
			want, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fs.ReadFile(srb.HelperSource, name)
			if err != nil {
				t.Errorf("%s (package %s) is not in srb.HelperSource: add it to source.go's go:embed lines", name, p.ImportPath)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the embedded copy differs from the file", name)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d source files checked: go list found too little", n)
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := fs.Stat(srb.HelperSource, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestHelperGo(t *testing.T) {
	for _, tc := range []struct{ mod, want, err string }{
		{"module m\n\ngo 1.26.8\n", "1.26.8", ""},
		{"module m\n\ngo 1.26.0\n\ntoolchain go1.26.8\n", "1.26.8", ""},
		{"module m\n\ngo 1.26\n", "", "pins no Go patch release"},
	} {
		v, err := helperGo(fstest.MapFS{"go.mod": {Data: []byte(tc.mod)}})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.mod, err, tc.err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.mod, v, err, tc.want)
		}
	}
}

func TestSourceDigestIgnoresTests(t *testing.T) {
	a := fstest.MapFS{"go.mod": {Data: []byte("module m\n")}, "p/p.go": {Data: []byte("package p\n")}}
	b := fstest.MapFS{"go.mod": {Data: []byte("module m\n")}, "p/p.go": {Data: []byte("package p\n")}, "p/p_test.go": {Data: []byte("package p\n")}}
	c := fstest.MapFS{"go.mod": {Data: []byte("module m\n")}, "p/p.go": {Data: []byte("package p // changed\n")}}
	da, _ := sourceDigest(a)
	db, _ := sourceDigest(b)
	dc, _ := sourceDigest(c)
	if da != db {
		t.Errorf("a test file moved the digest: %s, %s", da, db)
	}
	if da == dc {
		t.Errorf("a changed source file kept the digest %s", da)
	}
}

// TestCheckStatic: a dynamically linked program and a text file are
// refused as --helper, naming why.
func TestCheckStatic(t *testing.T) {
	text := filepath.Join(t.TempDir(), "helper.sh")
	os.WriteFile(text, []byte("#!/bin/sh\n"), 0o755)
	if err := CheckStatic(text); err == nil || !strings.Contains(err.Error(), "not an ELF executable") {
		t.Errorf("text file: %v", err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if err := CheckStatic(sh); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("%s: %v", sh, err)
	}
}

// TestHelperReproducible builds the helper from this checkout and from
// the source embedded in srb, with the pinned Go release, and requires
// the same bytes, a static executable, and a working helper; then hands
// the result back as --helper and gets the same digest. It downloads the
// pinned Go release from the module proxy once (skipped with -short).
func TestHelperReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building the helper downloads the pinned Go release")
	}
	root, _ := inputRoot(t)
	logf := func(f string, a ...any) { t.Logf(f, a...) }
	ctx := t.Context()
	repo := findRepoRoot("")
	fromRepo, err := prepareHelper(ctx, HelperSource{Repo: repo}, root, logf)
	if err != nil {
		t.Fatal(err)
	}
	repoBytes := readHelper(t, fromRepo)
	fromFS, err := prepareHelper(ctx, HelperSource{FS: srb.HelperSource}, root, logf)
	if err != nil {
		t.Fatal(err)
	}
	fsBytes := readHelper(t, fromFS)
	if fromRepo.Digest != fromFS.Digest || !bytes.Equal(repoBytes, fsBytes) {
		t.Fatalf("checkout build %s (sha256 %s), embedded build %s (sha256 %s): want the same bytes",
			fromRepo.Digest, sum(repoBytes), fromFS.Digest, sum(fsBytes))
	}
	if !strings.Contains(fromFS.About, "embedded in srb") || !strings.Contains(fromRepo.About, "source tree") {
		t.Errorf("about: %q, %q", fromRepo.About, fromFS.About)
	}
	bin := filepath.Join(t.TempDir(), "srb-helper")
	if err := os.WriteFile(bin, fsBytes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckStatic(bin); err != nil {
		t.Error(err)
	}
	out, _ := exec.Command(bin).CombinedOutput()
	if !strings.Contains(string(out), "usage") && !strings.Contains(string(out), "Usage") {
		t.Errorf("the helper with no arguments printed %q, want its usage", out)
	}
	given, err := prepareHelper(ctx, HelperSource{File: bin}, root, logf)
	if err != nil {
		t.Fatal(err)
	}
	if given.Digest != fromFS.Digest {
		t.Errorf("--helper of the same bytes: digest %s, want %s", given.Digest, fromFS.Digest)
	}
}

func readHelper(t *testing.T, in *Input) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(in.Dir, "srb-helper"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
