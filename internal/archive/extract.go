package archive

import (
	"archive/tar"
	"archive/zip"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ulikunitz/xz"
)

// Limits bound what an extraction writes. Zero (or negative) fields mean the defaults of
// [DefaultLimits]. Every bound is checked before the bytes it counts are written, so a
// refused archive never writes past one.
type Limits struct {
	// MaxBytes bounds the total size, in bytes, of the files' contents once unpacked,
	// counting every hard link's bytes in full (srb's canonical tar, and every copy of
	// the tree, holds each link as a file of its own). Exceeding it is [ErrTooLarge];
	// a gzip bomb stops here. Default 4 GiB. A url source's download is bounded by it too.
	MaxBytes int64
	// MaxFiles bounds the number of entries (files, directories, links). Exceeding it is
	// [ErrTooManyFiles]. Default 500000.
	MaxFiles int
	// MaxRatio bounds the expansion: the files' contents (hard links counted in full) may
	// not exceed MaxRatio times the archive bytes read so far, or MaxRatio MiB for an
	// archive smaller than [RatioFloor]. Exceeding it is [ErrTooLarge] (its message says
	// Limits.MaxRatio). Default 200: source releases expand 3 to 20 times; 2 GiB of
	// zeros from 2 MB (1000 times) stops after 400 MiB.
	MaxRatio int64
}

// RatioFloor is the archive size, in bytes (1 MiB), below which [Limits.MaxRatio] is
// taken of RatioFloor instead: a tiny archive may always unpack to MaxRatio MiB.
const RatioFloor = 1 << 20

// DefaultLimits returns 4 GiB, 500000 entries and an expansion ratio of 200.
func DefaultLimits() Limits { return Limits{MaxBytes: 4 << 30, MaxFiles: 500000, MaxRatio: 200} }

// WithDefaults returns l with each zero (or negative) field replaced by its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = d.MaxRatio
	}
	return l
}

// allowed is how many bytes of contents an archive of which in bytes were read may
// unpack to under the ratio (saturating, never overflowing).
func (l Limits) allowed(in int64) int64 {
	in = max(in, RatioFloor)
	if in > (1<<63-1)/l.MaxRatio {
		return 1<<63 - 1
	}
	return in * l.MaxRatio
}

// ExtractFile safely unpacks the archive at path into dir, whatever its [Format] (detected
// from content by [Detect]). dir is created if absent and must otherwise be an empty
// directory ([ErrNotEmpty]). All writes go through an [os.Root] at dir. On any error the
// partial contents are removed (and dir too, if ExtractFile created it). A refusal is an
// *[EntryError] that names the entry and matches one of the package's sentinels.
func ExtractFile(path, dir string, lim Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer f.Close()
	format, err := Detect(f)
	if err != nil {
		return fmt.Errorf("extract %s: %w", path, err)
	}
	if format == FormatZip {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		return ExtractZip(f, fi.Size(), dir, lim)
	}
	return Extract(f, format, dir, lim)
}

// Extract safely unpacks a tar stream, compressed as format says, into dir, with the same
// rules as [ExtractFile]. A zip needs random access: use [ExtractZip] for it (Extract
// returns an error matching [ErrFormat]).
func Extract(r io.Reader, format Format, dir string, lim Limits) error {
	_, err := extractStream(r, format, dir, lim, false)
	return err
}

// countingReader counts the bytes read through it: the archive bytes the ratio is
// taken of.
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads from the underlying reader and adds what it read to the count.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decompress returns the tar stream inside r, compressed as format says.
func decompress(r io.Reader, format Format) (io.Reader, func(), error) {
	switch format {
	case FormatTar:
		return r, func() {}, nil
	case FormatTarGz:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("extract: gzip: %w: %v", ErrFormat, err)
		}
		return zr, func() { zr.Close() }, nil
	case FormatTarXz:
		xr, err := xz.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("extract: xz: %w: %v", ErrFormat, err)
		}
		return xr, func() {}, nil
	case FormatTarBz2:
		return bzip2.NewReader(r), func() {}, nil
	case FormatZip:
		return nil, nil, fmt.Errorf("extract: %w: a zip needs random access (use ExtractZip or ExtractFile)", ErrFormat)
	}
	return nil, nil, fmt.Errorf("extract: %w: %q", ErrFormat, format)
}

// extractStream is Extract, returning the extractor's counts; with dry it writes
// nothing and dir is ignored.
func extractStream(r io.Reader, format Format, dir string, lim Limits, dry bool) (*extractor, error) {
	in := &countingReader{r: r}
	dec, done, err := decompress(in, format)
	if err != nil {
		return nil, err
	}
	defer done()
	return withDest(dir, lim, dry, func() int64 { return in.n }, func(x *extractor) error { return x.tar(dec) })
}

