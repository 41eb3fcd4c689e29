package collect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

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
	return CollectBounded(src, dst, s, Bounds{})
}

// Bounds bound what [CollectBounded] takes of a submitted tree, excluded
// paths not counted: MaxBytes bytes of regular files, MaxEntries entries
// (folders, files, links and special files, the top folder included),
// paths of at most MaxPathBytes bytes relative to the tree and at most
// MaxDepth folders deep. A zero field is no bound.
type Bounds struct {
	MaxBytes     int64
	MaxEntries   int
	MaxPathBytes int
	MaxDepth     int
}

// DefaultBounds are what srb ladder collects of a submitted tree at most:
// the bounds srb trial copies an agent's workspace out under (8 GiB of
// files, a million entries, 2048 bytes of relative path, 128 folders
// deep), so a tree either command grades is one the other would too.
var DefaultBounds = Bounds{MaxBytes: 8 << 30, MaxEntries: 1 << 20, MaxPathBytes: 2048, MaxDepth: 128}

// BoundError is a submitted tree past one of its [Bounds] (or holding a
// path the system cannot name): the submission's own doing, which a
// caller grades as its failure, never as a fault of the grader. Bound is
// "bytes", "entries", "path bytes" or "depth"; Limit the bound; Path the
// slash-separated relative path where it was passed ("" when unknown).
type BoundError struct {
	Bound string
	Limit int64
	Path  string
}

// Error says which bound the tree passed, and where.
func (e *BoundError) Error() string {
	where := ""
	if e.Path != "" {
		where = fmt.Sprintf(" (at %.200q)", e.Path)
	}
	switch e.Bound {
	case "bytes":
		return fmt.Sprintf("the tree holds more than %d bytes of files%s", e.Limit, where)
	case "entries":
		return fmt.Sprintf("the tree holds more than %d entries%s", e.Limit, where)
	case "path bytes":
		return fmt.Sprintf("the tree holds a path longer than %d bytes%s", e.Limit, where)
	case "depth":
		return fmt.Sprintf("the tree holds folders more than %d deep%s", e.Limit, where)
	}
	return "the tree is past a bound of its collection" + where
}

// CollectBounded is [Collect] under b: a tree past a bound stops the
// copy with a *BoundError, and so does a path the system cannot name
// (ENAMETOOLONG); dst then holds a partial copy, which the caller must
// not grade.
func CollectBounded(src, dst string, s *Set, b Bounds) (*Summary, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	sum := &Summary{Excluded: map[string][]string{}}
	var over *BoundError
	cs, err := copytree.Copy(src, dst, copytree.Options{Modes: copytree.Normalise,
		MaxBytes: b.MaxBytes, MaxEntries: b.MaxEntries,
		Exclude: func(rel string, d fs.DirEntry) bool {
			if over != nil {
				return true // past a bound: the walk ends as fast as it can
			}
			if s != nil {
				if pat := s.Excluded(rel); pat != nil {
					sum.Excluded[pat.Raw] = append(sum.Excluded[pat.Raw], rel)
					return true
				}
			}
			switch {
			case b.MaxPathBytes > 0 && len(rel) > b.MaxPathBytes:
				over = &BoundError{Bound: "path bytes", Limit: int64(b.MaxPathBytes), Path: rel}
			case b.MaxDepth > 0 && strings.Count(rel, "/")+1 > b.MaxDepth:
				over = &BoundError{Bound: "depth", Limit: int64(b.MaxDepth), Path: rel}
			}
			return over != nil
		}})
	if cs != nil {
		sum.Files, sum.Links, sum.Skipped = cs.Files, cs.Links, cs.Skipped
	}
	switch {
	case over != nil:
		return sum, fmt.Errorf("collect %s: %w", src, over)
	case errors.Is(err, copytree.ErrTooLarge):
		return sum, fmt.Errorf("collect %s: %w", src, &BoundError{Bound: "bytes", Limit: b.MaxBytes})
	case errors.Is(err, copytree.ErrTooManyEntries):
		return sum, fmt.Errorf("collect %s: %w", src, &BoundError{Bound: "entries", Limit: int64(b.MaxEntries)})
	case errors.Is(err, syscall.ENAMETOOLONG):
		limit := int64(b.MaxPathBytes)
		if limit == 0 {
			limit = 4096 // the system's PATH_MAX
		}
		return sum, fmt.Errorf("collect %s: %w", src, &BoundError{Bound: "path bytes", Limit: limit})
	case err != nil:
		return sum, fmt.Errorf("collect %s: %w", src, err)
	}
	return sum, nil
}
