package report

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// testdata/textwrap.json holds CPython's textwrap.wrap output for each
// text at two widths and indent pairs.
func TestWrapMatchesPython(t *testing.T) {
	data, err := os.ReadFile("testdata/textwrap.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text string   `json:"text"`
		A    []string `json:"a"`
		B    []string `json:"b"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := wrap(c.Text, 74, "      note: ", "            "); !cmp.Equal(got, c.A, cmpopts.EquateEmpty()) {
			t.Errorf("wrap(%q, 74):\n%s", c.Text, cmp.Diff(c.A, got))
		}
		if got := wrap(c.Text, 30, "           - ", "             "); !cmp.Equal(got, c.B, cmpopts.EquateEmpty()) {
			t.Errorf("wrap(%q, 30):\n%s", c.Text, cmp.Diff(c.B, got))
		}
	}
}
