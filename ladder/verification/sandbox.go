package verification

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// The two roles a candidate runs against (HARNESS.md §4.3). The role
// reaches the candidate command only as its last argument.
const (
	RoleOriginal   = "original"
	RoleSubmission = "submission"
)

// The candidate's environment (HARNESS.md §4.3 execute): what the
// candidate command is given, and the names removed so that nothing but
// the last argument says which tree is under test.
const (
	EnvCandidate     = "SRB_CANDIDATE"      // the candidate file
	EnvCandidateName = "SRB_CANDIDATE_NAME" // its name
	EnvTarget        = "SRB_TARGET"         // the working tree under test
	EnvTargetToken   = "SRB_TARGET_TOKEN"   // the tree's salted name
	EnvWork          = "SRB_WORK"           // scratch shared by a round's runs
	EnvNetwork       = "SRB_NETWORK"        // "denied" unless the task allows a network
)

// hiddenEnv are removed from a candidate's environment after the contract
// names ([behavioural.ContractEnv]): each would say which tree it runs on.
var hiddenEnv = []string{"SRB_TARGET_NAME", "SRB_TARGET_ROLE", "SRB_ORIGINAL"}

// MaxRunTail is how many bytes of a run's stdout and stderr are kept: the
// last ones (HARNESS.md §3.6 "Run dict").
const MaxRunTail = 2000

// Sandbox is where one round's candidates run: a working copy of each
// tree, restored from a pristine copy by Reset, and the candidate command.
// The host implementation is [Host]; a container implementation runs the
// same protocol inside the task's verification image. A Sandbox is used by
// one round, one call at a time.
type Sandbox interface {
	// Reset restores both working trees (and the toolbox's views of them)
	// from their pristine copies; an error means the round cannot be
	// given a clean tree.
	Reset(ctx context.Context) error
	// Execute runs candidate c against the tree of role (RoleOriginal or
	// RoleSubmission) and returns what happened. It never fails: a
	// candidate that could not be started is a CandidateRun with exit -1 and the
	// reason on stderr. Processes the run left behind are reaped before
	// it returns.
	Execute(ctx context.Context, c *Candidate, role string) CandidateRun
	// Roots returns the adversary toolbox's roots, "original" and
	// "workspace": copies of the trees at paths that name no token.
	Roots() []agent.RootSpec
	// RunTool returns where the toolbox's run tool (the task's
	// allowed_commands) executes, and the environment it reads PATH and
	// HOME from.
	RunTool() (agent.Runner, func(string) string)
	// Close removes everything the sandbox made.
	Close() error
}

// CandidateRun is one execution of a candidate against one tree (HARNESS.md §3.6
// "Run dict"). ExitCode is -1 when the run timed out or never started;
// Passed is exit 0; Fault says the exit code is one of the task's fault
// codes, so the tree could not be tested (never for a timeout). Stdout and
// Stderr are the last [MaxRunTail] bytes. Reaped says processes were left
// behind and were killed.
type CandidateRun struct {
	Target      string
	ExitCode    int
	Passed      bool
	TimedOut    bool
	Fault       bool
	DurationSec float64
	Reaped      bool
	Stdout      string
	Stderr      string
}

// Map returns the run as verification.json records it:
// target, exit_code, passed, timed_out, duration_sec (3 dp), reaped,
// stdout, stderr, and infrastructure_fault: true only for a fault.
func (r CandidateRun) Map() map[string]any {
	m := map[string]any{
		"target":       r.Target,
		"exit_code":    r.ExitCode,
		"passed":       r.Passed,
		"timed_out":    r.TimedOut,
		"duration_sec": round(r.DurationSec, 3),
		"reaped":       r.Reaped,
		"stdout":       r.Stdout,
		"stderr":       r.Stderr,
	}
	if r.Fault {
		m["infrastructure_fault"] = true
	}
	return m
}

