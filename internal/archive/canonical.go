package archive

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// CanonicalUnixTime is the modification time, in seconds since the Unix epoch, of every
// entry of a canonical tar: 0, that is 1970-01-01T00:00:00Z. Changing it moves every pin.
const CanonicalUnixTime = 0

// RepackLevel is the gzip level of original.tar.gz. It is fixed so that one srb build
// writes the same bytes every time, but pins never depend on it: they are digests of the
// uncompressed tar. BestSpeed keeps pinning near the I/O limit (BenchmarkRepackDigest).
const RepackLevel = gzip.BestSpeed

// repackOS is the OS byte of the gzip header: 255, "unknown", whatever the host.
const repackOS = 255

// WriteCanonical writes the canonical uncompressed tar of the tree at root to w, and
// returns the hex sha256 of exactly the bytes written (issue #3: the State A digest).
//
// Every entry sits under the one top-level folder top (a single path component such as
// "libsodium-1.0.18"), whose own entry comes first. Entries are sorted bytewise by their
// slash-separated path relative to root; directories are included (empty ones too) and
// end in "/". Modes are 0755 for directories and for files with any execute bit, else
// 0644; uid and gid are 0, uname and gname empty, the mtime is [CanonicalUnixTime], the
// format is tar.FormatPAX with no atime or ctime, so a PAX record appears only when a
// name or link target does not fit ustar (long or non-ASCII). Symlinks are kept as they
// are; one whose target is absolute or leaves the tree, lexically or through other links,
// is an *[EntryError] matching [ErrLink]. A name with a backslash is refused
// ([ErrUnsafePath]) because [Extract] would refuse it: every pin can be unpacked. Hard links
// are written as ordinary files. Devices, FIFOs and sockets are refused ([ErrSpecialFile]).
// File mtimes, the umask and the order files were created in do not change the output.
func WriteCanonical(w io.Writer, root, top string) (digest string, err error) {
	if err := checkTop(top); err != nil {
		return "", err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", fmt.Errorf("canonical: %w", err)
	}
	defer r.Close()
	var paths []string
	if err := walk(r, "", &paths); err != nil {
		return "", err
	}
	slices.Sort(paths)
	dirs := &dirStack{top: r}
	defer dirs.close()

	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 64<<10)
	tw := tar.NewWriter(bw)
	if err := tw.WriteHeader(canonicalHeader(tar.TypeDir, top+"/", 0o755)); err != nil {
		return "", fmt.Errorf("canonical: %w", err)
	}
	for _, p := range paths {
		if err := writeEntry(tw, r, dirs, top, p); err != nil {
			var ee *EntryError
			if errors.As(err, &ee) {
				return "", err
			}
			return "", &EntryError{Op: "canonical", Entry: p, Err: err}
		}
	}
	if err := tw.Close(); err != nil {
		return "", fmt.Errorf("canonical: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("canonical: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func checkTop(top string) error {
	if top == "" || top == "." || top == ".." || strings.ContainsAny(top, "/\\\x00") {
		return fmt.Errorf("canonical: top folder %q: %w: must be one path component", top, ErrUnsafePath)
	}
	return nil
}

// walk appends every path below dir (relative to the root, slash-separated) to paths.
// Each folder is read through a root opened on it from its parent's (one path
// component per open, never the whole path from the top; issue 17 counted 113,077
// openat for 8,683 files the other way).
func walk(r *os.Root, dir string, paths *[]string) error {
	name := dir
	if name == "" {
		name = "."
	}
	f, err := r.Open(".")
	if err != nil {
		return &EntryError{Op: "canonical", Entry: name, Err: err}
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return &EntryError{Op: "canonical", Entry: name, Err: err}
	}
	for _, e := range ents {
		p := e.Name()
		if dir != "" {
			p = dir + "/" + p
		}
		*paths = append(*paths, p)
		if e.IsDir() {
			sub, err := r.OpenRoot(e.Name())
			if err != nil {
				return &EntryError{Op: "canonical", Entry: p, Err: err}
			}
			err = walk(sub, p, paths)
			sub.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// dirStack holds a root opened on each folder from the top down to the one
// holding the current entry. Sorted paths visit each folder's entries in one
// contiguous run, so the stack only ever grows by the next folder down or
// shrinks back to a common ancestor: every open is of one path component.
type dirStack struct {
	top   *os.Root
	names []string   // folder path components, outermost first
	roots []*os.Root // roots[i] is opened on names[:i+1]
}

// in returns the root of folder dir ("" for the top), opening what it must.
func (d *dirStack) in(dir string) (*os.Root, error) {
	var want []string
	if dir != "" {
		want = strings.Split(dir, "/")
	}
	keep := 0
	for keep < len(d.names) && keep < len(want) && d.names[keep] == want[keep] {
		keep++
	}
	for len(d.roots) > keep {
		d.roots[len(d.roots)-1].Close()
		d.roots = d.roots[:len(d.roots)-1]
		d.names = d.names[:len(d.names)-1]
	}
	for _, c := range want[keep:] {
		parent := d.top
		if n := len(d.roots); n > 0 {
			parent = d.roots[n-1]
		}
		sub, err := parent.OpenRoot(c)
		if err != nil {
			return nil, err
		}
		d.roots = append(d.roots, sub)
		d.names = append(d.names, c)
	}
	if n := len(d.roots); n > 0 {
		return d.roots[n-1], nil
	}
	return d.top, nil
}

func (d *dirStack) close() {
	for _, r := range d.roots {
		r.Close()
	}
	d.roots, d.names = nil, nil
}

func canonicalHeader(typ byte, name string, mode int64) *tar.Header {
	return &tar.Header{
		Typeflag: typ,
		Name:     name,
		Mode:     mode,
		ModTime:  time.Unix(CanonicalUnixTime, 0),
		Format:   tar.FormatPAX,
	}
}

func writeEntry(tw *tar.Writer, r *os.Root, dirs *dirStack, top, p string) error {
	dir, base := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, base = p[:i], p[i+1:]
	}
	in, err := dirs.in(dir)
	if err != nil {
		return err
	}
	fi, err := in.Lstat(base)
	if err != nil {
		return err
	}
	if strings.ContainsAny(p, "\\\x00") {
		// Extract refuses such a name, so a pin must not contain one.
		return reason(ErrUnsafePath, "path contains a backslash")
	}
	name := top + "/" + p
	m := fi.Mode()
	switch {
	case m.IsDir():
		return tw.WriteHeader(canonicalHeader(tar.TypeDir, name+"/", 0o755))
	case m&fs.ModeSymlink != 0:
		target, err := r.Readlink(p)
		if err != nil {
			return err
		}
		if err := lexicalLink(p, target); err != nil {
			return err
		}
		if err := checkLink(r, p); err != nil {
			return err
		}
		hdr := canonicalHeader(tar.TypeSymlink, name, 0o777)
		hdr.Linkname = target
		return tw.WriteHeader(hdr)
	case m.IsRegular():
		hdr := canonicalHeader(tar.TypeReg, name, int64(normMode(m)))
		hdr.Size = fi.Size()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		f, err := in.Open(base)
		if err != nil {
			return err
		}
		defer f.Close()
		n, err := io.CopyN(tw, f, fi.Size())
		if err == io.EOF || (err == nil && n != fi.Size()) {
			return fmt.Errorf("file changed while being read (%d of %d bytes)", n, fi.Size())
		}
		return err
	case m&fs.ModeDevice != 0:
		return reason(ErrSpecialFile, "device file")
	case m&fs.ModeNamedPipe != 0:
		return reason(ErrSpecialFile, "FIFO")
	case m&fs.ModeSocket != 0:
		return reason(ErrSpecialFile, "socket")
	}
	return reason(ErrSpecialFile, "file of mode %v", m)
}

// Repack writes original.tar.gz to w: the canonical tar of [WriteCanonical] as one gzip
// member at [RepackLevel], with no name, no mtime and OS byte 255, its deflate stream
// compressed in parallel in 1 MiB blocks (each primed with the previous block's last
// 32 KiB, ended by a sync flush), so the bytes depend only on the tree, never on the
// number of CPUs. It returns the digest of the canonical uncompressed tar, the same one
// WriteCanonical returns for root and top. Any gzip reader reads the output.
func Repack(w io.Writer, root, top string) (digest string, err error) {
	zw := newParallelGzip(w, RepackLevel)
	digest, err = WriteCanonical(zw, root, top)
	if err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("repack: %w", err)
	}
	return digest, nil
}

// DigestTarGz returns the hex sha256 of the uncompressed contents of a gzip stream (a
// cached original.tar.gz), so a pin is verified without unpacking and whatever gzip level
// or version compressed it. Errors are gzip's (corrupt data, bad checksum).
func DigestTarGz(r io.Reader) (string, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return "", fmt.Errorf("digest: gzip: %w", err)
	}
	defer zr.Close()
	h := sha256.New()
	if err := copyHash(h, zr); err != nil {
		return "", fmt.Errorf("digest: gzip: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyHash(h hash.Hash, r io.Reader) error {
	buf := make([]byte, 256<<10)
	_, err := io.CopyBuffer(h, r, buf)
	return err
}
