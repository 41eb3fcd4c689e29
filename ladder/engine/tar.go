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
// it. Only permission bits are kept (no owners, no set-id bits); hard links
// are copied as files; other types are left out.
func readTar(r io.Reader, dst string) error {
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
		rel  string
		mode fs.FileMode
	}
	var dirs []dirMode // set last, deepest first, so read-only folders can be filled
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "/"))
		if first == "" {
			first, _, _ = strings.Cut(name, "/")
			if hdr.Typeflag == tar.TypeDir {
				if err := os.MkdirAll(dst, 0o755); err != nil {
					return err
				}
				if root, err = os.OpenRoot(dst); err != nil {
					return err
				}
			} else {
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				if root, err = os.OpenRoot(filepath.Dir(dst)); err != nil {
					return err
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
				return fmt.Errorf("tar entry %q is outside %q", hdr.Name, first)
			}
			rel = strings.TrimPrefix(r, "/")
			if rel == "" {
				rel = "."
			}
		}
		mode := fs.FileMode(hdr.Mode).Perm()
		switch hdr.Typeflag {
		case tar.TypeDir:
			if rel != "." {
				if err := root.Mkdir(rel, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
					return err
				}
			}
			if err := root.Chmod(rel, mode|0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirMode{rel, mode})
		case tar.TypeSymlink:
			root.Remove(rel)
			if err := root.Symlink(hdr.Linkname, rel); err != nil {
				return err
			}
		case tar.TypeReg, tar.TypeLink:
			var src io.Reader = tr
			if hdr.Typeflag == tar.TypeLink {
				// A hard link to an earlier entry: copy that entry's file.
				target := path.Clean(strings.TrimPrefix(hdr.Linkname, "/"))
				t, ok := strings.CutPrefix(target, first+"/")
				if !ok {
					continue
				}
				f, err := root.Open(t)
				if err != nil {
					return err
				}
				defer f.Close()
				src = f
			}
			root.Remove(rel)
			f, err := root.OpenFile(rel, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_EXCL, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, src); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			if err := root.Chmod(rel, mode); err != nil {
				return err
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := root.Chmod(dirs[i].rel, dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}
