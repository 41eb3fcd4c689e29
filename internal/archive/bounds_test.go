package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkBomb is issue 15's archive: one file of size bytes of zeros and n hard links to it,
// gzipped. 64 MiB and 99 links compress to about 66 KB and repack to 6.4 GiB.
func linkBomb(t testing.TB, size, n int) []byte {
	ents := []ent{file("big", zeros(size))}
	for i := 1; i <= n; i++ {
		ents = append(ents, hardlink(fmt.Sprintf("l%03d", i), "big"))
	}
	return gz(t, tarBytes(t, ents...), gzip.BestCompression)
}

// TestHardLinksCountInFull feeds issue 15's archive in small: one file and 99
// hard links to it. The issue's, one 64 MiB file in 66 KB, passed the 4 GiB limit
// (the links cost nothing) and its canonical tar was 6.4 GiB; here the file is 16 MiB
// (a 17 KB archive) to keep the race detector's run short. Each link now counts its
// target's bytes: with the defaults the ratio (200 MiB for a tiny archive) stops it at
// the fourteenth entry (the thirteenth copy), having written the one 16 MiB file and nothing more; with the
// ratio lifted, MaxBytes stops it where the copies would pass it.
func TestHardLinksCountInFull(t *testing.T) {
	if n := int64(64<<20) * 100; n <= DefaultLimits().MaxBytes {
		t.Fatalf("the issue's 64 MiB and 99 links (%d bytes) would pass MaxBytes", n)
	}
	// linkBomb(t, 16<<20, 99), made once by Python's tarfile and gzip (building it here
	// takes seconds under the race detector).
	bomb, err := os.ReadFile("testdata/linkbomb-16MiB-99.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(bomb) > 40<<10 {
		t.Fatalf("the crafted archive is %d bytes, want about 17 KB", len(bomb))
	}
	x, err := extractStream(bytes.NewReader(bomb), FormatTarGz, filepath.Join(t.TempDir(), "d"), Limits{}, false)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Limits.MaxRatio") {
		t.Fatalf("error = %v, want ErrTooLarge naming Limits.MaxRatio", err)
	}
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry != "l012" {
		t.Errorf("refused entry = %v, want l012 (the thirteenth 16 MiB copy passes 200 MiB)", err)
	}
	if x.written != 16<<20 || x.bytes != 12*16<<20 {
		t.Errorf("written %d, counted %d; want 16 MiB written, 192 MiB counted", x.written, x.bytes)
	}

	// MaxBytes alone: 1 MiB and 99 links under a 10 MiB bound.
	small := linkBomb(t, 1<<20, 99)
	x, err = extractStream(bytes.NewReader(small), FormatTarGz, filepath.Join(t.TempDir(), "d"), Limits{MaxBytes: 10 << 20, MaxRatio: 1 << 40}, false)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Limits.MaxBytes") || !errors.As(err, &ee) || ee.Entry != "l010" {
		t.Fatalf("error = %v, want ErrTooLarge at l010 naming Limits.MaxBytes", err)
	}
	if x.written != 1<<20 || x.bytes != 10<<20 {
		t.Errorf("written %d, counted %d; want 1 MiB written, 10 MiB counted", x.written, x.bytes)
	}
	// The dry run srb makes before caching refuses it the same way, writing nothing.
	if err := CheckFile(writeTemp(t, bomb), Limits{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("CheckFile = %v, want ErrTooLarge", err)
	}
}

// TestRatioStopsZeros is the zeros bomb (issue 15: 2 GiB of zeros from 2 MB was written
// out in full): it stops once the contents pass MaxRatio times the archive bytes read,
// having written no more than that. The default ratio refuses the input after
// 400 MiB at most.
func TestRatioStopsZeros(t *testing.T) {
	if got := DefaultLimits().allowed(2e6); got != 400e6 {
		t.Errorf("2 MB may unpack to %d bytes by default, want 400e6", got)
	}
	if got := DefaultLimits().allowed(1000); got != 200<<20 {
		t.Errorf("a tiny archive may unpack to %d bytes, want 200 MiB (RatioFloor)", got)
	}
	for _, tc := range []struct {
		name string
		data []byte
		zip  bool
	}{
		{"tar.gz", gz(t, tarBytes(t, file("zeros", zeros(4<<20))), gzip.BestCompression), false},
		{"tar.xz", readFile(t, "testdata/zeros-4MiB.tar.xz"), false}, // xz is slow to build under -race
		{"zip", zipBytes(t, zent{name: "zeros", body: zeros(4 << 20)}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := Limits{MaxRatio: 2}
			dir := filepath.Join(t.TempDir(), "d")
			var x *extractor
			var err error
			if tc.zip {
				x, err = extractZip(bytes.NewReader(tc.data), int64(len(tc.data)), dir, lim, false)
			} else {
				x, err = extractStream(bytes.NewReader(tc.data), formatOf(t, tc.data), dir, lim, false)
			}
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Limits.MaxRatio") {
				t.Fatalf("error = %v, want ErrTooLarge naming Limits.MaxRatio", err)
			}
			if x.written > 2<<20 || x.written < 1<<20 {
				t.Errorf("wrote %d bytes, want just under the 2 MiB the ratio allows", x.written)
			}
		})
	}
}

func readFile(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func formatOf(t *testing.T, b []byte) Format {
	f, err := DetectBytes(b[:min(len(b), DetectLen)])
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestNoByteWrittenPastMaxBytes: two 600 KiB files under a 1 MiB bound write at most
// 1 MiB (before, the copy wrote one byte past the bound before noticing).
func TestNoByteWrittenPastMaxBytes(t *testing.T) {
	data := tarBytes(t, file("a", zeros(600<<10)), file("b", zeros(600<<10)))
	x, err := extractStream(bytes.NewReader(data), FormatTar, filepath.Join(t.TempDir(), "d"), Limits{MaxBytes: 1 << 20}, false)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error = %v, want ErrTooLarge", err)
	}
	if x.written > 1<<20 {
		t.Errorf("wrote %d bytes past the 1 MiB bound", x.written)
	}
	// A zip whose directory understates an entry's size is bounded the same way.
	z := zipBytes(t, zent{name: "a", body: zeros(2 << 20)})
	x, err = extractZip(bytes.NewReader(z), int64(len(z)), filepath.Join(t.TempDir(), "d"), Limits{MaxBytes: 1 << 20, MaxRatio: 1 << 20}, false)
	if !errors.Is(err, ErrTooLarge) || x.written > 1<<20 {
		t.Errorf("zip: error %v, wrote %d; want ErrTooLarge within 1 MiB", err, x.written)
	}
}

// TestCheckFileMatchesExtract: the dry run accepts what extraction accepts and refuses
// what it refuses (the hostile corpus, names and links read lexically), writing nothing.
func TestCheckFileMatchesExtract(t *testing.T) {
	ok := writeTemp(t, gz(t, fixtureTar(t), gzip.BestSpeed))
	if err := CheckFile(ok, Limits{}); err != nil {
		t.Fatalf("CheckFile(fixture) = %v", err)
	}
	for _, h := range hostileCorpus() {
		if h.name == "symlink escaping through another" {
			continue // resolving links needs the written tree; the canonical writer checks them
		}
		parent := t.TempDir()
		err := CheckFile(writeTemp(t, h.build(t, parent)), h.lim)
		if !errors.Is(err, h.want) {
			t.Errorf("%s: CheckFile = %v, want %v", h.name, err, h.want)
		}
		if got := listDir(t, parent); len(got) != 0 {
			t.Errorf("%s: CheckFile wrote %q", h.name, got)
		}
	}
}
