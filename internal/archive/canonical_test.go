package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixtureDigest is the State A digest of testdata/tree (plus the empty folder "empty")
// under the top folder "tree-1.0". It changes only if the canonical form changes, which
// moves every pin: treat a change here as a breaking change.
const fixtureDigest = "582c9dd2564e4a48ba37cec58f774eb9f7b1531e0b8289c6a8d8a7dc0783fccd"

const fixtureTop = "tree-1.0"

func TestFixtureDigest(t *testing.T) {
	var buf bytes.Buffer
	got, err := WriteCanonical(&buf, fixtureTree(t), fixtureTop)
	if err != nil {
		t.Fatal(err)
	}
	if got != fixtureDigest {
		t.Errorf("WriteCanonical digest = %s, want %s", got, fixtureDigest)
	}

	// The headers, in order, with everything canonical form fixes.
	var lines []string
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != CanonicalUnixTime ||
			!h.AccessTime.IsZero() || !h.ChangeTime.IsZero() {
			t.Errorf("%s: not canonical: %+v", h.Name, h)
		}
		line := string(h.Typeflag) + " " + os.FileMode(h.Mode).String() + " " + h.Name
		if h.Linkname != "" {
			line += " -> " + h.Linkname
		}
		if len(h.PAXRecords) > 0 {
			line += " [pax]"
		}
		lines = append(lines, line)
	}
	want := []string{
		"5 -rwxr-xr-x tree-1.0/",
		"0 -rw-r--r-- tree-1.0/README.txt",
		"5 -rwxr-xr-x tree-1.0/bin/",
		"0 -rwxr-xr-x tree-1.0/bin/run.sh",
		"5 -rwxr-xr-x tree-1.0/docs/",
		"0 -rw-r--r-- tree-1.0/docs/naïve file ünïcode.txt [pax]",
		"2 -rwxrwxrwx tree-1.0/docs/readme-link -> ../README.txt",
		"5 -rwxr-xr-x tree-1.0/empty/",
		"2 -rwxrwxrwx tree-1.0/link -> src/main.c",
		"5 -rwxr-xr-x tree-1.0/src/",
		"5 -rwxr-xr-x tree-1.0/src/lib/",
		"0 -rw-r--r-- tree-1.0/src/lib/util.h",
		"0 -rw-r--r-- tree-1.0/src/main.c",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("canonical tar headers (-want +got):\n%s", diff)
	}
}

// TestDigestIgnoresMetadata recreates the fixture in reverse order, with other
// permissions and random mtimes, and expects the same digest.
func TestDigestIgnoresMetadata(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "other")
	copyTree(t, fixtureTree(t), dst, true)
	when := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			when = when.Add(97 * time.Hour)
			os.Chtimes(p, when, when)
		}
		return nil
	})
	got, err := WriteCanonical(io.Discard, dst, fixtureTop)
	if err != nil {
		t.Fatal(err)
	}
	if got != fixtureDigest {
		t.Errorf("digest of the recreated tree = %s, want %s", got, fixtureDigest)
	}
}

func TestCanonicalHardLinkIsFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("same"), 0o644)
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Skip("no hard links here:", err)
	}
	var buf bytes.Buffer
	if _, err := WriteCanonical(&buf, dir, "t"); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeLink {
			t.Errorf("%s written as a hard link", h.Name)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(dir string) error
		top   string
		want  error
		text  string
	}{
		{
			name:  "absolute symlink",
			setup: func(dir string) error { return os.Symlink("/etc", filepath.Join(dir, "l")) },
			want:  ErrLink,
			text:  `canonical: entry "l": symlink to the absolute path "/etc"`,
		},
		{
			name:  "escaping symlink",
			setup: func(dir string) error { return os.Symlink("../x", filepath.Join(dir, "l")) },
			want:  ErrLink,
			text:  `canonical: entry "l": symlink target "../x" escapes the root`,
		},
		{
			name: "symlink escaping through another",
			setup: func(dir string) error {
				os.Mkdir(filepath.Join(dir, "a"), 0o755)
				if err := os.Symlink("..", filepath.Join(dir, "a", "s")); err != nil {
					return err
				}
				return os.Symlink("s/../x", filepath.Join(dir, "a", "l"))
			},
			want: ErrLink,
			text: `canonical: entry "a/l": symlink target "s/../x" escapes the root`,
		},
		{
			name: "fifo",
			setup: func(dir string) error {
				return mkfifo(filepath.Join(dir, "pipe"))
			},
			want: ErrSpecialFile,
			text: `canonical: entry "pipe": FIFO`,
		},
		{
			name:  "top with a slash",
			setup: func(string) error { return nil },
			top:   "a/b",
			want:  ErrUnsafePath,
			text:  `canonical: top folder "a/b": unsafe path: must be one path component`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tt.setup(dir); err != nil {
				t.Skip(err)
			}
			top := tt.top
			if top == "" {
				top = "t"
			}
			_, err := WriteCanonical(io.Discard, dir, top)
			if !errors.Is(err, tt.want) {
				t.Fatalf("WriteCanonical error = %v, want %v", err, tt.want)
			}
			if err.Error() != tt.text {
				t.Errorf("error text\n got %s\nwant %s", err, tt.text)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	tree := fixtureTree(t)
	var tgz bytes.Buffer
	digest, err := Repack(&tgz, tree, fixtureTop)
	if err != nil {
		t.Fatal(err)
	}
	if digest != fixtureDigest {
		t.Errorf("Repack digest = %s, want %s", digest, fixtureDigest)
	}

	got, err := DigestTarGz(bytes.NewReader(tgz.Bytes()))
	if err != nil || got != digest {
		t.Errorf("DigestTarGz(Repack output) = %s, %v; want %s", got, err, digest)
	}

	dest := filepath.Join(t.TempDir(), "out")
	if err := ExtractFile(writeTemp(t, tgz.Bytes()), dest, Limits{}); err != nil {
		t.Fatal(err)
	}
	top := SingleTop(dest)
	if filepath.Base(top) != fixtureTop {
		t.Fatalf("SingleTop = %s, want the folder %s", top, fixtureTop)
	}
	again, err := WriteCanonical(io.Discard, top, fixtureTop)
	if err != nil || again != digest {
		t.Errorf("WriteCanonical(extracted) = %s, %v; want %s", again, err, digest)
	}
	if diff := cmp.Diff(treeListing(t, tree), treeListing(t, top)); diff != "" {
		t.Errorf("extracted tree differs (-repacked +extracted):\n%s", diff)
	}

	// The same tar under another gzip level: other bytes, same pin.
	zr, err := gzip.NewReader(bytes.NewReader(tgz.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	best := gz(t, raw, gzip.BestCompression)
	if bytes.Equal(best, tgz.Bytes()) {
		t.Fatal("recompressing at another level gave the same bytes; the test proves nothing")
	}
	if got, err := DigestTarGz(bytes.NewReader(best)); err != nil || got != digest {
		t.Errorf("DigestTarGz(recompressed) = %s, %v; want %s", got, err, digest)
	}
}

func TestRepackBytes(t *testing.T) {
	tree := fixtureTree(t)
	var a, b bytes.Buffer
	if _, err := Repack(&a, tree, fixtureTop); err != nil {
		t.Fatal(err)
	}
	if _, err := Repack(&b, tree, fixtureTop); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two Repacks of one tree differ")
	}
	h := a.Bytes()[:10]
	// ID1 ID2 CM FLG MTIME(4) XFL OS: deflate, no flags (no name, comment or extra),
	// mtime 0, BestSpeed's XFL 4, OS 255.
	want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}
	if !bytes.Equal(h, want) {
		t.Errorf("gzip header = % x, want % x", h, want)
	}
}

func TestDigestTarGzErrors(t *testing.T) {
	_, err := DigestTarGz(strings.NewReader("not gzip"))
	if err == nil || !strings.HasPrefix(err.Error(), "digest: gzip: ") {
		t.Errorf("DigestTarGz(garbage) error = %v", err)
	}
	tgz := gz(t, []byte("some tar"), gzip.BestSpeed)
	tgz[len(tgz)-5] ^= 0xff // the CRC
	if _, err := DigestTarGz(bytes.NewReader(tgz)); !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("DigestTarGz(bad CRC) error = %v, want %v", err, gzip.ErrChecksum)
	}
}
