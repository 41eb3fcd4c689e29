package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// ArchiveName is the file name of a repacked State A in the cache.
const ArchiveName = "original.tar.gz"

// Cache is srb's content-addressed store of State A archives:
//
//	<Dir>/state-a/<digest>/original.tar.gz   canonical archive, by digest
//	<Dir>/sources/<key>.json                 which digest a source gave
//	<Dir>/locks/<key>.lock                   one fetch per source at a time
//	<Dir>/tmp/                               scratch, same file system
//
// Writes are atomic (rename), and a source is fetched under an exclusive
// file lock, so two processes fetching the same source at once are safe:
// the second waits and then finds the first one's result.
type Cache struct {
	Dir string
}

// DefaultCacheDir is $SRB_CACHE when set, else <user cache dir>/srb.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("SRB_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: no user cache dir (set SRB_CACHE): %w", err)
	}
	return filepath.Join(d, "srb"), nil
}

// Entry is a materialised State A.
type Entry struct {
	Source    string // the source, described
	Top       string // the canonical tar's top-level folder
	Digest    string // hex sha256 of the canonical uncompressed tar
	Archive   string // path of original.tar.gz in the cache
	FromCache bool   // true when no registry was contacted
}

// record is what sources/<key>.json holds.
type record struct {
	Source    task.Source `json:"source"`
	Top       string      `json:"top"`
	Digest    string      `json:"digest"`
	FetchedAt string      `json:"fetched_at"`
}

// Path of the archive with digest d.
func (c *Cache) Path(d string) string {
	return filepath.Join(c.Dir, "state-a", d, ArchiveName)
}

// Materialise returns the State A of a: from the cache when this source
// was fetched before and its archive still has its digest (offline),
// otherwise fetched through the source's registry, repacked canonically
// and stored. Local sources are always re-read. The result is checked
// against a.SHA256 when the task pins one: a difference is a
// *MismatchError. taskDir resolves local paths.
func (c *Cache) Materialise(ctx context.Context, a task.StateA, taskDir string, env *Env) (*Entry, error) {
	s := a.Source
	if s.Kind == "local" {
		abs, err := filepath.Abs(resolveLocal(taskDir, s.Path))
		if err != nil {
			return nil, err
		}
		s.Path = abs
	}
	top := Top(a)
	key := Key(s, top)
	e := &Entry{Source: Describe(a.Source), Top: top}
	for _, d := range []string{"state-a", "sources", "locks", "tmp"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
	}
	unlock, err := lockFile(filepath.Join(c.Dir, "locks", key+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()

	if s.Kind != "local" {
		if d, ok := c.cached(key); ok {
			e.Digest, e.Archive, e.FromCache = d, c.Path(d), true
			return e, check(e, a)
		}
	}
	fetchErr, digest, err := c.fetch(ctx, s, top, taskDir, env)
	if err != nil {
		return nil, err
	}
	e.Digest, e.Archive = digest, c.Path(digest)
	var bm *bytesMismatch
	if errors.As(fetchErr, &bm) {
		return e, urlMismatch(e, a, bm)
	}
	if fetchErr != nil {
		return nil, fetchErr
	}
	rec, _ := json.MarshalIndent(record{Source: s, Top: top, Digest: digest, FetchedAt: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
	if err := writeAtomic(filepath.Join(c.Dir, "sources", key+".json"), append(rec, '\n')); err != nil {
		return nil, err
	}
	return e, check(e, a)
}

func check(e *Entry, a task.StateA) error {
	if a.SHA256 != "" && a.SHA256 != e.Digest {
		return &MismatchError{Source: e.Source, Want: a.SHA256, Got: e.Digest}
	}
	return nil
}

func urlMismatch(e *Entry, a task.StateA, bm *bytesMismatch) error {
	detail := fmt.Sprintf("the downloaded bytes have sha256 %s, not the pinned %s", bm.got, bm.want)
	switch {
	case a.SHA256 != "" && a.SHA256 == e.Digest:
		detail += "; the unpacked content still matches the State A pin, so the server recompressed the same release: re-pin source.sha256 knowingly"
	case a.SHA256 != "":
		detail += fmt.Sprintf("; the unpacked content does not match the State A pin either (canonical sha256 %s): a different release or tampering", e.Digest)
	default:
		detail += "; State A is not pinned, so nothing says whether the content changed"
	}
	want := a.SHA256
	if want == "" {
		want = "(none)"
	}
	return &MismatchError{Source: e.Source, Want: want, Got: e.Digest, Detail: detail}
}

// cached returns the digest recorded for key when its archive is present
// and still has that digest.
func (c *Cache) cached(key string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.Dir, "sources", key+".json"))
	if err != nil {
		return "", false
	}
	var r record
	if json.Unmarshal(b, &r) != nil || r.Digest == "" {
		return "", false
	}
	f, err := os.Open(c.Path(r.Digest))
	if err != nil {
		return "", false
	}
	defer f.Close()
	d, err := archive.DigestTarGz(f)
	if err != nil || d != r.Digest {
		return "", false // corrupt or altered: fetch again
	}
	return r.Digest, true
}

// fetch runs the kind's fetcher into scratch space, repacks what it left
// and moves the archive into place. It returns the fetcher's non-fatal
// error (a url byte mismatch) separately from fatal ones.
func (c *Cache) fetch(ctx context.Context, s task.Source, top, taskDir string, env *Env) (error, string, error) {
	f, ok := fetchers[s.Kind]
	if !ok {
		return nil, "", fmt.Errorf("fetch: unknown source kind %q", s.Kind)
	}
	work, err := os.MkdirTemp(filepath.Join(c.Dir, "tmp"), "fetch-")
	if err != nil {
		return nil, "", fmt.Errorf("fetch: %w", err)
	}
	defer os.RemoveAll(work)
	if env == nil {
		env = &Env{}
	}
	local := *env
	if local.Work == "" {
		local.Work = work
	}
	tree := filepath.Join(work, "tree")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return nil, "", err
	}
	fetchErr := f(ctx, s, taskDir, tree, &local)
	var bm *bytesMismatch
	if fetchErr != nil && !errors.As(fetchErr, &bm) {
		return nil, "", fmt.Errorf("fetch %s: %w", Describe(s), fetchErr)
	}
	root := archive.SingleTop(tree)
	tmp, err := os.CreateTemp(filepath.Join(c.Dir, "tmp"), "original-*.tar.gz")
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(tmp.Name())
	digest, err := archive.Repack(tmp, root, top)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", fmt.Errorf("repack %s: %w", Describe(s), err)
	}
	dst := c.Path(digest)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return nil, "", fmt.Errorf("cache: %w", err)
	}
	return fetchErr, digest, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// lockFile takes an exclusive flock on path, creating it; the returned
// func releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cache: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("cache: lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
