package notice

import (
	"fmt"
	"sort"
	"strings"
)

// Expr is a parsed SPDX licence expression (SPDX 2.3 Annex D): an id
// (with an optional "+" and "WITH exception"), or an AND or OR of
// sub-expressions. The zero Expr is the empty expression.
type Expr struct {
	// Op is "AND", "OR", or "" for a single licence.
	Op string
	// ID is the licence id of a single licence, with its "+" and
	// " WITH <exception>" kept ("GPL-3.0-or-later WITH Autoconf-exception-macro").
	ID string
	// Args are the operands of an AND or OR, flattened (an AND inside an
	// AND is merged into it), sorted and without duplicates.
	Args []Expr
}

// ParseExpr parses an SPDX expression. AND binds tighter than OR, as the
// SPDX grammar says; the operators are matched case-insensitively.
func ParseExpr(s string) (Expr, error) {
	p := &exprParser{toks: tokenizeExpr(s)}
	if len(p.toks) == 0 {
		return Expr{}, fmt.Errorf("parse licence expression %q: empty", s)
	}
	e, err := p.or()
	if err != nil {
		return Expr{}, fmt.Errorf("parse licence expression %q: %w", s, err)
	}
	if p.i < len(p.toks) {
		return Expr{}, fmt.Errorf("parse licence expression %q: unexpected %q", s, p.toks[p.i])
	}
	return e.normal(), nil
}

// String renders e canonically: operands sorted, nested operations in
// parentheses.
func (e Expr) String() string {
	if e.Op == "" {
		return e.ID
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
		if a.Op != "" {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, " "+e.Op+" ")
}

// Equal reports whether e and f name the same licences with the same
// AND/OR structure, whatever the order of operands ("MIT AND Apache-2.0"
// equals "Apache-2.0 AND MIT", not "Apache-2.0 OR MIT").
func (e Expr) Equal(f Expr) bool { return e.String() == f.String() }

// IDs returns the licence ids e names, sorted, without duplicates.
func (e Expr) IDs() []string {
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(x Expr) {
		if x.Op == "" {
			if x.ID != "" {
				seen[x.ID] = true
			}
			return
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// normal flattens nested operations of the same kind, sorts operands and
// drops duplicates, so that equal expressions render equally.
func (e Expr) normal() Expr {
	if e.Op == "" {
		return e
	}
	var args []Expr
	for _, a := range e.Args {
		a = a.normal()
		if a.Op == e.Op {
			args = append(args, a.Args...)
		} else {
			args = append(args, a)
		}
	}
	sort.Slice(args, func(i, j int) bool { return args[i].String() < args[j].String() })
	out := args[:0]
	for i, a := range args {
		if i > 0 && a.String() == out[len(out)-1].String() {
			continue
		}
		out = append(out, a)
	}
	if len(out) == 1 {
		return out[0]
	}
	return Expr{Op: e.Op, Args: out}
}

func tokenizeExpr(s string) []string {
	var toks []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '(' || r == ')':
			flush()
			toks = append(toks, string(r))
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

type exprParser struct {
	toks []string
	i    int
}

func (p *exprParser) peekOp(op string) bool {
	return p.i < len(p.toks) && strings.EqualFold(p.toks[p.i], op)
}

func (p *exprParser) or() (Expr, error) {
	return p.binary("OR", p.and)
}

func (p *exprParser) and() (Expr, error) {
	return p.binary("AND", p.atom)
}

func (p *exprParser) binary(op string, next func() (Expr, error)) (Expr, error) {
	first, err := next()
	if err != nil {
		return Expr{}, err
	}
	args := []Expr{first}
	for p.peekOp(op) {
		p.i++
		e, err := next()
		if err != nil {
			return Expr{}, err
		}
		args = append(args, e)
	}
	if len(args) == 1 {
		return first, nil
	}
	return Expr{Op: op, Args: args}, nil
}

func (p *exprParser) atom() (Expr, error) {
	if p.i >= len(p.toks) {
		return Expr{}, fmt.Errorf("expression ends early")
	}
	t := p.toks[p.i]
	switch {
	case t == "(":
		p.i++
		e, err := p.or()
		if err != nil {
			return Expr{}, err
		}
		if p.i >= len(p.toks) || p.toks[p.i] != ")" {
			return Expr{}, fmt.Errorf("missing )")
		}
		p.i++
		return e, nil
	case t == ")", strings.EqualFold(t, "AND"), strings.EqualFold(t, "OR"), strings.EqualFold(t, "WITH"):
		return Expr{}, fmt.Errorf("unexpected %q", t)
	}
	if !validID(t) {
		return Expr{}, fmt.Errorf("%q is not a licence id (letters, digits, '.', '-', '+')", t)
	}
	p.i++
	if p.peekOp("WITH") {
		p.i++
		if p.i >= len(p.toks) || !validID(p.toks[p.i]) {
			return Expr{}, fmt.Errorf("WITH needs an exception id")
		}
		t += " WITH " + p.toks[p.i]
		p.i++
	}
	return Expr{ID: t}, nil
}

func validID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '+', r == ':':
		default:
			return false
		}
	}
	return true
}

// hasOr reports whether e holds an OR anywhere.
func (e Expr) hasOr() bool {
	if e.Op == "OR" {
		return true
	}
	for _, a := range e.Args {
		if a.hasOr() {
			return true
		}
	}
	return false
}
