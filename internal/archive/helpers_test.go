package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixtureTree copies testdata/tree into a temporary folder and adds the empty directory
// "empty", which git cannot store. It returns the copy's path.
func fixtureTree(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tree")
	copyTree(t, "testdata/tree", dst, false)
	if err := os.Mkdir(filepath.Join(dst, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyTree copies src to dst (files, exec bits, symlinks). With reverse, entries are
// created in reverse order with unusual permissions, which canonical form must erase.
func copyTree(t testing.TB, src, dst string, reverse bool) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reverse {
		slices.Reverse(paths)
	}
	for _, rel := range paths {
		s, d := filepath.Join(src, rel), filepath.Join(dst, rel)
		fi, err := os.Lstat(s)
		if err != nil {
			t.Fatal(err)
		}
		dirPerm, filePerm := fs.FileMode(0o755), fs.FileMode(0o644)
		if reverse {
			dirPerm, filePerm = 0o700, 0o600
		}
		if err := os.MkdirAll(filepath.Dir(d), dirPerm); err != nil {
			t.Fatal(err)
		}
		switch {
		case fi.IsDir():
			if err := os.MkdirAll(d, dirPerm); err != nil {
				t.Fatal(err)
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, d); err != nil {
				t.Fatal(err)
			}
		default:
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			perm := filePerm
			if fi.Mode()&0o111 != 0 {
				perm = 0o755
				if reverse {
					perm = 0o700
				}
			}
			if err := os.WriteFile(d, b, perm); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, perm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if reverse {
		// Directories were made before their contents in the walk; give them the odd
		// permission now that every file is in place.
		for _, rel := range paths {
			d := filepath.Join(dst, rel)
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				os.Chmod(d, 0o700)
			}
		}
	}
}

// ent is one entry of a tar built by tarBytes.
type ent struct {
	hdr  tar.Header
	body string
}

func file(name, body string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))}, body: body}
}

func dirEnt(name string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}}
}

func symlink(name, target string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777}}
}

func hardlink(name, target string) ent {
	return ent{hdr: tar.Header{Typeflag: tar.TypeLink, Name: name, Linkname: target, Mode: 0o644}}
}

func special(name string, typ byte) ent {
	return ent{hdr: tar.Header{Typeflag: typ, Name: name, Mode: 0o644, Devmajor: 1, Devminor: 3}}
}

// tarBytes writes entries as an uncompressed tar.
func tarBytes(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range ents {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("tar header %q: %v", h.Name, err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz compresses b with gzip at level.
func gz(t testing.TB, b []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zent is one entry of a zip built by zipBytes. A zero mode leaves the mode unset.
type zent struct {
	name string
	mode fs.FileMode
	body string
}

func zipBytes(t testing.TB, ents ...zent) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		fh := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			fh.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeTemp writes b to a file in a fresh temporary folder and returns its path.
func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "archive")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// listDir returns the names in dir, sorted.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// treeListing describes every path under dir with its kind and mode, for comparisons.
func treeListing(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := fi.Mode().String() + " " + filepath.ToSlash(rel)
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
