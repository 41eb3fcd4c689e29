package cli

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swe-refactor-bench/srb/templates"
)

// cmdTodo fills in one line srb new marked for the author, as an author
// would: "todo FILE NOTE [VALUE]". The line is the one whose marker
// (TODO(srb new): …) note starts with NOTE, the first of them when
// several do (run it again for the next).
// On a task.cue line ("key: value // TODO(srb new): note") the value
// becomes VALUE (kept when VALUE is absent) and the marker comment goes;
// a line that is all marker (instruction.md) becomes VALUE, \n in it a
// newline.
func cmdTodo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: todo FILE NOTE [VALUE]")
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	lines := strings.Split(string(b), "\n")
	at := -1
	for i, l := range lines {
		j := strings.Index(l, templates.Marker+": ")
		if j < 0 || !strings.HasPrefix(l[j+len(templates.Marker)+2:], args[1]) {
			continue
		}
		at = i
		break
	}
	if at < 0 {
		ts.Fatalf("todo: no %s line of %s starts %q", templates.Marker, args[0], args[1])
	}
	l := lines[at]
	value := ""
	if len(args) == 3 {
		value = strings.ReplaceAll(args[2], `\n`, "\n")
	}
	if strings.HasPrefix(strings.TrimSpace(l), templates.Marker) {
		if len(args) != 3 {
			ts.Fatalf("todo: line %d of %s is all marker: give its text", at+1, args[0])
		}
		lines[at] = value
	} else {
		code := strings.TrimRight(l[:strings.Index(l, "// "+templates.Marker)], " \t")
		if len(args) == 3 {
			k := strings.Index(code, ": ")
			if k < 0 {
				ts.Fatalf("todo: line %d of %s has no \"key: value\"", at+1, args[0])
			}
			code = code[:k+2] + value
		}
		lines[at] = code
	}
	info, err := os.Stat(p)
	ts.Check(err)
	ts.Check(os.WriteFile(p, []byte(strings.Join(lines, "\n")), info.Mode().Perm()))
}
