// Package collect takes a submission from a finished workspace: it copies
// the tree the task's artifact contract names, leaving out what its
// exclusion patterns match.
//
// # Exclusion semantics
//
// A pattern is matched against every path of the tree relative to its root
// (slash-separated), and a path is excluded when the pattern matches
// either reading of it or of any of its ancestor folders:
//
//   - the basename reading: the last element ("*.o" matches "src/a.o";
//     "build" matches "build" and "x/build", and so everything under them);
//   - the path reading: the whole relative path ("docs/*.md" matches
//     "docs/a.md"; "build/out" matches "build/out" and everything under it).
//
// Patterns use shell glob syntax: '*' matches any run of characters,
// including '/'; '?' one character; '[…]' a class ('[!…]' negated); '\'
// quotes the next character. A leading "./" and a trailing "/" are
// ignored. These are the two readings tar's --exclude and the earlier
// harness's fnmatch gave the same list, so a pattern is written safe under
// both: the earlier harness lost a committed fixture to "*.osm.pbf"
// (HARNESS.md §7 bug 30), which srb validate now catches
// (rule exclude-state-a).
package collect

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Pattern is one compiled exclusion pattern.
type Pattern struct {
	Raw string
	re  *regexp.Regexp
}

// Compile compiles an exclusion pattern; a malformed class is an error
// naming the pattern.
func Compile(raw string) (*Pattern, error) {
	p := strings.TrimPrefix(raw, "./")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, fmt.Errorf("exclusion pattern %q is empty", raw)
	}
	re, err := globRegexp(p)
	if err != nil {
		return nil, fmt.Errorf("exclusion pattern %q: %w", raw, err)
	}
	return &Pattern{Raw: raw, re: re}, nil
}

// globRegexp translates shell glob syntax into an anchored regexp where
// '*' crosses '/'.
func globRegexp(p string) (*regexp.Regexp, error) {
	var sb strings.Builder
	sb.WriteString("^")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			sb.WriteString(".*")
		case '?':
			sb.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				sb.WriteString(regexp.QuoteMeta(string(p[i])))
			} else {
				sb.WriteString(`\\`)
			}
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				return nil, fmt.Errorf("unterminated character class")
			}
			class := p[i+1 : j]
			neg := false
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				neg, class = true, class[1:]
			}
			sb.WriteString("[")
			if neg {
				sb.WriteString("^")
			}
			sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(class, `\`, `\\`), "[", `\[`))
			sb.WriteString("]")
			i = j
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString("$")
	return regexp.Compile(sb.String())
}

// matchOne reports whether p matches rel (a path with no ancestors
// considered) under either reading.
func (p *Pattern) matchOne(rel string) bool {
	return p.re.MatchString(rel) || p.re.MatchString(path.Base(rel))
}

// Match reports whether the pattern excludes rel: it matches rel or one of
// its ancestor folders under either reading. rel is slash-separated and
// relative to the collected root.
func (p *Pattern) Match(rel string) bool {
	rel = strings.Trim(path.Clean("/"+rel), "/")
	for q := rel; q != "" && q != "."; q = path.Dir(q) {
		if p.matchOne(q) {
			return true
		}
		if !strings.Contains(q, "/") {
			break
		}
	}
	return false
}

// Set is a list of compiled patterns.
type Set struct {
	Patterns []*Pattern
}

// CompileAll compiles every pattern, reporting each malformed one.
func CompileAll(raw []string) (*Set, error) {
	s := &Set{}
	var errs []string
	for _, r := range raw {
		p, err := Compile(r)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		s.Patterns = append(s.Patterns, p)
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return s, nil
}

// Excluded returns the first pattern that excludes rel, or nil.
func (s *Set) Excluded(rel string) *Pattern {
	for _, p := range s.Patterns {
		if p.Match(rel) {
			return p
		}
	}
	return nil
}
