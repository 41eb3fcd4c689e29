package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/internal/task"
)

// BenchmarkFetchFromCache measures srb fetch's verify path: a State A
// already in the cache is checked by digesting its archive, offline. It
// reports the cost as a ratio to the I/O limit measured in the same run:
// gzip-decoding the same archive and hashing it with sha256 (target ≤ 1.5).
func BenchmarkFetchFromCache(b *testing.B) {
	// A ~24 MB source tree of text-like files.
	src := filepath.Join(b.TempDir(), "rel-1.0")
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "0123456789 "}
	for i := range 96 {
		var buf bytes.Buffer
		for buf.Len() < 256<<10 {
			buf.WriteString(words[rng.Intn(len(words))])
		}
		p := filepath.Join(src, fmt.Sprintf("d%02d", i%8), fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, buf.Bytes(), 0o644)
	}
	var tgz bytes.Buffer
	if _, err := archive.Repack(&tgz, src, "rel-1.0"); err != nil {
		b.Fatal(err)
	}
	body := tgz.Bytes()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	a := task.StateA{Project: "rel", Version: "1.0", Source: task.Source{Kind: "url", URL: srv.URL + "/rel.tgz", SHA256: sum(body)}}
	c := &Cache{Dir: b.TempDir()}
	e, err := c.Materialise(context.Background(), a, ".", &Env{HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	a.SHA256 = e.Digest

	limit := func() {
		f, _ := os.Open(e.Archive)
		defer f.Close()
		zr, _ := gzip.NewReader(f)
		h := sha256.New()
		io.Copy(h, zr)
	}
	limit() // warm the page cache
	var base, ours time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		limit()
		t1 := time.Now()
		got, err := c.Materialise(context.Background(), a, ".", nil)
		if err != nil || !got.FromCache {
			b.Fatalf("%+v %v", got, err)
		}
		base += t1.Sub(t0)
		ours += time.Since(t1)
	}
	b.SetBytes(int64(len(body)))
	b.ReportMetric(float64(ours)/float64(base), "x-baseline")
}
