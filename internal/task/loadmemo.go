package task

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/archive"
	"github.com/swe-refactor-bench/srb/schema"
)

// loadMemoFormat is bumped when what a load memo file holds changes shape.
const loadMemoFormat = "load-memo 1"

// LoadOptions tune [LoadWith].
type LoadOptions struct {
	// Memo is a folder (made when missing) where LoadWith keeps each task
	// it decoded without a problem, as JSON, one file per hex sha256 of
	// srb's build ([archive.BuildKey]), the embedded schema and the task
	// file's bytes. A later load of the same bytes by the same build
	// reads that file instead of unifying the task with #Task, validating
	// and decoding it (about 35 ms of CPU for lang01, most of a warm srb
	// validate; issue 17); it still compiles the task file alone, which
	// is what problem positions and [Task.Declares] read. A task with
	// problems is never kept, so its problems are always found afresh.
	// "" keeps nothing.
	Memo string
}

// loadMemoPath is where the memo of a task file's bytes src lives in
// dir, or "" when dir is "".
func loadMemoPath(dir string, src []byte) string {
	if dir == "" {
		return ""
	}
	h := sha256.New()
	sch := schema.TaskCUE()
	fmt.Fprintf(h, "%s\n%s\n%d:", loadMemoFormat, archive.BuildKey(), len(sch))
	h.Write(sch)
	fmt.Fprintf(h, "\n%d:", len(src))
	h.Write(src)
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil))+".json")
}

// recallLoad is the task memoised at path, or nil.
func recallLoad(path string) *Task {
	if path == "" {
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return decodeMemo(raw)
}

// decodeMemo reads a memoised task: numbers inside untyped values (a
// module's params, metadata) come back as CUE decodes them, int64 when
// written without a fraction or exponent, else float64.
func decodeMemo(raw []byte) *Task {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	t := &Task{}
	if d.Decode(t) != nil {
		return nil
	}
	if !fixNumbers(reflect.ValueOf(t).Elem()) {
		return nil
	}
	return t
}

// fixNumbers replaces each json.Number held in an interface anywhere in
// v (settable) by an int64 or a float64; false when one is neither.
func fixNumbers(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil() || fixNumbers(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !fixNumbers(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !fixNumbers(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			if !fixNumbers(e) {
				return false
			}
			v.SetMapIndex(it.Key(), e)
		}
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		if n, ok := v.Interface().(json.Number); ok {
			s := string(n)
			if !strings.ContainsAny(s, ".eE") {
				i, err := n.Int64()
				if err != nil {
					return false
				}
				v.Set(reflect.ValueOf(i))
				return true
			}
			f, err := n.Float64()
			if err != nil {
				return false
			}
			v.Set(reflect.ValueOf(f))
			return true
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		if !fixNumbers(e) {
			return false
		}
		v.Set(e)
	}
	return true
}

// memoLoad keeps t (as CUE decoded it, before Load's own defaults) at
// path, but only when its JSON reads back into exactly t (so a field JSON
// cannot carry, such as a number in Metadata or an empty list dropped by
// omitempty, is never replaced by something else: such a task is simply
// not kept). Failures to write are ignored: the memo is an optimisation.
func memoLoad(path string, t *Task) {
	if path == "" {
		return
	}
	plain := *t
	plain.Dir, plain.File, plain.source, plain.def = "", "", plainZero.source, plainZero.def
	raw, err := json.Marshal(&plain)
	if err != nil {
		return
	}
	if back := decodeMemo(raw); back == nil || !reflect.DeepEqual(&plain, back) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".load-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(raw)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// plainZero is a Task with no CUE values, for memoLoad's comparison.
var plainZero Task
