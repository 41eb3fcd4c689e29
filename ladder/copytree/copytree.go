// Package copytree is srb's one tree copy: every stage, source kind and
// image input that copies a folder copies it here, with the rules written
// once:
//
//   - Links are never followed. A symbolic link is copied as a link with
//     its target text unchanged; nothing is read through one (a file that
//     turns into a link, or into another file, between the walk and the
//     read is an error) and nothing is written through one: every write
//     goes through an os.Root on the destination, so nothing lands outside
//     it whatever links it holds.
//   - Modes are set exactly, whatever the umask: [Keep] keeps a file's and
//     a folder's permission bits (plus [Options.FileBits] and
//     [Options.DirBits]), [Normalise] makes files 0755 when any execute
//     bit is set and 0644 otherwise, and folders 0755. Set-id and sticky
//     bits are never copied. Owners are whoever runs the copy.
//   - Modification times of regular files are kept when [Options.Times]
//     (a build's outputs stay newer than its inputs); otherwise they are
//     the copy's.
//   - .git (a folder or a file, at any depth) is copied or left out as
//     [Options.Git] says; [Options.Exclude] leaves out more.
//   - Special files (FIFOs, sockets, devices) are never copied: skipped and
//     listed, or refused ([Options.Special]).
//   - A sparse file stays sparse: only its data is read and written, its
//     holes stay holes (a tree with a 1 GiB file of one written byte costs
//     a block, not 1 GiB, in every copy a stage makes of it).
package copytree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"golang.org/x/sys/unix"
)

// Modes says how a copy's permission bits are set.
type Modes int

const (
	// Keep keeps each file's and folder's permission bits (0777 of
	// them), with Options.FileBits and Options.DirBits added.
	Keep Modes = iota
	// Normalise sets files to 0755 when any execute bit is set and to
	// 0644 otherwise, and folders to 0755.
	Normalise
)

// Git says what becomes of entries named .git.
type Git int

const (
	// GitCopy copies .git like anything else.
	GitCopy Git = iota
	// GitSkip leaves out every folder or file named .git, at any depth
	// (the top folder itself excepted).
	GitSkip
)

// Special says what becomes of FIFOs, sockets and devices.
type Special int

const (
	// SkipSpecial leaves them out and lists them in Summary.Skipped.
	SkipSpecial Special = iota
	// RefuseSpecial fails the copy with a *SpecialError.
	RefuseSpecial
)

// Options are a copy's rules; the zero Options keeps modes, not times,
// copies .git and skips special files.
type Options struct {
	Modes Modes
	// FileBits and DirBits are added to kept modes (Keep only), e.g.
	// 0o200 so the copy's owner can write every file, 0o700 so it can
	// enter and change every folder.
	FileBits, DirBits fs.FileMode
	// Times keeps regular files' modification times (their access
	// times are set to the same).
	Times bool
	Git   Git
	// Exclude, when set, leaves out the entries it reports true for; rel
	// is slash-separated and relative to the source, and an excluded
	// folder is left out whole.
	Exclude func(rel string, d fs.DirEntry) bool
	// Special says what becomes of FIFOs, sockets and devices.
	Special Special
	// Replace lets the copy replace files and links already in the
	// destination (a folder stays and is merged into); without it an
	// existing entry is an error.
	Replace bool
	// MaxBytes, when above zero, bounds the bytes of regular files copied
	// (each hard link counted in full, since it is copied in full): the
	// copy stops with ErrTooLarge before writing a file that would pass it.
	MaxBytes int64
	// MaxEntries, when above zero, bounds the entries walked (folders,
	// files, links and special files, the top folder included): the copy
	// stops with ErrTooManyEntries at the first one past it.
	MaxEntries int
}

// Summary counts what a copy made.
type Summary struct {
	Dirs, Files, Links int
	// Skipped are the special files left out (slash-separated, relative
	// to the source, sorted).
	Skipped []string
}

// SpecialError is a special file met with RefuseSpecial.
type SpecialError struct {
	Rel string // the file's slash-separated path relative to the source
	// Type is its type bits (fs.ModeNamedPipe, fs.ModeSocket, ...).
	Type fs.FileMode
}

