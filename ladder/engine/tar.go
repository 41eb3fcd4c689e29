package engine

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// writeTar writes cp.HostPath (a file or a folder, walked without following
// links) as a tar whose names are cp.ContainerPath without its leading
// "/", for extraction at the container's root. Directories, regular files
// and symbolic links travel with their permission bits; other types are
// left out. Owners are cp's (root unless cp.Owned).
func writeTar(w io.Writer, cp Copy) error {
	base := strings.TrimPrefix(path.Clean(cp.ContainerPath), "/")
	if base == "" {
		return fmt.Errorf("copy %s: cannot replace the container's root", cp.HostPath)
	}
	uid, gid := 0, 0
	if cp.Owned {
		uid, gid = cp.UID, cp.GID
	}
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(cp.HostPath, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(cp.HostPath, p)
		if err != nil {
			return err
		}
		name := base
		if rel != "." {
			name = base + "/" + filepath.ToSlash(rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: name, Mode: int64(info.Mode().Perm()), ModTime: info.ModTime(), Uid: uid, Gid: gid, Format: tar.FormatPAX}
		switch {
		case info.IsDir():
			hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, target
		case info.Mode().IsRegular():
			hdr.Typeflag, hdr.Size = tar.TypeReg, info.Size()
		default:
			return nil // sockets, devices, FIFOs
		}
		if info.Mode()&fs.ModeSetuid != 0 {
			hdr.Mode |= 0o4000
		}
		if info.Mode()&fs.ModeSetgid != 0 {
			hdr.Mode |= 0o2000
		}
		if info.Mode()&fs.ModeSticky != 0 {
			hdr.Mode |= 0o1000
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if n, err := io.Copy(tw, f); err != nil {
				return err
			} else if n != hdr.Size {
				return fmt.Errorf("%s changed while being copied", p)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// readTar extracts a tar from the engine's copy endpoint (whose first name
// component is the copied path's base name) into dst: a folder's content
// lands in dst, a single file becomes dst. Every write goes through an
// os.Root at dst's folder, so no name or link in the stream reaches outside
// it. Permission bits and modification times are kept (no owners, no
// set-id bits); hard links are copied as files; other types are left out.
func readTar(r io.Reader, dst string) error {
	_, err := readTarBounded(r, dst, nil)
	return err
}

// readTarBounded is readTar under b's bounds (nil: none). It returns what
// it took and left, also when a bound stops it (the error is then a
// *BoundError).
func readTarBounded(r io.Reader, dst string, b *CopyBounds) (*CopySummary, error) {
	if b == nil {
		b = &CopyBounds{}
	}
	sum := &CopySummary{}
	tr := tar.NewReader(r)
	var root *os.Root
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	var first string
	var rootIsFile bool
	type dirMode struct {
		rel   string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirMode           // set last, deepest first, so read-only folders can be filled
	skipped := map[string]bool{} // the tops Skip left out
	written := map[string]bool{} // regular files written, for hard links
	var streamed int64           // bytes of regular files in the stream
	underSkipped := func(rel string) bool {
		for q := rel; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if skipped[q] {
				return true
			}
		}
		return false
	}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sum, err
		}
		if sum.Entries++; b.MaxEntries > 0 && sum.Entries > b.MaxEntries {
			return sum, &BoundError{Bound: "entries", Limit: int64(b.MaxEntries), Path: hdr.Name}
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "/"))
		if first == "" && b.Dir && hdr.Typeflag != tar.TypeDir {
			return sum, &BoundError{Bound: "not a folder", Path: name, Type: typeName(hdr)}
		}
		if first == "" {
			first, _, _ = strings.Cut(name, "/")
			if hdr.Typeflag == tar.TypeDir {
				if err := os.MkdirAll(dst, 0o755); err != nil {
					return sum, err
				}
				if root, err = os.OpenRoot(dst); err != nil {
					return sum, err
				}
			} else {
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return sum, err
				}
				if root, err = os.OpenRoot(filepath.Dir(dst)); err != nil {
					return sum, err
				}
				rootIsFile = true
			}
		}
		var rel string
		if rootIsFile {
			if name != first {
				continue
			}
			rel = filepath.Base(dst)
		} else {
			r, ok := strings.CutPrefix(name, first)
			if !ok || (r != "" && !strings.HasPrefix(r, "/")) {
				return sum, fmt.Errorf("tar entry %q is outside %q", hdr.Name, first)
			}
			rel = strings.TrimPrefix(r, "/")
			if rel == "" {
				rel = "."
			}
		}
		skip := false
		if rel != "." && !rootIsFile {
			if underSkipped(path.Dir(rel)) {
				skip = true
			} else if b.Skip != nil && b.Skip(rel) {
				skip = true
				skipped[rel] = true
				sum.Skipped = append(sum.Skipped, rel)
			}
		}
		if hdr.Typeflag == tar.TypeReg {
			// A skipped file's content is read too (and dropped): the
			// stream bound says how much reading a tree may cost. A kept
			// file past the bytes left is refused first, as such.
			if !skip && b.MaxBytes > 0 && sum.Bytes+hdr.Size > b.MaxBytes {
				return sum, &BoundError{Bound: "bytes", Limit: b.MaxBytes, Path: rel}
			}
			if streamed += hdr.Size; b.MaxStreamBytes > 0 && streamed > b.MaxStreamBytes {
				return sum, &BoundError{Bound: "stream bytes", Limit: b.MaxStreamBytes, Path: rel}
			}
		}
		if skip {
			continue
		}
		if rel != "." && !rootIsFile {
			if b.MaxPathBytes > 0 && len(rel) > b.MaxPathBytes {
				return sum, &BoundError{Bound: "path bytes", Limit: int64(b.MaxPathBytes), Path: rel}
			}
			if depth := strings.Count(rel, "/") + 1; b.MaxDepth > 0 && depth > b.MaxDepth {
				return sum, &BoundError{Bound: "depth", Limit: int64(b.MaxDepth), Path: rel}
			}
		}
		mode := fs.FileMode(hdr.Mode).Perm()
		switch hdr.Typeflag {
		case tar.TypeDir:
			if rel != "." {
				if err := root.Mkdir(rel, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
					return sum, err
				}
			}
			if err := root.Chmod(rel, mode|0o700); err != nil {
				return sum, err
			}
			dirs = append(dirs, dirMode{rel, mode, hdr.ModTime})
			sum.Dirs++
		case tar.TypeSymlink:
			root.Remove(rel)
			if err := root.Symlink(hdr.Linkname, rel); err != nil {
				return sum, err
			}
			sum.Links++
		case tar.TypeReg, tar.TypeLink:
			var src io.Reader = tr
			size := hdr.Size
			if hdr.Typeflag == tar.TypeLink {
				// A hard link to an earlier entry: copy that entry's file.
				target := path.Clean(strings.TrimPrefix(hdr.Linkname, "/"))
				t, ok := strings.CutPrefix(target, first+"/")
				if !ok || !written[t] {
					// Its target was left out (skipped) or is not in the
					// copy: the content never reached us.
					sum.Unlinked = append(sum.Unlinked, rel)
					continue
				}
				f, err := root.Open(t)
				if err != nil {
					return sum, err
				}
				st, err := f.Stat()
				if err != nil {
					f.Close()
					return sum, err
				}
				src, size = f, st.Size()
			}
			n, err := writeEntry(root, rel, mode, src, size, b.MaxBytes-sum.Bytes, b.MaxBytes > 0)
			if c, ok := src.(io.Closer); ok {
				c.Close()
			}
			if err != nil {
				if errors.Is(err, errOverBytes) {
					return sum, &BoundError{Bound: "bytes", Limit: b.MaxBytes, Path: rel}
				}
				return sum, err
			}
			if err := root.Chmod(rel, mode); err != nil {
				return sum, err
			}
			if err := setTime(root, rel, hdr.ModTime); err != nil {
				return sum, err
			}
			sum.Files++
			sum.Bytes += n
			written[rel] = true
		default:
			// FIFOs, devices, sockets: a header only, never opened.
			sum.Special++
			if len(sum.SpecialPaths) < maxListed {
				sum.SpecialPaths = append(sum.SpecialPaths, rel)
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := root.Chmod(dirs[i].rel, dirs[i].mode); err != nil {
			return sum, err
		}
		if err := setTime(root, dirs[i].rel, dirs[i].mtime); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// setTime gives rel of root the modification (and access) time t, when
// the stream named one: a build cache copied out and back (a tree's
// snapshot) must not look newer than what it was built from.
func setTime(root *os.Root, rel string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	return root.Chtimes(rel, t, t)
}

// errOverBytes is writeEntry's refusal of a file past the bytes left.
var errOverBytes = errors.New("over the bytes bound")

// writeEntry writes size bytes of src as the file rel of root (mode mode,
// replacing what is there) and returns the bytes written. When bounded, a
// size past left is refused with errOverBytes before anything is written.
func writeEntry(root *os.Root, rel string, mode fs.FileMode, src io.Reader, size, left int64, bounded bool) (int64, error) {
	if bounded && size > left {
		return 0, errOverBytes
	}
	root.Remove(rel)
	f, err := root.OpenFile(rel, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, io.LimitReader(src, size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// maxListed bounds the paths a CopySummary lists of each kind it counts.
const maxListed = 100

// CopyBounds bound a copy out of a container whose content an adversary
// controls (an agent's workspace): a sparse file of a terabyte, millions
// of files, a hard link repeated a thousand times or a tree a thousand
// folders deep stops the copy with a *BoundError before the host's disk
// or the copy's time runs away. A zero field is no bound.
type CopyBounds struct {
	// MaxBytes bounds the bytes of regular files written, each hard link
	// counted in full (it is written in full): a file that would pass it
	// is refused before a byte of it is written.
	MaxBytes int64
	// MaxStreamBytes bounds the bytes of regular files read from the
	// engine's stream, those Skip leaves out included (their content is
	// read and dropped): it bounds the copy's time.
	MaxStreamBytes int64
	// MaxEntries bounds the entries of the stream (folders, files, links,
	// special files; skipped ones and the top folder included).
	MaxEntries int
	// MaxDepth bounds the path elements of a kept entry, relative to the
	// copied folder ("a/b/c" is 3).
	MaxDepth int
	// MaxPathBytes bounds the length in bytes of a kept entry's relative
	// path.
	MaxPathBytes int
	// Dir requires the copied path to be a folder: a file, a link or a
	// special file in its place stops the copy with a *BoundError ("not a
	// folder") before anything is written (a workspace the agent replaced
	// by a link to "/" is never written as a link on this machine).
	Dir bool
	// Skip, when set, leaves out the entry at rel (slash-separated,
	// relative to the copied folder) and everything under it; it is not
	// asked about what lies under an entry it left out.
	Skip func(rel string) bool
}

// CopySummary says what a bounded copy took and left.
type CopySummary struct {
	// Entries counts the stream's entries read (skipped ones included).
	Entries int
	// Files, Links and Dirs count what was written: regular files (a hard
	// link as a file), symbolic links (never followed), folders.
	Files, Links, Dirs int
	// Bytes is the bytes of regular files written.
	Bytes int64
	// Skipped are the entries Skip left out (not what lies under them).
	Skipped []string
	// Special counts FIFOs, devices and sockets, never copied;
	// SpecialPaths lists the first 100.
	Special      int
	SpecialPaths []string
	// Unlinked are hard links whose target was left out: their content
	// never reached the copy, so they are not written.
	Unlinked []string
}

// BoundError is the error of a copy stopped by one of its CopyBounds:
// Bound names it ("bytes", "stream bytes", "entries", "depth" or "path
// bytes", "not a folder"; "gone" for a tree that no longer exists, as a
// caller records it), Limit is its value and Path the entry (relative to the copied
// folder, as the stream named it) that passed it.
type BoundError struct {
	Bound string
	Limit int64
	Path  string
	// Type is what stood where a folder was required ("not a folder"):
	// "a symbolic link to X", "a file", "a FIFO", ….
	Type string
}

// typeName says what a tar entry is, in words.
func typeName(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeSymlink:
		return fmt.Sprintf("a symbolic link to %q", h.Linkname)
	case tar.TypeReg:
		return "a file"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeFifo:
		return "a FIFO"
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	default:
		return fmt.Sprintf("an entry of type %q", h.Typeflag)
	}
}

// Error says which bound the copy passed, at which entry.
func (e *BoundError) Error() string {
	what := map[string]string{
		"bytes":        "more than %d bytes of files",
		"stream bytes": "more than %d bytes of files to read",
		"entries":      "more than %d entries",
		"depth":        "a path more than %d folders deep",
		"path bytes":   "a path longer than %d bytes",
	}[e.Bound]
	switch e.Bound {
	case "gone":
		return fmt.Sprintf("%s no longer exists", e.Path)
	case "not a folder":
		return fmt.Sprintf("%s is not a folder but %s", e.Path, e.Type)
	}
	if what == "" {
		what = e.Bound + " past %d"
	}
	return fmt.Sprintf("the tree holds "+what+" (at %q)", e.Limit, e.Path)
}
