package collect

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/swe-refactor-bench/srb/ladder/copytree"
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
// skipped and listed (copytree.Normalise). src's own files are never
// modified.
func Collect(src, dst string, s *Set) (*Summary, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	sum := &Summary{Excluded: map[string][]string{}}
	cs, err := copytree.Copy(src, dst, copytree.Options{Modes: copytree.Normalise,
		Exclude: func(rel string, d fs.DirEntry) bool {
			if s == nil {
				return false
			}
			if pat := s.Excluded(rel); pat != nil {
				sum.Excluded[pat.Raw] = append(sum.Excluded[pat.Raw], rel)
				return true
			}
			return false
		}})
	if cs != nil {
		sum.Files, sum.Links, sum.Skipped = cs.Files, cs.Links, cs.Skipped
	}
	if err != nil {
		return sum, fmt.Errorf("collect %s: %w", src, err)
	}
	return sum, nil
}
