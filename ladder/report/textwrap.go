package report

import (
	"strings"
	"unicode"
)

// wrap is Python's textwrap.wrap(text, width, initial_indent=…,
// subsequent_indent=…) with its defaults: tabs expanded, every ASCII
// whitespace character turned into a space, lines broken at whitespace and
// after hyphens inside words, over-long words broken, and whitespace
// dropped at line ends. Widths count code points.
func wrap(text string, width int, initial, subsequent string) []string {
	chunks := splitChunks(munge(text))
	// Work on a reversed stack, as textwrap does.
	for i, j := 0, len(chunks)-1; i < j; i, j = i+1, j-1 {
		chunks[i], chunks[j] = chunks[j], chunks[i]
	}
	var lines []string
	for len(chunks) > 0 {
		var cur [][]rune
		curLen := 0
		indent := initial
		if len(lines) > 0 {
			indent = subsequent
		}
		w := width - len([]rune(indent))
		if isSpace(chunks[len(chunks)-1]) && len(lines) > 0 {
			chunks = chunks[:len(chunks)-1]
		}
		for len(chunks) > 0 {
			l := len(chunks[len(chunks)-1])
			if curLen+l > w {
				break
			}
			cur = append(cur, chunks[len(chunks)-1])
			chunks = chunks[:len(chunks)-1]
			curLen += l
		}
		if len(chunks) > 0 && len(chunks[len(chunks)-1]) > w {
			cur = handleLongWord(&chunks, cur, curLen, w)
		}
		if len(cur) > 0 && isSpace(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			var b strings.Builder
			b.WriteString(indent)
			for _, c := range cur {
				b.WriteString(string(c))
			}
			lines = append(lines, b.String())
		}
	}
	return lines
}

func handleLongWord(chunks *[][]rune, cur [][]rune, curLen, w int) [][]rune {
	spaceLeft := w - curLen
	if w < 1 {
		spaceLeft = 1
	}
	stack := *chunks
	chunk := stack[len(stack)-1]
	end := spaceLeft
	if len(chunk) > spaceLeft {
		hyphen := -1
		for i := spaceLeft - 1; i >= 0; i-- {
			if chunk[i] == '-' {
				hyphen = i
				break
			}
		}
		if hyphen > 0 {
			for _, r := range chunk[:hyphen] {
				if r != '-' {
					end = hyphen + 1
					break
				}
			}
		}
	}
	if end > len(chunk) {
		end = len(chunk)
	}
	cur = append(cur, chunk[:end])
	stack[len(stack)-1] = chunk[end:]
	if len(stack[len(stack)-1]) == 0 {
		stack = stack[:len(stack)-1]
	}
	*chunks = stack
	return cur
}

func isSpace(c []rune) bool {
	for _, r := range c {
		if r != ' ' {
			return false
		}
	}
	return true
}

// munge expands tabs (tab size 8) and turns the rest of Python's
// string.whitespace into spaces.
func munge(text string) []rune {
	var out []rune
	col := 0
	for _, r := range text {
		switch r {
		case '\t':
			n := 8 - col%8
			for i := 0; i < n; i++ {
				out = append(out, ' ')
			}
			col += n
			continue
		case '\n', '\r':
			out = append(out, ' ')
			col = 0
			continue
		case '\v', '\f':
			r = ' '
		}
		out = append(out, r)
		col++
	}
	return out
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isLetter(r rune) bool { return isWord(r) && !unicode.IsDigit(r) }

func isWordPunct(r rune) bool {
	return isWord(r) || strings.ContainsRune(`!"'&.,?`, r)
}

// dashesThenWord reports whether t[i:] is two or more '-' then a word
// character.
func dashesThenWord(t []rune, i int) bool {
	j := i
	for j < len(t) && t[j] == '-' {
		j++
	}
	return j-i >= 2 && j < len(t) && isWord(t[j])
}

// splitChunks splits text as textwrap's wordsep_re does: runs of spaces,
// em-dashes between words, and words that may end after a hyphen.
func splitChunks(t []rune) [][]rune {
	var chunks [][]rune
	i := 0
	for i < len(t) {
		start := i
		switch {
		case t[i] == ' ':
			for i < len(t) && t[i] == ' ' {
				i++
			}
		case i > 0 && isWordPunct(t[i-1]) && dashesThenWord(t, i):
			for i < len(t) && t[i] == '-' {
				i++
			}
		default:
			i = wordEnd(t, i)
		}
		chunks = append(chunks, t[start:i])
	}
	return chunks
}

// wordEnd is where the lazy word alternative of wordsep_re starting at i
// ends.
func wordEnd(t []rune, i int) int {
	for j := i + 1; ; j++ {
		// Hyphenated word: the hyphen at j ends the chunk.
		if j < len(t) && t[j] == '-' {
			behind := (j >= 2 && isLetter(t[j-2]) && isLetter(t[j-1])) ||
				(j >= 3 && isLetter(t[j-3]) && t[j-2] == '-' && isLetter(t[j-1]))
			ahead := false
			if k := j + 1; k < len(t) && isLetter(t[k]) {
				if k+1 < len(t) && isLetter(t[k+1]) {
					ahead = true
				} else if k+2 < len(t) && t[k+1] == '-' && isLetter(t[k+2]) {
					ahead = true
				}
			}
			if behind && ahead {
				return j + 1
			}
		}
		// End of word.
		if j == len(t) || t[j] == ' ' {
			return j
		}
		// Em-dash after a word.
		if isWordPunct(t[j-1]) && dashesThenWord(t, j) {
			return j
		}
	}
}
