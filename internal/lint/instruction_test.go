package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/internal/task"
)

func TestDocFind(t *testing.T) {
	src := "# Title\n\nThe C ABI declared in\n`cmark.h` stays UNCHANGED.\n\n- first item\n- second item about\n  the installed tree\n"
	d := newDoc([]byte(src))
	for _, c := range []struct {
		phrase string
		line   int
		ok     bool
	}{
		{"c abi", 3, true},
		{"declared in `cmark.h`", 3, true}, // across a line break, white space folded
		{"  Stays   unchanged ", 4, true},  // case and white space ignored
		{"title the", 0, false},            // a heading is its own block
		{"first item - second", 0, false},  // list items are blocks
		{"about the installed tree", 7, true},
		{"", 0, false},
	} {
		line, ok := d.find(c.phrase)
		if line != c.line || ok != c.ok {
			t.Errorf("find(%q) = %d, %v; want %d, %v", c.phrase, line, ok, c.line, c.ok)
		}
	}
}

// TestDocMarkdown: the instruction is matched on its Markdown's text
// content, so emphasis, code spans, links and tables do not break a
// phrase (issue 16: "three **counts**" hid the surface "three counts").
func TestDocMarkdown(t *testing.T) {
	src := "# Port\n\nThe same three **counts** on standard output,\nthe same _usage_ [message](https://x.test)\nand `exit status`.\n\n| col | what |\n|---|---|\n| a | the *exit* code |\n\n```\nliteral **kept**\n```\n"
	d := newDoc([]byte(src))
	for _, c := range []struct {
		phrase string
		line   int
		ok     bool
	}{
		{"three counts", 3, true},
		{"three **counts**", 3, true}, // a phrase is folded the same way
		{"usage message", 4, true},
		{"exit status", 5, true},
		{"the exit code", 9, true},
		{"a the exit", 0, false}, // table cells are blocks
		{"literal", 12, true},    // code blocks keep their text
		{"https", 0, false},
	} {
		line, ok := d.find(c.phrase)
		if line != c.line || ok != c.ok {
			t.Errorf("find(%q) = %d, %v; want %d, %v", c.phrase, line, ok, c.line, c.ok)
		}
	}
}

func TestDocSentences(t *testing.T) {
	d := newDoc([]byte("# Port it\n\nOne. Two is\nlonger! Three?\n\n- four\n"))
	var got []string
	for _, s := range d.sentences() {
		got = append(got, d.norm[s[0]:s[1]])
	}
	want := []string{"port it", "one.", "two is longer!", "three?", "four"}
	if len(got) != len(want) {
		t.Fatalf("sentences = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sentence %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestContainsWord(t *testing.T) {
	for _, c := range []struct {
		s, tok string
		want   bool
	}{
		{"run run.sh now", "run.sh", true},
		{"see modules/build/run.sh", "run.sh", false}, // part of a path: the path needle reports it
		{"rerun.sh", "run.sh", false},
		{"case ws-tab-017.", "ws-tab-017", true}, // a full stop ends it
		{"ws-tab-017.txt", "ws-tab-017", false},
		{"case ws-tab-017 fails", "ws-tab-017", true},
		{"(ws-tab-017)", "ws-tab-017", true},
	} {
		if got := containsWord(c.s, c.tok); got != c.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", c.s, c.tok, got, c.want)
		}
	}
}

// TestInstructionChecksOrder: a line quoting several needles is reported
// once, for the first in needles' order, whether that is a path (modules/
// comes before truth/) or a truth value (truth/ comes before prompts/).
func TestInstructionChecksOrder(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"modules/build/run.sh": "#!/bin/sh\n",
		"truth/cases.jsonl":    "short\n  {\"case\": \"first\", \"want\": 1}  \n{\"case\": \"second\", \"want\": 2}\n",
		"prompts/review.txt":   "review\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	instr := "Run modules/build/run.sh on {\"case\": \"first\", \"want\": 1}.\n" +
		"See prompts/review.txt for {\"case\": \"second\", \"want\": 2} and {\"case\": \"first\", \"want\": 1}.\n" +
		"Nothing here.\n"
	tk := &task.Task{Dir: dir, File: filepath.Join(dir, "task.cue"), Instruction: "instruction.md"}
	c := &checker{t: tk, r: &Report{Dir: dir, Task: tk}, doc: newDoc([]byte(instr))}
	c.instructionChecks()
	if len(c.r.Findings) != 2 {
		t.Fatalf("%d findings, want 2: %+v", len(c.r.Findings), c.r.Findings)
	}
	for i, want := range []string{`"modules/build/run.sh"`, `"{\"case\": \"first\", \"want\": 1}", a truth value (truth/cases.jsonl:2)`} {
		if f := c.r.Findings[i]; !strings.Contains(f.Msg, want) || f.Locations[0].Line != i+1 {
			t.Errorf("finding %d: line %d %q, want line %d quoting %s", i, f.Locations[0].Line, f.Msg, i+1, want)
		}
	}
}

// A module id written as code is a leaked check, unless the task declares
// the word as its vocabulary (a surface's mention): a port whose library
// has a module of that name must say it (lang07's `datetime`).
func TestModuleIDAsVocabulary(t *testing.T) {
	dir := t.TempDir()
	instr := "Keep the `datetime` module's pictures and the `cases` API.\n"
	tk := &task.Task{Dir: dir, File: filepath.Join(dir, "task.cue"), Instruction: "instruction.md"}
	tk.Behavioural.Modules = []task.Module{{ID: "datetime"}, {ID: "cases"}}
	tk.Verification.Surfaces = []task.Surface{{ID: "dates", Mentions: []string{"Datetime"}}}
	c := &checker{t: tk, r: &Report{Dir: dir, Task: tk}, doc: newDoc([]byte(instr))}
	c.instructionChecks()
	if len(c.r.Findings) != 1 || !strings.Contains(c.r.Findings[0].Msg, "the id of behavioural module cases") {
		t.Fatalf("findings %+v, want the one about module cases", c.r.Findings)
	}
}