// Error says which file is special and of what type.
func (e *SpecialError) Error() string {
	return fmt.Sprintf("%s is a %s, not a file, folder or link", e.Rel, e.Type)
}

// ErrChanged is wrapped when a source file changed between the walk and
// its read (it became a link or another file).
var ErrChanged = errors.New("changed while it was copied")

// ErrTooLarge is wrapped when the files copied would pass Options.MaxBytes.
var ErrTooLarge = errors.New("more bytes of files than the copy allows")

// ErrTooManyEntries is wrapped when the walk passes Options.MaxEntries.
var ErrTooManyEntries = errors.New("more entries than the copy allows")

// Copy copies src (a folder, a file or a link) to dst under o's rules.
// dst's parent folders are made (0755) when missing; a folder src is
// merged into dst when dst is a folder already. The error names the
// source path that failed.
func Copy(src, dst string, o Options) (*Summary, error) {
	sum := &Summary{}
	top, err := os.Lstat(src)
	if err != nil {
		return sum, err
	}
	srcDir, srcBase := src, "."
	dstDir, dstBase := dst, "."
	if !top.IsDir() {
		srcDir, srcBase = filepath.Dir(src), filepath.Base(src)
		dstDir, dstBase = filepath.Dir(dst), filepath.Base(dst)
	}
	dstInfo, statErr := os.Lstat(dst)
	if statErr == nil && dstInfo.Mode()&fs.ModeSymlink != 0 && top.IsDir() {
		return sum, fmt.Errorf("%s is a symbolic link: a copy is never made through one", dst)
	}
	if err := os.MkdirAll(dstDir, 0o755); err != nil {
		return sum, err
	}
	sroot, err := os.OpenRoot(srcDir)
	if err != nil {
		return sum, err
	}
	defer sroot.Close()
	droot, err := os.OpenRoot(dstDir)
	if err != nil {
		return sum, err
	}
	defer droot.Close()
	c := &copier{o: o, src: sroot, dst: droot, sum: sum, keepTop: top.IsDir() && statErr == nil}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		if rel != "." {
			if (o.Git == GitSkip && d.Name() == ".git") || (o.Exclude != nil && o.Exclude(slash, d)) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if c.entries++; o.MaxEntries > 0 && c.entries > o.MaxEntries {
			return fmt.Errorf("%w: more than %d", ErrTooManyEntries, o.MaxEntries)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() && o.MaxBytes > 0 {
			if c.bytes += info.Size(); c.bytes > o.MaxBytes {
				return fmt.Errorf("%w: more than %d", ErrTooLarge, o.MaxBytes)
			}
		}
		from, to := filepath.Join(srcBase, rel), filepath.Join(dstBase, rel)
		if err := c.entry(from, to, slash, info); err != nil {
			var se *SpecialError
			if errors.As(err, &se) {
				return err // it names the file itself
			}
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	})
	// Folder modes last, deepest first: a folder without write permission
	// is filled before it is closed.
	for i := len(c.dirs) - 1; i >= 0 && err == nil; i-- {
		if e := droot.Chmod(c.dirs[i].to, c.dirs[i].perm); e != nil {
			err = fmt.Errorf("%s: %w", filepath.Join(dst, c.dirs[i].to), e)
		}
	}
	sort.Strings(sum.Skipped)
	return sum, err
}

type copier struct {
	o   Options
	src *os.Root
	dst *os.Root
	sum *Summary
	// keepTop: the destination folder existed, so its mode is left alone.
	keepTop bool
	dirs    []dirMode
	// entries and bytes count what the walk met, for MaxEntries and
	// MaxBytes.
	entries int
	bytes   int64
}

type dirMode struct {
	to   string
	perm fs.FileMode
}

// entry copies one entry: from is relative to the source root, to to the
// destination root, slash is what Summary and errors call it.
func (c *copier) entry(from, to, slash string, info fs.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsDir():
		if err := c.clear(to); err != nil {
			return err
		}
		if err := c.dst.MkdirAll(to, 0o700); err != nil {
			return err
		}
		c.sum.Dirs++
		if to == "." && c.keepTop {
			return nil
		}
		if err := c.dst.Chmod(to, 0o700); err != nil {
			return err
		}
		c.dirs = append(c.dirs, dirMode{to, c.dirMode(m)})
		return nil
	case m&fs.ModeSymlink != 0:
		target, err := c.src.Readlink(from)
		if err != nil {
			return err
		}
		if err := c.clear(to); err != nil {
			return err
		}
		c.sum.Links++
		return c.dst.Symlink(target, to)
	case m.IsRegular():
		if err := c.file(from, to, info); err != nil {
			return err
		}
		c.sum.Files++
		return nil
	}
	if c.o.Special == RefuseSpecial {
		return &SpecialError{Rel: slash, Type: m.Type()}
	}
	c.sum.Skipped = append(c.sum.Skipped, slash)
	return nil
}

