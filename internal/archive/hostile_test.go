package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is one archive of the malicious corpus. build gets outside, an absolute path
// next to the destination that the archive tries to reach.
type hostile struct {
	name  string
	build func(t testing.TB, outside string) []byte
	lim   Limits
	want  error
	entry string // the entry the error must name
}

func tarOf(ents ...ent) func(testing.TB, string) []byte {
	return func(t testing.TB, _ string) []byte { return tarBytes(t, ents...) }
}

func zipOf(ents ...zent) func(testing.TB, string) []byte {
	return func(t testing.TB, _ string) []byte { return zipBytes(t, ents...) }
}

// zeros is a string of n zero bytes: a bomb compresses it to almost nothing.
func zeros(n int) string { return string(make([]byte, n)) }

// hostileCorpus is the malicious-archive corpus of issue #3, built at test time.
func hostileCorpus() []hostile {
	small := Limits{MaxBytes: 1 << 20, MaxFiles: 10}
	return []hostile{
		{name: "traversal", build: tarOf(file("../x", "evil")), want: ErrUnsafePath, entry: "../x"},
		{name: "traversal inside", build: tarOf(file("a/../../x", "evil")), want: ErrUnsafePath, entry: "a/../../x"},
		{name: "dot traversal", build: tarOf(file("./../x", "evil")), want: ErrUnsafePath, entry: "./../x"},
		{name: "deep traversal", build: tarOf(file("../../etc/passwd", "evil")), want: ErrUnsafePath, entry: "../../etc/passwd"},
		{name: "absolute", build: func(t testing.TB, outside string) []byte {
			return tarBytes(t, file(outside+"/x", "evil"))
		}, want: ErrUnsafePath},
		{name: "absolute etc", build: tarOf(file("/etc/x", "evil")), want: ErrUnsafePath, entry: "/etc/x"},
		{name: "backslash", build: tarOf(file(`..\x`, "evil")), want: ErrUnsafePath, entry: `..\x`},
		{name: "symlink to absolute", build: func(t testing.TB, outside string) []byte {
			return tarBytes(t, symlink("l", outside))
		}, want: ErrLink, entry: "l"},
		{name: "symlink to etc", build: tarOf(symlink("etc", "/etc")), want: ErrLink, entry: "etc"},
		{name: "symlink up", build: tarOf(symlink("l", "../..")), want: ErrLink, entry: "l"},
		{name: "symlink then write through it", build: func(t testing.TB, outside string) []byte {
			return tarBytes(t, symlink("link", outside), file("link/evil", "evil"))
		}, want: ErrLink, entry: "link"},
		{name: "inner symlink then write through it", build: tarOf(
			dirEnt("d/"), symlink("link", "d"), file("link/evil", "evil"),
		), want: ErrLink, entry: "link/evil"},
		{name: "symlink escaping through another", build: tarOf(
			dirEnt("a/"), symlink("a/l", "s/../x"), symlink("a/s", ".."),
		), want: ErrLink, entry: "a/l"},
		{name: "hard link outside", build: tarOf(hardlink("h", "../x")), want: ErrLink, entry: "h"},
		{name: "hard link absolute", build: func(t testing.TB, outside string) []byte {
			return tarBytes(t, hardlink("h", outside+"/x"))
		}, want: ErrLink, entry: "h"},
		{name: "hard link to a later entry", build: tarOf(hardlink("h", "later"), file("later", "x")), want: ErrLink, entry: "h"},
		{name: "hard link to a directory", build: tarOf(dirEnt("d/"), hardlink("h", "d")), want: ErrLink, entry: "h"},
		{name: "hard link to a symlink", build: tarOf(symlink("s", "."), hardlink("h", "s")), want: ErrLink, entry: "h"},
		{name: "char device", build: tarOf(special("null", tar.TypeChar)), want: ErrSpecialFile, entry: "null"},
		{name: "block device", build: tarOf(special("sda", tar.TypeBlock)), want: ErrSpecialFile, entry: "sda"},
		{name: "fifo", build: tarOf(special("pipe", tar.TypeFifo)), want: ErrSpecialFile, entry: "pipe"},
		{name: "too many files", build: func(t testing.TB, _ string) []byte {
			var ents []ent
			for i := range 20 {
				ents = append(ents, file(strings.Repeat("f", i+1), ""))
			}
			return tarBytes(t, ents...)
		}, lim: small, want: ErrTooManyFiles, entry: strings.Repeat("f", 11)},
		{name: "gzip bomb", build: func(t testing.TB, _ string) []byte {
			return gz(t, tarBytes(t, file("bomb", zeros(4<<20))), gzip.BestCompression)
		}, lim: small, want: ErrTooLarge, entry: "bomb"},
		{name: "many small files over the byte limit", build: func(t testing.TB, _ string) []byte {
			return gz(t, tarBytes(t, file("a", zeros(600<<10)), file("b", zeros(600<<10))), gzip.BestSpeed)
		}, lim: small, want: ErrTooLarge, entry: "b"},
		{name: "duplicate file", build: tarOf(file("x", "1"), file("x", "2")), want: ErrDuplicate, entry: "x"},
		{name: "duplicate through ./", build: tarOf(file("x", "1"), file("./x", "2")), want: ErrDuplicate, entry: "./x"},
		{name: "file then symlink", build: tarOf(file("x", "1"), symlink("x", ".")), want: ErrDuplicate, entry: "x"},
		// A folder made for an earlier entry's path is an entry too: what lands on its
		// name later is a duplicate, for CheckFile as for ExtractFile.
		{name: "file where a folder was implied", build: tarOf(file("a/x", "1"), file("a", "2")), want: ErrDuplicate, entry: "a"},
		{name: "symlink where a folder was implied", build: tarOf(file("a/x", "1"), symlink("a", ".")), want: ErrDuplicate, entry: "a"},
		{name: "hard link where a folder was implied", build: tarOf(file("t", "1"), file("a/x", "1"), hardlink("a", "t")), want: ErrDuplicate, entry: "a"},
		{name: "zip file where a folder was implied", build: zipOf(zent{name: "a/x", body: "1"}, zent{name: "a", body: "2"}), want: ErrDuplicate, entry: "a"},
		{name: "zip traversal", build: zipOf(zent{name: "../evil", body: "evil"}), want: ErrUnsafePath, entry: "../evil"},
		{name: "zip absolute", build: func(t testing.TB, outside string) []byte {
			return zipBytes(t, zent{name: outside + "/evil", body: "evil"})
		}, want: ErrUnsafePath},
		{name: "zip escaping symlink", build: zipOf(zent{name: "l", mode: os.ModeSymlink | 0o777, body: "../../x"}), want: ErrLink, entry: "l"},
		{name: "zip device", build: zipOf(zent{name: "dev", mode: os.ModeDevice | 0o644}), want: ErrSpecialFile, entry: "dev"},
		{name: "zip bomb", build: zipOf(zent{name: "bomb", body: zeros(4 << 20)}), lim: small, want: ErrTooLarge, entry: "bomb"},
		{name: "zip duplicate", build: zipOf(zent{name: "x", body: "1"}, zent{name: "x", body: "2"}), want: ErrDuplicate, entry: "x"},
	}
}

