package kinds

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// DetailLimit bounds a failing check's detail (the go-cmp diff).
const DetailLimit = 4000

// compare checks got against want (both JSON values) and returns the
// check: a pass, or a fail whose summary is one short line saying what
// differs and whose detail is go-cmp's diff (-want +got).
func compare(id string, want, got any) check {
	return compareWith(id, want, got, "as recorded from State A")
}

// compareWith is compare with the summary of a pass.
func compareWith(id string, want, got any, same string) check {
	if cmp.Equal(want, got) {
		return check{ID: id, Verdict: "pass", Summary: same}
	}
	return check{ID: id, Verdict: "fail", Summary: Difference(want, got), Detail: cut(cmp.Diff(want, got), DetailLimit)}
}

// Difference says in one short line how got differs from want: for
// strings the first differing line, quoted; for objects the fields that
// differ; otherwise both values.
func Difference(want, got any) string {
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); ok {
			return stringDiff(w, g)
		}
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range w {
				keys[k] = true
			}
			for k := range g {
				keys[k] = true
			}
			var names []string
			for k := range keys {
				names = append(names, k)
			}
			sort.Strings(names)
			var parts []string
			for _, k := range names {
				wv, wok := w[k]
				gv, gok := g[k]
				switch {
				case !gok:
					parts = append(parts, fmt.Sprintf("%s: missing (want %s)", k, brief(wv)))
				case !wok:
					parts = append(parts, fmt.Sprintf("%s: unexpected %s", k, brief(gv)))
				case !cmp.Equal(wv, gv):
					parts = append(parts, k+": "+Difference(wv, gv))
				}
			}
			return cut(strings.Join(parts, "; "), 400)
		}
	case []any:
		if g, ok := got.([]any); ok {
			return listDiff(w, g)
		}
	}
	return fmt.Sprintf("want %s, got %s", brief(want), brief(got))
}

func stringDiff(w, g string) string {
	wl, gl := lines(w), lines(g)
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var a, b string
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			b = gl[i]
		}
		if a != b {
			where := ""
			if len(wl) > 1 || len(gl) > 1 {
				where = fmt.Sprintf("line %d: ", i+1)
			}
			return fmt.Sprintf("%swant %s, got %s", where, quote(a), quote(b))
		}
	}
	return fmt.Sprintf("want %s, got %s", quote(w), quote(g))
}

func listDiff(w, g []any) string {
	in := func(xs []any, x any) bool {
		for _, y := range xs {
			if cmp.Equal(x, y) {
				return true
			}
		}
		return false
	}
	var missing, extra []string
	for _, x := range w {
		if !in(g, x) {
			missing = append(missing, brief(x))
		}
	}
	for _, x := range g {
		if !in(w, x) {
			extra = append(extra, brief(x))
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "unexpected "+strings.Join(extra, ", "))
	}
	if len(parts) == 0 {
		return "the same items in another order"
	}
	return cut(strings.Join(parts, "; "), 400)
}

func quote(s string) string {
	if s == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q", cut(s, 80))
}

func brief(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(b), 80)
}

// cut shortens s to at most n bytes (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// lines splits s after each newline, without the empty tail.
func lines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}
