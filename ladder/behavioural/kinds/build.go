package kinds

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
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
func (k *buildKind) build(m *module, name string, cfg behavioural.Build, repo string, e *behavioural.LedgerEntry, logPath string) (ok bool, summary, why string) {
	logf, err := os.Create(logPath)
	if err != nil {
		return false, err.Error(), ""
	}
	defer logf.Close()
	if err := copyTree(repo, e.Tree, map[string]bool{".git": true}); err != nil {
		return false, "the tree could not be copied: " + err.Error(), ""
	}
	commands, source, why := cfg.Select(e.Tree)
	e.Built = source
	if why != "" {
		fmt.Fprintf(logf, "# %s\n", why)
	}
	ok, summary = k.run(m, cfg, commands, e, logf)
	return ok, summary, why
}

// run runs commands in e.Tree and checks the declared outputs.
func (k *buildKind) run(m *module, cfg behavioural.Build, commands [][]string, e *behavioural.LedgerEntry, logf *os.File) (bool, string) {
	extra := map[string]string{}
	for k, v := range cfg.Env {
		extra[k] = v
	}
	if len(cfg.Watch) > 0 {
		wrapDir := filepath.Join(filepath.Dir(e.Tree), "wrap")
		e.Tools = filepath.Join(filepath.Dir(e.Tree), "tools.jsonl")
		if err := writeWrappers(wrapDir, e.Tools, e.Tree, m.plan.Helper, cfg.Watch); err != nil {
			return false, "the provenance wrappers could not be written: " + err.Error()
		}
		extra["PATH"] = wrapDir + string(os.PathListSeparator) + os.Getenv("PATH")
		if p, ok := cfg.Env["PATH"]; ok {
			extra["PATH"] = wrapDir + string(os.PathListSeparator) + p
		}
		if err := os.WriteFile(e.Tools, nil, 0o644); err != nil {
			return false, err.Error()
		}
	}
	vals := map[string]string{"WORK": m.work, "DATA": m.plan.TaskDir, "BUILD": e.Tree}
	env := submissionEnv(extra, vals)
	for i, argv := range commands {
		if !m.timeLeft() {
			return false, "the module's deadline came before the build finished"
		}
		argv = expandAll(argv, vals)
		fmt.Fprintf(logf, "$ %s\n", strings.Join(argv, " "))
		timeout := BuildTimeout
		if !m.deadline.IsZero() {
			timeout = time.Until(m.deadline) - 500*time.Millisecond
		}
		r := runProc(argv, e.Tree, env, nil, timeout)
		logf.Write(r.Stdout)
		logf.Write(r.Stderr)
		if r.Err != nil || r.TimedOut || r.Exit != 0 {
			return false, fmt.Sprintf("build command %d (%s) ended with %v", i+1, argv[0], statusText(r))
		}
	}
	for _, o := range cfg.Outputs {
		if _, err := os.Lstat(filepath.Join(e.Tree, o)); err != nil {
			return false, fmt.Sprintf("the build did not produce %s", o)
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