// ExtractZip safely unpacks the zip archive r of size bytes into dir, with the same rules
// as [ExtractFile]. A zip from the Go module proxy keeps its `module@version/` prefix as an
// ordinary top-level folder. A file's permission bits come from the zip when it records
// them; directories are 0755 and files 0644 or 0755 (any execute bit). The expansion
// ratio is taken of size: entries that share compressed data gain nothing.
func ExtractZip(r io.ReaderAt, size int64, dir string, lim Limits) error {
	_, err := extractZip(r, size, dir, lim, false)
	return err
}

func extractZip(r io.ReaderAt, size int64, dir string, lim Limits, dry bool) (*extractor, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("extract: zip: %w: %v", ErrFormat, err)
	}
	return withDest(dir, lim, dry, func() int64 { return size }, func(x *extractor) error { return x.zip(zr) })
}

// CheckFile reads the archive at path as [ExtractFile] would and applies the same rules
// and [Limits] (names, link targets read lexically, special files, duplicates, bytes with
// every hard link in full, the expansion ratio, entries), writing nothing. srb runs it on
// every archive it writes into its cache, so what it pins can be unpacked. Errors are
// ExtractFile's.
func CheckFile(path string, lim Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer f.Close()
	format, err := Detect(f)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if format == FormatZip {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		_, err = extractZip(f, fi.Size(), "", lim, true)
		return err
	}
	_, err = extractStream(f, format, "", lim, true)
	return err
}

// withDest prepares dir, runs fn with an extractor rooted there, checks every symlink
// once all entries are written, and cleans up on failure. in reports the archive bytes
// read so far. With dry nothing is created or written.
func withDest(dir string, lim Limits, dry bool, in func() int64, fn func(*extractor) error) (x *extractor, err error) {
	x = &extractor{lim: lim.WithDefaults(), in: in, dry: dry, seen: map[string]byte{}, sizes: map[string]int64{}, dirs: map[string]bool{}}
	if dry {
		return x, fn(x)
	}
	created := false
	switch ents, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return x, fmt.Errorf("extract: %w", err)
		}
		created = true
	case err != nil:
		return x, fmt.Errorf("extract: %w", err)
	case len(ents) > 0:
		return x, fmt.Errorf("extract: %s: %w", dir, ErrNotEmpty)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return x, fmt.Errorf("extract: %w", err)
	}
	x.root = root
	defer func() {
		root.Close()
		if err != nil {
			cleanup(dir, created)
		}
	}()
	if err := fn(x); err != nil {
		return x, err
	}
	for _, l := range x.links {
		if err := checkLink(root, l); err != nil {
			return x, &EntryError{Op: "extract", Entry: l, Err: err}
		}
	}
	return x, nil
}