func TestHostile(t *testing.T) {
	for _, h := range hostileCorpus() {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			dest := filepath.Join(parent, "root")
			arch := writeTemp(t, h.build(t, parent))
			err := ExtractFile(arch, dest, h.lim)
			if !errors.Is(err, h.want) {
				t.Fatalf("ExtractFile error = %v, want %v", err, h.want)
			}
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Op != "extract" {
				t.Fatalf("error %v is not an extract *EntryError", err)
			}
			if h.entry != "" && ee.Entry != h.entry {
				t.Errorf("error names entry %q, want %q (%v)", ee.Entry, h.entry, err)
			}
			if !strings.HasPrefix(err.Error(), `extract: entry "`) {
				t.Errorf("error text %q does not name its entry", err)
			}
			if got := listDir(t, parent); len(got) != 0 {
				t.Errorf("after a refusal the parent holds %q, want nothing (root removed, nothing outside)", got)
			}
		})
	}
}

// TestErrorText pins the exact wording of each kind of refusal.
func TestErrorText(t *testing.T) {
	tests := []struct {
		archive []byte
		lim     Limits
		want    string
	}{
		{tarBytes(t, file("../../etc/passwd", "x")), Limits{}, `extract: entry "../../etc/passwd": path escapes the root`},
		{tarBytes(t, file("/etc/passwd", "x")), Limits{}, `extract: entry "/etc/passwd": absolute path`},
		{tarBytes(t, symlink("l", "/etc")), Limits{}, `extract: entry "l": symlink to the absolute path "/etc"`},
		{tarBytes(t, symlink("l", "../..")), Limits{}, `extract: entry "l": symlink target "../.." escapes the root`},
		{tarBytes(t, hardlink("h", "later"), file("later", "")), Limits{}, `extract: entry "h": hard link to "later", which is not an earlier regular file of the archive`},
		{tarBytes(t, special("null", tar.TypeChar)), Limits{}, `extract: entry "null": character device`},
		{tarBytes(t, file("a", "12"), file("b", "34")), Limits{MaxFiles: 1}, `extract: entry "b": more than 1 entries (Limits.MaxFiles)`},
		{tarBytes(t, file("a", "12345")), Limits{MaxBytes: 4}, `extract: entry "a": more than 4 bytes of files (Limits.MaxBytes)`},
		{tarBytes(t, file("a", "1"), file("a", "2")), Limits{}, `extract: entry "a": duplicate entry`},
		{tarBytes(t, symlink("l", "."), file("l/x", "")), Limits{}, `extract: entry "l/x": path goes through the symlink "l"`},
	}
	for _, tt := range tests {
		err := Extract(bytes.NewReader(tt.archive), FormatTar, filepath.Join(t.TempDir(), "d"), tt.lim)
		if err == nil || err.Error() != tt.want {
			t.Errorf("error\n got %v\nwant %s", err, tt.want)
		}
	}
}
