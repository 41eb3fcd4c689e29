package notice

import (
	"bytes"

	"github.com/rogpeppe/go-internal/diff"
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
