package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"
)

// fixtureTar returns the canonical tar of the fixture tree.
func fixtureTar(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := WriteCanonical(&buf, fixtureTree(t), fixtureTop); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixtureZip zips the fixture tree under fixtureTop/, with Unix modes.
func fixtureZip(t testing.TB) []byte {
	t.Helper()
	tree := fixtureTree(t)
	var ents []zent
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		name := fixtureTop + "/" + filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case rel == ".":
			ents = append(ents, zent{name: fixtureTop + "/", mode: fs.ModeDir | 0o755})
		case fi.IsDir():
			ents = append(ents, zent{name: name + "/", mode: fs.ModeDir | 0o755})
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			ents = append(ents, zent{name: name, mode: fi.Mode(), body: target})
		default:
			b, _ := os.ReadFile(p)
			ents = append(ents, zent{name: name, mode: fi.Mode(), body: string(b)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return zipBytes(t, ents...)
}

func xzBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bz2Bytes compresses with the bzip2 command (Go has no bzip2 writer); it skips without one.
func bz2Bytes(t testing.TB, b []byte) []byte {
	t.Helper()
	if _, err := exec.LookPath("bzip2"); err != nil {
		t.Skip("no bzip2 command to build a .tar.bz2")
	}
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExtractFormats unpacks the fixture from every format and expects the fixture's
// digest back.
func TestExtractFormats(t *testing.T) {
	tests := []struct {
		format Format
		build  func(t testing.TB) []byte
	}{
		{FormatTar, fixtureTar},
		{FormatTarGz, func(t testing.TB) []byte { return gz(t, fixtureTar(t), gzip.DefaultCompression) }},
		{FormatTarXz, func(t testing.TB) []byte { return xzBytes(t, fixtureTar(t)) }},
		{FormatTarBz2, func(t testing.TB) []byte { return bz2Bytes(t, fixtureTar(t)) }},
		{FormatZip, fixtureZip},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			data := tt.build(t)
			if got, err := DetectBytes(data); err != nil || got != tt.format {
				t.Errorf("DetectBytes = %q, %v; want %q", got, err, tt.format)
			}
			if got, err := Detect(bytes.NewReader(data)); err != nil || got != tt.format {
				t.Errorf("Detect = %q, %v; want %q", got, err, tt.format)
			}
			dest := filepath.Join(t.TempDir(), "out")
			if err := ExtractFile(writeTemp(t, data), dest, Limits{}); err != nil {
				t.Fatal(err)
			}
			top := SingleTop(dest)
			got, err := WriteCanonical(io.Discard, top, filepath.Base(top))
			if err != nil || got != fixtureDigest {
				t.Errorf("digest after extracting %s = %s, %v; want %s", tt.format, got, err, fixtureDigest)
			}
		})
	}
}

func TestExtractTarShapes(t *testing.T) {
	long := strings.Repeat("long-directory-name/", 8) + "file.txt" // > 100 bytes
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	write := func(h *tar.Header, body string) {
		t.Helper()
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, body)
	}
	write(&tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "git archive"}, Format: tar.FormatPAX}, "")
	write(&tar.Header{Typeflag: tar.TypeReg, Name: "p-1/" + long, Mode: 0o644, Format: tar.FormatGNU}, "gnu long name")
	write(&tar.Header{Typeflag: tar.TypeReg, Name: "p-1/pax-ü.txt", Mode: 0o600, Format: tar.FormatPAX,
		PAXRecords: map[string]string{"SCHILY.xattr.user.x": "1"}}, "pax")
	write(&tar.Header{Typeflag: tar.TypeReg, Name: "p-1/implied/deeper/setuid", Mode: 0o4755}, "setuid")
	write(&tar.Header{Typeflag: tar.TypeReg, Name: "p-1/group-exec", Mode: 0o610}, "x")
	write(&tar.Header{Typeflag: tar.TypeDir, Name: "p-1/implied/", Mode: 0o500}, "") // after its contents
	write(&tar.Header{Typeflag: tar.TypeReg, Name: "./p-1/dot-slash", Mode: 0o644}, "dot")
	write(&tar.Header{Typeflag: tar.TypeLink, Name: "p-1/hard", Linkname: "p-1/group-exec"}, "")
	write(&tar.Header{Typeflag: tar.TypeSymlink, Name: "p-1/implied/up", Linkname: "../dot-slash"}, "")
	tw.Close()

	dest := filepath.Join(t.TempDir(), "out")
	if err := Extract(bytes.NewReader(buf.Bytes()), FormatTar, dest, Limits{}); err != nil {
		t.Fatal(err)
	}
	got := treeListing(t, dest)
	want := []string{
		"drwxr-xr-x .",
		"drwxr-xr-x p-1",
		"-rw-r--r-- p-1/dot-slash",
		"-rwxr-xr-x p-1/group-exec",
		"-rwxr-xr-x p-1/hard",
		"drwxr-xr-x p-1/implied",
		"drwxr-xr-x p-1/implied/deeper",
		"-rwxr-xr-x p-1/implied/deeper/setuid",
		"Lrwxrwxrwx p-1/implied/up -> ../dot-slash",
	}
	dirs := strings.Split(long, "/")
	for i := range dirs {
		mode := "drwxr-xr-x "
		if i == len(dirs)-1 {
			mode = "-rw-r--r-- "
		}
		want = append(want, mode+"p-1/"+strings.Join(dirs[:i+1], "/"))
	}
	want = append(want, "-rw-r--r-- p-1/pax-ü.txt")
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extracted tree (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "p-1", filepath.FromSlash(long))); string(b) != "gnu long name" {
		t.Errorf("GNU long-name file holds %q", b)
	}
}

