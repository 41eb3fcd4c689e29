package kinds

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// buildKind builds each configuration once into the ledger.
type buildKind struct{ BuildParams }

// BuildTimeout bounds one build command (the module's deadline bounds
// them all).
const BuildTimeout = 3600 * time.Second

func (k *buildKind) observe(m *module) error {
	names := k.Configurations
	if len(names) == 0 {
		names = sortedKeys(m.plan.Configurations)
	}
	l := behavioural.Ledger{Dir: filepath.Join(m.suiteWork, behavioural.LedgerDir)}
	repo := os.Getenv(behavioural.EnvRepo)
	for _, name := range names {
		cfg, ok := m.plan.Configurations[name]
		if !ok {
			return fmt.Errorf("the build module names configuration %q, which the task does not declare", name)
		}
		if e, err := l.Get(name); err == nil {
			if !e.Imported {
				return fmt.Errorf("configuration %q is already in the build ledger: each configuration is built once", name)
			}
			k.report(m, name, cfg, e)
			continue
		}
		entry := behavioural.LedgerEntry{Configuration: name, Tree: filepath.Join(l.Entry(name), "tree"), Outputs: cfg.Outputs}
		if err := os.MkdirAll(l.Entry(name), 0o755); err != nil {
			return err
		}
		logPath := filepath.Join(l.Entry(name), "build.log")
		ok, summary, why := k.build(m, name, cfg, repo, &entry, logPath)
		entry.OK, entry.Summary = ok, summary
		if err := l.Put(entry); err != nil {
			return err
		}
		detail := ""
		if !ok {
			b, _ := os.ReadFile(logPath)
			detail = tail(string(b), DetailLimit)
		}
		m.emitWithDetail(name+"/builds", ok, detail)
		m.built(name, entry.Built, why)
		var present []string
		for _, o := range cfg.Outputs {
			if _, err := os.Lstat(filepath.Join(entry.Tree, o)); err == nil {
				present = append(present, o)
			}
		}
		sort.Strings(present)
		if present == nil {
			present = []string{}
		}
		m.emit(name+"/outputs", present, nil)
		if m.plan.Mode == behavioural.ModeRecord && entry.Tools != "" {
			m.toolchains(entry.Tools)
		}
	}
	return nil
}

// report emits the checks of an imported ledger entry: whether it built,
// and which declared outputs it has.
func (k *buildKind) report(m *module, name string, cfg behavioural.Build, e behavioural.LedgerEntry) {
	detail := ""
	if !e.OK {
		detail = e.Summary
	}
	m.emitWithDetail(name+"/builds", e.OK, detail)
	var present []string
	for _, o := range cfg.Outputs {
		if _, err := os.Lstat(filepath.Join(e.Tree, o)); err == nil {
			present = append(present, o)
		}
	}
	sort.Strings(present)
	if present == nil {
		present = []string{}
	}
	m.emit(name+"/outputs", present, nil)
	m.built(name, e.Built, "imported: built before this suite ("+e.Built+" commands)")
}

// build copies the tree under test and runs the configuration's commands
// in it — state_b.build or the original commands, as cfg.Select picks by
// the copy (e.Built says which; why says so in a sentence when
// state_b.detect decided) — with recording wrappers for the watched tools
// first on PATH.
//
// With a jail the build runs as the submission's user in the sandbox
// (<Root>/ledger/<name>/), and what it left is then copied, as root, into
// the ledger, which the submission's processes can neither read nor
// change; the sandbox copy is removed.
func (k *buildKind) build(m *module, name string, cfg behavioural.Build, repo string, e *behavioural.LedgerEntry, logPath string) (ok bool, summary, why string) {
	logf, err := os.Create(logPath)
	if err != nil {
		return false, err.Error(), ""
	}
	defer logf.Close()
	ledgerTree := e.Tree
	if len(cfg.Watch) > 0 {
		e.Tools = filepath.Join(filepath.Dir(ledgerTree), "tools.jsonl")
	}
	var sandbox string
	if j := m.jail(); j != nil {
		if sandbox, err = j.Scratch("ledger", name); err != nil {
			m.harnessFault(err)
			return false, err.Error(), ""
		}
		e.Tree = filepath.Join(sandbox, "tree")
	}
	in := buildTreeCopy
	in.Exclude = func(rel string, _ fs.DirEntry) bool { return rel == ".git" }
	if _, err := copytree.Copy(repo, e.Tree, in); err != nil {
		return false, "the tree could not be copied: " + err.Error(), ""
	}
	if err := m.own(e.Tree); err != nil {
		m.harnessFault(err)
		return false, err.Error(), ""
	}
	commands, source, why := cfg.Select(e.Tree)
	e.Built = source
	if why != "" {
		fmt.Fprintf(logf, "# %s\n", why)
	}
	ok, summary = k.run(m, cfg, commands, e, logf)
	if sandbox == "" {
		return ok, summary, why
	}
	// Into the ledger: the built tree and the tool log, as root.
	if err := behavioural.Disown(sandbox); err != nil {
		m.harnessFault(err)
		return false, err.Error(), why
	}
	// What the build left is the submission's: a tree past the bounds, a
	// file that changes while it is copied, or anything else that stops
	// the copy is the build's failure (counted), never the grader's.
	if _, err := copytree.Copy(e.Tree, ledgerTree, buildTreeCopy); err != nil {
		_ = m.discard(sandbox)
		e.Tree, e.Tools = ledgerTree, ""
		return false, "the build left a tree that could not be kept: " + err.Error(), why
	}
	e.Tree = ledgerTree
	_ = m.discard(sandbox)
	return ok, summary, why
}

