package task

import "testing"

func TestSuggest(t *testing.T) {
	known := []string{"id", "title", "weight", "timeout_sec", "about", "kind", "params"}
	for _, c := range []struct{ in, want string }{
		{"wieght", "weight"}, // a swapped pair is one edit
		{"weigth", "weight"}, //
		{"timeout_secs", "timeout_sec"},
		{"titel", "title"},
		{"param", "params"},
		{"required", ""}, // nothing close: no suggestion rather than a wrong one
		{"x", ""},
	} {
		if got := suggest(c.in, known); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"weight", "wieght", 1}, {"kitten", "sitting", 3}, {"gates", "gatez", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