func TestExtractZipShapes(t *testing.T) {
	data := zipBytes(t,
		zent{name: "example.com/mod@v1.2.3/go.mod", body: "module example.com/mod\n"},                        // no mode: 0644
		zent{name: "example.com/mod@v1.2.3/run.sh", mode: 0o700, body: "#!/bin/sh\n"},                        // exec bit: 0755
		zent{name: "example.com/mod@v1.2.3/data/x.txt", mode: fs.ModeSetuid | 0o666, body: "setuid dropped"}, // implied dirs
		zent{name: "example.com/mod@v1.2.3/empty/"},
	)
	dest := filepath.Join(t.TempDir(), "out")
	if err := ExtractZip(bytes.NewReader(data), int64(len(data)), dest, Limits{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"drwxr-xr-x .",
		"drwxr-xr-x example.com",
		"drwxr-xr-x example.com/mod@v1.2.3",
		"drwxr-xr-x example.com/mod@v1.2.3/data",
		"-rw-r--r-- example.com/mod@v1.2.3/data/x.txt",
		"drwxr-xr-x example.com/mod@v1.2.3/empty",
		"-rw-r--r-- example.com/mod@v1.2.3/go.mod",
		"-rwxr-xr-x example.com/mod@v1.2.3/run.sh",
	}
	if diff := cmp.Diff(want, treeListing(t, dest)); diff != "" {
		t.Errorf("extracted tree (-want +got):\n%s", diff)
	}
	if got := SingleTop(dest); got != filepath.Join(dest, "example.com") {
		t.Errorf("SingleTop = %s", got)
	}
	if err := Extract(bytes.NewReader(data), FormatZip, filepath.Join(t.TempDir(), "z"), Limits{}); !errors.Is(err, ErrFormat) {
		t.Errorf("Extract(zip stream) error = %v, want %v", err, ErrFormat)
	}
}

func TestExtractDestination(t *testing.T) {
	archive := tarBytes(t, file("a", "1"))

	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep"), nil, 0o644)
	err := Extract(bytes.NewReader(archive), FormatTar, full, Limits{})
	if !errors.Is(err, ErrNotEmpty) {
		t.Errorf("extract into a non-empty folder: error = %v, want %v", err, ErrNotEmpty)
	}
	if got := listDir(t, full); !cmp.Equal(got, []string{"keep"}) {
		t.Errorf("non-empty destination now holds %q", got)
	}

	// An existing empty folder is used, and emptied (not removed) on failure.
	empty := t.TempDir()
	bad := tarBytes(t, file("ok", "1"), file("../x", "2"))
	if err := Extract(bytes.NewReader(bad), FormatTar, empty, Limits{}); !errors.Is(err, ErrUnsafePath) {
		t.Fatalf("error = %v, want %v", err, ErrUnsafePath)
	}
	if got := listDir(t, empty); len(got) != 0 {
		t.Errorf("after a failure the existing destination holds %q", got)
	}
	if err := Extract(bytes.NewReader(archive), FormatTar, empty, Limits{}); err != nil {
		t.Errorf("extract into an existing empty folder: %v", err)
	}
}

func TestDetectUnknown(t *testing.T) {
	for _, head := range []string{"", "hello", strings.Repeat("\x00", 512), "7z\xbc\xaf\x27\x1c"} {
		if f, err := DetectBytes([]byte(head)); !errors.Is(err, ErrFormat) {
			t.Errorf("DetectBytes(%q) = %q, %v; want %v", head, f, err, ErrFormat)
		}
	}
	err := ExtractFile(writeTemp(t, []byte("plain text, not an archive")), filepath.Join(t.TempDir(), "d"), Limits{})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("ExtractFile(text) error = %v, want %v", err, ErrFormat)
	}
	// Right magic, wrong contents: a gzip of text, a truncated xz, a truncated zip.
	for name, data := range map[string][]byte{
		"gzip of text":  gz(t, []byte("not a tar at all, just text that is long enough"), gzip.BestSpeed),
		"truncated xz":  xzBytes(t, fixtureTar(t))[:40],
		"truncated zip": fixtureZip(t)[:100],
	} {
		dest := filepath.Join(t.TempDir(), "d")
		if err := ExtractFile(writeTemp(t, data), dest, Limits{}); err == nil {
			t.Errorf("%s: extracted without error", name)
		}
		if _, err := os.Stat(dest); err == nil {
			t.Errorf("%s: failed extraction left %s", name, dest)
		}
	}
}

func TestSingleTop(t *testing.T) {
	dir := t.TempDir()
	if got := SingleTop(dir); got != dir {
		t.Errorf("SingleTop(empty) = %s", got)
	}
	os.Mkdir(filepath.Join(dir, "pkg-1.0"), 0o755)
	if got := SingleTop(dir); got != filepath.Join(dir, "pkg-1.0") {
		t.Errorf("SingleTop(one folder) = %s", got)
	}
	os.WriteFile(filepath.Join(dir, "extra"), nil, 0o644)
	if got := SingleTop(dir); got != dir {
		t.Errorf("SingleTop(two entries) = %s", got)
	}
	link := t.TempDir()
	os.Symlink(dir, filepath.Join(link, "l"))
	if got := SingleTop(link); got != link {
		t.Errorf("SingleTop(one symlink) = %s", got)
	}
}

func TestDefaultLimits(t *testing.T) {
	if got, want := DefaultLimits(), (Limits{MaxBytes: 4 << 30, MaxFiles: 500000, MaxRatio: 200}); got != want {
		t.Errorf("DefaultLimits() = %+v, want %+v", got, want)
	}
	if got := (Limits{MaxFiles: 3}).WithDefaults(); got.MaxBytes != 4<<30 || got.MaxFiles != 3 || got.MaxRatio != 200 {
		t.Errorf("zero MaxBytes not defaulted: %+v", got)
	}
}
