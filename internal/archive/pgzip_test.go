package archive

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"
)

// TestParallelGzip checks that the parallel gzip stream is valid gzip, decodes to its
// input, and has the same bytes whatever the number of blocks in flight.
func TestParallelGzip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seed := make([]byte, 4096)
	for i := range seed {
		seed[i] = "abcdefgh \n"[rng.IntN(10)]
	}
	data := make([]byte, 2*gzipBlockSize+gzipBlockSize/2)
	for i := range data {
		data[i] = seed[(i*7+i/4096)%4096] // compressible, with repeats across blocks
	}
	for _, n := range []int{0, 1, gzipWindow - 1, gzipBlockSize - 1, gzipBlockSize, gzipBlockSize + 1, len(data)} {
		var want []byte
		for _, inFlight := range []int{1, 4} {
			var buf bytes.Buffer
			z := newParallelGzip(&buf, RepackLevel)
			z.max = inFlight
			in := data[:n]
			for len(in) > 0 { // odd write sizes
				k := min(len(in), 12345)
				if _, err := z.Write(in[:k]); err != nil {
					t.Fatal(err)
				}
				in = in[k:]
			}
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = buf.Bytes()
			} else if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%d bytes: output with %d blocks in flight differs", n, inFlight)
			}
			zr, err := gzip.NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, data[:n]) {
				t.Fatalf("%d bytes: decoded %d bytes, %v", n, len(got), err)
			}
		}
		if _, err := exec.LookPath("gzip"); err == nil && n == len(data) {
			cmd := exec.Command("gzip", "-dc")
			cmd.Stdin = bytes.NewReader(want)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, data[:n]) {
				t.Errorf("%d bytes: gzip -dc: %d bytes, %v", n, len(out), err)
			}
		}
	}
}
