package collect

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Summary says what Collect took and left.
type Summary struct {
	Files    int                 // regular files copied
	Links    int                 // symbolic links copied (as links, never followed)
	Excluded map[string][]string // pattern → excluded paths (folders once, not their contents)
	Skipped  []string            // special files (FIFOs, devices, sockets), never copied
}

// Collect copies the tree at src into dst (created; it must not exist or
// be empty), leaving out every path the set excludes. Regular files keep
// only their executable bit (0755 or 0644), folders are 0755, symbolic
// links are copied as links and never followed, and special files are
// skipped and listed. src's own files are never modified.
func Collect(src, dst string, s *Set) (*Summary, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	defer root.Close()
	sum := &Summary{Excluded: map[string][]string{}}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		slash := filepath.ToSlash(rel)
		if s != nil {
			if pat := s.Excluded(slash); pat != nil {
				sum.Excluded[pat.Raw] = append(sum.Excluded[pat.Raw], slash)
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch m := info.Mode(); {
		case m.IsDir():
			return root.MkdirAll(rel, 0o755)
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			sum.Links++
			return root.Symlink(target, rel)
		case m.IsRegular():
			perm := fs.FileMode(0o644)
			if m.Perm()&0o111 != 0 {
				perm = 0o755
			}
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := root.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			sum.Files++
			return out.Close()
		default:
			sum.Skipped = append(sum.Skipped, slash)
			return nil
		}
	})
	if err != nil {
		return sum, fmt.Errorf("collect %s: %w", src, err)
	}
	sort.Strings(sum.Skipped)
	return sum, nil
}
