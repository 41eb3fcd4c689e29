package source

import "testing"

// TestCountEntries: the exclude-state-a problem counts what a pattern
// deletes in words, singular and plural, files (links among them) apart
// from empty folders (issue 16: an empty folder was "1 file(s)").
func TestCountEntries(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a.c"}, "1 file"},
		{[]string{"a.c", "b.link"}, "2 files"},
		{[]string{"spool/"}, "1 empty folder"},
		{[]string{"a/", "b/"}, "2 empty folders"},
		{[]string{"a.c", "b.c", "c.c", "spool/"}, "3 files and 1 empty folder"},
		{nil, "0 files"},
	} {
		if got := countEntries(c.names); got != c.want {
			t.Errorf("countEntries(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
