package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

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
	// Limits are the bounds the archive was checked against before it was
	// cached (the source's limits over the defaults): pass them to every
	// extraction of Archive.
	Limits archive.Limits
}

// record is what sources/<key>.json holds.
type record struct {
	Source    task.Source `json:"source"`
	Top       string      `json:"top"`
	Digest    string      `json:"digest"`
	FetchedAt string      `json:"fetched_at"`
	// Manifest is a local source's [localManifest] when it was repacked,
	// and ArchiveStamp the archive file's [fileStamp] then: while both
	// still hold, the source is not read again.
	Manifest     string `json:"manifest,omitempty"`
	ArchiveStamp string `json:"archive_stamp,omitempty"`
}

// Path of the archive with digest d.
func (c *Cache) Path(d string) string {
	return filepath.Join(c.Dir, "state-a", d, ArchiveName)
}

// Materialise returns the State A of a: from the cache when this source
// was fetched before and its archive still has its digest (offline),
// otherwise fetched through the source's registry, repacked canonically
// and stored. A local source is repacked only when its [localManifest]
// (sizes, modes, times, inodes: no content read) differs from the one
// recorded at its last repack or its archive file is not the one written
// then; a repack that gives the bytes already cached leaves that file in
// place, and an unchanged record is not rewritten. The result is checked
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
	e := &Entry{Source: Describe(a.Source), Top: top, Limits: LimitsOf(s)}
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

	var manifest string
	if s.Kind != "local" {
		// A cached archive that differs from the task's pin is fetched
		// again before the mismatch is reported: the entry may come
		// from an srb whose fetcher for this kind made other bytes of
		// the same declaration, and only what the source serves now
		// may call the pin wrong.
		if d, ok := c.cached(key); ok && (a.SHA256 == "" || a.SHA256 == d) {
			e.Digest, e.Archive, e.FromCache = d, c.Path(d), true
			return e, check(e, a)
		}
	} else if m, err := localManifest(s.Path, e.Limits.MaxFiles); err == nil {
		// A local source is repacked only when what it is made of
		// changed (issue 17: a 79 MB tree took 19 s per validate).
		manifest = m
		if r, ok := c.readRecord(key); ok && r.Manifest == m && r.Digest != "" && r.ArchiveStamp != "" && r.ArchiveStamp == fileStamp(c.Path(r.Digest)) {
			e.Digest, e.Archive, e.FromCache = r.Digest, c.Path(r.Digest), true
			return e, check(e, a)
		}
	}
	digest, err := c.fetch(ctx, s, top, taskDir, env)
	if err != nil {
		return nil, err
	}
	e.Digest, e.Archive = digest, c.Path(digest)
	r := record{Source: s, Top: top, Digest: digest, Manifest: manifest}
	if manifest != "" {
		r.ArchiveStamp = fileStamp(e.Archive)
	}
	if old, ok := c.readRecord(key); ok && old.Source == r.Source && old.Top == r.Top && old.Digest == r.Digest &&
		old.Manifest == r.Manifest && old.ArchiveStamp == r.ArchiveStamp {
		return e, check(e, a) // the record already says so: not rewritten
	}
	r.FetchedAt = time.Now().UTC().Format(time.RFC3339)
	rec, _ := json.MarshalIndent(r, "", "  ")
	if err := writeAtomic(filepath.Join(c.Dir, "sources", key+".json"), append(rec, '\n')); err != nil {
		return nil, err
	}
	return e, check(e, a)
}

// readRecord reads sources/<key>.json.
func (c *Cache) readRecord(key string) (record, bool) {
	var r record
	b, err := os.ReadFile(filepath.Join(c.Dir, "sources", key+".json"))
	if err != nil || json.Unmarshal(b, &r) != nil {
		return record{}, false
	}
	return r, true
}

// fileStamp identifies one version of the file at path without reading
// it: size, mode, modification and change times, inode and device; ""
// when it cannot be stat'ed.
func fileStamp(path string) string {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return ""
	}
	return fmt.Sprintf("%o %d %d.%09d %d.%09d %d %d", st.Mode, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec, st.Ino, st.Dev)
}

func check(e *Entry, a task.StateA) error {
	if a.SHA256 != "" && a.SHA256 != e.Digest {
		return &MismatchError{Source: e.Source, Want: a.SHA256, Got: e.Digest}
	}
	return nil
}

// cached returns the digest recorded for key when its archive is present
// and still has that digest (digested once per archive file and srb
// build, [archive.Derived]).
func (c *Cache) cached(key string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.Dir, "sources", key+".json"))
	if err != nil {
		return "", false
	}
	var r record
	if json.Unmarshal(b, &r) != nil || r.Digest == "" {
		return "", false
	}
	// The digest of this very archive file (archive.Derived: same size,
	// times, inode) is kept beside it, so a cached archive is decoded
	// once per srb build, not on every fetch; any write to the file moves
	// its ctime and has it digested again.
	path := c.Path(r.Digest)
	d, err := archive.Derived(path, "digest", func() (string, error) {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return archive.DigestTarGz(f)
	})
	if err != nil || d != r.Digest {
		return "", false // corrupt or altered: fetch again
	}
	return r.Digest, true
}

// fetch runs the kind's fetcher into scratch space, repacks what it left,
// checks that srb can unpack the repacked archive within the source's
// limits ([archive.CheckFile]), and only then moves it into place: a
// refused or mismatched download leaves nothing in the cache.
func (c *Cache) fetch(ctx context.Context, s task.Source, top, taskDir string, env *Env) (string, error) {
	f, ok := fetchers[s.Kind]
	if !ok {
		return "", fmt.Errorf("fetch: unknown source kind %q", s.Kind)
	}
	work, err := os.MkdirTemp(filepath.Join(c.Dir, "tmp"), "fetch-")
	if err != nil {
		return "", fmt.Errorf("fetch: %w", err)
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
		return "", err
	}
	if err := f(ctx, s, taskDir, tree, &local); err != nil {
		var mm *MismatchError
		if errors.As(err, &mm) {
			return "", err
		}
		return "", fmt.Errorf("fetch %s: %w", Describe(s), err)
	}
	root := archive.SingleTop(tree)
	tmp, err := os.CreateTemp(filepath.Join(c.Dir, "tmp"), "original-*.tar.gz")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	digest, err := archive.Repack(tmp, root, top)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("repack %s: %w", Describe(s), err)
	}
	if err := archive.CheckFile(tmp.Name(), LimitsOf(s)); err != nil {
		return "", fmt.Errorf("repack %s: srb could not unpack the repacked archive: %w", Describe(s), err)
	}
	dst := c.Path(digest)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if sameFile(tmp.Name(), dst) {
		// Already cached, byte for byte: the file (and what was derived
		// from it beside it, archive.Derived) stays as it is.
		return digest, nil
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	return digest, nil
}

// sameFile reports whether the files at a and b hold the same bytes.
func sameFile(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() || !sb.Mode().IsRegular() {
		return false
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}

// writeAtomic writes a cache record ([archive.WriteFileAtomic], 0644).
func writeAtomic(path string, data []byte) error {
	return archive.WriteFileAtomic(path, data, 0o644)
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
