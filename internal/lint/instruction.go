package lint

import (
	"encoding/binary"
	"fmt"
	"html"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// doc is the instruction prepared for matching: norm is the text content
// of its Markdown (goldmark, with GitHub tables), in lower case with every
// run of white space folded to one space and a newline wherever a block
// ends (a paragraph, a heading, a list item, a table cell, a code block),
// so a phrase never matches across blocks and emphasis, code spans, links
// and table syntax do not matter; lineAt maps each byte of norm to its
// 1-based source line.
type doc struct {
	lines  []string
	norm   string
	lineAt []int
	code   []bool // code[i]: byte i of norm is inside a code span or block
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// textBuilder folds text into norm as newDoc describes.
type textBuilder struct {
	sb     strings.Builder
	lineAt []int
	code   []bool
	inCode bool
	space  bool
}

func (b *textBuilder) brk(line int) {
	if b.sb.Len() > 0 && !strings.HasSuffix(b.sb.String(), "\n") {
		b.sb.WriteByte('\n')
		b.lineAt = append(b.lineAt, line)
		b.code = append(b.code, false)
	}
	b.space = false
}

// write appends text whose first byte is at offset off of src.
func (b *textBuilder) write(text []byte, off int, lineOf func(int) int) {
	for i, r := range string(text) {
		if unicode.IsSpace(r) {
			b.space = true
			continue
		}
		n := lineOf(off + i)
		if b.space && b.sb.Len() > 0 && !strings.HasSuffix(b.sb.String(), "\n") {
			b.sb.WriteByte(' ')
			b.lineAt = append(b.lineAt, n)
			b.code = append(b.code, false)
		}
		b.space = false
		var buf [utf8.UTFMax]byte
		k := utf8.EncodeRune(buf[:], unicode.ToLower(r))
		b.sb.Write(buf[:k])
		for range k {
			b.lineAt = append(b.lineAt, n)
			b.code = append(b.code, b.inCode)
		}
	}
}

// markdownText walks the Markdown of src and feeds its text content to b.
func markdownText(src []byte, b *textBuilder) {
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
	root := markdown.Parser().Parse(text.NewReader(src))
	last := 1
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch x := n.(type) {
		case *ast.Text:
			if entering {
				seg := x.Segment
				// Character references are their characters (&nbsp; is a
				// space); a Text segment is within one line, so its
				// offsets still give the line.
				b.write([]byte(html.UnescapeString(string(seg.Value(src)))), seg.Start, lineOf)
				last = lineOf(seg.Start)
				if x.SoftLineBreak() || x.HardLineBreak() {
					b.space = true
				}
			}
			return ast.WalkContinue, nil
		case *ast.String:
			if entering {
				b.space = true
				b.write(x.Value, 0, func(int) int { return last })
			}
		case *ast.AutoLink:
			if entering {
				b.write(x.Label(src), 0, func(int) int { return last })
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			b.inCode = entering
			return ast.WalkContinue, nil
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering {
				b.inCode = true
				defer func() { b.inCode = false }()
				ls := n.Lines()
				for i := 0; i < ls.Len(); i++ {
					seg := ls.At(i)
					b.space = true
					b.write(seg.Value(src), seg.Start, lineOf)
					last = lineOf(seg.Start)
				}
				b.brk(last)
			}
			return ast.WalkSkipChildren, nil
		}
		if n.Type() == ast.TypeBlock || n.Kind() == east.KindTableCell {
			if ls := n.Lines(); entering && ls != nil && ls.Len() > 0 {
				last = lineOf(ls.At(0).Start)
			}
			b.brk(last)
		}
		return ast.WalkContinue, nil
	})
}

func newDoc(src []byte) *doc {
	d := &doc{lines: strings.Split(string(src), "\n")}
	var b textBuilder
	markdownText(src, &b)
	d.norm, d.lineAt, d.code = b.sb.String(), b.lineAt, b.code
	return d
}

// fold normalises a phrase the way newDoc normalises the text: its
// Markdown's text content ("`cmark.h`" is "cmark.h"), in lower case, white
// space folded.
func fold(s string) string {
	var b textBuilder
	markdownText([]byte(s), &b)
	if f := strings.TrimSpace(b.sb.String()); f != "" && !strings.Contains(f, "\n") {
		return f
	}
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// find returns the line where phrase first occurs.
func (d *doc) find(phrase string) (int, bool) {
	p := fold(phrase)
	if p == "" {
		return 0, false
	}
	i := strings.Index(d.norm, p)
	if i < 0 {
		return 0, false
	}
	return d.lineAt[i], true
}

func (c *checker) surfaceMentions() {
	for i, s := range c.t.Verification.Surfaces {
		m := Mention{Surface: s.ID}
		for _, p := range s.Mentions {
			if line, ok := c.doc.find(p); ok {
				m.Line, m.Phrase = line, p
				m.Quote = trimQuote(c.doc.lines[line-1])
				break
			}
		}
		c.r.Mentions = append(c.r.Mentions, m)
		if m.Line > 0 {
			continue
		}
		instr := Location{File: c.r.Instruction, Note: "searched here"}
		c.add(RuleSurfaceUnmentioned, []Location{c.at(fmt.Sprintf("verification.surfaces[%d].mentions", i)), instr},
			"the instruction %s mentions surface %q nowhere (looked for %s): promise it there, or list in mentions the phrase the instruction uses for it",
			c.t.Instruction, s.ID, quoteList(s.Mentions))
	}
}

// needle is one string whose presence in the instruction enumerates a
// check: a path or file name from the verifiers' side of the task, or a
// line of ground truth.
type needle struct {
	text  string
	word  bool         // match as a whole token only
	line  int          // a truth value's line in its truth file
	about *needleAbout // shared by the lines of one truth file
	// ord is the needle's place in needles' order: its slot << 32, plus
	// a truth value's line in its file.
	ord int64
}

// truthText is one truth file's content, whose lines of at least keyLen
// bytes (trimmed) are needles in slot ord>>32 (see instructionChecks).
type truthText struct {
	text  string
	about *needleAbout
	ord   int64
}

// needleAbout says what a needle is and where it comes from.
type needleAbout struct {
	what string // "module internals", "a case id", "a truth value"
	from Location
	// truth is the task-relative truth file a truth-value needle is a
	// line of: its what and from.Quote are made only when the instruction
	// quotes it, so a large truth costs one small needle per line.
	truth string
}

// describe is what n is and where it comes from (from.File "" when it
// comes from no file).
func (n needle) describe() (string, Location) {
	a := n.about
	switch {
	case a == nil:
		return "", Location{}
	case a.truth != "":
		from := a.from
		from.Line, from.Quote = n.line, trimQuote(n.text)
		return fmt.Sprintf("a truth value (%s:%d)", a.truth, n.line), from
	}
	return a.what, a.from
}

const maxTruthBytes = 1 << 20

// needles lists what the instruction must not quote: files under modules/,
// truth/ and prompts/ (path and distinctive file name), truth file stems
// (case ids), module ids written as code, and the verifiers' image path
// /tests/; and the truth files whose lines (truth values) it must not
// quote either, which instructionChecks looks up line by line rather than
// making a needle of each (lang01 has tens of thousands).
func (c *checker) needles() ([]needle, []truthText) {
	dir := c.t.Dir
	var ns []needle
	var truths []truthText
	slot := int64(0)
	add := func(n needle) {
		n.ord = slot << 32
		slot++
		ns = append(ns, n)
	}
	add(needle{text: "/tests/", about: &needleAbout{what: "a path in the verifiers' image, which does not exist for the agent"}})
	// Words a surface requires the instruction to mention (surface
	// "mentions") are the task's vocabulary, not a leaked check, even when a
	// truth file or a module is named after one (truth/pkg-config.json and
	// the tool pkg-config; a module `datetime` and the ported library's own
	// datetime module, which the instruction must name).
	vocabulary := map[string]bool{}
	for _, s := range c.t.Verification.Surfaces {
		for _, m := range s.Mentions {
			vocabulary[fold(m)] = true
		}
	}
	for _, m := range c.t.Behavioural.Modules {
		if vocabulary[fold(m.ID)] {
			continue
		}
		add(needle{text: "`" + m.ID + "`", about: &needleAbout{what: "the id of behavioural module " + m.ID,
			from: Location{File: c.t.File, Field: "behavioural.modules"}}})
	}
	for _, sub := range []string{"modules", "truth", "prompts"} {
		_ = filepath.WalkDir(filepath.Join(dir, sub), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			rel := filepath.ToSlash(mustRel(dir, p))
			what := "a file of the module programs"
			switch sub {
			case "truth":
				what = "a ground-truth file"
			case "prompts":
				what = "a verifier's prompt file"
			}
			from := Location{File: p}
			add(needle{text: rel, about: &needleAbout{what: what, from: from}})
			base := e.Name()
			if strings.Contains(base, ".") && len(base) >= 5 && !generic(base) {
				add(needle{text: base, word: true, about: &needleAbout{what: what + " (" + rel + ")", from: from}})
			}
			if sub != "truth" {
				return nil
			}
			if stem := strings.TrimSuffix(base, filepath.Ext(base)); len(stem) >= 4 && strings.ContainsAny(stem, "-_0123456789") && !vocabulary[fold(stem)] {
				add(needle{text: stem, word: true, about: &needleAbout{what: "a case id (the name of " + rel + ")", from: from}})
			}
			if info, err := e.Info(); err != nil || info.Size() > maxTruthBytes {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			truths = append(truths, truthText{text: string(b), about: &needleAbout{truth: rel, from: Location{File: p}}, ord: slot << 32})
			slot++
			return nil
		})
	}
	return ns, truths
}

func generic(base string) bool {
	u := strings.ToUpper(base)
	return strings.HasPrefix(u, "README") || strings.HasPrefix(u, "LICENSE") || strings.HasPrefix(u, "NOTICE")
}

func mustRel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// containsWord reports whether tok occurs in s with no letter, digit,
// '_', '-', '.' or '/' on either side (a '.' that ends a sentence does
// not count).
func containsWord(s, tok string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], tok)
		if i < 0 {
			return false
		}
		if wordAt(s, off+i, len(tok)) {
			return true
		}
		off += i + 1
	}
}

func tokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./", r)
}

// needleIndex finds needles in a line in time linear in the line's length
// (and the matches), whatever the number of needles: a needle of keyLen
// bytes or more is filed under its first keyLen bytes, a shorter one under
// its whole text by length, and a line is scanned once, looking up each
// position's key and each short length's text.
type needleIndex struct {
	long  map[string][]int         // first keyLen bytes → needle indexes, in needle order
	short map[int]map[string][]int // length → text → needle indexes
	lens  []int                    // the lengths in short, ascending
}

const keyLen = 16 // truth values are at least this long

func newNeedleIndex(ns []needle) *needleIndex {
	x := &needleIndex{long: map[string][]int{}, short: map[int]map[string][]int{}}
	seen := map[string]bool{}
	for i, n := range ns {
		k := n.text
		if k == "" || seen[k+"\x00"+strconv.FormatBool(n.word)] {
			continue // a later duplicate can never be the first hit
		}
		seen[k+"\x00"+strconv.FormatBool(n.word)] = true
		if len(k) >= keyLen {
			x.long[k[:keyLen]] = append(x.long[k[:keyLen]], i)
		} else {
			if x.short[len(k)] == nil {
				x.short[len(k)] = map[string][]int{}
				x.lens = append(x.lens, len(k))
			}
			x.short[len(k)][k] = append(x.short[len(k)][k], i)
		}
	}
	sort.Ints(x.lens)
	return x
}

