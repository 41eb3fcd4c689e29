package image

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReadLock holds ReadLock to the contract readers' property: it
// either refuses the bytes of an images.lock (not JSON, a key written
// twice, the images-lock schema broken, an unknown field), or returns a
// lock that WriteLock writes (validating it again) and ReadLock reads
// back equal. Seeds: testdata/fuzz/FuzzReadLock/ (the committed locks of
// the real tasks).
func FuzzReadLock(f *testing.F) {
	f.Add([]byte(`{"schema":"srb.images-lock/1","task":"t","task_commit":"","source_date_epoch":0,"buildkit":"","inputs":{},"images":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, LockName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := ReadLock(dir)
		if err != nil {
			return
		}
		out := filepath.Join(dir, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteLock(out, l); err != nil {
			t.Fatalf("accepted, but cannot be written: %v", err)
		}
		back, err := ReadLock(out)
		if err != nil {
			t.Fatalf("accepted, but its encoding is refused: %v", err)
		}
		if !reflect.DeepEqual(l, back) {
			t.Fatalf("the encoding does not read back equal:\n%+v\n%+v", l, back)
		}
	})
}
