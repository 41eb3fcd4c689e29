package source

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/swe-refactor-bench/srb/internal/archive"
)

// Pin writes digest as state_a.sha256 into the CUE file at path, changing
// nothing else in the file: an existing string literal is replaced in
// place; otherwise the field is added as the last line of the state_a
// struct; where state_a is not written as a braced struct, a declaration
// `state_a: sha256: "<digest>"` is appended (CUE unifies the two). It
// reports whether the file changed.
func Pin(path, digest string) (bool, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("pin: %w", err)
	}
	f, err := parser.ParseFile(path, src, parser.ParseComments)
	if err != nil {
		return false, fmt.Errorf("pin: %s does not parse: %w", path, err)
	}
	quoted := strconv.Quote(digest)
	var stateA *ast.StructLit
	for _, d := range f.Decls {
		fd, ok := d.(*ast.Field)
		if !ok || label(fd.Label) != "state_a" {
			continue
		}
		// state_a: sha256: "…" written as shorthand.
		if lit := shaLiteral(fd.Value); lit != nil {
			return replaceLit(path, src, lit, quoted)
		}
		s, ok := fd.Value.(*ast.StructLit)
		if !ok {
			continue
		}
		for _, e := range s.Elts {
			if ef, ok := e.(*ast.Field); ok && label(ef.Label) == "sha256" {
				lit, ok := ef.Value.(*ast.BasicLit)
				if !ok {
					return false, fmt.Errorf("pin: %s: state_a.sha256 is not a string literal; write the digest by hand: %s", path, digest)
				}
				return replaceLit(path, src, lit, quoted)
			}
		}
		if stateA == nil && s.Rbrace.IsValid() && s.Lbrace.IsValid() {
			stateA = s
		}
	}
	var out []byte
	if stateA != nil {
		off := stateA.Rbrace.Offset()
		lineStart := strings.LastIndexByte(string(src[:off]), '\n') + 1
		if strings.TrimSpace(string(src[lineStart:off])) == "" {
			// The closing brace is on its own line: add a line before it,
			// indented one level in from the brace.
			insert := string(src[lineStart:off]) + "\tsha256: " + quoted + "\n"
			out = append(append(append([]byte{}, src[:lineStart]...), insert...), src[lineStart:]...)
		} else {
			// A one-line struct: add the field before its brace.
			out = append(append(append([]byte{}, src[:off]...), ", sha256: "+quoted...), src[off:]...)
		}
	} else {
		out = append([]byte{}, src...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, []byte("\nstate_a: sha256: "+quoted+"\n")...)
	}
	if _, err := parser.ParseFile(path, out, parser.ParseComments); err != nil {
		return false, fmt.Errorf("pin: editing %s would break it (%v); write state_a.sha256: %s by hand", path, err, quoted)
	}
	return true, writeFileKeepMode(path, out)
}

func shaLiteral(v ast.Expr) *ast.BasicLit {
	s, ok := v.(*ast.StructLit)
	if !ok || s.Lbrace.IsValid() || len(s.Elts) != 1 {
		return nil
	}
	ef, ok := s.Elts[0].(*ast.Field)
	if !ok || label(ef.Label) != "sha256" {
		return nil
	}
	lit, _ := ef.Value.(*ast.BasicLit)
	return lit
}

func replaceLit(path string, src []byte, lit *ast.BasicLit, quoted string) (bool, error) {
	if lit.Value == quoted {
		return false, nil
	}
	off := lit.ValuePos.Offset()
	end := off + len(lit.Value)
	if off < 0 || end > len(src) || string(src[off:end]) != lit.Value {
		return false, fmt.Errorf("pin: %s: cannot locate state_a.sha256 in the file", path)
	}
	out := append(append(append([]byte{}, src[:off]...), quoted...), src[end:]...)
	return true, writeFileKeepMode(path, out)
}

func label(l ast.Label) string {
	name, _, _ := ast.LabelName(l)
	return name
}

// writeFileKeepMode replaces path with data, keeping its mode
// ([archive.WriteFileAtomic]).
func writeFileKeepMode(path string, data []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return archive.WriteFileAtomic(path, data, st.Mode().Perm())
}
