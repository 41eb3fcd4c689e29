package result

// This file writes and reads JSON the way the earlier harness's Python did,
// so files srb writes are byte-for-byte in the same style as the ones
// `json.dump(obj, fh, indent=2)` produced: two-space indent, ", "-free item
// separators with ": " after keys, ASCII-only output (ensure_ascii), and
// floats spelt as Python's repr (1.0, 0.5, 1e-05). Struct fields keep the
// earlier harness's key order; free-form maps (metadata) are written with
// their keys sorted, since Go maps have no insertion order.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swe-refactor-bench/srb/ladder/internal/py"
)

// field is one key of an ordered JSON object.
type field struct {
	k string
	v any
}

// object is a JSON object whose keys are written in slice order.
type object []field

func (o *object) add(k string, v any) { *o = append(*o, field{k, v}) }

// ordered writes m with the keys in order first (when present) and every
// other key after them, sorted.
type ordered struct {
	m     map[string]any
	order []string
}

// pyInt marks a number Python held as an int, so it is written without ".0".
type pyInt int64

// pyDoc is implemented by the contract types: their JSON form as an ordered
// object.
type pyDoc interface{ pyDoc() object }

// marshalPy renders v as Python's json.dumps(v, indent=2) would, plus the
// trailing newline the earlier harness wrote after it.
func marshalPy(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodePy(&b, v, 0); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
}

func encodeObject(b *bytes.Buffer, o object, depth int) error {
	if len(o) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		b.WriteString(pyQuote(f.k))
		b.WriteString(": ")
		if err := encodePy(b, f.v, depth+1); err != nil {
			return err
		}
	}
	newline(b, depth)
	b.WriteByte('}')
	return nil
}

func encodeArray(b *bytes.Buffer, n int, at func(int) any, depth int) error {
	if n == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, depth+1)
		if err := encodePy(b, at(i), depth+1); err != nil {
			return err
		}
	}
	newline(b, depth)
	b.WriteByte(']')
	return nil
}

func sortedObject(m map[string]any, order []string) object {
	o := make(object, 0, len(m))
	seen := make(map[string]bool, len(order))
	for _, k := range order {
		if v, ok := m[k]; ok && !seen[k] {
			o.add(k, v)
			seen[k] = true
		}
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		o.add(k, m[k])
	}
	return o
}

func encodePy(b *bytes.Buffer, v any, depth int) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		b.WriteString(pyQuote(x))
	case float64:
		b.WriteString(jsonFloat(x))
	case float32:
		b.WriteString(jsonFloat(float64(x)))
	case pyInt:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case json.Number:
		b.WriteString(string(x))
	case object:
		return encodeObject(b, x, depth)
	case ordered:
		return encodeObject(b, sortedObject(x.m, x.order), depth)
	case pyDoc:
		return encodeObject(b, x.pyDoc(), depth)
	case map[string]any:
		return encodeObject(b, sortedObject(x, nil), depth)
	case []any:
		return encodeArray(b, len(x), func(i int) any { return x[i] }, depth)
	default:
		return encodeReflect(b, v, depth)
	}
	return nil
}

func encodeReflect(b *bytes.Buffer, v any, depth int) error {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodePy(b, rv.Elem().Interface(), depth)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			b.WriteString("[]")
			return nil
		}
		return encodeArray(b, rv.Len(), func(i int) any { return rv.Index(i).Interface() }, depth)
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			it := rv.MapRange()
			for it.Next() {
				m[it.Key().String()] = it.Value().Interface()
			}
			return encodeObject(b, sortedObject(m, nil), depth)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		return nil
	case reflect.String:
		b.WriteString(pyQuote(rv.String()))
		return nil
	case reflect.Bool:
		return encodePy(b, rv.Bool(), depth)
	case reflect.Float32, reflect.Float64:
		b.WriteString(jsonFloat(rv.Float()))
		return nil
	}
	// Anything else: whatever encoding/json makes of it, re-read generically.
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	generic, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	return encodePy(b, generic, depth)
}

// pyQuote quotes s as Python's json module does with ensure_ascii=True.
func pyQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= 0x20 && r <= 0x7e:
				b.WriteRune(r)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800|(r>>10)&0x3ff, 0xdc00|r&0x3ff)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonFloat spells x as Python's json module does: repr(float) for a
// finite value, NaN, Infinity and -Infinity (allow_nan) for the others.
func jsonFloat(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strings.Replace(py.Repr(x), "inf", "Infinity", 1)
}

// decodeJSON decodes data keeping numbers as json.Number, so a file read and
// written back keeps its numbers' spelling.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// copyMap is a shallow copy that is never nil.
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
