// Package buildcmd reads a task's build commands the way a shell and the
// well-known build tools would, and says which paths of the tree each one
// reads, writes and changes into. validate's exclusion rules use it: an
// exclusion pattern may remove what the build itself writes (node_modules,
// bin/tally) but not what it reads.
//
// An argv list whose program is a shell run with -c ("sh", "-c", SCRIPT)
// has its script parsed with mvdan.cc/sh; any other argv list is one
// simple command. Words that expand a variable, a command substitution or
// a glob are not paths srb can resolve and are skipped; so are absolute
// paths and paths that leave the tree ("../tally"): collection never
// reaches them.
package buildcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Kind says what a command does with a path.
type Kind int

const (
	// Read: the command needs the path to exist (a source, a script, a
	// manifest, an input redirection).
	Read Kind = iota
	// Write: the command creates the path (an output flag, an output
	// redirection, mkdir, the node_modules a package manager fills).
	Write
	// Dir: the command changes into the path or is pointed at it as its
	// project folder (cd, make -C, go -C); it must exist.
	Dir
	// Exec: the build runs the path as a program (./configure,
	// scripts/gen); it must exist.
	Exec
)

// String is the kind's word in findings: "reads", "writes", "changes
// into" or "runs".
func (k Kind) String() string {
	switch k {
	case Write:
		return "writes"
	case Dir:
		return "changes into"
	case Exec:
		return "runs"
	}
	return "reads"
}

// Use is one path a command names.
type Use struct {
	// Path is the path relative to the tree's top, slash-separated and
	// clean, with the command's cd folders applied.
	Path string
	// Word is the word as the command writes it ("-o" values without the
	// flag; "--manifest-path=src/x/Cargo.toml" gives "src/x/Cargo.toml").
	Word string
	Kind Kind
	// Tool is the program whose argument it is ("cargo", "make", "cd",
	// "sh" for a redirection, "the build" for a program it runs).
	Tool string
	// Implied reports a path the tool reads without naming it (go.mod
	// for go build, package-lock.json for npm ci, Cargo.lock for cargo
	// build); Arg is then the index of its subcommand.
	Implied bool
	// Arg is the index in the argv list of the word, or of the script
	// that holds it for a shell's -c.
	Arg int
	// Cmd is the index of the argv list in the build.
	Cmd int
	// Built reports that an earlier command of the same build wrote Path
	// or a folder above it, so the build makes it rather than needs it.
	Built bool
}

// Needed reports whether the build needs u to exist before it runs.
func (u Use) Needed() bool { return u.Kind != Write && !u.Built }

// Analyse reads the argv lists of one build, run in order in the tree's
// top folder, and returns every path they name. Paths written by an
// earlier command (or an earlier part of the same script) mark later
// uses under them Built. A shell script that does not parse is an error
// naming the list's index.
func Analyse(build [][]string) ([]Use, error) {
	a := &analyser{}
	for i, argv := range build {
		a.cmd = i
		if err := a.argv(argv); err != nil {
			return a.uses, fmt.Errorf("build[%d]: %w", i, err)
		}
	}
	return a.uses, nil
}

// Program is a program a build runs by name ("go", "make") or by
// absolute path ("/usr/bin/cmake"): the stage image the build runs in
// must have it. A program of the tree ("./configure") is an Exec [Use]
// instead, and shell builtins are not programs.
type Program struct {
	// Name is the command word as written: a bare name, or an absolute
	// path.
	Name string
	// Cmd is the index of the argv list in the build; Arg the index in it
	// of the word, or of the script that holds it for a shell's -c.
	Cmd, Arg int
}

// Programs lists the programs each argv list of build runs, in order, a
// program once per list: the list's own program (a shell run with -c,
// npx), and for a shell's -c script every command it runs, through
// wrappers (env, time, nice) and NAME=VALUE words, in its conditions,
// loops and subshells too. Words that expand something srb cannot
// resolve are skipped. A script that does not parse is an error naming
// the list's index.
func Programs(build [][]string) ([]Program, error) {
	a := &analyser{}
	for i, argv := range build {
		a.cmd = i
		if err := a.argv(argv); err != nil {
			return a.programs, fmt.Errorf("build[%d]: %w", i, err)
		}
	}
	return a.programs, nil
}