func (c *copier) dirMode(m fs.FileMode) fs.FileMode {
	if c.o.Modes == Normalise {
		return NormalMode(m)
	}
	return m.Perm() | c.o.DirBits.Perm()
}

func (c *copier) fileMode(m fs.FileMode) fs.FileMode {
	if c.o.Modes == Normalise {
		return NormalMode(m)
	}
	return m.Perm() | c.o.FileBits.Perm()
}

// NormalMode is the mode [Normalise] gives an entry of mode m: 0755 for a
// folder, 0755 for a file with any execute bit, 0644 for another file.
func NormalMode(m fs.FileMode) fs.FileMode {
	if m.IsDir() || m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// clear removes an existing non-folder entry at to (a file, a link) when
// Replace allows; a link is removed itself, never followed.
func (c *copier) clear(to string) error {
	if !c.o.Replace {
		return nil
	}
	if st, err := c.dst.Lstat(to); err == nil && !st.IsDir() {
		return c.dst.Remove(to)
	}
	return nil
}

// file copies a regular file: read only if it is still the file the walk
// saw, written new (O_EXCL) with its mode set exactly.
func (c *copier) file(from, to string, info fs.FileInfo) error {
	in, err := c.src.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || !os.SameFile(st, info) {
		return ErrChanged
	}
	if err := c.clear(to); err != nil {
		return err
	}
	perm := c.fileMode(info.Mode())
	out, err := c.dst.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = copyData(out, in, info)
	if err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(perm); err != nil { // the umask does not narrow it
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if c.o.Times {
		return c.dst.Chtimes(to, info.ModTime(), info.ModTime())
	}
	return nil
}

// copyData copies in, which the walk measured as info, to the new file
// out. A file with holes (fewer blocks than its size needs) is copied
// range by range: only what SEEK_DATA and SEEK_HOLE say holds data, the
// holes between left holes, out then truncated to the size; a file with
// none, or on a file system that cannot tell, as one stream. No more than
// the walk's size is read: a file that is not that long after the copy
// (it grew or shrank while it was read) is ErrChanged, so MaxBytes holds.
func copyData(out, in *os.File, info fs.FileInfo) error {
	size := info.Size()
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Blocks*512 >= size {
		return copyWhole(out, in, size)
	}
	fd := int(in.Fd())
	for off := int64(0); off < size; {
		data, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // nothing but a hole from off on
		}
		if err != nil {
			if off > 0 {
				return err
			}
			return copyWhole(out, in, size) // no SEEK_DATA here; in is still at 0
		}
		if data >= size {
			break
		}
		hole, err := unix.Seek(fd, data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		hole = min(hole, size)
		if _, err := in.Seek(data, io.SeekStart); err != nil {
			return err
		}
		if _, err := out.Seek(data, io.SeekStart); err != nil {
			return err
		}
		// io.CopyN: the kernel copies the range (copy_file_range).
		if _, err := io.CopyN(out, in, hole-data); err != nil {
			if errors.Is(err, io.EOF) {
				return ErrChanged // shorter than the walk measured
			}
			return err
		}
		off = hole
	}
	if err := out.Truncate(size); err != nil {
		return err
	}
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if st.Size() != size {
		return ErrChanged
	}
	return nil
}

// copyWhole copies size bytes of in, from its start, to out as a stream,
// refusing a file that is not size bytes long; nothing past size is
// written.
func copyWhole(out, in *os.File, size int64) error {
	if _, err := io.CopyN(out, in, size); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrChanged // shorter than the walk measured
		}
		return err
	}
	if n, _ := in.Read(make([]byte, 1)); n > 0 {
		return ErrChanged // longer
	}
	return nil
}
