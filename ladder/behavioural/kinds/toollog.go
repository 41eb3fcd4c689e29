package kinds

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// toolLog is the tool log of one build, made from the trace of its
// commands: the grader's record of what the kernel executed, never lines
// the build wrote.
type toolLog struct {
	// root is the built tree; Dir and Inputs are relative to it when
	// inside it.
	root string
	// tools are the watched tools, identified by file.
	tools []watchedTool
	invs  []Invocation
}

// watchedTool is one watched tool name and the files that are it: every
// program of that name on the build's PATH (srb's recording wrappers
// skipped), links resolved, by device and inode. A script's interpreter
// (its #! line's program) is noted, by file too, since the kernel then
// executes the interpreter with the script as an argument.
type watchedTool struct {
	name   string
	ids    []fileID
	interp map[fileID][]fileID // a script's identity → the files its #! line can run
}

type fileID struct{ dev, ino uint64 }

func statID(p string) (fileID, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino}, true
}

// resolveTools identifies each watched tool on the PATH of env (the
// build's own PATH), as root, before the build runs.
func resolveTools(watch []string, env []string) []watchedTool {
	pathVar := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	var out []watchedTool
	for _, name := range watch {
		t := watchedTool{name: name, interp: map[fileID][]fileID{}}
		for _, d := range filepath.SplitList(pathVar) {
			if d == "" || !filepath.IsAbs(d) {
				continue // a relative PATH entry is the build's own tree
			}
			p := filepath.Join(d, name)
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 || isWrapper(p) {
				continue
			}
			id, ok := statID(p)
			if !ok || slices.Contains(t.ids, id) {
				continue
			}
			t.ids = append(t.ids, id)
			if in := interpreters(p, pathVar); len(in) > 0 {
				t.interp[id] = in
			}
		}
		out = append(out, t)
	}
	return out
}

// interpreters are the files the #! line of the script at p runs, links
// resolved, by device and inode: the program it names by absolute path,
// or for "/usr/bin/env NAME" every executable NAME on pathVar (the
// build's PATH, which env searches). A file that is not a script, or
// whose interpreter is not found, has none.
func interpreters(p, pathVar string) []fileID {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return nil
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return nil
	}
	prog := fields[0]
	if filepath.Base(prog) == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				prog = f
				break
			}
		}
		if prog == "" {
			return nil
		}
		if !strings.Contains(prog, "/") {
			var ids []fileID
			for _, d := range filepath.SplitList(pathVar) {
				if d == "" || !filepath.IsAbs(d) {
					continue
				}
				if id, ok := executableID(filepath.Join(d, prog)); ok && !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			return ids
		}
	}
	if id, ok := executableID(prog); ok {
		return []fileID{id}
	}
	return nil
}

// executableID is the identity of p (links resolved) when it is an
// executable regular file.
func executableID(p string) (fileID, bool) {
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return fileID{}, false
	}
	return statID(p)
}

// match returns the watched tools an exec ran. It is a tool when the
// executed file is one of the tool's files or bears the tool's name, or
// when the executed file is the interpreter of a tool that is a script
// (the very file its #! line runs, whatever either is called) and the
// first argument file is that script. When one file is
// several watched tools (cc and gcc), the name the process was called by
// picks among them, else it counts as each.
func (l *toolLog) match(x proc.Exec) []string {
	exe := fileID{x.Dev, x.Ino}
	var names []string
	for _, t := range l.tools {
		hit := slices.Contains(t.ids, exe) || filepath.Base(x.Exe) == t.name
		if !hit && len(t.interp) > 0 && len(x.Files) > 0 {
			if id, ok := statID(x.Files[0]); ok && slices.Contains(t.interp[id], exe) {
				hit = true
			}
		}
		if hit {
			names = append(names, t.name)
		}
	}
	if len(names) > 1 && len(x.Argv) > 0 && slices.Contains(names, filepath.Base(x.Argv[0])) {
		return []string{filepath.Base(x.Argv[0])}
	}
	return names
}

// add turns the execs of one command into invocations of watched tools.
func (l *toolLog) add(execs []proc.Exec) {
	for _, x := range execs {
		for _, name := range l.match(x) {
			inv := Invocation{Tool: name, Argv: []string{}, Dir: relTo(l.root, x.Dir), Inputs: []string{}}
			if len(x.Argv) > 1 {
				inv.Argv = x.Argv[1:]
			}
			for _, f := range x.Files {
				inv.Inputs = append(inv.Inputs, relTo(l.root, f))
			}
			l.invs = append(l.invs, inv)
		}
	}
}

// write writes the log to p (as root, in the ledger), one [Invocation] a
// line, as [ReadInvocations] reads it.
func (l *toolLog) write(p string) error {
	// Whatever is at p (without a sandbox the build could reach it) is
	// replaced, never written through.
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, inv := range l.invs {
		if err := enc.Encode(inv); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
