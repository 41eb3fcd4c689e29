package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// fakeApt writes an apt-get that answers update and source --print-uris
// with listing, and an apt-helper that copies the file a download-file URI
// names (file://…) to its destination and logs what it was asked for.
func fakeApt(t *testing.T, listing string) (aptGet, aptHelper, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "helper.log")
	listFile := filepath.Join(bin, "listing")
	if err := os.WriteFile(listFile, []byte(listing), 0o644); err != nil {
		t.Fatal(err)
	}
	aptGet = filepath.Join(bin, "apt-get")
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in update) exit 0;; --print-uris) cat '" + listFile + "'; exit 0;; esac; done\necho 'unexpected apt-get call' >&2; exit 100\n"
	if err := os.WriteFile(aptGet, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	aptHelper = filepath.Join(bin, "apt-helper")
	script = "#!/bin/sh\n[ \"$1\" = download-file ] || exit 100\necho \"$2 $4\" >> '" + log + "'\ncp \"${2#file://}\" \"$3\"\n"
	if err := os.WriteFile(aptHelper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return aptGet, aptHelper, log
}

// TestDebianDownloadsOnlyTheOrigTarball: a Debian State A needs only the
// upstream tarball, so srb downloads that one file (a mirror that lacks the
// .debian.tar.xz or an orig component still serves State A), skips the
// component tarball and the signature, and refuses a download whose size or
// SHA-256 disagrees with the signed index, caching nothing.
func TestDebianDownloadsOnlyTheOrigTarball(t *testing.T) {
	pool := t.TempDir()
	orig := tarGz(t, "pkg-1.0", map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"}, gzip.BestCompression)
	other := tarGz(t, "types", map[string]string{"a.txt": "types\n"}, gzip.BestCompression)
	if string(orig) == string(other) {
		t.Fatal("test needs two different tarballs")
	}
	for name, b := range map[string][]byte{"pkg_1.0+~2.0.orig.tar.gz": orig, "pkg_1.0+~2.0.orig-types.tar.gz": other} {
		if err := os.WriteFile(filepath.Join(pool, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listing := func(size int, hash string) string {
		return strings.Join([]string{
			"Reading package lists...",
			"NOTICE: 'pkg' packaging is maintained in the 'Git' version control system at:",
			"Need to get 626 kB of source archives.",
			"'file://" + pool + "/pkg_1.0%2b%7e2.0-2.dsc' pkg_1.0+~2.0-2.dsc 2634 SHA256:" + strings.Repeat("0", 64),
			"'file://" + pool + "/pkg_1.0+~2.0.orig-types.tar.gz' pkg_1.0+~2.0.orig-types.tar.gz " + strconv.Itoa(len(other)) + " SHA256:" + sum(other),
			"'file://" + pool + "/pkg_1.0+~2.0.orig.tar.gz.asc' pkg_1.0+~2.0.orig.tar.gz.asc 10 SHA256:" + strings.Repeat("1", 64),
			"'file://" + pool + "/pkg_1.0+~2.0.orig.tar.gz' pkg_1.0+~2.0.orig.tar.gz " + strconv.Itoa(size) + " SHA256:" + hash,
			"'file://" + pool + "/pkg_1.0+~2.0-2.debian.tar.xz' pkg_1.0+~2.0-2.debian.tar.xz 6752 SHA256:" + strings.Repeat("2", 64),
			"",
		}, "\n")
	}
	etc := t.TempDir()
	if err := os.WriteFile(filepath.Join(etc, "sources.list"), []byte("deb http://mirror.invalid/debian bookworm main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := task.StateA{Project: "pkg", Version: "1.0", Source: task.Source{Kind: "debian", Package: "pkg", Version: "1.0+~2.0-2"}}

	aptGet, aptHelper, log := fakeApt(t, listing(len(orig), sum(orig)))
	c := &Cache{Dir: t.TempDir()}
	e, err := c.Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := "file://" + pool + "/pkg_1.0+~2.0.orig.tar.gz SHA256:" + sum(orig) + "\n"; string(got) != want {
		t.Errorf("apt-helper was asked for\n%s\nwant only\n%s", got, want)
	}
	if e.Digest == "" {
		t.Error("no digest")
	}

	for name, l := range map[string]string{
		"size":   listing(len(orig)+1, sum(orig)),
		"sha256": listing(len(orig), sum(other)),
	} {
		aptGet, aptHelper, _ := fakeApt(t, l)
		c := &Cache{Dir: t.TempDir()}
		_, err := c.Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
		if err == nil || !strings.Contains(err.Error(), "the source index says") || !strings.Contains(err.Error(), "pkg_1.0+~2.0.orig.tar.gz") {
			t.Errorf("%s mismatch: %v", name, err)
		}
		assertNothingCached(t, c)
	}

	aptGet, aptHelper, _ = fakeApt(t, "Reading package lists...\n")
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
	if err == nil || !strings.Contains(err.Error(), "no file listed") {
		t.Errorf("empty listing: %v", err)
	}
}

// arArchive builds a Debian package: an ar archive of the members in order.
func arArchive(members [][2]string) []byte {
	var b strings.Builder
	b.WriteString("!<arch>\n")
	for _, m := range members {
		fmt.Fprintf(&b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", m[0], "0", "0", "0", "100644", len(m[1]))
		b.WriteString(m[1])
		if len(m[1])%2 == 1 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// TestDebianBinaryKeepsTheSubdir: a debian-binary State A is the data.tar
// of the one .deb apt-get download --print-uris lists (the control member
// skipped, an odd-sized member's padding honoured), cut to its subdir with
// Debian's copyright file beside it; a
// subdir the package lacks and a listing without a .deb are errors.
func TestDebianBinaryKeepsTheSubdir(t *testing.T) {
	pool := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range [][2]string{{"./usr/lib/python3/dist-packages/pkg/core.py", "x = 1\n"}, {"./usr/share/doc/python3-pkg/copyright", "ISC\n"}} {
		tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	zw.Close()
	data := buf.Bytes()
	deb := arArchive([][2]string{{"debian-binary", "2.0\n"}, {"control.tar.gz", "odd"}, {"data.tar.gz", string(data)}})
	if err := os.WriteFile(filepath.Join(pool, "python3-pkg_1.0-1_all.deb"), deb, 0o644); err != nil {
		t.Fatal(err)
	}
	listing := "Reading package lists...\n'file://" + pool + "/python3-pkg_1.0-1_all.deb' python3-pkg_1.0-1_all.deb " + strconv.Itoa(len(deb)) + " SHA256:" + sum(deb) + "\n"
	etc := t.TempDir()
	if err := os.WriteFile(filepath.Join(etc, "sources.list"), []byte("deb http://mirror.invalid/debian bookworm main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := task.StateA{Project: "pkg", Version: "1.0", Source: task.Source{Kind: "debian-binary", Package: "python3-pkg", Version: "1.0-1", Subdir: "usr/lib/python3/dist-packages"}}
	aptGet, aptHelper, _ := fakeApt(t, listing)
	c := &Cache{Dir: t.TempDir()}
	e, err := c.Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := archive.ExtractFile(c.Path(e.Digest), out, archive.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, "pkg-1.0", "pkg", "core.py"))
	if err != nil || string(got) != "x = 1\n" {
		t.Errorf("State A's pkg/core.py = %q, %v; want the package's file", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "pkg-1.0", "copyright")); err != nil || string(got) != "ISC\n" {
		t.Errorf("State A's copyright = %q, %v; want Debian's copyright file", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "pkg-1.0", "usr")); err == nil {
		t.Error("State A kept files outside the subdir")
	}

	a.Source.Subdir = "usr/lib/python3/site-packages"
	aptGet, aptHelper, _ = fakeApt(t, listing)
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
	if err == nil || !strings.Contains(err.Error(), "has no folder usr/lib/python3/site-packages") {
		t.Errorf("missing subdir: %v", err)
	}

	a.Source.Subdir = ""
	aptGet, aptHelper, _ = fakeApt(t, "'file://"+pool+"/x.dsc' x.dsc 3 SHA256:"+strings.Repeat("0", 64)+"\n")
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc})
	if err == nil || !strings.Contains(err.Error(), "not one .deb") {
		t.Errorf("no .deb listed: %v", err)
	}
}

// TestDebianSuiteAsksTheSystemsMirrorsForIt: a debian source with a suite
// (a version only another release's Sources index lists) derives deb-src
// entries only from the deb entries that serve this system's release (its
// os-release codename), each asking for that suite alone; the security
// archive and third-party repositories are left out, in both the .list and
// the deb822 form, and a system with no such entry is refused by name.
func TestDebianSuiteAsksTheSystemsMirrorsForIt(t *testing.T) {
	etc := t.TempDir()
	if err := os.MkdirAll(filepath.Join(etc, "sources.list.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"sources.list": "deb [signed-by=/k.gpg] http://mirror.invalid/debian bookworm main contrib\ndeb http://other.invalid/apt cloud-bookworm main\n",
		"sources.list.d/debian.sources": "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\n" +
			"Types: deb\nURIs: http://mirror.invalid/debian-security\nSuites: bookworm-security\nComponents: main\n",
		"sources.list.d/node.sources": "Types: deb\nURIs: https://node.invalid/\nSuites: nodistro\nComponents: main\n",
		"os-release":                  "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_CODENAME=bookworm\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	from, err := codename(filepath.Join(etc, "os-release"))
	if err != nil || from != "bookworm" {
		t.Fatalf("codename = %q, %v; want bookworm", from, err)
	}
	n, err := writeAptSources(etc, out, "deb-src", from, "trixie")
	if err != nil || n != 2 {
		t.Fatalf("writeAptSources = %d, %v; want 2 entries", n, err)
	}
	got := map[string]string{}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(out, e.Name()))
		got[e.Name()] = string(b)
	}
	want := map[string]string{
		"00-sources.list":   "deb-src [signed-by=/k.gpg] http://mirror.invalid/debian trixie main contrib\n",
		"01-debian.sources": "Types: deb-src\nURIs: http://mirror.invalid/debian\nSuites: trixie\nComponents: main\nSigned-By: /k.gpg\n\n",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("entries:\n%q\nwant\n%q", got, want)
	}

	// Without a suite every deb entry is mirrored as it is.
	if n, err := writeAptSources(etc, t.TempDir(), "deb-src", "", ""); err != nil || n != 5 {
		t.Errorf("without a suite: %d, %v; want 5 entries", n, err)
	}

	// A system whose entries never name its release cannot serve the suite.
	if err := os.WriteFile(filepath.Join(etc, "os-release"), []byte("VERSION_CODENAME=sid\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aptGet, aptHelper, _ := fakeApt(t, "")
	a := task.StateA{Project: "pkg", Version: "1.0", Source: task.Source{Kind: "debian", Package: "pkg", Version: "1.0-1", Suite: "trixie"}}
	_, err = (&Cache{Dir: t.TempDir()}).Materialise(context.Background(), a, ".", &Env{AptGet: aptGet, AptHelper: aptHelper, AptSources: etc, OSRelease: filepath.Join(etc, "os-release")})
	if err == nil || !strings.Contains(err.Error(), "serves this system's release sid, so none can serve the suite trixie") {
		t.Errorf("no entry for the release: %v", err)
	}
}
