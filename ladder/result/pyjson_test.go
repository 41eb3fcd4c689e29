package result

import (
	"math"
	"testing"
)

// Expected values were printed by CPython 3 (json.dumps); repr, round
// and the rest are tested in ladder/internal/py.
func TestPythonSpelling(t *testing.T) {
	for x, want := range map[float64]string{
		1.0: "1.0", 0.00001: "1e-05", 1e16: "1e+16", math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity",
	} {
		if got := jsonFloat(x); got != want {
			t.Errorf("jsonFloat(%v) = %q, want %q", x, got, want)
		}
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