// neverStarted reports whether the run looks like the candidate command
// could not be started at all (HARNESS.md §4.3 _not_attacked).
func (r CandidateRun) neverStarted() bool {
	if r.Passed || r.TimedOut || strings.TrimSpace(r.Stdout) != "" {
		return false
	}
	low := strings.ToLower(r.Stderr)
	for _, s := range []string{"no such file", "cannot open", "not found", "permission denied", "cannot run candidate command"} {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// HostConfig configures a [Host] sandbox.
//
// Original and Submission are the trees (never changed: they are copied).
// Command is the task's candidate_command; PathMap rewrites its arguments
// from the image's paths to this machine's (a key "/tests/verification"
// maps every argument under it to the same path under the value), and the
// launch check then requires every argument that looks like a file to
// exist. Timeout bounds one run (0: 300 s). FaultCodes are the exit codes
// that mean "this tree could not be tested" (nil: 64–78). Env is the
// candidate's base environment (KEY=VALUE; nil: PATH from this process,
// HOME under the sandbox, LANG); the contract names are removed from it
// ([behavioural.SubmissionEnv]); HOME is the sandbox's home/ unless Env
// sets it. Network false sets SRB_NETWORK=denied.
// Work is the folder to create the sandbox in ("" for the system's
// temporary folder); Keep leaves the sandbox's folder in place on Close.
type HostConfig struct {
	Original   string
	Submission string
	Command    []string
	PathMap    map[string]string
	Timeout    time.Duration
	FaultCodes []int
	Env        []string
	Network    bool
	Work       string
	Keep       bool
}

// Host is a [Sandbox] on this machine: salted working trees in a scratch
// folder, candidates run with os/exec in their own process group, the
// group killed at the timeout and reaped after every run (HARNESS.md §4.3
// CandidateRunner). Layout of the scratch folder:
//
//	pristine/<token>   the tree as given (.git left out), never run in
//	trees/<token>      the working tree a candidate runs in (cwd, SRB_TARGET)
//	view/original      what the toolbox reads as "original"
//	view/workspace     what the toolbox reads as "workspace"
//	candidates/<file>  candidate files (SRB_CANDIDATE)
//	run/               SRB_WORK
//	home/              HOME
//
// token is the first 16 hex digits of sha256("<salt>:<role>") with a
// fresh 16-byte salt per sandbox, so neither a path nor a variable names
// the role.
type Host struct {
	cfg     HostConfig
	work    string
	salt    string
	command []string
	env     []string
	srcs    map[string]string
}

var _ Sandbox = (*Host)(nil)

// NewHost creates the scratch folder, copies both trees and checks that
// the candidate command can launch. An error names what is missing; the
// caller decides whether that is the task's fault (a command argument
// that does not exist) or the harness's.
func NewHost(cfg HostConfig) (*Host, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("sandbox: no candidate command")
	}
	for _, p := range []string{cfg.Original, cfg.Submission} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("sandbox: no tree at %s", p)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 300 * time.Second
	}
	if cfg.FaultCodes == nil {
		for c := 64; c <= 78; c++ {
			cfg.FaultCodes = append(cfg.FaultCodes, c)
		}
	}
	work, err := os.MkdirTemp(cfg.Work, "srb-verification-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	h := &Host{cfg: cfg, work: work, srcs: map[string]string{RoleOriginal: cfg.Original, RoleSubmission: cfg.Submission}}
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		h.Close()
		return nil, fmt.Errorf("sandbox: salt: %w", err)
	}
	h.salt = hex.EncodeToString(salt[:])
	if h.command, err = CheckCommand(cfg.Command, cfg.PathMap); err != nil {
		h.Close()
		return nil, err
	}
	for _, d := range []string{"pristine", "trees", "view", "candidates", "run", "home"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			h.Close()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		if err := copyTree(h.srcs[role], h.pristine(role)); err != nil {
			h.Close()
			return nil, fmt.Errorf("sandbox: copy the %s tree: %w", role, err)
		}
	}
	env := slices.Clone(cfg.Env)
	if env == nil {
		path := os.Getenv("PATH")
		if path == "" {
			path = "/usr/local/bin:/usr/bin:/bin"
		}
		env = []string{"PATH=" + path, "LANG=C.UTF-8"}
	}
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }) {
		env = append(env, "HOME="+filepath.Join(work, "home"))
	}
	h.env = env
	if err := h.Reset(context.Background()); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Token returns the salted name of role's tree.
