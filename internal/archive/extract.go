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
// [DefaultLimits].
type Limits struct {
	// MaxBytes bounds the total size, in bytes, of the files' contents once unpacked.
	// Exceeding it is [ErrTooLarge]; a gzip bomb stops here. Default 4 GiB.
	MaxBytes int64
	// MaxFiles bounds the number of entries (files, directories, links). Exceeding it is
	// [ErrTooManyFiles]. Default 500000.
	MaxFiles int
}

// DefaultLimits returns 4 GiB and 500000 entries.
func DefaultLimits() Limits { return Limits{MaxBytes: 4 << 30, MaxFiles: 500000} }

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	return l
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
	var dec io.Reader
	switch format {
	case FormatTar:
		dec = r
	case FormatTarGz:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("extract: gzip: %w: %v", ErrFormat, err)
		}
		defer zr.Close()
		dec = zr
	case FormatTarXz:
		xr, err := xz.NewReader(r)
		if err != nil {
			return fmt.Errorf("extract: xz: %w: %v", ErrFormat, err)
		}
		dec = xr
	case FormatTarBz2:
		dec = bzip2.NewReader(r)
	case FormatZip:
		return fmt.Errorf("extract: %w: a zip needs random access (use ExtractZip or ExtractFile)", ErrFormat)
	default:
		return fmt.Errorf("extract: %w: %q", ErrFormat, format)
	}
	return withDest(dir, lim, func(x *extractor) error { return x.tar(dec) })
}

// ExtractZip safely unpacks the zip archive r of size bytes into dir, with the same rules
// as [ExtractFile]. A zip from the Go module proxy keeps its `module@version/` prefix as an
// ordinary top-level folder. A file's permission bits come from the zip when it records
// them; directories are 0755 and files 0644 or 0755 (any execute bit).
func ExtractZip(r io.ReaderAt, size int64, dir string, lim Limits) error {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("extract: zip: %w: %v", ErrFormat, err)
	}
	return withDest(dir, lim, func(x *extractor) error { return x.zip(zr) })
}

// withDest prepares dir, runs fn with an extractor rooted there, checks every symlink
// once all entries are written, and cleans up on failure.
func withDest(dir string, lim Limits, fn func(*extractor) error) (err error) {
	created := false
	switch ents, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		created = true
	case err != nil:
		return fmt.Errorf("extract: %w", err)
	case len(ents) > 0:
		return fmt.Errorf("extract: %s: %w", dir, ErrNotEmpty)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer func() {
		root.Close()
		if err != nil {
			cleanup(dir, created)
		}
	}()
	x := &extractor{root: root, lim: lim.withDefaults(), seen: map[string]byte{}, dirs: map[string]bool{}}
	if err := fn(x); err != nil {
		return err
	}
	for _, l := range x.links {
		if err := checkLink(root, l); err != nil {
			return &EntryError{Op: "extract", Entry: l, Err: err}
		}
	}
	return nil
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
	bytes   int64
	entries int
	seen    map[string]byte // explicit entries by cleaned path
	dirs    map[string]bool // directories known to exist (explicit or implied)
	links   []string        // symlinks, checked once everything is written
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

// admit counts an entry against the limits and refuses a duplicate.
func (x *extractor) admit(name string, kind byte) error {
	x.entries++
	if x.entries > x.lim.MaxFiles {
		return reason(ErrTooManyFiles, "more than %d entries (Limits.MaxFiles)", x.lim.MaxFiles)
	}
	if prev, ok := x.seen[name]; ok && !(prev == kindDir && kind == kindDir) {
		return reason(ErrDuplicate, "duplicate entry")
	}
	x.seen[name] = kind
	return nil
}

// mkdirs creates dir and its parents, mode 0755, refusing to pass through a symlink.
func (x *extractor) mkdirs(dir string) error {
	if dir == "" || dir == "." || x.dirs[dir] {
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

// file writes one regular file from r, whose declared size is size (-1 if unknown).
func (x *extractor) file(name string, mode fs.FileMode, size int64, r io.Reader) error {
	if err := x.admit(name, kindFile); err != nil {
		return err
	}
	if err := x.mkdirs(parent(name)); err != nil {
		return err
	}
	left := x.lim.MaxBytes - x.bytes
	if size > left {
		return reason(ErrTooLarge, "more than %d bytes of files (Limits.MaxBytes)", x.lim.MaxBytes)
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, left+1))
	x.bytes += n
	if err == nil && n > left {
		err = reason(ErrTooLarge, "more than %d bytes of files (Limits.MaxBytes)", x.lim.MaxBytes)
	}
	if err == nil {
		err = f.Chmod(normMode(mode))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