// BuildTreeBytesLimit and BuildTreeEntriesLimit bound the copy of a tree
// a build left (8 GiB of regular files, every hard link counted in full;
// a million entries): a sparse file of a terabyte or a million empty
// files is refused at once, the build's failure.
const (
	BuildTreeBytesLimit   = 8 << 30
	BuildTreeEntriesLimit = 1 << 20
)

// buildTreeCopy are the rules of every copy of a tree the submission
// controls (the tree under test into the build's folder, the built tree
// into the ledger): copyTree's, bounded.
var buildTreeCopy = copytree.Options{DirBits: 0o700, Times: true, Replace: true,
	MaxBytes: BuildTreeBytesLimit, MaxEntries: BuildTreeEntriesLimit}

// run runs commands in e.Tree and checks the declared outputs.
func (k *buildKind) run(m *module, cfg behavioural.Build, commands [][]string, e *behavioural.LedgerEntry, logf *os.File) (bool, string) {
	extra := map[string]string{}
	for k, v := range cfg.Env {
		extra[k] = v
	}
	// The tool log is made by the grader, never by the build: each
	// command runs traced (ladder/proc's init, root, follows every
	// process the build starts and records what the kernel executed), and
	// the record becomes the tool log in the ledger, written as root
	// beside the kept tree, where the submission's processes cannot reach.
	var log *toolLog
	if e.Tools != "" {
		log = &toolLog{root: e.Tree}
	}
	work := m.work
	if m.jail() != nil {
		work = filepath.Dir(e.Tree)
	}
	vals := map[string]string{"WORK": work, "DATA": m.data(), "BUILD": e.Tree}
	env := m.submissionEnv(extra, vals)
	if log != nil {
		log.tools = resolveTools(cfg.Watch, env)
	}
	fail := func(why string) (bool, string) {
		if log != nil {
			if err := log.write(e.Tools); err != nil {
				m.harnessFault(err)
			}
		}
		return false, why
	}
	for i, argv := range commands {
		if !m.timeLeft() {
			return fail("the module's deadline came before the build finished")
		}
		argv = expandAll(argv, vals)
		fmt.Fprintf(logf, "$ %s\n", strings.Join(argv, " "))
		timeout, atDeadline := BuildTimeout, false
		if !m.deadline.IsZero() {
			if left := time.Until(m.deadline) - 500*time.Millisecond; left < timeout {
				timeout, atDeadline = left, true
			}
		}
		r := m.runProcTraced(argv, e.Tree, env, nil, timeout, log != nil)
		if log != nil {
			log.add(r.Execs)
			if r.ExecsDropped > 0 {
				return fail(fmt.Sprintf("build command %d (%s) ran more programs than the grader records (%d past %d bytes of record): its tool use cannot be judged", i+1, argv[0], r.ExecsDropped, proc.ExecRecordLimit))
			}
		}
		logf.Write(r.Stdout)
		logf.Write(r.Stderr)
		if r.TimedOut && atDeadline {
			// Cut at the module's deadline, not by a build's own bound:
			// the module ran out of time (the runner decides whose).
			m.stoppedAtDeadline()
		}
		if r.Err != nil || r.TimedOut || r.Exit != 0 {
			return fail(fmt.Sprintf("build command %d (%s) ended with %v", i+1, argv[0], statusText(r)))
		}
	}
	for _, o := range cfg.Outputs {
		if _, err := os.Lstat(filepath.Join(e.Tree, o)); err != nil {
			return fail(fmt.Sprintf("the build did not produce %s", o))
		}
	}
	if log != nil {
		if err := log.write(e.Tools); err != nil {
			m.harnessFault(err)
			return false, "the tool log could not be kept: " + err.Error()
		}
	}
	return true, ""
}

// toolchains records the first line of the version of each watched tool
// that ran during the build (the tool log).
func (m *module) toolchains(log string) {
	invs, _ := ReadInvocations(log)
	ran := map[string]bool{}
	for _, inv := range invs {
		ran[inv.Tool] = true
	}
	for _, t := range sortedKeys(ran) {
		args := []string{"--version"}
		if t == "go" {
			args = []string{"version"}
		}
		p, err := exec.LookPath(t)
		if err != nil {
			continue
		}
		out, err := exec.Command(p, args...).CombinedOutput()
		if err != nil {
			continue
		}
		line, _, _ := strings.Cut(string(bytes.TrimSpace(out)), "\n")
		m.mu.Lock()
		if m.obs.Toolchains == nil {
			m.obs.Toolchains = map[string]string{}
		}
		m.obs.Toolchains[t] = line
		m.mu.Unlock()
	}
}

// built notes which commands built configuration name: in the module's
// metadata ("built": {name: source}) and, when state_b.detect decided, in
// the summary of its builds check.
func (m *module) built(name, source, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.meta == nil {
		m.meta = map[string]any{}
	}
	b, _ := m.meta["built"].(map[string]any)
	if b == nil {
		b = map[string]any{}
		m.meta["built"] = b
	}
	b[name] = source
	if why == "" {
		return
	}
	for i := range m.checks {
		if m.checks[i].ID == name+"/builds" {
			m.checks[i].Summary += " (" + why + ")"
		}
	}
}

func (m *module) emitWithDetail(id string, got any, detail string) {
	m.emit(id, got, nil)
	if detail == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.checks); n > 0 && m.checks[n-1].ID == id && m.checks[n-1].Verdict != "pass" {
		m.checks[n-1].Detail = detail
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