// builtins are the shell's own commands (and the words that only
// prefix one): never a program an image provides.
var builtins = map[string]bool{":": true, ".": true, "source": true, "cd": true, "export": true, "set": true, "unset": true, "exit": true,
	"return": true, "shift": true, "eval": true, "exec": true, "command": true, "type": true, "read": true, "wait": true, "trap": true,
	"umask": true, "ulimit": true, "local": true, "alias": true, "pwd": true, "true": true, "false": true, "test": true, "[": true,
	"echo": true, "printf": true, "times": true, "hash": true, "getopts": true, "break": true, "continue": true}

// program records the program word w of the current argv list.
func (a *analyser) program(w word) {
	if !w.ok || w.text == "" || builtins[w.text] {
		return
	}
	if strings.Contains(w.text, "/") && !path.IsAbs(w.text) {
		return // a program of the tree: an Exec use
	}
	for _, p := range a.programs {
		if p.Cmd == a.cmd && p.Name == w.text {
			return
		}
	}
	a.programs = append(a.programs, Program{Name: w.text, Cmd: a.cmd, Arg: w.arg})
}

type analyser struct {
	programs []Program
	uses     []Use
	written  []string
	arg      int // the argv index the current words come from
	cmd      int // the index of the argv list
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

func (a *analyser) argv(argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	if shells[path.Base(argv[0])] {
		a.program(word{text: argv[0], ok: !strings.ContainsAny(argv[0], "$`*?["), arg: 0})
		for i := 1; i < len(argv); i++ {
			f := argv[i]
			if !strings.HasPrefix(f, "-") || f == "-" || f == "--" {
				break
			}
			if strings.HasPrefix(f, "--") || !strings.Contains(f[1:], "c") {
				continue
			}
			if i+1 >= len(argv) {
				return fmt.Errorf("%s %s has no script", argv[0], f)
			}
			a.arg = i + 1
			file, err := syntax.NewParser().Parse(strings.NewReader(argv[i+1]), "")
			if err != nil {
				return fmt.Errorf("the %s -c script does not parse: %v", path.Base(argv[0]), err)
			}
			cwd := "."
			a.stmts(file.Stmts, &cwd)
			return nil
		}
	}
	words := make([]word, len(argv))
	for i, s := range argv {
		words[i] = word{text: s, ok: !strings.ContainsAny(s, "$`*?["), arg: i}
	}
	a.call(words, ".")
	return nil
}

// word is one literal word of a command; ok is false when it expands
// something srb cannot resolve.
type word struct {
	text string
	ok   bool
	arg  int
	// npx: the word is the program npx or bunx runs (not the image's).
	npx bool
}

func (a *analyser) stmts(ss []*syntax.Stmt, cwd *string) {
	for _, s := range ss {
		a.stmt(s, cwd)
	}
}

func (a *analyser) stmt(s *syntax.Stmt, cwd *string) {
	if s == nil {
		return
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		var ws []word
		for _, w := range c.Args {
			t, ok := literal(w)
			ws = append(ws, word{text: t, ok: ok, arg: a.arg})
		}
		if len(ws) > 0 && ws[0].ok && ws[0].text == "cd" {
			a.cd(ws[1:], cwd)
		} else {
			a.call(ws, *cwd)
		}
	case *syntax.BinaryCmd:
		a.stmt(c.X, cwd)
		a.stmt(c.Y, cwd)
	case *syntax.Block:
		a.stmts(c.Stmts, cwd)
	case *syntax.Subshell:
		sub := *cwd
		a.stmts(c.Stmts, &sub)
	case nil:
	default:
		// Loops, conditions and functions: their commands are read with
		// the current folder; a cd inside them is not followed.
		syntax.Walk(c, func(n syntax.Node) bool {
			if st, ok := n.(*syntax.Stmt); ok && st != s {
				sub := *cwd
				a.stmt(st, &sub)
				return false
			}
			return true
		})
	}
	for _, r := range s.Redirs {
		if r.Word == nil {
			continue
		}
		t, ok := literal(r.Word)
		if !ok {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			a.add(t, *cwd, Write, "sh")
		case syntax.RdrIn:
			a.add(t, *cwd, Read, "sh")
		}
	}
}

// cd follows a cd: a literal relative folder is a Dir use and becomes the
// current folder; anything else makes the folder unknown ("").
func (a *analyser) cd(args []word, cwd *string) {
	if len(args) == 0 || !args[0].ok || *cwd == "" {
		*cwd = ""
		return
	}
	t := args[0].text
	if path.IsAbs(t) || t == "-" {
		*cwd = ""
		return
	}
	p := a.add(t, *cwd, Dir, "cd")
	*cwd = p
}

// literal is the text of w when it is made only of literal parts and
// quotes, and does not glob.
func literal(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	var lit func(parts []syntax.WordPart) bool
	lit = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(x.Value, "*?[") {
					return false
				}
				sb.WriteString(x.Value)
			case *syntax.SglQuoted:
				sb.WriteString(x.Value)
			case *syntax.DblQuoted:
				if !lit(x.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	ok := lit(w.Parts)
	return sb.String(), ok
}

// add records a use of word t relative to cwd and returns its path, or ""
// when it names nothing in the tree.
func (a *analyser) add(t, cwd string, k Kind, tool string) string {
	if t == "" || cwd == "" || path.IsAbs(t) || strings.HasPrefix(t, "~") {
		return ""
	}
	p := path.Clean(path.Join(cwd, t))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	u := Use{Path: p, Word: t, Kind: k, Tool: tool, Arg: a.arg, Cmd: a.cmd}
	for _, w := range a.written {
		if p == w || strings.HasPrefix(p, w+"/") {
			u.Built = true
		}
	}
	a.uses = append(a.uses, u)
	if k == Write {
		a.written = append(a.written, p)
	}
	return p
}

// flagKinds lists, per tool, the flags whose value is a path and what the
// tool does with it. "*" applies to every tool.
var flagKinds = map[string]map[string]Kind{
	"*":       {"-o": Write, "--output": Write, "--out": Write, "--out-dir": Write, "--outdir": Write, "--output-dir": Write, "--target-dir": Write, "--build-dir": Write, "--destdir": Write, "-C": Dir},
	"go":      {"-o": Write, "-C": Dir, "-modfile": Read},
	"cmake":   {"-B": Write, "--build": Write, "--install-prefix": Write, "-S": Dir, "-C": Read, "-P": Read},
	"cargo":   {"--target-dir": Write, "--artifact-dir": Write, "--out-dir": Write, "--manifest-path": Read, "-C": Dir},
	"make":    {"-C": Dir, "--directory": Dir, "-f": Read, "--file": Read, "--makefile": Read, "-o": Read},
	"ninja":   {"-C": Dir, "-f": Read},
	"meson":   {"-C": Write},
	"npm":     {"--prefix": Dir, "-C": Dir},
	"pnpm":    {"--prefix": Dir, "-C": Dir, "--dir": Dir},
	"yarn":    {"--cwd": Dir},
	"tsc":     {"--outDir": Write, "--outFile": Write, "--out": Write, "-p": Read, "--project": Read, "--declarationDir": Write, "--tsBuildInfoFile": Write},
	"mkdir":   {},
	"tar":     {"-C": Write, "--directory": Write},
	"install": {"-t": Write},
}

// compilers take -o FILE (and -oFILE) as their output.
var compilers = map[string]bool{"cc": true, "gcc": true, "g++": true, "c++": true, "clang": true, "clang++": true, "ld": true, "rustc": true, "javac": true, "ghc": true, "zig": true, "gfortran": true}

// compilerReads are the compilers' flags whose value is a folder or file
// they read (-I include, -L lib, -include config.h).
var compilerReads = map[string]bool{"-I": true, "-L": true, "-isystem": true, "-iquote": true, "-idirafter": true, "-include": true}

// packageManagers fill node_modules in their folder.
var packageManagers = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true, "corepack": true}

// wrappers run the rest of their argv as a command: npx and bunx run a
// package's program (npx tsc --outDir dist is tsc's --outDir).
var wrappers = map[string]bool{"env": true, "time": true, "nice": true, "exec": true, "command": true, "nohup": true, "sudo": true, "npx": true, "bunx": true}

// wrapperValueFlags are a wrapper's flags that take the next word as
// their value (npx -p typescript tsc).
var wrapperValueFlags = map[string]bool{"-p": true, "--package": true, "-c": true, "--call": true}

// copiers write their last argument.
var copiers = map[string]bool{"cp": true, "mv": true, "ln": true, "install": true, "rsync": true}

// writers create every path they are given.
var writers = map[string]bool{"mkdir": true, "touch": true}

// ignored tools name paths that are not inputs (rm removes, echo prints).
var ignored = map[string]bool{"rm": true, "echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true, "export": true, "set": true, "exit": true}

func (a *analyser) call(ws []word, cwd string) {
	// Leading NAME=VALUE words are the environment, and wrappers run the
	// rest.
	for len(ws) > 0 && ws[0].ok {
		t := ws[0].text
		if k, _, ok := strings.Cut(t, "="); ok && isEnvName(k) {
			ws = ws[1:]
			continue
		}
		if wrappers[path.Base(t)] {
			// env, time, nice, nohup and sudo are programs too (exec and
			// command are builtins). npx runs a package's program from
			// node_modules or the registry: the image needs npx, not the
			// program.
			a.program(ws[0])
			npx := path.Base(t) == "npx" || path.Base(t) == "bunx"
			ws = ws[1:]
			for len(ws) > 0 && ws[0].ok && strings.HasPrefix(ws[0].text, "-") {
				if wrapperValueFlags[ws[0].text] && len(ws) > 1 {
					ws = ws[1:]
				}
				ws = ws[1:]
			}
			if npx && len(ws) > 0 {
				ws[0].npx = true
			}
			continue
		}
		break
	}
	if len(ws) == 0 {
		return
	}
	if !ws[0].ok {
		return
	}
	if !ws[0].npx {
		a.program(ws[0])
	}
	tool := path.Base(ws[0].text)
	if tool == "gmake" {
		tool = "make"
	}
	if ignored[tool] {
		return
	}
	if tool != ws[0].text && !path.IsAbs(ws[0].text) {
		a.argAt(ws[0], cwd, Exec, "the build") // ./build.sh, scripts/gen
	}
	if shells[tool] {
		// bash ./build.sh ARGS: the script is read, its arguments are words.
		for i := 1; i < len(ws); i++ {
			if ws[i].ok && !strings.HasPrefix(ws[i].text, "-") {
				a.argAt(ws[i], cwd, Read, tool)
				ws = append([]word{ws[i]}, ws[i+1:]...)
				tool = path.Base(ws[0].text) // the script runs with its arguments
				break
			}
		}
	}
	kinds := flagKinds[tool]
	generic := flagKinds["*"]
	flagKind := func(f string) (Kind, bool) {
		if k, ok := kinds[f]; ok {
			return k, true
		}
		if compilers[tool] && f == "-o" {
			return Write, true
		}
		if compilers[tool] && compilerReads[f] {
			return Read, true
		}
		if tool == "make" {
			return 0, false // make -o FILE means "treat FILE as old"
		}
		k, ok := generic[f]
		return k, ok
	}
	dir := cwd
	type pending struct {
		w   word
		dir string
		k   Kind
	}
	var later []pending
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.ok {
			continue
		}
		t := w.text
		if writers[tool] {
			if !strings.HasPrefix(t, "-") {
				a.argAt(w, cwd, Write, tool)
			}
			continue
		}
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			name, val, eq := strings.Cut(t, "=")
			if eq {
				k, known := flagKind(name)
				if !known {
					if !pathLike(val) || strings.HasPrefix(name, "-D") {
						continue
					}
					k = Read
				}
				vw := word{text: val, ok: true, arg: w.arg}
				if k == Dir && (tool == "make" || tool == "go" || tool == "cargo" || packageManagers[tool]) {
					dir = a.argAt(vw, cwd, Dir, tool)
					continue
				}
				later = append(later, pending{vw, cwd, k})
				continue
			}
			if k, known := flagKind(t); known && i+1 < len(ws) {
				i++
				vw := ws[i]
				if !vw.ok {
					continue
				}
				if k == Dir && (tool == "make" || tool == "go" || tool == "cargo" || packageManagers[tool]) {
					dir = a.argAt(vw, cwd, Dir, tool)
					continue
				}
				later = append(later, pending{vw, cwd, k})
			}
			// Attached compiler output and folders: -obin/tally, -Iinclude.
			if compilers[tool] && len(t) > 2 {
				switch t[:2] {
				case "-o":
					later = append(later, pending{word{text: t[2:], ok: true, arg: w.arg}, cwd, Write})
				case "-I", "-L":
					later = append(later, pending{word{text: t[2:], ok: true, arg: w.arg}, cwd, Read})
				}
			}
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && isEnvName(k) {
			t = v // make's NAME=VALUE: the value is what it names
		} else if tool == "make" {
			// make's other words are its goals: targets it makes, so
			// a later command that reads one reads what the build wrote
			// (make libfoo.a && cp libfoo.a out/).
			if pathLike(t) {
				later = append(later, pending{word{text: t, ok: true, arg: w.arg}, dir, Write})
			}
			continue
		}
		if pathLike(t) {
			vw := word{text: t, ok: true, arg: w.arg}
			later = append(later, pending{vw, dir, Read})
		}
	}
	// Outputs first, so a source under an output folder of the same
	// command is not mistaken for one the build needs, then the rest.
	if copiers[tool] {
		// cp, mv, ln, install: the last path is the destination.
		for j := len(later) - 1; j >= 0; j-- {
			if later[j].k == Read {
				later[j].k = Write
				break
			}
		}
	}
	for _, write := range []bool{true, false} {
		for _, p := range later {
			if (p.k == Write) == write {
				a.argAt(p.w, p.dir, p.k, tool)
			}
		}
	}
	a.implied(ws, dir, tool)
	if packageManagers[tool] && dir != "" {
		a.add("node_modules", dir, Write, tool)
	}
}

// impliedInputs are the files a tool's subcommand reads in its project
// folder without naming them, for the subcommands listed.
var impliedInputs = map[string]struct {
	subcommands []string
	files       []string
}{
	"go":    {[]string{"build", "install", "test", "run", "vet", "list", "generate"}, []string{"go.mod", "go.sum"}},
	"npm":   {[]string{"ci", "install", "i"}, []string{"package.json", "package-lock.json"}},
	"cargo": {[]string{"build", "b", "test", "t", "run", "r", "check", "c", "install", "doc"}, []string{"Cargo.toml", "Cargo.lock"}},
}

// implied records what tool's subcommand in ws reads without naming it,
// in its project folder dir: go.mod and go.sum (and vendor/ with
// -mod=vendor) for go, package.json and package-lock.json for npm ci,
// Cargo.toml and Cargo.lock for cargo. A cargo or go run pointed at
// another manifest (--manifest-path, -modfile) reads that one instead of
// the folder's.
func (a *analyser) implied(ws []word, dir, tool string) {
	spec, ok := impliedInputs[tool]
	if !ok || dir == "" {
		return
	}
	sub := -1
	for i := 1; i < len(ws); i++ {
		if ws[i].ok && !strings.HasPrefix(ws[i].text, "-") {
			sub = i
			break
		}
	}
	if sub < 0 || !ws[sub].ok || !slices.Contains(spec.subcommands, ws[sub].text) {
		return
	}
	for _, w := range ws[sub+1:] {
		if name, _, _ := strings.Cut(w.text, "="); name == "--manifest-path" || name == "-modfile" {
			return
		}
	}
	files := spec.files
	if tool == "go" {
		for _, w := range ws[1:] {
			if w.text == "-mod=vendor" {
				files = append(slices.Clone(files), "vendor")
			}
		}
	}
	saved := a.arg
	a.arg = ws[sub].arg
	defer func() { a.arg = saved }()
	for _, f := range files {
		if a.add(f, dir, Read, tool) != "" {
			a.uses[len(a.uses)-1].Implied = true
		}
	}
}

// argAt records w and returns its path ("" when it names nothing).
func (a *analyser) argAt(w word, cwd string, k Kind, tool string) string {
	saved := a.arg
	a.arg = w.arg
	defer func() { a.arg = saved }()
	return a.add(w.text, cwd, k, tool)
}

// pathLike reports whether a positional word names a path: it has a '/'
// or a '.', and is not "." or "..".
func pathLike(t string) bool {
	return t != "" && strings.ContainsAny(t, "/.") && t != "." && t != ".." && !strings.Contains(t, "://")
}

func isEnvName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}
