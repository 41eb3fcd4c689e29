package kinds

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Invocation is one line of a tool-provenance log: a watched tool ran
// with Argv in Dir (relative to the built tree), and Inputs are its
// arguments that named existing files, relative to the tree when inside it.
type Invocation struct {
	Tool   string   `json:"tool"`
	Argv   []string `json:"argv"`
	Dir    string   `json:"dir"`
	Inputs []string `json:"inputs"`
}

// writeWrappers writes one recording wrapper per tool into dir: a shell
// script that runs the helper's wrap command, which logs the invocation
// and then executes the real tool.
func writeWrappers(dir, logPath, root string, helper, tools []string) error {
	if len(helper) == 0 {
		return fmt.Errorf("the plan names no helper to record tool invocations with")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, t := range tools {
		if err := os.WriteFile(filepath.Join(dir, t), []byte(WrapperScript(helper, logPath, root, dir, t)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// WrapperScript is the recording wrapper for tool, placed in dir (which
// comes first on PATH): a shell script that runs helper's wrap command,
// which appends one [Invocation] line to logPath (paths relative to root)
// and then executes the real tool, the first one on PATH outside dir.
// It is the one recording wrapper srb has: the provenance module writes it
// for a run, and srb build writes it into a stage image for each command
// in images.<stage>.observe (internal/image), so a provenance module reads
// either log with [ReadInvocations].
func WrapperScript(helper []string, logPath, root, dir, tool string) string {
	var sb strings.Builder
	sb.WriteString("#!/bin/sh\n" + wrapperMark + ": logs this invocation, then runs the real " + tool + ".\nexec")
	for _, a := range helper {
		sb.WriteString(" " + shQuote(a))
	}
	for _, a := range []string{"wrap", "--log", logPath, "--tool", tool, "--root", root, "--dir", dir, "--"} {
		sb.WriteString(" " + shQuote(a))
	}
	sb.WriteString(" \"$@\"\n")
	return sb.String()
}

// EnvWrapCrossed lists the wrapper folders a chain of recording wrappers
// has already crossed for the current call (PATH syntax); the wrapper that
// finds the real tool removes it, so the tool's own children start afresh.
const EnvWrapCrossed = "SRB_WRAP_CROSSED"

// wrapperMark is the line every recording wrapper script starts with after
// its #! line; isWrapper looks for it.
const wrapperMark = "# srb tool-provenance wrapper"

// isWrapper reports whether the program at p is one of srb's recording
// wrappers (a script WrapperScript wrote).
func isWrapper(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 128)
	n, _ := io.ReadFull(f, head)
	return strings.Contains(string(head[:n]), "\n"+wrapperMark)
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// wrap logs one invocation and executes the real tool: the first one on
// PATH outside the wrapper folder.
func wrap(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("wrap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", "", "")
	tool := fs.String("tool", "", "")
	root := fs.String("root", "", "")
	dir := fs.String("dir", "", "")
	if err := fs.Parse(args); err != nil || *tool == "" {
		return 64
	}
	argv := fs.Args()
	cwd, _ := os.Getwd()
	inv := Invocation{Tool: *tool, Argv: argv, Dir: relTo(*root, cwd), Inputs: []string{}}
	for _, a := range argv {
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			inv.Inputs = append(inv.Inputs, relTo(*root, p))
		}
	}
	if b, err := json.Marshal(inv); err == nil && *logPath != "" {
		if f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			f.Write(append(b, '\n')) // one write: lines from parallel tools do not interleave
			f.Close()
		}
	}
	// Wrapper folders can stack (a build's recording wrappers in front of
	// the image's observation wrappers): each passes the next the folders
	// already crossed, so the chain ends at the real tool instead of
	// bouncing between two wrappers for ever, and every log on the way
	// records the call.
	skip := map[string]bool{filepath.Clean(*dir): true}
	crossed := filepath.SplitList(os.Getenv(EnvWrapCrossed))
	for _, d := range crossed {
		skip[filepath.Clean(d)] = true
	}
	real := ""
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" || skip[filepath.Clean(d)] {
			continue
		}
		p := filepath.Join(d, *tool)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			real = p
			break
		}
	}
	if real == "" {
		fmt.Fprintf(stderr, "srb-helper: %s: not found on PATH\n", *tool)
		return 127
	}
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvWrapCrossed+"=") {
			env = append(env, kv)
		}
	}
	if isWrapper(real) {
		env = append(env, EnvWrapCrossed+"="+strings.Join(append(crossed, *dir), string(filepath.ListSeparator)))
	}
	// argv[0] is the real path: gcc finds its own programs relative to
	// argv[0] through PATH, where the wrapper comes first. The real tool
	// gets no crossed folders, so the tools it runs are recorded again.
	err := syscall.Exec(real, append([]string{real}, argv...), env)
	fmt.Fprintf(stderr, "srb-helper: exec %s: %v\n", real, err)
	return 126
}

