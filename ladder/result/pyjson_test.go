package result

import "testing"

// Expected values were printed by CPython 3 (repr, json.dumps, round).
func TestPythonSpelling(t *testing.T) {
	for x, want := range map[float64]string{
		1.0: "1.0", 0.5: "0.5", 1.0 / 3: "0.3333333333333333", 1e16: "1e+16", 1e15: "1000000000000000.0",
		123456789012345.6: "123456789012345.6", 0.0001: "0.0001", 0.00001: "1e-05", 1.5e-05: "1.5e-05",
		2.675: "2.675", 100: "100.0", 0.9995: "0.9995", 1e22: "1e+22", -2.5: "-2.5", 3.14159e-10: "3.14159e-10", 0: "0.0",
	} {
		if got := pyRepr(x); got != want {
			t.Errorf("pyRepr(%v) = %q, want %q", x, got, want)
		}
	}
	negZero := pyRound(-0.0001, 2)
	if got := pyRepr(negZero); got != "-0.0" {
		t.Errorf("pyRepr(-0.0) = %q", got)
	}
	for s, want := range map[string]string{
		"plain":                  `"plain"`,
		"quote\" back\\ slash":   `"quote\" back\\ slash"`,
		"\n\r\t\b\f\x01\x1f\x7f": `"\n\r\t\b\f\u0001\u001f\u007f"`,
		"é→😀":                    `"\u00e9\u2192\ud83d\ude00"`,
		"<b>&'/":                 `"<b>&'/"`,
	} {
		if got := pyQuote(s); got != want {
			t.Errorf("pyQuote(%q) = %s, want %s", s, got, want)
		}
	}
	for _, c := range []struct {
		x    float64
		n    int
		want float64
	}{{2.675, 2, 2.67}, {0.125, 2, 0.12}, {1.0 / 3, 6, 0.333333}, {0.5, 0, 0}, {1.5, 0, 2}, {41.23456, 3, 41.235}, {0.0012345, 3, 0.001}} {
		if got := pyRound(c.x, c.n); got != c.want {
			t.Errorf("pyRound(%v, %d) = %v, want %v", c.x, c.n, got, c.want)
		}
	}
}

func TestMarshalPyLayout(t *testing.T) {
	got, err := marshalPy(object{{"a", []any{}}, {"b", map[string]any{}}, {"c", []any{pyInt(1), 2.0, nil, true}}, {"d", map[string]any{"z": 1, "y": "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    2.0,\n    null,\n    true\n  ],\n  \"d\": {\n    \"y\": \"x\",\n    \"z\": 1\n  }\n}\n"
	if string(got) != want {
		t.Errorf("marshalPy =\n%s\nwant\n%s", got, want)
	}
}
