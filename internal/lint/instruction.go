package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// doc is the instruction prepared for matching: norm is its text in lower
// case with every run of white space folded to one space, and a newline
// wherever a block ends (a blank line, a heading, a list item, a table
// row, a code fence), so a phrase never matches across blocks; lineAt
// maps each byte of norm to its 1-based source line.
type doc struct {
	lines  []string
	norm   string
	lineAt []int
}

var reBlockStart = regexp.MustCompile(`^(#|[-*+] |[0-9]+[.)] |\||>|` + "```" + `)`)

func newDoc(src []byte) *doc {
	d := &doc{lines: strings.Split(string(src), "\n")}
	var sb strings.Builder
	space := false
	brk := func(line int) {
		if sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteByte('\n')
			d.lineAt = append(d.lineAt, line)
		}
		space = false
	}
	for i, l := range d.lines {
		n := i + 1
		tr := strings.TrimSpace(l)
		if tr == "" {
			brk(n)
			continue
		}
		single := strings.HasPrefix(tr, "#") || strings.HasPrefix(tr, "|") || strings.HasPrefix(tr, "```")
		if reBlockStart.MatchString(tr) {
			brk(n)
		} else {
			space = true
		}
		for _, r := range tr {
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			if space && sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
				sb.WriteByte(' ')
				d.lineAt = append(d.lineAt, n)
			}
			space = false
			var buf [utf8.UTFMax]byte
			k := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			sb.Write(buf[:k])
			for range k {
				d.lineAt = append(d.lineAt, n)
			}
		}
		space = true
		if single {
			brk(n)
		}
	}
	d.norm = sb.String()
	return d
}

// fold normalises a phrase the way newDoc normalises the text.
func fold(s string) string {
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
	text string
	word bool   // match as a whole token only
	what string // "module internals", "a case id", "a truth value"
	from Location
}

const maxTruthBytes = 1 << 20

// needles lists what the instruction must not quote: files under modules/,
// truth/ and prompts/ (path and distinctive file name), truth file stems
// (case ids), lines of truth files (truth values), module ids written as
// code, and the verifiers' image path /tests/.
func (c *checker) needles() []needle {
	dir := c.t.Dir
	ns := []needle{{text: "/tests/", what: "a path in the verifiers' image, which does not exist for the agent"}}
	for _, m := range c.t.Behavioural.Modules {
		ns = append(ns, needle{text: "`" + m.ID + "`", what: "the id of behavioural module " + m.ID,
			from: Location{File: c.t.File, Field: "behavioural.modules"}})
	}
	// Words a surface requires the instruction to mention (surface
	// "mentions") are the task's vocabulary, not a leaked check, even when a
	// truth file is named after one (truth/pkg-config.json and the tool
	// pkg-config).
	vocabulary := map[string]bool{}
	for _, s := range c.t.Verification.Surfaces {
		for _, m := range s.Mentions {
			vocabulary[fold(m)] = true
		}
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
			ns = append(ns, needle{text: rel, what: what, from: from})
			base := e.Name()
			if strings.Contains(base, ".") && len(base) >= 5 && !generic(base) {
				ns = append(ns, needle{text: base, word: true, what: what + " (" + rel + ")", from: from})
			}
			if sub != "truth" {
				return nil
			}
			if stem := strings.TrimSuffix(base, filepath.Ext(base)); len(stem) >= 4 && strings.ContainsAny(stem, "-_0123456789") && !vocabulary[fold(stem)] {
				ns = append(ns, needle{text: stem, word: true, what: "a case id (the name of " + rel + ")", from: from})
			}
			if info, err := e.Info(); err != nil || info.Size() > maxTruthBytes {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for i, l := range strings.Split(string(b), "\n") {
				if v := strings.TrimSpace(l); len(v) >= 16 {
					ns = append(ns, needle{text: v, what: fmt.Sprintf("a truth value (%s:%d)", rel, i+1),
						from: Location{File: p, Line: i + 1, Quote: trimQuote(v)}})
				}
			}
			return nil
		})
	}
	return ns
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
		i += off
		j := i + len(tok)
		before, after := rune(' '), rune(' ')
		if i > 0 {
			before, _ = utf8.DecodeLastRuneInString(s[:i])
		}
		if j < len(s) {
			after, _ = utf8.DecodeRuneInString(s[j:])
			if after == '.' && (j+1 == len(s) || !tokenRune(rune(s[j+1]))) {
				after = ' ' // a full stop ends the token
			}
		}
		if !tokenRune(before) && !tokenRune(after) {
			return true
		}
		off = i + 1
	}
}

func tokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./", r)
}

func (c *checker) instructionChecks() {
	ns := c.needles()
	for i, l := range c.doc.lines {
		for _, n := range ns {
			hit := false
			if n.word {
				hit = containsWord(l, n.text)
			} else {
				hit = strings.Contains(l, n.text)
			}
			if !hit {
				continue
			}
			locs := []Location{c.atLine(i+1, "")}
			if n.from.File != "" {
				from := n.from
				if from.Field != "" {
					from = c.at(from.Field)
				}
				from.Note = "quoted from here"
				locs = append(locs, from)
			}
			c.add(RuleInstructionChecks, locs,
				"the instruction quotes %q, %s: an instruction that lists the checks is an instruction to satisfy them; state the requirement and leave the check to stages 2 and 3",
				n.text, n.what)
			break // one finding per line
		}
	}
}

// rePromise finds the words that make a sentence promise a behaviour.
var rePromise = regexp.MustCompile(`\b(must|will|shall|unchanged|identical|identically|byte-for-byte|exactly|preserved?|guaranteed?|the same)\b`)

// sentences splits norm at block ends and at '.', '!' or '?' followed by
// a space, returning [start, end) byte ranges.
func (d *doc) sentences() [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(d.norm); i++ {
		ch := d.norm[i]
		end := -1
		switch {
		case ch == '\n':
			end = i
		case (ch == '.' || ch == '!' || ch == '?') && (i+1 == len(d.norm) || d.norm[i+1] == ' ' || d.norm[i+1] == '\n'):
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