func (h *Host) Token(role string) string {
	sum := sha256.Sum256([]byte(h.salt + ":" + role))
	return hex.EncodeToString(sum[:])[:16]
}

// Work returns the sandbox's scratch folder.
func (h *Host) Work() string { return h.work }

func (h *Host) pristine(role string) string { return filepath.Join(h.work, "pristine", h.Token(role)) }
func (h *Host) tree(role string) string     { return filepath.Join(h.work, "trees", h.Token(role)) }
func (h *Host) view(role string) string {
	if role == RoleSubmission {
		return filepath.Join(h.work, "view", "workspace")
	}
	return filepath.Join(h.work, "view", "original")
}

// Reset implements [Sandbox].
func (h *Host) Reset(ctx context.Context) error {
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		for _, dst := range []string{h.tree(role), h.view(role)} {
			if err := forceRemove(dst); err != nil {
				return fmt.Errorf("sandbox: the %s tree could not be cleared: %w", role, err)
			}
			if err := copyTree(h.pristine(role), dst); err != nil {
				return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
			}
		}
	}
	return ctx.Err()
}

// Roots implements [Sandbox].
func (h *Host) Roots() []agent.RootSpec {
	return []agent.RootSpec{{Name: "original", Dir: h.view(RoleOriginal)}, {Name: "workspace", Dir: h.view(RoleSubmission)}}
}

// RunTool implements [Sandbox]: the run tool runs on this machine.
func (h *Host) RunTool() (agent.Runner, func(string) string) { return agent.LocalRunner{}, os.Getenv }

// Close implements [Sandbox]: it removes the scratch folder, unless
// HostConfig.Keep.
func (h *Host) Close() error {
	if h.cfg.Keep {
		return nil
	}
	return forceRemove(h.work)
}

// Execute implements [Sandbox].
func (h *Host) Execute(ctx context.Context, c *Candidate, role string) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	file := filepath.Join(h.work, "candidates", c.Filename)
	if err := os.WriteFile(file, []byte(c.Code), 0o755); err != nil {
		run.Stderr = "cannot run candidate command: cannot write the candidate: " + err.Error()
		return run
	}
	tree := h.tree(role)
	env := CandidateEnv(h.env, h.cfg.Network,
		EnvCandidate+"="+file, EnvCandidateName+"="+c.Name,
		EnvTarget+"="+tree, EnvTargetToken+"="+h.Token(role), EnvWork+"="+filepath.Join(h.work, "run"))
	argv := append(slices.Clone(h.command), role)
	stdout, err1 := os.CreateTemp(h.work, ".stdout-*")
	stderr, err2 := os.CreateTemp(h.work, ".stderr-*")
	if err := errors.Join(err1, err2); err != nil {
		run.Stderr = "cannot run candidate command: " + err.Error()
		return run
	}
	defer func() {
		stdout.Close()
		stderr.Close()
		os.Remove(stdout.Name())
		os.Remove(stderr.Name())
	}()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = tree, env, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		run.Stderr = "cannot run candidate command: " + err.Error()
		return run
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(h.cfg.Timeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		// Reap the group first, then collect (HARNESS.md §7 bug 95).
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-done
		run.TimedOut = true
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-done
		run.Stderr = "cannot run candidate command: cancelled"
	}
	run.DurationSec = time.Since(start).Seconds()
	// Anything the candidate left running is killed before the next run
	// (HARNESS.md §7 bug 94).
	run.Reaped = reap(pgid)
	var ee *exec.ExitError
	switch {
	case run.TimedOut:
		run.ExitCode = -1
	case err == nil:
		run.ExitCode = 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		run.ExitCode = ee.ExitCode()
	}
	run.Passed = run.ExitCode == 0
	run.Fault = !run.TimedOut && run.ExitCode > 1 && slices.Contains(h.cfg.FaultCodes, run.ExitCode)
	run.Stdout = tail(stdout)
	if e := tail(stderr); e != "" || run.Stderr == "" {
		run.Stderr = e + run.Stderr
	}
	return run
}

