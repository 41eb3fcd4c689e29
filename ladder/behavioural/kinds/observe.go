package kinds

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ObservedBytesLimit bounds what the grader keeps of anything the
// submission's processes produced: one case's stdout, one case's stderr
// (see [cappedBuffer]), and one file read back from a folder they wrote (a
// produced file, a digests module's file, a file of an install tree, a
// build's tool log): 16 MiB. More is a failed observation of that check
// ("more than 16777216 bytes"), charged to the submission, never an
// unbounded read or buffer of the grader's.
const ObservedBytesLimit = 16 << 20

// errNotRegular is wrapped when a file the grader reads from a folder the
// submission wrote is not a regular file (a link, a FIFO, a device, a
// socket, a folder) or changed between its Lstat and its open.
var errNotRegular = errors.New("not a regular file")

// errTooLarge is wrapped when such a file holds more than
// [ObservedBytesLimit] bytes.
var errTooLarge = fmt.Errorf("more than %d bytes", ObservedBytesLimit)

// openObserved opens p, a file in a folder the submission's processes
// could write, the one way the root helper reads such a file: Lstat'ed
// first and refused unless it is a regular file (a symbolic link is never
// followed: it is observed as a link), opened O_RDONLY|O_NOFOLLOW|
// O_NONBLOCK (a FIFO put in its place after the Lstat cannot block the
// open), then Fstat'ed to be that same regular file, and refused when it
// is larger than limit bytes. Errors: fs.ErrNotExist when p is missing;
// errNotRegular (naming what p is) or errTooLarge otherwise; the file is
// open only when the error is nil.
func openObserved(p string, limit int64) (*os.File, error) {
	lst, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !lst.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", errNotRegular, typeName(lst.Mode()))
	}
	if lst.Size() > limit {
		return nil, errTooLarge
	}
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w: a symbolic link", errNotRegular)
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	f := os.NewFile(uintptr(fd), p)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(st, lst) {
		f.Close()
		return nil, fmt.Errorf("%w: it changed while it was opened", errNotRegular)
	}
	if st.Size() > limit {
		f.Close()
		return nil, errTooLarge
	}
	return f, nil
}

// readObserved returns the bytes of p under [openObserved]'s rules, at
// most limit of them: a file that grows past limit while it is read is
// errTooLarge.
func readObserved(p string, limit int64) ([]byte, error) {
	f, err := openObserved(p, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// typeName names a file's type for an observation: "a symbolic link",
// "a named pipe", "a socket", "a device", "a folder" or "an irregular file".
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "an irregular file"
}

// fileDigest observes the file at p, which the submission's processes
// wrote: "sha256:<hex>" of its bytes, "missing", "symlink -> <target>"
// (a link is observed as a link, never followed), or "not a regular
// file: …" / "unreadable: more than N bytes" / "unreadable: …" — each of
// which differs from any digest, so the check fails, charged to the
// submission. It never blocks on a FIFO nor reads past
// [ObservedBytesLimit].
func fileDigest(p string) string {
	f, err := openObserved(p, ObservedBytesLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, errNotRegular):
		if t, lerr := os.Readlink(p); lerr == nil {
			return "symlink -> " + t
		}
		return err.Error()
	case err != nil:
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, ObservedBytesLimit+1))
	if err != nil {
		return "unreadable: " + err.Error()
	}
	if n > ObservedBytesLimit {
		return "unreadable: " + errTooLarge.Error()
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// fileDigestUnder is [fileDigest] of p, a path at or below dir (a folder
// the submission's processes wrote): a folder on the way from dir to p
// that is a symbolic link is not followed either ("not a regular file: a
// symbolic link on the way, <rel>"), so nothing outside dir is read. A p
// outside dir is [fileDigest]'s.
func fileDigestUnder(dir, p string) string {
	dir, p = filepath.Clean(dir), filepath.Clean(p)
	rel, err := filepath.Rel(dir, p)
	if err != nil || !within(dir, p) {
		return fileDigest(p)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	cur := dir
	for i, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if err != nil {
			return "missing"
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Sprintf("%v: a symbolic link on the way (%s)", errNotRegular, filepath.ToSlash(filepath.Join(parts[:i+1]...)))
		}
	}
	return fileDigest(p)
}

// cappedBuffer is the stdout or stderr of a case: it keeps the first
// [ObservedBytesLimit] bytes and reads the rest to EOF without keeping it
// (the case is never blocked on a full pipe; its timeout still bounds
// it), counting every byte and hashing all of them, so an output over the
// cap is still observed exactly enough to compare: [cappedBuffer.text].
type cappedBuffer struct {
	buf bytes.Buffer
	n   int64
	h   hash.Hash
}

func newCappedBuffer() *cappedBuffer { return &cappedBuffer{h: sha256.New()} }

// Write keeps what fits under the cap and never fails.
func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	c.h.Write(p)
	if room := ObservedBytesLimit - int64(c.buf.Len()); room > 0 {
		c.buf.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}

// over reports whether more than the cap was written.
func (c *cappedBuffer) over() bool { return c.n > ObservedBytesLimit }

// overText is the observation of an output past the cap: "more than N
// bytes (M bytes, sha256:<hex>)", equal only to the same output.
func (c *cappedBuffer) overText() string {
	return fmt.Sprintf("%s (%d bytes, sha256:%s)", errTooLarge.Error(), c.n, hex.EncodeToString(c.h.Sum(nil)))
}

// maxLinkHops bounds the links [resolveWithin] follows.
const maxLinkHops = 16

// resolveWithin returns the path of rel (slash-separated, relative to
// root) with every symbolic link on the way resolved, as long as each
// target stays inside root: a library named by its development link
// (libfoo.so -> libfoo.so.1.2.3) is read from the file it names, while a
// link out of the tree (to /dev/zero, to a FIFO in the submission's
// tmp) is refused. Errors wrap errNotRegular for a link that leaves root
// or passes maxLinkHops; a missing component is the Lstat's error.
func resolveWithin(root, rel string) (string, error) {
	root = filepath.Clean(root)
	todo := strings.Split(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), "/")
	cur, hops := root, 0
	for len(todo) > 0 {
		part := todo[0]
		todo = todo[1:]
		if part == "" || part == "." {
			continue
		}
		next := filepath.Join(cur, part)
		if !within(root, next) {
			return "", fmt.Errorf("%w: %s leaves the build's tree", errNotRegular, rel)
		}
		info, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("%w: more than %d links on the way to %s", errNotRegular, maxLinkHops, rel)
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(t) {
			r, err := filepath.Rel(root, filepath.Clean(t))
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", fmt.Errorf("%w: %s links out of the build's tree (%s)", errNotRegular, rel, t)
			}
			cur, t = root, r
		}
		todo = append(strings.Split(filepath.ToSlash(t), "/"), todo...)
	}
	return cur, nil
}

// within reports whether p (clean) is root or below it.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// cappedWriter passes the first left bytes written to w and drops the
// rest, never failing: a log of the submission's output that cannot grow
// without bound. It is used by one goroutine at a time (exec copies a
// shared stdout and stderr writer under one lock).
type cappedWriter struct {
	w    io.Writer
	left int64
}

// Write passes what fits and reports every byte written.
func (c *cappedWriter) Write(p []byte) (int, error) {
	if c.left > 0 {
		n := min(int64(len(p)), c.left)
		c.left -= n
		_, _ = c.w.Write(p[:n])
	}
	return len(p), nil
}
