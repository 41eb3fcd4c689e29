package notice

import (
	"bytes"
	"errors"
	"io/fs"
	"os"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// Diff returns a unified diff (diff -u format, 3 lines of context) that
// turns old into new, with oldName and newName in its --- and +++ lines;
// nil when they are equal. It is go-internal's anchored diff
// (github.com/rogpeppe/go-internal/diff), whose time and memory are
// O(n log n) in the number of lines (issue 17: the longest-common-
// subsequence table it replaces took 1 GiB and 2.3 s for a 16k-line
// NOTICE), without that package's leading "diff OLD NEW" line. Hunk
// headers always give a count ("@@ -1,0 +1,1 @@"); a last line without a
// newline is followed by "\ No newline at end of file".
func Diff(oldName, newName string, old, new []byte) []byte {
	if bytes.Equal(old, new) {
		return nil
	}
	d := diff.Diff(oldName, old, newName, new)
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return d
}

// Stale is the diff that turns the file at path into text ([Diff], the
// new side named "<path> (regenerated)"), nil when they are equal. A
// missing file is empty; the error is the file's that cannot be read.
func Stale(path string, text []byte) ([]byte, error) {
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return Diff(path, path+" (regenerated)", cur, text), nil
}

// WriteFile replaces path with data (mode 0644) through a temporary file
// in the same folder, synced ([archive.WriteFileAtomic]).
func WriteFile(path string, data []byte) error {
	return archive.WriteFileAtomic(path, data, 0o644)
}
