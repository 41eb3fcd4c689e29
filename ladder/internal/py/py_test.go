package py

import (
	"encoding/json"
	"math"
	"testing"
)

// Every expected value below was printed by CPython 3.

func TestRepr(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string // repr(x), which is also str(x)
	}{
		{0.1, "0.1"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {123456789.0, "123456789.0"},
		{2.5, "2.5"}, {0.125, "0.125"}, {1.0 / 3, "0.3333333333333333"},
		{math.Copysign(0, -1), "-0.0"}, {0, "0.0"}, {math.NaN(), "nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{1.0, "1.0"}, {0.5, "0.5"}, {100, "100.0"}, {1e15, "1000000000000000.0"}, {1e22, "1e+22"},
		{123456789012345.6, "123456789012345.6"}, {12345678901234567.0, "1.2345678901234568e+16"},
		{1234567.5, "1234567.5"}, {0.0001, "0.0001"}, {1.5e-05, "1.5e-05"}, {2.675, "2.675"},
		{0.9995, "0.9995"}, {-2.5, "-2.5"}, {3.14159e-10, "3.14159e-10"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
	} {
		if got := Repr(c.x); got != c.want {
			t.Errorf("Repr(%v) = %q, want %q", c.x, got, c.want)
		}
		if got := Str(c.x); got != c.want {
			t.Errorf("Str(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

func TestFormatG(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string // "%g" % x
	}{
		{0.1, "0.1"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {123456789.0, "1.23457e+08"},
		{2.5, "2.5"}, {0.125, "0.125"}, {1.0 / 3, "0.333333"},
		{math.Copysign(0, -1), "-0"}, {0, "0"}, {math.NaN(), "nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{0.5, "0.5"}, {40, "40"}, {100, "100"}, {1e6, "1e+06"}, {123456, "123456"}, {1234567, "1.23457e+06"},
		{999999.5, "1e+06"}, {1e15, "1e+15"}, {0.0001, "0.0001"}, {0.93, "0.93"}, {2.5e-7, "2.5e-07"},
		{-2.5, "-2.5"}, {5e-324, "4.94066e-324"}, {math.MaxFloat64, "1.79769e+308"},
	} {
		if got := FormatG(c.x); got != c.want {
			t.Errorf("FormatG(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

func TestRound(t *testing.T) {
	for _, c := range []struct {
		x    float64
		n    int
		want string // repr(round(x, n))
	}{
		{0.1, 2, "0.1"}, {1e16, 2, "1e+16"}, {1e-5, 2, "0.0"}, {123456789.0, 2, "123456789.0"},
		{2.5, 0, "2.0"}, {0.125, 2, "0.12"}, {1.0 / 3, 2, "0.33"}, {math.Copysign(0, -1), 2, "-0.0"},
		{2.675, 2, "2.67"}, {0.375, 2, "0.38"}, {1.0 / 3, 6, "0.333333"}, {0.9995, 4, "0.9995"},
		{0.5, 0, "0.0"}, {1.5, 0, "2.0"}, {-0.5, 0, "-0.0"}, {41.23456, 3, "41.235"}, {0.0012345, 3, "0.001"},
		{-0.0001, 2, "-0.0"}, {1234.5, -1, "1230.0"}, {1250, -2, "1200.0"}, {1350, -2, "1400.0"},
		{-1250, -2, "-1200.0"}, {40, -2, "0.0"}, {-40, -2, "-0.0"}, {5e-324, 2, "0.0"},
		{math.MaxFloat64, 2, "1.7976931348623157e+308"},
	} {
		if got := Repr(Round(c.x, c.n)); got != c.want {
			t.Errorf("Round(%v, %d) = %s, want %s", c.x, c.n, got, c.want)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := Round(x, 2); Repr(got) != Repr(x) {
			t.Errorf("Round(%v, 2) = %v", x, got)
		}
	}
}

type myInt int64

func TestTruthy(t *testing.T) {
	var nilPtr *int
	for _, c := range []struct {
		v    any
		want bool // bool(v)
	}{
		{nil, false}, {false, false}, {true, true}, {"", false}, {"0", true}, {0.0, false},
		{math.Copysign(0, -1), false}, {math.NaN(), true}, {0.1, true}, {0, false}, {3, true},
		{int64(0), false}, {myInt(0), false}, {myInt(2), true}, {uint8(1), true}, {float32(0), false},
		{json.Number("0"), false}, {json.Number("0.0"), false}, {json.Number("1e-3"), true}, {json.Number("1e999"), true},
		{[]any{}, false}, {[]any{nil}, true}, {[]string{}, false}, {[]string{""}, true}, {[]int{1}, true},
		{map[string]any{}, false}, {map[string]any{"a": nil}, true}, {map[int]int{}, false}, {[0]int{}, false},
		{nilPtr, false}, {&struct{}{}, true}, {struct{}{}, true},
	} {
		if got := Truthy(c.v); got != c.want {
			t.Errorf("Truthy(%#v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestStr(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string // str(v), v as json.load would give it
	}{
		{nil, "None"}, {true, "True"}, {false, "False"}, {"text", "text"}, {"", ""},
		{0, "0"}, {-7, "-7"}, {int64(1) << 40, "1099511627776"}, {myInt(5), "5"}, {uint(3), "3"},
		{1.0, "1.0"}, {float32(0.5), "0.5"}, {math.NaN(), "nan"}, {math.Inf(-1), "-inf"},
		{json.Number("42"), "42"}, {json.Number("-0"), "0"}, {json.Number("1.50"), "1.5"},
		{json.Number("1E5"), "100000.0"}, {json.Number("1e-5"), "1e-05"}, {json.Number("1e999"), "inf"},
		{json.Number("123456789012345678901234567890"), "123456789012345678901234567890"},
		{[]any{1, "x", nil, true, 1.0, map[string]any{"a": []any{}}}, "[1, 'x', None, True, 1.0, {'a': []}]"},
		{[]string{"a'b", `a"b`}, `["a'b", 'a"b']`},
		// A Go map has no insertion order: its keys come sorted.
		{map[string]any{"b": 2, "a": "1"}, "{'a': '1', 'b': 2}"},
		{[]any{}, "[]"}, {map[string]any{}, "{}"},
	} {
		if got := Str(c.v); got != c.want {
			t.Errorf("Str(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for s, want := range map[string]string{ // repr(s)
		"plain":                    `'plain'`,
		"a'b":                      `"a'b"`,
		`a"b`:                      `'a"b'`,
		"a'\"b":                    `'a\'"b'`,
		"\x00\t\n\u00a0é😀\u2028\\": `'\x00\t\n\xa0é😀\u2028\\'`,
		"\r\x7f\U000e0001":         `'\r\x7f\U000e0001'`,
	} {
		if got := Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestFloat(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string // repr(float(v)), "" where float(v) raises
	}{
		{" 1_000.5 ", "1000.5"}, {"inf", "inf"}, {"-Infinity", "-inf"}, {"nan", "nan"}, {"1e-5", "1e-05"},
		{"0x10", ""}, {"abc", ""}, {"", ""}, {true, "1.0"}, {false, "0.0"}, {3, "3.0"}, {myInt(4), "4.0"},
		{json.Number("2.5"), "2.5"}, {float32(0.25), "0.25"}, {nil, ""}, {[]any{}, ""},
	} {
		f, ok := Float(c.v)
		got := ""
		if ok {
			got = Repr(f)
		}
		if got != c.want {
			t.Errorf("Float(%#v) = %q, want %q", c.v, got, c.want)
		}
		if want := 0.0; !ok && Num(c.v) != want {
			t.Errorf("Num(%#v) = %v, want 0", c.v, Num(c.v))
		}
	}
}

func TestInt(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int // int(v)
	}{
		{json.Number("7"), 7}, {json.Number("7.9"), 7}, {json.Number("-7.9"), -7}, {json.Number("1e2"), 100},
		{" 12 ", 12}, {"3.5", 3}, // int("3.5") raises; Int reads it as int(float("3.5")) {true, 1}, {2.99, 2}, {myInt(6), 6}, {math.NaN(), 0}, {nil, 0},
	} {
		if got := Int(c.v); got != c.want {
			t.Errorf("Int(%#v) = %d, want %d", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    any
		want int
		ok   bool // isinstance(v, int)
	}{
		{json.Number("3"), 3, true}, {json.Number("3.0"), 0, false}, {json.Number("3e0"), 0, false},
		{3, 3, true}, {int64(4), 4, true}, {myInt(5), 5, true}, {true, 0, false}, {3.0, 0, false}, {"3", 0, false},
	} {
		if got, ok := IsInt(c.v); got != c.want || ok != c.ok {
			t.Errorf("IsInt(%#v) = %d, %v, want %d, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestHead(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string // s[:n]
	}{
		{"héllo", 2, "hé"}, {"héllo", 0, ""}, {"héllo", 9, "héllo"}, {"héllo", -1, "héll"}, {"hé", -5, ""}, {"", 3, ""},
	} {
		if got := Head(c.s, c.n); got != c.want {
			t.Errorf("Head(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestAsMapAsList(t *testing.T) {
	if m := AsMap(map[string]any{"a": 1}); len(m) != 1 {
		t.Errorf("AsMap lost the map: %v", m)
	}
	if m := AsMap([]any{}); m != nil {
		t.Errorf("AsMap([]any{}) = %v, want nil", m)
	}
	for _, v := range []any{[]any{"a", "b"}, []string{"a", "b"}, []map[string]any{{}, {}}} {
		if l := AsList(v); len(l) != 2 {
			t.Errorf("AsList(%#v) = %v, want two items", v, l)
		}
	}
	if l := AsList("ab"); l != nil {
		t.Errorf("AsList(string) = %v, want nil", l)
	}
}