// cleanup removes what a failed extraction wrote. RemoveAll never follows symlinks.
func cleanup(dir string, created bool) {
	if created {
		os.RemoveAll(dir)
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// Entry kinds recorded in extractor.seen.
const (
	kindFile byte = 'f'
	kindDir  byte = 'd'
	kindLink byte = 'l'
)

type extractor struct {
	root    *os.Root
	lim     Limits
	in      func() int64 // archive bytes read so far
	dry     bool         // count and check only; root is nil
	bytes   int64        // contents counted, hard links in full
	written int64        // contents actually written
	entries int
	buf     []byte
	seen    map[string]byte  // explicit entries by cleaned path
	sizes   map[string]int64 // regular files' sizes, for hard links
	dirs    map[string]bool  // directories known to exist (explicit or implied)
	links   []string         // symlinks, checked once everything is written
}

// clean validates an entry name and returns it slash-separated, relative and cleaned.
// "" means the root itself ("./").
func clean(name string) (string, error) {
	switch {
	case name == "":
		return "", reason(ErrUnsafePath, "empty path")
	case strings.ContainsRune(name, 0):
		return "", reason(ErrUnsafePath, "path contains a NUL byte")
	case strings.ContainsRune(name, '\\'):
		return "", reason(ErrUnsafePath, "path contains a backslash")
	case strings.HasPrefix(name, "/"), len(name) >= 2 && name[1] == ':':
		return "", reason(ErrUnsafePath, "absolute path")
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return "", reason(ErrUnsafePath, "path escapes the root")
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	if !filepath.IsLocal(c) {
		return "", reason(ErrUnsafePath, "path is not local")
	}
	return c, nil
}

// admit counts an entry against the limits and refuses a duplicate: a second entry of
// the same name (two folders excepted), or a file or link where an earlier entry's path
// already made a folder.
func (x *extractor) admit(name string, kind byte) error {
	x.entries++
	if x.entries > x.lim.MaxFiles {
		return reason(ErrTooManyFiles, "more than %d entries (Limits.MaxFiles)", x.lim.MaxFiles)
	}
	if prev, ok := x.seen[name]; ok && !(prev == kindDir && kind == kindDir) {
		return reason(ErrDuplicate, "duplicate entry")
	}
	if kind != kindDir && x.dirs[name] {
		// A folder an earlier entry's path made (no entry of its own): the dry run
		// writes nothing, so it must refuse here what extraction could not create.
		return reason(ErrDuplicate, "duplicate entry: a folder of that name is already made for earlier entries")
	}
	x.seen[name] = kind
	return nil
}

// mkdirs creates dir and its parents, mode 0755, refusing to pass through a symlink.
func (x *extractor) mkdirs(dir string) error {
	if dir == "" || dir == "." || x.dirs[dir] {
		return nil
	}
	if x.dry {
		switch x.seen[dir] {
		case kindLink:
			return reason(ErrLink, "path goes through the symlink %q", dir)
		case kindFile:
			return fmt.Errorf("%q is not a directory", dir)
		}
		if err := x.mkdirs(parent(dir)); err != nil {
			return err
		}
		x.dirs[dir] = true
		return nil
	}
	if err := x.mkdirs(parent(dir)); err != nil {
		return err
	}
	fi, err := x.root.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := x.root.Mkdir(dir, 0o755); err != nil {
			return err
		}
		if err := x.root.Chmod(dir, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return reason(ErrLink, "path goes through the symlink %q", dir)
	case !fi.IsDir():
		return fmt.Errorf("%q is not a directory", dir)
	}
	x.dirs[dir] = true
	return nil
}

func parent(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

// normMode is 0755 when any execute bit is set, else 0644 (issue #3's rule).
func normMode(m fs.FileMode) fs.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

func (x *extractor) dir(name string) error {
	if name == "" {
		return nil
	}
	if err := x.admit(name, kindDir); err != nil {
		return err
	}
	return x.mkdirs(name)
}

// grow counts n more bytes of contents against MaxBytes and the expansion ratio, before
// they are written.
func (x *extractor) grow(n int64) error {
	if n > x.lim.MaxBytes-x.bytes {
		return reason(ErrTooLarge, "more than %d bytes of files (Limits.MaxBytes)", x.lim.MaxBytes)
	}
	if in := x.in(); x.bytes+n > x.lim.allowed(in) {
		return reason(ErrTooLarge, "the files' contents exceed %d times the archive's %d bytes read so far (Limits.MaxRatio)", x.lim.MaxRatio, max(in, RatioFloor))
	}
	x.bytes += n
	return nil
}

// file writes one regular file from r, whose declared size is size (-1 if unknown).
// Each chunk is counted by grow before it is written.
func (x *extractor) file(name string, mode fs.FileMode, size int64, r io.Reader) error {
	if err := x.admit(name, kindFile); err != nil {
		return err
	}
	if err := x.mkdirs(parent(name)); err != nil {
		return err
	}
	if size > x.lim.MaxBytes-x.bytes {
		return reason(ErrTooLarge, "more than %d bytes of files (Limits.MaxBytes)", x.lim.MaxBytes)
	}
	var w io.Writer = io.Discard
	var f *os.File
	if !x.dry {
		var err error
		f, err = x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		w = f
	}
	start := x.bytes
	err := x.copy(w, r)
	x.sizes[name] = x.bytes - start
	if err == nil && f != nil {
		err = f.Chmod(normMode(mode))
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// copy copies r to w in chunks, each admitted by grow first.
func (x *extractor) copy(w io.Writer, r io.Reader) error {
	if x.buf == nil {
		x.buf = make([]byte, 64<<10)
	}
	for {
		n, err := r.Read(x.buf)
		if n > 0 {
			if gerr := x.grow(int64(n)); gerr != nil {
				return gerr
			}
			if _, werr := w.Write(x.buf[:n]); werr != nil {
				return werr
			}
			if w != io.Discard {
				x.written += int64(n)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// symlink records a symlink whose target stays lexically inside the root; checkLink
// resolves it for real once the whole archive is written.
func (x *extractor) symlink(name, target string) error {
	if err := x.admit(name, kindLink); err != nil {
		return err
	}
	if err := lexicalLink(name, target); err != nil {
		return err
	}
	if err := x.mkdirs(parent(name)); err != nil {
		return err
	}
	if x.dry {
		return nil
	}
	if err := x.root.Symlink(target, name); err != nil {
		return err
	}
	x.links = append(x.links, name)
	return nil
}

// lexicalLink refuses an absolute target, or one that leaves the root when joined to the
// link's folder.
func lexicalLink(name, target string) error {
	switch {
	case target == "":
		return reason(ErrLink, "symlink with an empty target")
	case strings.HasPrefix(target, "/"), strings.ContainsRune(target, 0):
		return reason(ErrLink, "symlink to the absolute path %q", target)
	case !filepath.IsLocal(path.Join(parent(name), target)):
		return reason(ErrLink, "symlink target %q escapes the root", target)
	}
	return nil
}

// hardlink links name to target, which must be an earlier regular file of the archive.
// The target's size counts again against the limits: every later copy of the tree (the
// canonical tar first) holds the link as a file of its own.
func (x *extractor) hardlink(name, rawTarget string) error {
	target, err := clean(rawTarget)
	if err != nil {
		return reason(ErrLink, "hard link target %q escapes the root", rawTarget)
	}
	if err := x.admit(name, kindFile); err != nil {
		return err
	}
	if x.seen[target] != kindFile || target == name {
		return reason(ErrLink, "hard link to %q, which is not an earlier regular file of the archive", rawTarget)
	}
	if err := x.mkdirs(parent(name)); err != nil {
		return err
	}
	if err := x.grow(x.sizes[target]); err != nil {
		return err
	}
	x.sizes[name] = x.sizes[target]
	if x.dry {
		return nil
	}
	return x.root.Link(target, name)
}

func (x *extractor) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fmt.Errorf("extract: tar: %w: %v", ErrFormat, err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if err := x.tarEntry(hdr, tr); err != nil {
			return &EntryError{Op: "extract", Entry: hdr.Name, Err: err}
		}
	}
	// Read on to the end of the compressed stream, so its checksum is verified; stray
	// padding is fine, a second bomb is not.
	if n, err := io.Copy(io.Discard, io.LimitReader(r, 1<<20+1)); err != nil {
		return fmt.Errorf("extract: %w: %v", ErrFormat, err)
	} else if n > 1<<20 {
		return fmt.Errorf("extract: %w: more than 1 MiB after the end of the tar", ErrTooLarge)
	}
	return nil
}

func (x *extractor) tarEntry(hdr *tar.Header, tr *tar.Reader) error {
	name, err := clean(hdr.Name)
	if err != nil {
		return err
	}
	if name == "" && hdr.Typeflag != tar.TypeDir {
		return reason(ErrUnsafePath, "a non-directory entry names the root")
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return x.dir(name)
	case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse, tar.TypeCont:
		return x.file(name, fs.FileMode(hdr.Mode), hdr.Size, tr)
	case tar.TypeSymlink:
		return x.symlink(name, hdr.Linkname)
	case tar.TypeLink:
		return x.hardlink(name, hdr.Linkname)
	case tar.TypeChar:
		return reason(ErrSpecialFile, "character device")
	case tar.TypeBlock:
		return reason(ErrSpecialFile, "block device")
	case tar.TypeFifo:
		return reason(ErrSpecialFile, "FIFO")
	}
	return reason(ErrSpecialFile, "unsupported tar entry type %q", hdr.Typeflag)
}

func (x *extractor) zip(zr *zip.Reader) error {
	for _, f := range zr.File {
		if err := x.zipEntry(f); err != nil {
			return &EntryError{Op: "extract", Entry: f.Name, Err: err}
		}
	}
	return nil
}

func (x *extractor) zipEntry(f *zip.File) error {
	name, err := clean(f.Name)
	if err != nil {
		return err
	}
	mode := f.Mode()
	isDir := strings.HasSuffix(f.Name, "/") || mode.IsDir()
	if name == "" && !isDir {
		return reason(ErrUnsafePath, "a non-directory entry names the root")
	}
	switch {
	case isDir:
		return x.dir(name)
	case mode&fs.ModeSymlink != 0:
		target, err := readSmall(f, 4096)
		if err != nil {
			return err
		}
		return x.symlink(name, target)
	case mode&fs.ModeDevice != 0:
		return reason(ErrSpecialFile, "device file")
	case mode&fs.ModeNamedPipe != 0:
		return reason(ErrSpecialFile, "FIFO")
	case mode&fs.ModeSocket != 0:
		return reason(ErrSpecialFile, "socket")
	case mode&fs.ModeIrregular != 0:
		return reason(ErrSpecialFile, "irregular file")
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer rc.Close()
	size := int64(f.UncompressedSize64)
	if size < 0 {
		size = 1<<63 - 1
	}
	return x.file(name, mode, size, rc)
}

// readSmall reads a zip symlink's target, at most max bytes.
func readSmall(f *zip.File, max int64) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if int64(len(b)) > max {
		return "", reason(ErrLink, "symlink target longer than %d bytes", max)
	}
	return string(b), nil
}

// SingleTop returns the path of the one directory dir holds, if dir holds exactly one
// entry and it is a directory (not a symlink); otherwise it returns dir. This is how
// State A's single wrapper folder is found after extraction.
func SingleTop(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 || !ents[0].IsDir() {
		return dir
	}
	return filepath.Join(dir, ents[0].Name())
}
