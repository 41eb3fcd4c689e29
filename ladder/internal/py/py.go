// Package py holds the Python-compatible readings and spellings srb uses
// to stay wire-compatible with the earlier Python harness: bool(), str(),
// float(), int(), round(), repr(float), "%g" and s[:n], applied to the
// loosely typed values encoding/json decodes (json.Number, []any,
// map[string]any) and to ordinary Go values.
//
// Every function here is meant to give, byte for byte, what CPython 3
// gives for the same value; where Go has no counterpart of a Python type
// the nearest one stands in (any integer kind for int, float32 and
// float64 for float, any slice or array for list, any map for dict).
package py

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Truthy is Python's bool(v): false for None, False, zero numbers
// (json.Number included), empty strings and empty containers; true for
// anything else, NaN included. A nil pointer or interface counts as None.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case float64:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return rv.Len() > 0
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}

// Str is Python's str(v): "None", "True"/"False", a string as it is,
// integers in decimal, floats as [Repr] spells them, a json.Number as the
// int or float Python's json module would have read it as, and lists and
// dicts as Python prints them ("[1, 'x', None]", "{'k': 1.0}", a Go map's
// keys sorted since it has no insertion order). Anything else is
// fmt.Sprint(v).
func Str(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return numberStr(x)
	case float64:
		return Repr(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return Str(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return Repr(rv.Float())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return "None"
		}
		return Str(rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			break // []byte is no list
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = elemRepr(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		type kv struct{ k, v string }
		items := make([]kv, 0, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			items = append(items, kv{elemRepr(it.Key().Interface()), elemRepr(it.Value().Interface())})
		}
		sort.Slice(items, func(i, j int) bool { return items[i].k < items[j].k })
		parts := make([]string, len(items))
		for i, p := range items {
			parts[i] = p.k + ": " + p.v
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// numberStr is str() of what json.load makes of the literal n: an int
// for an integer literal, else a float.
func numberStr(n json.Number) string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, ok := new(big.Int).SetString(s, 10); ok {
			return i.String()
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return s
	}
	return Repr(f)
}

// elemRepr is repr() of an item inside a list or dict: strings quoted,
// everything else as str() has it.
func elemRepr(v any) string {
	if s, ok := v.(string); ok {
		return Quote(s)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return Quote(rv.String())
	}
	return Str(v)
}

// Quote is Python's repr(s) for a str: single quotes unless s holds a
// single quote and no double one; backslash, the quote, \t, \n and \r
// escaped; other unprintable code points as \xhh, \uhhhh or \Uhhhhhhhh;
// printable non-ASCII kept as it is.
func Quote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError || (r >= 0x20 && r < 0x7f) || (r > 0x7f && unicode.IsPrint(r)):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Repr is Python's repr(float) (and str(float)): the shortest digits that
// read back as x, always with a decimal point or an exponent, in exponent
// form below 1e-4 and from 1e16 up; "nan", "inf" and "-inf" for the
// non-finite values.
func Repr(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return nonFinite(x)
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	f := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(f, ".") {
		f += ".0"
	}
	return f
}

// FormatG is Python's "%g" % x (and format(x, "g")): 6 significant
// digits, trailing zeros dropped, exponent form below 1e-4 and from 1e6
// up (after rounding); "nan", "inf" and "-inf" for the non-finite values.
func FormatG(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nonFinite(x)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// nonFinite is how Python spells a NaN or an infinity: "nan", "inf",
// "-inf".
func nonFinite(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case x > 0:
		return "inf"
	}
	return "-inf"
}

// Round is Python's round(x, n) for a float: x's exact binary value
// rounded to n decimal places (n may be negative), ties to even, then
// read back as the nearest float. NaN and infinities come back as they
// are.
func Round(x float64, n int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	if n >= 0 {
		r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
		if err != nil {
			return x
		}
		return r
	}
	// round(x, -k): to a multiple of 10**k, done exactly.
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n)), nil)
	q := new(big.Rat).SetFloat64(x)
	q.Quo(q, new(big.Rat).SetInt(unit))
	// q = num/den; round to the nearest integer, ties to even.
	num, den := q.Num(), q.Denom()
	i, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	twice := new(big.Int).Abs(rem)
	twice.Lsh(twice, 1)
	if c := twice.Cmp(den); c > 0 || (c == 0 && i.Bit(0) == 1) {
		if num.Sign() < 0 {
			i.Sub(i, big.NewInt(1))
		} else {
			i.Add(i, big.NewInt(1))
		}
	}
	r, _ := new(big.Float).SetInt(i.Mul(i, unit)).Float64()
	if r == 0 {
		return math.Copysign(0, x)
	}
	return r
}

// Float is Python's float(v): numbers, booleans and numeric strings
// (surrounding blanks, "_" digit separators, "inf", "infinity" and "nan"
// in any case) convert and report true; anything else, hexadecimal
// spellings included, reports false.
func Float(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		s := strings.TrimSpace(x)
		if strings.ContainsAny(s, "_") {
			s = strings.ReplaceAll(s, "_", "")
		}
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "inf", "infinity", "nan":
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
		if strings.ContainsAny(strings.ToLower(s), "xp") {
			return 0, false // Python's float() reads no hex or binary exponents
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.Bool:
		return Float(rv.Bool())
	case reflect.String:
		return Float(rv.String())
	}
	return 0, false
}

// Num is float(v) where a value float() would refuse reads as 0.
func Num(v any) float64 {
	f, _ := Float(v)
	return f
}

// Int is Python's int(v) for the values srb's JSON files hold: integers,
// floats (truncated toward zero) and numeric strings (a decimal one read
// as int(float(v)), where Python's int() would raise); 0 for anything
// else, NaN and the infinities included.
func Int(v any) int {
	if i, ok := IsInt(v); ok {
		return i
	}
	if s, ok := v.(string); ok {
		if i, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return i
		}
	}
	f, _ := Float(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return int(f)
}

// IsInt reports whether v is what Python's isinstance(v, int) would see
// after json.load (booleans excluded): a Go integer or a json.Number
// spelt as an integer literal, and its value.
func IsInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return 0, false
		}
		i, err := x.Int64()
		return int(i), err == nil
	case int:
		return x, true
	case int64:
		return int(x), true
	case bool:
		return 0, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int(rv.Uint()), true
	}
	return 0, false
}

// Head is Python's s[:n] on code points: the first n of them, or all but
// the last -n when n is negative.
func Head(s string, n int) string {
	if n < 0 {
		n += utf8.RuneCountInString(s)
	}
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// AsMap returns v as a decoded JSON object, or nil when it is not one.
func AsMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// AsList returns v as a decoded JSON array ([]any, []string and
// []map[string]any are read as one), or nil when it is not one.
func AsList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out
	}
	return nil
}
