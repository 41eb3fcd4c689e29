package kinds

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// errBuildFailed is wrapped when a configuration's build failed.
var errBuildFailed = errors.New("did not build")

// restore copies configuration name from the ledger into <work>/build
// (fresh) and returns that folder: every module gets its own copy, so no
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
	dst := filepath.Join(m.work, "build")
	if err := os.RemoveAll(dst); err != nil {
		return "", e, err
	}
	if len(e.Outputs) == 0 {
		return dst, e, copyTree(e.Tree, dst, nil)
	}
	for _, o := range e.Outputs {
		if err := copyTree(filepath.Join(e.Tree, o), filepath.Join(dst, o), nil); err != nil {
			return "", e, fmt.Errorf("restore %s: %w", name, err)
		}
	}
	return dst, e, nil
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

// copyTree copies src (a file, link or folder) to dst, keeping modes and
// symlinks; skip names top-level entries to leave out.
func copyTree(src, dst string, skip map[string]bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] && rel != "." {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil // sockets, devices: not build outputs
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
	// Exit is the exit status, or -N for signal N; TimedOut says the
	// process was killed at its timeout.
	Exit     int
	Signal   string
	TimedOut bool
	Err      error // could not start
}

// runProc runs argv in dir with env and stdin in its own process group,
// kills the group at timeout, and always reaps what the process left
// running (the pipes are read only after the group is gone).
func runProc(argv []string, dir string, env []string, stdin io.Reader, timeout time.Duration) procResult {
	var out, errb bytes.Buffer
	cmd := exec.Command(lookPathIn(argv[0], env), argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	if stdin == nil {
		// exec would open (and close) /dev/null for every process; one
		// handle, opened once, serves them all.
		if f, err := devNull(); err == nil {
			cmd.Stdin = f
		}
	}
	cmd.Stdout = &out
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return procResult{Err: err, Exit: -1}
	}
	pgid := cmd.Process.Pid
	// The timer kills the group at the timeout; Wait returns once the
	// process is gone and its pipes are drained (or WaitDelay passed).
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() {
		timedOut.Store(true)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})
	_ = cmd.Wait()
	timer.Stop()
	r := procResult{TimedOut: timedOut.Load()}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // leftovers of the group
	r.Stdout, r.Stderr = out.Bytes(), errb.Bytes()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Exit = -int(ws.Signal())
		r.Signal = ws.Signal().String()
	} else {
		r.Exit = cmd.ProcessState.ExitCode()
	}
	return r
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

// fileDigest returns "sha256:<hex>" of the file at p, or "missing".
func fileDigest(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "missing"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// submissionEnv is the environment of a process the tree under test
// controls: the contract names removed, then extra (KEY=VALUE).
func submissionEnv(extra map[string]string, vals map[string]string) []string {
	return caseEnv(os.Environ(), extra, vals)
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