// CandidateEnv returns a candidate's environment (HARNESS.md §4.3
// execute): base without the contract names ([behavioural.SubmissionEnv]),
// then extra, TZ=UTC and LC_ALL=C.UTF-8, then without SRB_TARGET_NAME,
// SRB_TARGET_ROLE and SRB_ORIGINAL, and with SRB_NETWORK=denied unless
// network is allowed. Nothing in it names the role.
func CandidateEnv(base []string, network bool, extra ...string) []string {
	extra = append(slices.Clone(extra), "TZ=UTC", "LC_ALL=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0")
	if !network {
		extra = append(extra, EnvNetwork+"=denied")
	}
	env := behavioural.SubmissionEnv(base, extra...)
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(hiddenEnv, name) {
			out = append(out, kv)
		}
	}
	return out
}

// reap kills whatever is left of process group pgid and reports whether
// anything was (a zombie awaiting its parent is not).
func reap(pgid int) bool {
	if !groupAlive(pgid) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// groupAlive reports whether a live (not zombie) process is in group pgid.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// tail returns the last MaxRunTail bytes of f, as valid UTF-8.
func tail(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(0, st.Size()-MaxRunTail)
	b := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(b, off)
	return strings.ToValidUTF8(string(b[:n]), "\uFFFD")
}

// rewriteCommand maps each argument under a PathMap key to the same path
// under its value.
func rewriteCommand(cmd []string, m map[string]string) []string {
	out := slices.Clone(cmd)
	for i, a := range out {
		for from, to := range m {
			from = strings.TrimRight(from, "/")
			if a == from || strings.HasPrefix(a, from+"/") {
				out[i] = filepath.Join(to, filepath.FromSlash(strings.TrimPrefix(a, from)))
			}
		}
	}
	return out
}

// CheckCommand rewrites the candidate command's arguments with pathMap
// (see [HostConfig]) and runs the launch check on the result (HARNESS.md
// §4.3): the program must be found, and every later argument that looks
// like a path must be absolute and exist. It returns the rewritten
// command, or an error naming the argument; a command that fails it is the
// task's fault.
func CheckCommand(cmd []string, pathMap map[string]string) ([]string, error) {
	if len(cmd) == 0 {
		return nil, errors.New("sandbox: no candidate command")
	}
	cmd = rewriteCommand(cmd, pathMap)
	return cmd, checkLaunch(cmd)
}

func checkLaunch(cmd []string) error {
	if _, err := exec.LookPath(cmd[0]); err != nil {
		return fmt.Errorf("sandbox: the candidate program %s cannot be run: %w", cmd[0], err)
	}
	for _, a := range cmd[1:] {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, " \t\n'\"$;|&<>()") {
			continue
		}
		if !strings.Contains(a, "/") {
			continue
		}
		if !filepath.IsAbs(a) {
			return fmt.Errorf("sandbox: candidate command argument %s is relative: name it by its absolute path", a)
		}
		if _, err := os.Stat(a); err != nil {
			return fmt.Errorf("sandbox: candidate command argument %s does not exist", a)
		}
	}
	return nil
}

// copyTree copies src to dst: directories, regular files (modes and
// modification times kept) and symbolic links (as links); .git and
// anything that is neither is left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && rel != "." {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm()|0o200)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
			return os.Chtimes(target, info.ModTime(), info.ModTime())
		}
		return nil
	})
}

// forceRemove removes p even when a candidate left folders without write
// permission in it.
func forceRemove(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}
