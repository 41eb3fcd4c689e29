package source

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
