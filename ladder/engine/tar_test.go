package engine

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tarEntry is one entry of a stream tarOf writes, as the engine's copy
// endpoint names them ("repo/…").
type tarEntry struct {
	name     string
	typ      byte
	body     string
	size     int64 // the header's size, when it is not len(body) (a lie: the body never follows)
	linkname string
}

// tarOf streams entries; an entry whose size passes its body ends the
// stream there (as an engine would still be sending it).
func tarOf(entries ...tarEntry) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.linkname, Format: tar.FormatPAX}
			if e.typ == tar.TypeReg {
				h.Size = int64(len(e.body))
				if e.size > 0 {
					h.Size = e.size
				}
			}
			if e.typ == tar.TypeDir {
				h.Mode = 0o755
			}
			if err := tw.WriteHeader(h); err != nil {
				pw.CloseWithError(err)
				return
			}
			if e.size > 0 {
				tw.Flush()
				pw.CloseWithError(errors.New("the rest of a terabyte"))
				return
			}
			io.WriteString(tw, e.body)
		}
		pw.CloseWithError(tw.Close())
	}()
	return pr
}

// TestReadTarBounded: each bound stops the copy at the entry that passes
// it with a *BoundError naming the bound and the entry, before the
// entry's content is read (a sparse terabyte costs nothing); hard links
// count in full; Skip leaves a folder out with everything under it
// (counted as entries, its files as stream bytes, not as bytes written);
// special files are counted, never written; a hard link whose target was
// skipped is listed, not written.
func TestReadTarBounded(t *testing.T) {
	dir := func(n string) tarEntry { return tarEntry{name: n, typ: tar.TypeDir} }
	file := func(n, body string) tarEntry { return tarEntry{name: n, typ: tar.TypeReg, body: body} }
	for _, c := range []struct {
		name    string
		entries []tarEntry
		bounds  CopyBounds
		bound   string
		at      string
	}{
		{"sparse terabyte", []tarEntry{dir("repo/"), file("repo/a", "x"), {name: "repo/huge", typ: tar.TypeReg, size: 1 << 40}},
			CopyBounds{MaxBytes: 8 << 30, MaxStreamBytes: 16 << 30}, "bytes", "huge"},
		{"skipped sparse terabyte", []tarEntry{dir("repo/"), dir("repo/build/"), {name: "repo/build/huge", typ: tar.TypeReg, size: 1 << 40}},
			CopyBounds{MaxBytes: 8 << 30, MaxStreamBytes: 16 << 30, Skip: func(rel string) bool { return rel == "build" }}, "stream bytes", "build/huge"},
		{"bytes", []tarEntry{dir("repo/"), file("repo/a", "0123456789"), file("repo/b", "0123456789")},
			CopyBounds{MaxBytes: 15}, "bytes", "b"},
		{"hard links in full", []tarEntry{dir("repo/"), file("repo/a", "0123456789"), {name: "repo/l1", typ: tar.TypeLink, linkname: "repo/a"},
			{name: "repo/l2", typ: tar.TypeLink, linkname: "repo/a"}}, CopyBounds{MaxBytes: 25}, "bytes", "l2"},
		{"entries", []tarEntry{dir("repo/"), file("repo/a", ""), file("repo/b", ""), file("repo/c", "")},
			CopyBounds{MaxEntries: 3}, "entries", "repo/c"},
		{"depth", []tarEntry{dir("repo/"), dir("repo/a/"), dir("repo/a/b/"), dir("repo/a/b/c/")},
			CopyBounds{MaxDepth: 2}, "depth", "a/b/c"},
		{"path bytes", []tarEntry{dir("repo/"), file("repo/"+strings.Repeat("n", 40), "")},
			CopyBounds{MaxPathBytes: 32}, "path bytes", strings.Repeat("n", 40)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out")
			_, err := readTarBounded(tarOf(c.entries...), dst, &c.bounds)
			var be *BoundError
			if !errors.As(err, &be) || be.Bound != c.bound || be.Path != c.at {
				t.Fatalf("error %v, want the %s bound at %s", err, c.bound, c.at)
			}
			if !strings.Contains(be.Error(), c.at) {
				t.Errorf("%q does not name the entry", be.Error())
			}
		})
	}

	// A folder required, and something else in its place: nothing is
	// written, the link least of all.
	for _, e := range []tarEntry{{name: "repo", typ: tar.TypeSymlink, linkname: "/"}, file("repo", "x"), {name: "repo", typ: tar.TypeFifo}} {
		dst := filepath.Join(t.TempDir(), "out")
		_, err := readTarBounded(tarOf(e), dst, &CopyBounds{Dir: true})
		var be *BoundError
		if !errors.As(err, &be) || be.Bound != "not a folder" || be.Type == "" {
			t.Errorf("%+v in place of the folder: %v", e, err)
		}
		if _, err := os.Lstat(dst); err == nil {
			t.Errorf("%+v in place of the folder was written", e)
		}
	}

	// Within the bounds: what is skipped, special or unlinked.
	dst := filepath.Join(t.TempDir(), "out")
	sum, err := readTarBounded(tarOf(dir("repo/"), dir("repo/build/"), file("repo/build/big", strings.Repeat("b", 100)),
		dir("repo/build/deep/"), file("repo/build/deep/x", "x"),
		file("repo/keep", "kept"), tarEntry{name: "repo/fifo", typ: tar.TypeFifo}, tarEntry{name: "repo/dev", typ: tar.TypeChar},
		tarEntry{name: "repo/out", typ: tar.TypeSymlink, linkname: "/etc/passwd"},
		tarEntry{name: "repo/hard", typ: tar.TypeLink, linkname: "repo/build/big"}, tarEntry{name: "repo/hard2", typ: tar.TypeLink, linkname: "repo/keep"}),
		dst, &CopyBounds{MaxBytes: 10, MaxStreamBytes: 200, MaxEntries: 20, MaxDepth: 2,
			Skip: func(rel string) bool { return rel == "build" }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Entries != 11 || sum.Files != 2 || sum.Links != 1 || sum.Dirs != 1 || sum.Bytes != 8 || sum.Special != 2 {
		t.Errorf("summary %+v", sum)
	}
	if !slices.Equal(sum.Skipped, []string{"build"}) || !slices.Equal(sum.Unlinked, []string{"hard"}) || !slices.Equal(sum.SpecialPaths, []string{"fifo", "dev"}) {
		t.Errorf("skipped %q, unlinked %q, special %q", sum.Skipped, sum.Unlinked, sum.SpecialPaths)
	}
	for name, want := range map[string]string{"keep": "kept", "hard2": "kept"} {
		if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || !bytes.Equal(b, []byte(want)) {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	for _, name := range []string{"build", "fifo", "dev", "hard"} {
		if _, err := os.Lstat(filepath.Join(dst, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if l, err := os.Readlink(filepath.Join(dst, "out")); err != nil || l != "/etc/passwd" {
		t.Errorf("the link out: %q, %v (kept as a link, never followed)", l, err)
	}
}