// first is the index of the first needle (in ns order) that occurs in l,
// as a whole token when the needle says so, or -1.
func (x *needleIndex) first(l string, ns []needle) int {
	best := -1
	try := func(cands []int, i int) {
		for _, c := range cands {
			if best >= 0 && c >= best {
				return // cands are in needle order
			}
			n := ns[c]
			if !strings.HasPrefix(l[i:], n.text) || (n.word && !wordAt(l, i, len(n.text))) {
				continue
			}
			best = c
			return
		}
	}
	for i := range len(l) {
		if i+keyLen <= len(l) {
			if cands, ok := x.long[l[i:i+keyLen]]; ok {
				try(cands, i)
			}
		}
		for _, n := range x.lens {
			if i+n > len(l) {
				break
			}
			if cands, ok := x.short[n][l[i:i+n]]; ok {
				try(cands, i)
			}
		}
	}
	return best
}

// wordAt reports whether the token of n bytes at s[i:] has no letter,
// digit, '_', '-', '.' or '/' on either side (a '.' that ends a sentence
// does not count), as containsWord does.
func wordAt(s string, i, n int) bool {
	j := i + n
	before, after := rune(' '), rune(' ')
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if j < len(s) {
		after, _ = utf8.DecodeRuneInString(s[j:])
		if after == '.' && (j+1 == len(s) || !tokenRune(rune(s[j+1]))) {
			after = ' '
		}
	}
	return !tokenRune(before) && !tokenRune(after)
}

