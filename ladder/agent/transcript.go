package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Field is one key and value of a transcript record, kept in order.
type Field struct {
	Key   string
	Value any
}

// Transcript writes JSONL records {t, kind, …} (schema
// "transcript-record", HARNESS.md §3.10), one write per line, so a killed
// run leaves every record it got to. A nil *Transcript writes nothing.
type Transcript struct {
	f   *os.File
	now func() time.Time
	err error
}

// CreateTranscript creates (truncating) the transcript at path, and its
// directory. now stamps each record's t (time.Now when nil).
func CreateTranscript(path string, now func() time.Time) (*Transcript, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	return &Transcript{f: f, now: now}, nil
}

// Write appends one record of kind with fields, in order. A value that
// cannot be encoded as JSON is written as its text. The first write error
// is kept and reported by Close.
func (t *Transcript) Write(kind string, fields ...Field) {
	if t == nil || t.f == nil {
		return
	}
	var b bytes.Buffer
	ts := math.Round(float64(t.now().UnixNano())/1e6) / 1e3
	fmt.Fprintf(&b, `{"t": %s, "kind": %s`, jsonOf(ts), jsonOf(kind))
	for _, f := range fields {
		fmt.Fprintf(&b, ", %s: %s", jsonOf(f.Key), jsonOf(f.Value))
	}
	b.WriteString("}\n")
	if _, err := t.f.Write(b.Bytes()); err != nil && t.err == nil {
		t.err = err
	}
}

// Close closes the file and returns the first error seen.
func (t *Transcript) Close() error {
	if t == nil || t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	if t.err != nil {
		return fmt.Errorf("write transcript: %w", t.err)
	}
	return err
}

func jsonOf(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Reset()
		_ = enc.Encode(fmt.Sprint(v))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// RemoveStale deletes the files in dir whose names match any of patterns
// (filepath.Match syntax, e.g. "review-*.jsonl"): transcripts an earlier
// run left, which would otherwise sit beside the live ones (HARNESS.md §7
// bug 4). Other files are kept; a missing dir is not an error.
func RemoveStale(dir string, patterns ...string) error {
	var errs []error
	for _, p := range patterns {
		matches, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			return fmt.Errorf("remove stale transcripts: %w", err)
		}
		for _, m := range matches {
			if err := os.Remove(m); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove stale transcripts: %w", errs[0])
	}
	return nil
}
