package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/archive"
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
	l, _ := Files(e.Archive)
	if files := l.Entries; strings.Join(files, " ") != "LICENSE Makefile README tally.c" {
		t.Errorf("files %v", l.Entries)
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

	// The server recompressed the same release, or tampered with it: either way the
	// bytes differ from the pin, which is checked before anything is unpacked.
	for _, body := range [][]byte{recompressed, tampered} {
		serve = body
		c := &Cache{Dir: t.TempDir()}
		_, err = c.Materialise(context.Background(), a, ".", env)
		var mm *MismatchError
		if !errors.As(err, &mm) || !mm.Bytes || mm.Got != sum(body) || !strings.Contains(err.Error(), "nothing was unpacked or cached") {
			t.Errorf("changed bytes: %v", err)
		}
		assertNothingCached(t, c)
	}
}

// assertNothingCached fails when c holds an archive, a source record or
// scratch.
func assertNothingCached(t *testing.T, c *Cache) {
	t.Helper()
	for _, d := range []string{"state-a", "sources", "tmp"} {
		if ents, _ := os.ReadDir(filepath.Join(c.Dir, d)); len(ents) != 0 {
			t.Errorf("%s/ holds %v after a refused download", d, ents)
		}
	}
}

// TestURLDownloadBounded (issue 15): a url source's download has a size bound
// (the source's max_bytes), is hashed before it is unpacked, and leaves nothing
// in the cache when refused. The server runs on 127.0.0.1.
func TestURLDownloadBounded(t *testing.T) {
	var sent atomic.Int64
	mode := ""
	hostile := tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n"}, 6)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "endless": // no Content-Length: an endless stream of zeros
			buf := make([]byte, 32<<10)
			for {
				n, err := w.Write(buf)
				sent.Add(int64(n))
				if err != nil || sent.Load() > 64<<20 {
					return
				}
			}
		case "declared": // a Content-Length past the bound
			w.Header().Set("Content-Length", "3000000")
			w.Write(make([]byte, 3000000))
		case "hostile":
			w.Write(hostile)
		}
	}))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("server at %s, want 127.0.0.1", srv.URL)
	}
	env := &Env{HTTPClient: srv.Client()}
	src := task.Source{Kind: "url", URL: srv.URL + "/r.tgz", SHA256: strings.Repeat("a", 64), Limits: &task.SourceLimits{MaxBytes: 1 << 20}}
	a := task.StateA{Project: "rel", Version: "1.0", Source: src}

	for _, m := range []string{"endless", "declared"} {
		mode = m
		sent.Store(0)
		c := &Cache{Dir: t.TempDir()}
		_, err := c.Materialise(context.Background(), a, ".", env)
		if !errors.Is(err, archive.ErrTooLarge) || !strings.Contains(err.Error(), "larger than 1048576 bytes (state_a.source.limits.max_bytes)") {
			t.Errorf("%s: error = %v, want the download refused at 1 MiB", m, err)
		}
		if m == "endless" && sent.Load() > 8<<20 {
			t.Errorf("endless: the server sent %d bytes before srb stopped reading", sent.Load())
		}
		assertNothingCached(t, c)
	}
	// A bad archive under a wrong pin: the pin is checked first, so the error is the
	// mismatch and no unpacking happened.
	mode = "hostile"
	c := &Cache{Dir: t.TempDir()}
	_, err := c.Materialise(context.Background(), a, ".", env)
	var mm *MismatchError
	if !errors.As(err, &mm) || !mm.Bytes {
		t.Errorf("hostile under a wrong pin: %v, want the byte mismatch", err)
	}
	assertNothingCached(t, c)
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
	l, _ := Files(e.Archive)
	if files := l.Entries; strings.Join(files, " ") != "x.txt" {
		t.Errorf("files %v", l.Entries)
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

// bombTarGz is issue 15's archive: one file of size bytes of zeros under
// top/ and n hard links to it.
func bombTarGz(t *testing.T, top string, size, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: top + "/big", Mode: 0o644, Size: int64(size), Typeflag: tar.TypeReg})
	tw.Write(make([]byte, size))
	for i := range n {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("%s/l%02d", top, i), Linkname: top + "/big", Mode: 0o644, Typeflag: tar.TypeLink})
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestCheckLocalStateA (issue 15): a pinned local State A swapped for a
// hostile archive, or for bytes that are no archive, is a problem of
// srb validate naming the file and state_a.source.path, not a note.
func TestCheckLocalStateA(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string][]byte{
		"bomb.tar.gz": bombTarGz(t, "tally-1.0", 4<<20, 99),
		"junk.tar.gz": []byte("not an archive\n"),
		"climb.tar.gz": func() []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			tw.WriteHeader(&tar.Header{Name: "../../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
			tw.Write([]byte("x"))
			tw.Close()
			zw.Close()
			return buf.Bytes()
		}(),
	} {
		os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	for name, want := range map[string]string{
		"bomb.tar.gz":  "Limits.MaxRatio",
		"junk.tar.gz":  "unrecognised archive format",
		"climb.tar.gz": `entry "../../evil": path escapes the root`,
	} {
		tk := &task.Task{ID: "x", Dir: dir, File: filepath.Join(dir, "task.cue"), StateA: task.StateA{
			Project: "tally", Version: "1.0", SHA256: tallyDigest, Source: task.Source{Kind: "local", Path: name},
		}}
		c := &Cache{Dir: t.TempDir()}
		ps, _ := Check(context.Background(), tk, c)
		if len(ps) != 1 || ps[0].Rule != RuleReadable || ps[0].Path != "state_a.source.path" || ps[0].File != tk.File ||
			!strings.Contains(ps[0].Msg, "State A at "+name+" can no longer be read") || !strings.Contains(ps[0].Msg, want) {
			t.Errorf("%s: problems %+v, want one %s at state_a.source.path mentioning %q", name, ps, RuleReadable, want)
		}
		assertNothingCached(t, c)
	}
}

// TestRepackMustUnpack: fetch never caches (so --pin never pins) an archive
// srb could not unpack within the source's limits. A local folder of 4 MiB
// of zeros repacks to a few KiB; under max_ratio 1 srb could not unpack
// it, so it is refused before it reaches the cache.
func TestRepackMustUnpack(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "rel-1.0"), 0o755)
	os.WriteFile(filepath.Join(dir, "rel-1.0", "zeros"), make([]byte, 4<<20), 0o644)
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "local", Path: filepath.Join(dir, "rel-1.0"), Limits: &task.SourceLimits{MaxRatio: 1}}}
	c := &Cache{Dir: t.TempDir()}
	_, err := c.Materialise(context.Background(), a, ".", nil)
	if !errors.Is(err, archive.ErrTooLarge) || !strings.Contains(err.Error(), "srb could not unpack the repacked archive") {
		t.Fatalf("error = %v, want the repack refused", err)
	}
	assertNothingCached(t, c)
	// The same folder under the defaults is fine, and its entry carries the limits
	// every later extraction uses.
	a.Source.Limits = nil
	e, err := c.Materialise(context.Background(), a, ".", nil)
	if err != nil || e.Limits != archive.DefaultLimits() {
		t.Fatalf("defaults: %+v, %v", e, err)
	}
	// A folder whose hard links copy past max_bytes is refused while copying.
	os.Link(filepath.Join(dir, "rel-1.0", "zeros"), filepath.Join(dir, "rel-1.0", "zeros2"))
	a.Source.Limits = &task.SourceLimits{MaxBytes: 6 << 20}
	if _, err := (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", nil); !errors.Is(err, archive.ErrTooLarge) || !strings.Contains(err.Error(), "state_a.source.limits.max_bytes") {
		t.Errorf("hard-linked folder: %v, want max_bytes", err)
	}
}

