package kinds

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// errBuildFailed is wrapped when a configuration's build failed.
var errBuildFailed = errors.New("did not build")

// restore copies configuration name from the ledger into the module's
// scratch folder build/ (fresh; in the sandbox and the submission's with a
// jail) and returns that folder: every module gets its own copy, so no
// module can change what the next one sees.
func (m *module) restore(name string) (string, behavioural.LedgerEntry, error) {
	if name == "" {
		name = "default"
	}
	l := behavioural.Ledger{Dir: filepath.Join(m.suiteWork, behavioural.LedgerDir)}
	e, err := l.Get(name)
	if err != nil {
		return "", e, err
	}
	if !e.OK {
		return "", e, fmt.Errorf("configuration %q %w (see the build module): %s", name, errBuildFailed, e.Summary)
	}
	dst, err := m.scratch("build")
	if err != nil {
		return "", e, err
	}
	if err := os.Remove(dst); err != nil {
		return "", e, err
	}
	if len(e.Outputs) == 0 {
		if err := copyTree(e.Tree, dst, nil); err != nil {
			return "", e, err
		}
		return dst, e, m.own(dst)
	}
	for _, o := range e.Outputs {
		if err := copyTree(filepath.Join(e.Tree, o), filepath.Join(dst, o), nil); err != nil {
			return "", e, fmt.Errorf("restore %s: %w", name, err)
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", e, err
	}
	return dst, e, m.own(dst)
}

// restoreOrFail restores a configuration; on failure it records why every
// truth check goes unobserved and returns "" (a configuration the ledger
// lacks is also returned as the error, which makes the module an error).
func (m *module) restoreOrFail(name string) (string, error) {
	dir, _, err := m.restore(name)
	if err == nil {
		return dir, nil
	}
	m.notObserved(err.Error())
	if errors.Is(err, behavioural.ErrNotInLedger) || m.plan.Mode == behavioural.ModeRecord {
		return "", err
	}
	return "", nil
}

// copyTree copies src (a folder, a file or a link) to dst with copytree:
// modes kept (folders open to their owner), modification times kept (a
// restored build's outputs stay newer than its sources), links as links,
// special files left out, what dst already holds replaced; a top-level
// entry whose name skip holds is left out. It is bounded as every copy of
// a built tree is ([buildTreeCopy]): without a sandbox the ledger holds
// the build's tree as the build left it.
func copyTree(src, dst string, skip map[string]bool) error {
	o := buildTreeCopy
	o.Exclude = func(rel string, _ fs.DirEntry) bool { return skip[strings.SplitN(rel, "/", 2)[0]] }
	_, err := copytree.Copy(src, dst, o)
	return err
}

// vars expands ${NAME} in s from vals; unknown names stay as written.
func expand(s string, vals map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	for k, v := range vals {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	return s
}

func expandAll(xs []string, vals map[string]string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = expand(x, vals)
	}
	return out
}

// procResult is one finished process.
type procResult struct {
	Stdout, Stderr []byte
	// StdoutOver and StderrOver are set when the stream passed
	// [ObservedBytesLimit]: Stdout or Stderr then holds only its first
	// bytes, and this is the stream's observation ([cappedBuffer.overText]).
	StdoutOver, StderrOver string
	// Exit is the exit status, or -N for signal N; TimedOut says the
	// process was killed at its timeout.
	Exit     int
	Signal   string
	TimedOut bool
	Err      error // could not start
	// Execs are the programs the process and its descendants executed,
	// with a trace ([module.runProcTraced]); ExecsDropped counts those
	// past the record's bound.
	Execs        []proc.Exec
	ExecsDropped int
}

// runProc runs argv for the tree under test ([module.command]: in its
// sandbox when the plan has a jail) in dir with env and stdin in its own
// process group, kills the group at timeout, and always reaps what the
// process left running (the pipes are read only after the group is
// gone). A sandbox that could not be entered is the grader's fault: the
// module then ends in error ([module.harnessFault]).
func (m *module) runProc(argv []string, dir string, env []string, stdin io.Reader, timeout time.Duration) procResult {
	return m.runProcTraced(argv, dir, env, stdin, timeout, false)
}

// runProcTraced is [module.runProc]; with trace, every program the
// process and its descendants execute is recorded by the containment's
// init ([proc.Spec.TraceExecs]) into the result's Execs. A tracer fault
// is the grader's ([module.harnessFault]), as an init's is.
func (m *module) runProcTraced(argv []string, dir string, env []string, stdin io.Reader, timeout time.Duration, trace bool) procResult {
	if !trace {
		if r, ok := m.runProcVia(argv, dir, env, stdin, timeout, false, m.commandDirect); ok {
			return r
		}
		// Started as the submission's user by its init, the process was
		// refused (EPERM, EINVAL) before it ran: becoming that user, or
		// executing the program? The jail command tells the two apart
		// (the grader's fault, the submission's): it runs it again.
		if s, ok := stdin.(io.Seeker); ok {
			_, _ = s.Seek(0, io.SeekStart)
		}
	}
	r, _ := m.runProcVia(argv, dir, env, stdin, timeout, trace, m.command)
	return r
}

// runProcVia is [module.runProcTraced] with the command made by start;
// ok is false when a command of [module.commandDirect] was refused with
// EPERM or EINVAL before it ran (nothing is recorded then).
func (m *module) runProcVia(argv []string, dir string, env []string, stdin io.Reader, timeout time.Duration, trace bool,
	start func(argv []string, dir string, env []string) (*exec.Cmd, jailStatus)) (procResult, bool) {
	// What is kept of each stream is capped; the rest is read and
	// discarded to EOF, so a case writing without end is not blocked on
	// its pipe (its timeout still ends it) and cannot grow the grader.
	out, errb := newCappedBuffer(), newCappedBuffer()
	cmd, status := start(argv, dir, env)
	if err := status.unprepared(); err != nil {
		m.harnessFault(err)
		return procResult{Err: err, Exit: -1}, true
	}
	cmd.Stdin = stdin
	if stdin == nil {
		// exec would open (and close) /dev/null for every process; one
		// handle, opened once, serves them all.
		if f, err := devNull(); err == nil {
			cmd.Stdin = f
		}
	}
	cmd.Stdout = out
	cmd.Stderr = errb
	cmd.WaitDelay = 2 * time.Second
	spec, err := proc.CmdSpec(cmd)
	if err != nil {
		return procResult{Err: err, Exit: -1}, true
	}
	spec.TraceExecs = trace
	cg := m.cgroup()
	spec.Cgroups = cg.Procs()
	spec.CgroupNS = m.cgroupNS()
	before := cg.Counts()
	p, sv, err := m.procs.start(spec)
	if err != nil {
		if status.refused(err) {
			return procResult{}, false
		}
		err = status.startError(err)
		if errors.Is(err, proc.ErrTracer) {
			// The tracer could not be set up (its seccomp filter): the
			// command never ran, by the grader's fault.
			m.harnessFault(err)
		}
		return procResult{Err: err, Exit: -1}, true
	}
	// Every process of the command is killed at the timeout; Wait returns
	// once all of them (setsid and double-forked ones too) are gone and
	// the pipes are drained (or WaitDelay passed).
	timer := time.NewTimer(timeout)
	timedOut := false
	select {
	case <-p.Done():
	case <-timer.C:
		timedOut = true
		p.Kill()
	}
	timer.Stop()
	e := p.Wait()
	m.procs.put(sv)
	// The stage's memory limit (--host as root, the jail's cgroup): the
	// OOM killer may choose the init of a process (it cannot always be
	// exempted), which ends every process of it, or the jail before it
	// reported. What the submission's processes held did it, as in a
	// stage container: the process was killed by SIGKILL (its checks
	// fail), not a fault of the grader. (The machine out of memory kills
	// too, but leaves the cgroup under its limit: that stays the
	// grader's fault.)
	oom := cg != nil && cg.Counts().OOMAtLimit(before, cg.MemoryLimit)
	if oom && e.Err != nil && errors.Is(e.Err, proc.ErrInitKilled) && e.Signal == syscall.SIGKILL {
		e.Err, e.Code = nil, -1
	}
	r := procResult{TimedOut: timedOut, Execs: e.Execs, ExecsDropped: e.ExecsDropped}
	r.Stdout, r.Stderr = out.buf.Bytes(), errb.buf.Bytes()
	if out.over() {
		r.StdoutOver = out.overText()
	}
	if errb.over() {
		r.StderrOver = errb.overText()
	}
	if e.Signal != 0 {
		r.Exit = -int(e.Signal)
		r.Signal = e.Signal.String()
	} else {
		r.Exit = e.Code
	}
	if e.Err != nil && !timedOut {
		// The init gave no honest report (a write on its channel, or it
		// was killed): the process's end is unknown. The submission runs
		// as another user than the init and cannot reach it, so this is
		// the grader's fault, never a check charged either way.
		r.Err = fmt.Errorf("the process's end could not be observed: %w", e.Err)
		m.harnessFault(r.Err)
		return r, true
	}
	if jerr := status.read(timedOut || e.Stopped || oom); jerr != nil {
		r.Err = jerr
		if errors.Is(jerr, errJail) {
			m.harnessFault(jerr)
		}
	}
	return r, true
}

// devNull is /dev/null opened once for reading, the standard input of
// every process given none; it is never closed.
var devNull = sync.OnceValues(func() (*os.File, error) { return os.Open(os.DevNull) })

// text renders bytes for an observation: the string when it is UTF-8,
// else "base64:" and its base64.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}

// submissionEnv is the environment of a process the tree under test
// controls: [module.baseEnv], then extra (values ${NAME}-expanded from
// vals).
func (m *module) submissionEnv(extra map[string]string, vals map[string]string) []string {
	return caseEnv(m.baseEnv(), extra, vals)
}

// statusText renders an exit for observations: the number, or
// "signal SIGSEGV", or "timeout".
func statusText(r procResult) any {
	switch {
	case r.Err != nil:
		return "could not start: " + r.Err.Error()
	case r.TimedOut:
		return "timeout"
	case r.Signal != "":
		return "signal " + r.Signal
	}
	return r.Exit
}

// lookPathIn resolves a program name through the PATH of env (the
// process's own PATH is not the one the tree under test is given: the
// provenance wrappers come first there). A name with a slash, or one not
// found, is returned as is.
func lookPathIn(name string, env []string) string {
	if strings.Contains(name, "/") {
		return name
	}
	pathVar := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return name
}
