package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// tallyDigest is the canonical digest of testdata/statea/tally-1.0, the
// fixture task's State A, under the top folder "tally-1.0".
const tallyDigest = "9ced8e1f9a79f35186c08cc49cf0d19d12ffe24e8a82797c44f1aa5d603fca83"

func tallyStateA() task.StateA {
	return task.StateA{Project: "tally", Version: "1.0", Source: task.Source{Kind: "local", Path: "../../testdata/statea/tally-1.0"}}
}

func TestLocalFolderDigest(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	a := tallyStateA()
	a.SHA256 = tallyDigest
	e, err := c.Materialise(context.Background(), a, ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest != tallyDigest || e.Top != "tally-1.0" {
		t.Fatalf("got %s %s", e.Top, e.Digest)
	}
	files, _ := Files(e.Archive)
	if strings.Join(files, " ") != "LICENSE Makefile README tally.c" {
		t.Errorf("files %v", files)
	}
}

func TestMismatchShowsBothDigests(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	a := tallyStateA()
	a.SHA256 = strings.Repeat("0", 64)
	_, err := c.Materialise(context.Background(), a, ".", nil)
	var mm *MismatchError
	if !errors.As(err, &mm) || !errors.Is(err, ErrMismatch) {
		t.Fatalf("want a MismatchError, got %v", err)
	}
	want := "state A from local ../../testdata/statea/tally-1.0: the task pins sha256 " + strings.Repeat("0", 64) + " but the canonical tar of what was fetched is " + tallyDigest
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

// tarGz makes a .tar.gz holding files under top/, compressed at level.
func tarGz(t *testing.T, top string, files map[string]string, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, level)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"a.txt", "b/c.txt"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		tw.WriteHeader(&tar.Header{Name: top + "/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

func TestURLSource(t *testing.T) {
	orig := tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"}, gzip.BestCompression)
	recompressed := tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"}, gzip.BestSpeed)
	tampered := tarGz(t, "rel-1.0", map[string]string{"a.txt": "evil\n", "b/c.txt": "c\n"}, gzip.BestCompression)
	if bytes.Equal(orig, recompressed) {
		t.Fatal("test needs two different compressions")
	}
	var serve []byte
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(serve) }))
	defer srv.Close()
	env := &Env{HTTPClient: srv.Client()}
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "url", URL: srv.URL + "/rel-1.0.tar.gz", SHA256: sum(orig)}}

	serve = orig
	e, err := (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", env)
	if err != nil {
		t.Fatal(err)
	}
	a.SHA256 = e.Digest

	// The server recompressed the same release: bytes differ, content does not.
	serve = recompressed
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", env)
	if err == nil || !strings.Contains(err.Error(), "the unpacked content still matches the State A pin, so the server recompressed the same release") {
		t.Errorf("recompressed: %v", err)
	}
	// Different content under the same name: tampering cannot pass as recompression.
	serve = tampered
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", env)
	if err == nil || !strings.Contains(err.Error(), "does not match the State A pin either") {
		t.Errorf("tampered: %v", err)
	}
}

func TestGitSource(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	gitc := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitc("init", "-q")
	os.WriteFile(filepath.Join(repo, "x.txt"), []byte("x\n"), 0o644)
	gitc("add", ".")
	gitc("commit", "-qm", "one")
	commit := gitc("rev-parse", "HEAD")
	a := task.StateA{Project: "x", Version: "1", Source: task.Source{Kind: "git", URL: "file://" + repo, Commit: commit}}
	e, err := (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := Files(e.Archive)
	if strings.Join(files, " ") != "x.txt" {
		t.Errorf("files %v", files)
	}
}

func TestLocalArchiveMatchesFolder(t *testing.T) {
	// The same release as a folder and as an archive pins the same digest.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "rel-1.0", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "rel-1.0", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rel-1.0", "b", "c.txt"), []byte("c\n"), 0o644)
	arc := filepath.Join(t.TempDir(), "rel.tar.gz")
	os.WriteFile(arc, tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"}, 6), 0o644)
	digest := func(p string) string {
		a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "local", Path: p}}
		e, err := (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", nil)
		if err != nil {
			t.Fatal(err)
		}
		return e.Digest
	}
	if d1, d2 := digest(filepath.Join(dir, "rel-1.0")), digest(arc); d1 != d2 {
		t.Errorf("folder %s != archive %s", d1, d2)
	}
}

func TestConcurrentFetchesAreSafe(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	a := tallyStateA()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	digests := make([]string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.Materialise(context.Background(), a, ".", nil)
			errs[i] = err
			if e != nil {
				digests[i] = e.Digest
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || digests[i] != tallyDigest {
			t.Errorf("fetch %d: %s %v", i, digests[i], errs[i])
		}
	}
	left, _ := os.ReadDir(filepath.Join(c.Dir, "tmp"))
	if len(left) != 0 {
		t.Errorf("scratch left behind: %v", left)
	}
}

func TestCorruptCacheIsRefetched(t *testing.T) {
	// A cached archive that no longer has its digest is not trusted.
	srvBody := tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n"}, 6)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(srvBody) }))
	defer srv.Close()
	env := &Env{HTTPClient: srv.Client()}
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "url", URL: srv.URL + "/r.tgz", SHA256: sum(srvBody)}}
	c := &Cache{Dir: t.TempDir()}
	e, err := c.Materialise(context.Background(), a, ".", env)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(e.Archive, []byte("garbage"), 0o644)
	again, err := c.Materialise(context.Background(), a, ".", env)
	if err != nil || again.FromCache || again.Digest != e.Digest {
		t.Fatalf("refetch: %+v %v", again, err)
	}
}
