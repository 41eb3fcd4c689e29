package archive

import (
	"strconv"
	"strings"
	"unicode"
)

// QuoteName returns an archive member's name as it may appear in text that people or
// tools read line by line (NOTICE, reports, SARIF, error messages): unchanged when every
// rune is printable (letters, marks, numbers, punctuation, symbols and the ASCII space),
// else as a Go double-quoted string, so no control character, line or paragraph
// separator, bidi override or invalid UTF-8 in a name can start a line or reorder one.
// "src/a b.c" stays as it is; "a\nb" becomes `"a\nb"`. A name starting with a double
// quote is quoted too, so quoted and unquoted names never collide.
func QuoteName(name string) string {
	if Printable(name) && !strings.HasPrefix(name, `"`) {
		return name
	}
	return strconv.Quote(name)
}

// Printable reports whether s is valid UTF-8 and every rune of it is printable in the
// sense of [unicode.IsPrint] (which admits the ASCII space and no other white space).
func Printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// EscapeText returns text with every rune that is neither printable nor a newline or a
// tab written as a Go escape (`\r`, `\x1b`, `\u2028`): the lines of text stay the lines
// it has, and nothing in it can move the cursor, erase a line or reorder one. A CR
// before a newline is dropped (CRLF text reads as LF text).
func EscapeText(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if isPlain(text) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPlain(text string) bool {
	for _, r := range text {
		if r != '\n' && r != '\t' && (r == unicode.ReplacementChar || !unicode.IsPrint(r)) {
			return false
		}
	}
	return true
}
