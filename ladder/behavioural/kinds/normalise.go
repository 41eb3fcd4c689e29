package kinds

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	reISOTime  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`)
	reHTTPTime = regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT`)
	rePort     = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)
)

// normaliser is a compiled list of normalisers, compiled once per module.
type normaliser struct {
	steps []func(s string, paths [][2]string) string
}

// compileNormalisers compiles ns. At apply time, "temp-paths" rewrites each
// folder of paths to its placeholder, in order.
func compileNormalisers(ns []Normaliser) (*normaliser, error) {
	n := &normaliser{}
	for i, x := range ns {
		switch {
		case x.Builtin == "timestamps":
			n.steps = append(n.steps, func(s string, _ [][2]string) string {
				return reHTTPTime.ReplaceAllString(reISOTime.ReplaceAllString(s, "<TIME>"), "<TIME>")
			})
		case x.Builtin == "ports":
			n.steps = append(n.steps, func(s string, _ [][2]string) string { return rePort.ReplaceAllString(s, "$1:<PORT>") })
		case x.Builtin == "temp-paths":
			n.steps = append(n.steps, func(s string, paths [][2]string) string {
				for _, p := range paths {
					if p[0] != "" {
						s = strings.ReplaceAll(s, p[0], p[1])
					}
				}
				return s
			})
		case x.Builtin != "":
			return nil, fmt.Errorf("normalise[%d]: unknown builtin %q (known: timestamps, ports, temp-paths)", i, x.Builtin)
		default:
			re, err := regexp.Compile(x.Pattern)
			if err != nil {
				return nil, fmt.Errorf("normalise[%d]: %w", i, err)
			}
			repl := x.Replace
			n.steps = append(n.steps, func(s string, _ [][2]string) string { return re.ReplaceAllString(s, repl) })
		}
	}
	return n, nil
}

func (n *normaliser) apply(s string, paths [][2]string) string {
	if n == nil {
		return s
	}
	for _, f := range n.steps {
		s = f(s, paths)
	}
	return s
}
