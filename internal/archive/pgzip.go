package archive

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"runtime"
)

// gzipBlockSize is how much uncompressed data each parallel gzip block holds. It is part
// of what fixes original.tar.gz's bytes (with [RepackLevel]); the pin does not depend on it.
const gzipBlockSize = 1 << 20

// gzipWindow is deflate's window: each block is primed with the previous block's last
// 32 KiB, so back-references may cross block boundaries as in one serial stream.
const gzipWindow = 32 << 10

// parallelGzip writes one gzip member whose deflate stream is compressed in fixed-size
// blocks on every CPU. Each block is an independent flate stream ended by a sync flush
// (the last by a final block), primed with the previous block's tail; their concatenation
// is a single valid deflate stream. The output depends only on the input, the level and
// gzipBlockSize, never on scheduling or GOMAXPROCS.
type parallelGzip struct {
	w       io.Writer
	level   int
	cur     []byte
	dict    []byte
	pending []chan []byte
	max     int
	crc     uint32
	size    uint32
	err     error
	started bool
}

func newParallelGzip(w io.Writer, level int) *parallelGzip {
	return &parallelGzip{w: w, level: level, max: 2 * runtime.GOMAXPROCS(0), cur: make([]byte, 0, gzipBlockSize)}
}

// header is the fixed gzip header: deflate, no flags (no name, comment or extra), mtime
// 0, XFL 4 (fastest) or 2 (best) or 0, OS 255 (unknown).
func (z *parallelGzip) header() []byte {
	xfl := byte(0)
	switch z.level {
	case flate.BestSpeed:
		xfl = 4
	case flate.BestCompression:
		xfl = 2
	}
	return []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, repackOS}
}

// Write implements io.Writer.
func (z *parallelGzip) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
	z.size += uint32(len(p))
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), gzipBlockSize-len(z.cur))
		z.cur = append(z.cur, p[:k]...)
		p = p[k:]
		if len(z.cur) == gzipBlockSize {
			z.dispatch(false)
			if z.err != nil {
				return 0, z.err
			}
		}
	}
	return n, nil
}

// dispatch starts compressing the current block and writes finished blocks in order
// while too many are in flight.
func (z *parallelGzip) dispatch(final bool) {
	block, dict := z.cur, z.dict
	done := make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		fw, err := flate.NewWriterDict(&buf, z.level, dict)
		if err != nil {
			panic(err) // the level is a constant that NewWriterDict accepts
		}
		fw.Write(block) // writes to a bytes.Buffer do not fail
		if final {
			fw.Close()
		} else {
			fw.Flush()
		}
		done <- buf.Bytes()
	}()
	z.pending = append(z.pending, done)
	if len(block) >= gzipWindow {
		z.dict = block[len(block)-gzipWindow:]
	} else {
		z.dict = append(append([]byte(nil), z.dict...), block...)
		z.dict = z.dict[max(0, len(z.dict)-gzipWindow):]
	}
	z.cur = make([]byte, 0, gzipBlockSize)
	for len(z.pending) > z.max || (final && len(z.pending) > 0) {
		z.flushOne()
	}
}

func (z *parallelGzip) flushOne() {
	out := <-z.pending[0]
	z.pending = z.pending[1:]
	if z.err != nil {
		return
	}
	if !z.started {
		z.started = true
		if _, z.err = z.w.Write(z.header()); z.err != nil {
			return
		}
	}
	_, z.err = z.w.Write(out)
}

// Close compresses what is left, ends the deflate stream and writes the gzip trailer
// (CRC-32 and size mod 2³²). It does not close the underlying writer.
func (z *parallelGzip) Close() error {
	if z.err != nil {
		return z.err
	}
	z.dispatch(true)
	if z.err != nil {
		return z.err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], z.crc)
	binary.LittleEndian.PutUint32(trailer[4:], z.size)
	_, z.err = z.w.Write(trailer[:])
	return z.err
}
