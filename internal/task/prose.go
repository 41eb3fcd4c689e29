package task

import (
	"html"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// proseMarkdown parses instructions: tables are parsed as tables, so
// their rows can be left out.
var proseMarkdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// prose is the running text of a Markdown document, as a reader reads
// it: the text of its paragraphs, headings and list items, case kept,
// emphasis, code spans, link and image syntax gone (their text kept),
// character references resolved (&nbsp; is a space), runs of white space
// one space, each block on a line of its own with an empty line between
// blocks. Code blocks, HTML (comments too) and tables are left out: they
// are not sentences. lineAt[i] is the 1-based line of src byte i of text
// came from.
type prose struct {
	text   string
	lineAt []int
}

// readProse returns src's prose.
func readProse(src []byte) prose {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int {
		i, _ := slices.BinarySearch(starts, off+1)
		return i
	}
	var sb strings.Builder
	var lineAt []int
	space, last := false, 1
	put := func(s string, line int) {
		for _, r := range s {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' {
				space = true
				continue
			}
			if space && sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
				sb.WriteByte(' ')
				lineAt = append(lineAt, line)
			}
			space = false
			n := sb.Len()
			sb.WriteRune(r)
			for range sb.Len() - n {
				lineAt = append(lineAt, line)
			}
		}
	}
	brk := func() {
		if s := sb.String(); sb.Len() > 0 && !strings.HasSuffix(s, "\n\n") {
			if !strings.HasSuffix(s, "\n") {
				sb.WriteByte('\n')
				lineAt = append(lineAt, last)
			}
			sb.WriteByte('\n')
			lineAt = append(lineAt, last)
		}
		space = false
	}
	root := proseMarkdown.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch x := n.(type) {
		case *ast.Text:
			if entering {
				last = lineOf(x.Segment.Start)
				put(html.UnescapeString(string(x.Segment.Value(src))), last)
				if x.SoftLineBreak() || x.HardLineBreak() {
					space = true
				}
			}
			return ast.WalkContinue, nil
		case *ast.String:
			if entering {
				put(html.UnescapeString(string(x.Value)), last)
			}
			return ast.WalkContinue, nil
		case *ast.AutoLink:
			if entering {
				put(string(x.Label(src)), last)
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML, *ast.HTMLBlock, *ast.FencedCodeBlock, *ast.CodeBlock, *east.Table:
			if entering && n.Type() == ast.TypeBlock {
				brk()
			}
			return ast.WalkSkipChildren, nil
		}
		if n.Type() == ast.TypeBlock {
			if ls := n.Lines(); entering && ls != nil && ls.Len() > 0 {
				last = lineOf(ls.At(0).Start)
			}
			brk()
		}
		return ast.WalkContinue, nil
	})
	return prose{text: strings.TrimRight(sb.String(), "\n"), lineAt: lineAt}
}