func relTo(root, p string) string {
	if root == "" {
		return p
	}
	r, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(r, "..") {
		return p
	}
	return filepath.ToSlash(r)
}

// ToolLogLimit bounds the bytes of a tool-provenance log the grader reads
// (64 MiB, some hundred thousand invocations): the log is in a folder the
// submission's build could write.
const ToolLogLimit = 4 * ObservedBytesLimit

// ReadInvocations reads a tool-provenance log: a regular file (never a
// link, a FIFO or a device: see openObserved) of at most [ToolLogLimit]
// bytes, one [Invocation] a line (lines that are not one are skipped).
// Errors: the file's, or its being something else or larger.
func ReadInvocations(p string) ([]Invocation, error) {
	f, err := openObserved(p, ToolLogLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer f.Close()
	var out []Invocation
	sc := bufio.NewScanner(io.LimitReader(f, ToolLogLimit))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var inv Invocation
		if json.Unmarshal(sc.Bytes(), &inv) == nil {
			out = append(out, inv)
		}
	}
	return out, sc.Err()
}

// provenanceKind judges the tool log of a configuration's build.
type provenanceKind struct {
	ProvenanceParams
	matches map[string][]string
}

func (k *provenanceKind) observe(m *module) error {
	name := k.Configuration
	if name == "" {
		name = "default"
	}
	cfg := m.plan.Configurations[name]
	for _, r := range k.Rules {
		for _, t := range r.Tools {
			if t != "*" && !slices.Contains(cfg.Watch, t) {
				return fmt.Errorf("rule %s names tool %s, which configuration %s does not watch (add it to its watch list)", r.ID, t, name)
			}
		}
	}
	_, e, err := m.restore(name)
	if err != nil {
		m.notObserved(err.Error())
		return nil
	}
	if e.Tools == "" {
		return fmt.Errorf("configuration %s watched no tools while it built", name)
	}
	invs, err := ReadInvocations(e.Tools)
	if errors.Is(err, errNotRegular) || errors.Is(err, errTooLarge) {
		// The build's own doing (the ledger keeps what it left).
		m.notObserved(fmt.Sprintf("the tool log of %s: %v", name, err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("the tool log of %s: %w", name, err)
	}
	k.matches = map[string][]string{}
	for _, r := range k.Rules {
		var seen []string
		for _, inv := range invs {
			if !slices.Contains(r.Tools, "*") && !slices.Contains(r.Tools, inv.Tool) {
				continue
			}
			if r.Inputs == "" {
				seen = append(seen, fmt.Sprintf("%s %s", inv.Tool, strings.Join(inv.Argv, " ")))
				continue
			}
			for _, in := range inv.Inputs {
				okPath, _ := path.Match(r.Inputs, in)
				okBase, _ := path.Match(r.Inputs, path.Base(in))
				if okPath || okBase {
					seen = append(seen, fmt.Sprintf("%s on %s", inv.Tool, in))
				}
			}
		}
		k.matches[r.ID] = seen
		m.emit(r.ID, len(seen) > 0, nil)
	}
	return nil
}

// judgeCheck judges a rule on the submission: "never" passes when no
// matching invocation ran, "ran" when one did.
func (k *provenanceKind) judgeCheck(id string, got any) (bool, string) {
	ran, _ := got.(bool)
	var r Rule
	for _, x := range k.Rules {
		if x.ID == id {
			r = x
		}
	}
	seen := k.matches[id]
	what := fmt.Sprintf("%s on %s", strings.Join(r.Tools, "|"), r.Inputs)
	if r.Inputs == "" {
		what = strings.Join(r.Tools, "|")
	}
	switch {
	case r.Expect == "never" && !ran:
		return true, fmt.Sprintf("no %s ran while the submission built", what)
	case r.Expect == "never":
		return false, fmt.Sprintf("%s ran while the submission built: %s", what, cut(strings.Join(seen, "; "), 300))
	case r.Expect == "ran" && ran:
		return true, fmt.Sprintf("%s ran: %s", what, cut(strings.Join(seen, "; "), 300))
	}
	return false, fmt.Sprintf("no %s ran while the submission built", what)
}