// instructionChecks reports each instruction line that quotes a needle
// (the first needle, in needles order); its cost is linear in the
// instruction's and the needles' sizes (issue 17). A truth value (a
// truth file line of keyLen bytes or more, trimmed) is looked up by its
// first keyLen bytes among the instruction's keyLen-byte windows, so
// the truth files cost one map lookup per line and no needle of their
// own unless the instruction quotes them.
func (c *checker) instructionChecks() {
	ns, truths := c.needles()
	x := newNeedleIndex(ns)
	lines := c.doc.lines
	best := make([]needle, len(lines))
	found := make([]bool, len(lines))
	for i, l := range lines {
		if k := x.first(l, ns); k >= 0 {
			best[i], found[i] = ns[k], true
		}
	}
	if len(truths) > 0 {
		// Every keyLen-byte window of the instruction, chained by a hash
		// of its bytes (windowKey): head[k] is the latest place, next
		// links each place to the one before it with the same key (-1
		// ends); a place is a candidate that strings.HasPrefix confirms.
		type at struct{ line, off int32 }
		n := 0
		for _, l := range lines {
			n += max(len(l)-keyLen+1, 0)
		}
		places := make([]at, 0, n)
		next := make([]int32, 0, n)
		head := make(map[uint64]int32, n)
		for i, l := range lines {
			for off := 0; off+keyLen <= len(l); off++ {
				w := windowKey(l[off:])
				prev, ok := head[w]
				if !ok {
					prev = -1
				}
				head[w] = int32(len(places))
				places = append(places, at{int32(i), int32(off)})
				next = append(next, prev)
			}
		}
		for _, tt := range truths {
			text := tt.text
			for n := 1; text != ""; n++ {
				l, rest, _ := strings.Cut(text, "\n")
				text = rest
				v := strings.TrimSpace(l)
				if len(v) < keyLen {
					continue
				}
				ord := tt.ord + int64(n)
				k, ok := head[windowKey(v)]
				for ; ok && k >= 0; k = next[k] {
					a := places[k]
					if found[a.line] && best[a.line].ord <= ord {
						continue
					}
					if strings.HasPrefix(lines[a.line][a.off:], v) {
						best[a.line], found[a.line] = needle{text: v, line: n, about: tt.about, ord: ord}, true
					}
				}
			}
		}
	}
	for i := range lines {
		if !found[i] {
			continue
		}
		n := best[i]
		what, from := n.describe()
		locs := []Location{c.atLine(i+1, "")}
		if from.File != "" {
			if from.Field != "" {
				from = c.at(from.Field)
			}
			from.Note = "quoted from here"
			locs = append(locs, from)
		}
		c.add(RuleInstructionChecks, locs,
			"the instruction quotes %q, %s: an instruction that lists the checks is an instruction to satisfy them; state the requirement and leave the check to stages 2 and 3",
			n.text, what)
	}
}

// windowKey hashes the first keyLen (16) bytes of s, which has at least
// that many.
func windowKey(s string) uint64 {
	a := binary.LittleEndian.Uint64([]byte(s[:8]))
	b := binary.LittleEndian.Uint64([]byte(s[8:16]))
	return a*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(b, 31)
}