// TestStaleCacheEntryFetchedAgain: a cached archive whose digest is not
// the task's pin (made by an srb whose fetcher for the kind gave other
// bytes for the same declaration) is fetched again rather than reported
// as the pin's mismatch; a pin that what the source serves now does not
// match either is still a mismatch, naming what was fetched now.
func TestStaleCacheEntryFetchedAgain(t *testing.T) {
	body := tarGz(t, "rel-1.0", map[string]string{"a.txt": "a\n"}, gzip.DefaultCompression)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	env := &Env{HTTPClient: srv.Client()}
	c := &Cache{Dir: t.TempDir()}
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "url", URL: srv.URL + "/rel-1.0.tar.gz", SHA256: sum(body)}}

	// An older fetcher of the kind: it left one more file in the tree.
	current := fetchers["url"]
	fetchers["url"] = func(ctx context.Context, s task.Source, taskDir, dir string, env *Env) error {
		if err := current(ctx, s, taskDir, dir, env); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "rel-1.0", "extra.txt"), []byte("older fetcher\n"), 0o644)
	}
	stale, err := c.Materialise(context.Background(), a, ".", env)
	fetchers["url"] = current
	if err != nil {
		t.Fatal(err)
	}

	fresh, err := (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", env)
	if err != nil || fresh.Digest == stale.Digest {
		t.Fatalf("fresh fetch: %v, digest %s (the stale one is %s)", err, fresh.Digest, stale.Digest)
	}
	a.SHA256 = fresh.Digest
	got, err := c.Materialise(context.Background(), a, ".", env)
	if err != nil || got.FromCache || got.Digest != fresh.Digest {
		t.Fatalf("pinned to what is served now: %v, %+v", err, got)
	}
	if again, err := c.Materialise(context.Background(), a, ".", env); err != nil || !again.FromCache || again.Digest != fresh.Digest {
		t.Fatalf("second run: %v, %+v: want the refetched entry from the cache", err, again)
	}

	a.SHA256 = strings.Repeat("0", 64)
	_, err = c.Materialise(context.Background(), a, ".", env)
	var mm *MismatchError
	if !errors.As(err, &mm) || mm.Got != fresh.Digest {
		t.Fatalf("a pin nothing matches: %v", err)
	}
}
