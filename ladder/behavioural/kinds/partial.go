package kinds

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
)

// partialResult is a module's result file while the module runs: the
// envelope {"checks":[...]} whose checks are appended in place. The file
// is a complete module result after every write: each flush is one
// pwrite of the checks that came since, followed by the closing "]}",
// written where the previous closing began. Nothing written is encoded
// again.
type partialResult struct {
	f       *os.File
	off     int64 // where the closing "]}\n" starts
	n       int   // checks in the file
	pending []byte
	pendN   int
}

const (
	partialHead = `{"checks":[`
	partialTail = "]}\n"
)

// openPartial creates (or truncates) the result file at p with no check.
func openPartial(p string) (*partialResult, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the module result %s: %w", p, err)
	}
	if _, err := f.WriteAt([]byte(partialHead+partialTail), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("the module result %s: %w", p, err)
	}
	return &partialResult{f: f, off: int64(len(partialHead))}, nil
}

// add encodes c once and keeps it until the next flush.
func (r *partialResult) add(c check) {
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if r.n+r.pendN > 0 {
		r.pending = append(r.pending, ',')
	}
	r.pending = append(r.pending, b...)
	r.pendN++
}

// flush appends what came since the last flush, in one write.
func (r *partialResult) flush() error {
	if r.f == nil || len(r.pending) == 0 {
		return nil
	}
	buf := append(r.pending, partialTail...)
	if _, err := r.f.WriteAt(buf, r.off); err != nil {
		return fmt.Errorf("the module result %s: %w", r.f.Name(), err)
	}
	r.off += int64(len(r.pending))
	r.n += r.pendN
	r.pending, r.pendN = r.pending[:0], 0
	return nil
}

// close closes the file (the whole result then replaces it).
func (r *partialResult) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
