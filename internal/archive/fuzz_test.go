package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzLimits keep fuzzed archives small and fast.
var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxFiles: 200, MaxRatio: 50}

// FuzzExtract feeds arbitrary bytes to the extractor. It must never panic, never leave
// anything beside the root, leave nothing at all when it fails, never write or count
// past the limits (bytes with hard links in full, the expansion ratio of the archive's
// size), produce only trees that canonical form accepts (no escaping link, no special
// file), and CheckFile's dry run must accept whatever extraction accepted.
func FuzzExtract(f *testing.F) {
	for _, h := range hostileCorpus() {
		f.Add(h.build(f, "/tmp/srb-fuzz-outside"))
	}
	f.Add(fixtureTar(f))
	f.Add(gz(f, fixtureTar(f), gzip.BestSpeed))
	f.Add(xzBytes(f, fixtureTar(f)))
	f.Add(fixtureZip(f))
	f.Add(linkBomb(f, 64<<10, 40))
	f.Add(gz(f, tarBytes(f, file("a", zeros(256<<10)), hardlink("b", "a"), hardlink("c", "b")), gzip.BestSpeed))
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := DetectBytes(data[:min(len(data), DetectLen)])
		if err != nil {
			return
		}
		parent := t.TempDir()
		dest := filepath.Join(parent, "root")
		var x *extractor
		if format == FormatZip {
			x, err = extractZip(bytes.NewReader(data), int64(len(data)), dest, fuzzLimits, false)
		} else {
			x, err = extractStream(bytes.NewReader(data), format, dest, fuzzLimits, false)
		}
		if x != nil && (x.written > x.bytes || x.bytes > fuzzLimits.MaxBytes || x.bytes > fuzzLimits.WithDefaults().allowed(int64(len(data))) || x.entries > fuzzLimits.MaxFiles+1) {
			t.Fatalf("past the limits: wrote %d, counted %d bytes, %d entries (%v)", x.written, x.bytes, x.entries, err)
		}
		left := listDir(t, parent)
		if err != nil {
			if len(left) != 0 {
				t.Fatalf("failed extraction (%v) left %q", err, left)
			}
			return
		}
		if !slices.Equal(left, []string{"root"}) {
			t.Fatalf("extraction wrote %q beside the root", left)
		}
		arch := filepath.Join(t.TempDir(), "a")
		if werr := os.WriteFile(arch, data, 0o644); werr != nil {
			t.Fatal(werr)
		}
		if cerr := CheckFile(arch, fuzzLimits); cerr != nil {
			t.Fatalf("extraction accepted what CheckFile refuses: %v", cerr)
		}
		if _, err := WriteCanonical(io.Discard, dest, "t"); errors.Is(err, ErrLink) || errors.Is(err, ErrSpecialFile) {
			t.Fatalf("extracted a tree canonical form refuses: %v", err)
		}
	})
}

// buildTree makes a tree from spec, one entry a line: a kind letter (f file, x
// executable, d directory, l symlink), a name, a space, then the content or link target.
// Every write goes through an os.Root, so a fuzzed symlink cannot aim a later write
// outside dir. Entries the filesystem refuses are skipped.
func buildTree(t *testing.T, dir, spec string) {
	os.MkdirAll(dir, 0o755)
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, line := range strings.Split(spec, "\n") {
		if len(line) < 2 {
			continue
		}
		kind, rest := line[0], line[1:]
		name, body, _ := strings.Cut(rest, " ")
		if !filepath.IsLocal(name) {
			continue
		}
		r.MkdirAll(filepath.Dir(name), 0o755)
		switch kind {
		case 'f':
			r.WriteFile(name, []byte(body), 0o644)
		case 'x':
			r.WriteFile(name, []byte(body), 0o755)
		case 'd':
			r.MkdirAll(name, 0o755)
		case 'l':
			r.Symlink(body, name)
		}
	}
}

// FuzzRepack checks canonical form on arbitrary trees: the same tree gives the same
// bytes twice, Repack and DigestTarGz agree with WriteCanonical, and extracting the
// repacked archive gives a tree with the same digest.
func FuzzRepack(f *testing.F) {
	f.Add("fa hello\nxbin/run #!/bin/sh\ndempty\nllink a")
	f.Add("fsrc/main.c int main;\nfsrc/lib/x.h x\nlsrc/up ../src/main.c\nfnaïve file.txt ü")
	f.Add("la b\nlb a")
	f.Add("ds\nls/l ..\nfz z")
	f.Add("f" + strings.Repeat("long-name/", 20) + "f x")
	f.Fuzz(func(t *testing.T, spec string) {
		src := filepath.Join(t.TempDir(), "src")
		buildTree(t, src, spec)
		var first, second bytes.Buffer
		d1, err := WriteCanonical(&first, src, "top")
		if err != nil {
			if errors.Is(err, ErrLink) || errors.Is(err, ErrUnsafePath) {
				return // a link out of the tree, or a name Extract would refuse
			}
			t.Fatal(err)
		}
		d2, err := WriteCanonical(&second, src, "top")
		if err != nil || d1 != d2 || !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("WriteCanonical not deterministic: %s, %s, %v", d1, d2, err)
		}
		var tgz bytes.Buffer
		d3, err := Repack(&tgz, src, "top")
		if err != nil || d3 != d1 {
			t.Fatalf("Repack = %s, %v; want %s", d3, err, d1)
		}
		if d4, err := DigestTarGz(bytes.NewReader(tgz.Bytes())); err != nil || d4 != d1 {
			t.Fatalf("DigestTarGz = %s, %v; want %s", d4, err, d1)
		}
		dest := filepath.Join(t.TempDir(), "out")
		if err := Extract(bytes.NewReader(tgz.Bytes()), FormatTarGz, dest, Limits{}); err != nil {
			t.Fatalf("extracting a repacked tree: %v", err)
		}
		if d5, err := WriteCanonical(io.Discard, filepath.Join(dest, "top"), "top"); err != nil || d5 != d1 {
			t.Fatalf("digest after the round trip = %s, %v; want %s", d5, err, d1)
		}
	})
}