// rePromise finds the words that make a sentence promise a behaviour.
var rePromise = regexp.MustCompile(`\b(must|will|shall|unchanged|identical|identically|byte-for-byte|exactly|preserved?|guaranteed?|the same)\b`)

// sentences splits norm at block ends and at '.', '!' or '?' followed by
// a space outside code, returning [start, end) byte ranges.
func (d *doc) sentences() [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(d.norm); i++ {
		ch := d.norm[i]
		end := -1
		switch {
		case ch == '\n':
			end = i
		case (ch == '.' || ch == '!' || ch == '?') && !d.code[i] && (i+1 == len(d.norm) || d.norm[i+1] == ' ' || d.norm[i+1] == '\n'):
			end = i + 1
		}
		if end < 0 {
			continue
		}
		if strings.TrimSpace(d.norm[start:end]) != "" {
			out = append(out, [2]int{start, end})
		}
		start = end
		for start < len(d.norm) && (d.norm[start] == ' ' || d.norm[start] == '\n') {
			start++
		}
		i = start - 1
	}
	if strings.TrimSpace(d.norm[start:]) != "" {
		out = append(out, [2]int{start, len(d.norm)})
	}
	return out
}

// graderPaths reports each place the instruction's text names a path of
// [task.GraderPaths] (or one under it): the agent's image never has
// them, so an instruction that points there misleads the agent. A path
// counts only where it starts one (not "src/tests" or "./tests") and
// ends at a path boundary (not "/testsuite").
func (c *checker) graderPaths() {
	text := c.doc.norm
	for _, p := range task.GraderPaths {
		for off := 0; ; {
			i := strings.Index(text[off:], p)
			if i < 0 {
				break
			}
			i += off
			off = i + len(p)
			if i > 0 && !pathStart(text[i-1]) {
				continue
			}
			if off < len(text) && !pathEnd(text, off) {
				continue
			}
			if p == "/tests" && off < len(text) && text[off] == '/' {
				continue // instruction-checks reports "/tests/" (the checks' own path)
			}
			end := off
			for end < len(text) && !strings.ContainsRune(" \t\n\"'`)>,;", rune(text[end])) {
				end++
			}
			named := strings.TrimRight(text[i:end], ".:")
			c.add(RuleInstructionGraderPath, []Location{c.atLine(c.doc.lineAt[i], "")},
				"the instruction names %s, which the agent's image never has (%s is the grader's): State A is the first commit of the repository at %s",
				named, p, c.t.Artifacts.Path)
		}
	}
}

// pathStart reports whether a path may start right after b.
func pathStart(b byte) bool { return strings.IndexByte(" \t\n\"'`(<[=", b) >= 0 }

// pathEnd reports whether a path may end at text[i]: a separator, white
// space, quote or closing bracket, or sentence punctuation followed by
// white space or the end.
func pathEnd(text string, i int) bool {
	switch b := text[i]; {
	case strings.IndexByte("/ \t\n\"'`)>]", b) >= 0:
		return true
	case strings.IndexByte(".,;:!?", b) >= 0:
		return i+1 == len(text) || strings.IndexByte(" \t\n\"'`)", text[i+1]) >= 0
	}
	return false
}

func (c *checker) promisesUncaptured() {
	var phrases []string
	for _, s := range c.t.Verification.Surfaces {
		for _, p := range s.Mentions {
			if f := fold(p); f != "" {
				phrases = append(phrases, f)
			}
		}
	}
	sort.Strings(phrases)
	for _, se := range c.doc.sentences() {
		text := c.doc.norm[se[0]:se[1]]
		m := rePromise.FindStringIndex(text)
		if m == nil {
			continue
		}
		captured := false
		for _, p := range phrases {
			if strings.Contains(text, p) {
				captured = true
				break
			}
		}
		if captured {
			continue
		}
		line := c.doc.lineAt[se[0]+m[0]]
		c.add(RulePromiseUncaptured, []Location{c.atLine(line, "")},
			"this sentence promises a behaviour (%q) that no surface captures: declare a surface whose mentions include a phrase of it, or reword it if stage 3 has nothing to check there",
			text[m[0]:m[1]])
	}
}
