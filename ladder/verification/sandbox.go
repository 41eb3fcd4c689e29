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
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/proc"
	"golang.org/x/sys/unix"
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
	EnvWork          = "SRB_WORK"           // the tree's scratch, restored from its snapshot before each run
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
// codes, so the tree could not be tested (never for a timeout). Harness,
// when not empty, says why srb itself could not carry the run out (the
// engine failed, the candidate could not be placed, the stage was
// stopped): such a run decides nothing and makes its round an error.
// Stdout and Stderr are the last [MaxRunTail] bytes. Reaped says
// processes were left behind and were killed.
type CandidateRun struct {
	Target      string
	ExitCode    int
	Passed      bool
	TimedOut    bool
	Fault       bool
	Harness     string
	DurationSec float64
	Reaped      bool
	Stdout      string
	Stderr      string
	// LimitHit names the container limits reached during the run
	// ("memory", "pids", "memory,pids"); "" for none and on --host.
	LimitHit string
}

// Map returns the run as verification.json records it:
// target, exit_code, passed, timed_out, duration_sec (3 dp), reaped,
// stdout, stderr, infrastructure_fault: true only for a fault, and
// harness_error only when srb could not carry the run out, and
// limit_hit only when a container limit was reached.
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
	if r.Harness != "" {
		m["harness_error"] = r.Harness
	}
	if r.LimitHit != "" {
		m["limit_hit"] = r.LimitHit
	}
	return m
}

// decided reports whether the run says something about its tree: it ran
// to its end, within its time, and was no fault.
func (r CandidateRun) decided() bool {
	return !r.TimedOut && !r.Fault && r.Harness == ""
}

// neverStarted reports whether the run looks like the candidate command
// could not be started at all (HARNESS.md §4.3 _not_attacked).
func (r CandidateRun) neverStarted() bool {
	if r.Harness != "" {
		return true
	}
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
// maps every argument under it to the same path under the value): each
// value folder is copied into the sandbox, readable by the candidates and
// writable by none of them, and the arguments name the copy; the launch
// check then requires every argument that looks like a file to exist.
// Timeout bounds one run (0: 300 s). FaultCodes are the exit codes
// that mean "this tree could not be tested" (nil: 64–78). Env is the
// candidate's base environment (KEY=VALUE; nil: PATH from this process
// and LANG); the contract names are removed from it
// ([behavioural.SubmissionEnv]), and HOME and TMPDIR are always the tree's
// own folders, whatever Env says. Network false sets SRB_NETWORK=denied.
// Work is the folder to create the sandbox in ("" for the system's
// temporary folder); Keep leaves the sandbox's folder in place on Close.
// HomeSeed, when set, is a folder whose content is copied into each
// tree's HOME for its warm-up run ([WarmUp]; a warm build cache, say):
// each tree gets a copy of its own, which only its runs can change; the
// candidates' runs start with HOME empty.
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
	HomeSeed   string
}

// How the two trees of a round are kept apart (metadata.isolation of
// verification.json): a container of its own per tree (the image), a user
// and folders of its own per tree ([Host] when srb runs as root), or
// folders of its own only ([Host] otherwise: both trees' candidates run as
// srb's own user, which can reach the other tree's folders).
const (
	IsolationContainer = "container-per-tree"
	IsolationUser      = "user-per-tree"
	IsolationFolder    = "folder-per-tree"
)

// HostIsolation is how a [Host] made by this process keeps the trees
// apart: [IsolationUser] when it runs as root, else [IsolationFolder].
func HostIsolation() string {
	if os.Geteuid() == 0 {
		return IsolationUser
	}
	return IsolationFolder
}

// hostSide is one tree's own part of a [Host] sandbox: a folder only its
// user may enter (<reach>/<token>, mode 0700) holding the working tree,
// SRB_WORK, HOME and TMPDIR; uid is that user (-1: this process's own).
type hostSide struct {
	dir string
	uid int
}

func (s hostSide) tree() string { return filepath.Join(s.dir, "tree") }
func (s hostSide) work() string { return filepath.Join(s.dir, "work") }
func (s hostSide) home() string { return filepath.Join(s.dir, "home") }
func (s hostSide) tmp() string  { return filepath.Join(s.dir, "tmp") }

// Host is a [Sandbox] on this machine: salted working trees in a scratch
// folder, candidates run with os/exec in their own process group, the
// group killed at the timeout and reaped after every run (HARNESS.md §4.3
// CandidateRunner). The two trees are kept apart: when this process is
// root each tree's candidates run as a user of their own (two unused uids
// drawn at random per sandbox, so a uid says nothing of the role, with no
// supplementary groups and a fresh IPC namespace per run), in a folder only
// that user may enter; after every run each process of that user is
// killed and whatever it left in the machine's shared temporary folders
// (/tmp, /var/tmp, /dev/shm, /run/lock, /dev/mqueue) is removed, so
// nothing of one tree's run is left for the other's. Every run of a side
// starts from the same state: before the side's first run of a round
// (after Reset) the side is made fresh and [WarmUp] runs there, so the
// task's runner builds and caches the tree; its working tree and SRB_WORK
// are then kept in a snapshot of root's, and before every run (try_test's
// and each of the adjudicator's reruns) the side's folder is emptied and
// restored from it, HOME and TMPDIR made empty, with no process of the
// side's user alive, so nothing a run does (a cached build rewritten, a
// run counter kept) reaches the side's next run. Layout:
//
//	work/pristine/<token>   the tree as given (.git left out), root's, never run in
//	work/snap/<token>       the side's snapshot (tree, work), root's only
//	work/files/original     what the toolbox's file tools read as "original" (root's)
//	work/files/workspace    what the toolbox's file tools read as "workspace" (root's)
//	reach/view/original     where the run tool runs for "original" (its user's)
//	reach/view/workspace    where the run tool runs for "workspace" (its user's)
//	reach/assets/<n>        the copies of PathMap's folders (read-only to candidates)
//	reach/candidates/<file> candidate files (SRB_CANDIDATE; read-only to candidates)
//	reach/<token>/tree      the working tree a candidate runs in (cwd, SRB_TARGET)
//	reach/<token>/work      SRB_WORK
//	reach/<token>/home      HOME
//	reach/<token>/tmp       TMPDIR
//
// reach is work itself, unless a folder above work is closed to other
// users (a test's temporary folder, say): then it is a folder of its own
// in /tmp. Without root both trees run as this process's user, which can
// reach the other tree's folder: [HostIsolation] says which; the views
// are then in work/view. The file tools never read the views: what a
// command of the run tool writes there (a submission's Makefile run by the
// adversary, say) cannot change what list_dir, fetch_source, search and
// diff show, as in the image, where they read host copies.
//
// token is the first 16 hex digits of sha256("<salt>:<role>") with a
// fresh 16-byte salt per sandbox, so neither a path nor a variable names
// the role.
type Host struct {
	cfg     HostConfig
	work    string
	reach   string
	salt    string
	command []string
	env     []string
	srcs    map[string]string
	sides   map[string]hostSide
	toolUID int // the original view's run-tool user (-1: this process's own)
	// toolUIDs are the run tool's users per role: one per view, so a
	// command run in one view cannot reach the other (-1: this process's
	// own, for both).
	toolUIDs map[string]int
	// primed says which sides have their snapshot since the last Reset.
	primed map[string]bool
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
	separate := os.Geteuid() == 0
	if separate {
		if err := limitUserProcesses(HostProcessLimit); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	work, err := os.MkdirTemp(cfg.Work, "srb-verification-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	h := &Host{cfg: cfg, work: work, reach: work, toolUID: -1, srcs: map[string]string{RoleOriginal: cfg.Original, RoleSubmission: cfg.Submission}}
	fail := func(err error) (*Host, error) {
		h.cfg.Keep = false
		h.Close()
		return nil, err
	}
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return fail(fmt.Errorf("sandbox: salt: %w", err))
	}
	h.salt = hex.EncodeToString(salt[:])
	if separate {
		if err := os.Chmod(work, 0o711); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
		if !searchable(filepath.Dir(work)) {
			// A folder above work is closed to the candidates' users.
			if h.reach, err = os.MkdirTemp("/tmp", "srb-verification-trees-"); err != nil {
				return fail(fmt.Errorf("sandbox: %w", err))
			}
			if err := os.Chmod(h.reach, 0o711); err != nil {
				return fail(fmt.Errorf("sandbox: %w", err))
			}
		}
	}
	for _, d := range []string{filepath.Join(work, "pristine"), filepath.Join(work, "files")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
	}
	for _, d := range []string{filepath.Join(h.reach, "candidates"), filepath.Join(h.reach, "assets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
	}
	// The task's assets are copied, so no candidate can change what the
	// next run executes (and the task folder stays as it was).
	froms := slices.Sorted(maps.Keys(cfg.PathMap))
	pathMap, err := copyAssets(cfg.PathMap, filepath.Join(h.reach, "assets"))
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	if h.command, err = CheckCommand(cfg.Command, pathMap); err != nil {
		// Name the task's path, not the copy's.
		msg := err.Error()
		for _, from := range froms {
			msg = strings.ReplaceAll(msg, pathMap[from], cfg.PathMap[from])
		}
		return fail(errors.New(msg))
	}
	uids := []int{-1, -1, -1, -1}
	if separate {
		if uids, err = unusedIDs(4); err != nil {
			return fail(err)
		}
	}
	// The run tool's commands run as a user of each view's own, in that
	// view only it (and root) may enter, with a HOME of its own: what a
	// command runs (a Makefile of the submission's, say) reaches neither
	// tree's folders, nor srb's, nor the other view (so it cannot change
	// what the adversary sees of State A), and leaves nothing in a HOME
	// the other view's commands use (a build cache, say).
	h.toolUID = uids[2]
	h.toolUIDs = map[string]int{RoleOriginal: uids[2], RoleSubmission: uids[3]}
	if err := os.Mkdir(h.viewRoot(), 0o711); err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		home := h.toolHome(role)
		if err := os.Mkdir(home, 0o700); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
		if err := chownTree(home, h.toolUIDs[role]); err != nil {
			return fail(fmt.Errorf("sandbox: give the run tool's HOME to its user: %w", err))
		}
	}
	h.sides = map[string]hostSide{}
	for i, role := range []string{RoleOriginal, RoleSubmission} {
		if err := copyTree(h.srcs[role], h.pristine(role)); err != nil {
			return fail(fmt.Errorf("sandbox: copy the %s tree: %w", role, err))
		}
		s := hostSide{dir: filepath.Join(h.reach, h.Token(role)), uid: uids[i]}
		h.sides[role] = s
		for _, d := range []string{s.dir, s.work(), s.home(), s.tmp()} {
			if err := os.Mkdir(d, 0o700); err != nil {
				return fail(fmt.Errorf("sandbox: %w", err))
			}
		}
		if cfg.HomeSeed != "" {
			if err := copyInto(cfg.HomeSeed, s.home()); err != nil {
				return fail(fmt.Errorf("sandbox: seed HOME from %s: %w", cfg.HomeSeed, err))
			}
		}
		if err := chownTree(s.dir, s.uid); err != nil {
			return fail(fmt.Errorf("sandbox: give the tree's folder to its user: %w", err))
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
	h.env = slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=")
	})
	if err := h.Reset(context.Background()); err != nil {
		return fail(err)
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

// UID returns the user role's candidates run as (-1: this process's own).
func (h *Host) UID(role string) int { return h.sides[role].uid }

func (h *Host) pristine(role string) string { return filepath.Join(h.work, "pristine", h.Token(role)) }
func (h *Host) tree(role string) string     { return h.sides[role].tree() }
func (h *Host) view(role string) string     { return filepath.Join(h.viewRoot(), viewName(role)) }

// files is the root-owned copy of role's tree the toolbox's file tools
// read: no process of the sandbox's users can write it.
func (h *Host) files(role string) string { return filepath.Join(h.work, "files", viewName(role)) }

// toolHome is the run tool's HOME for commands run in role's view.
func (h *Host) toolHome(role string) string {
	return filepath.Join(h.viewRoot(), ".home-"+viewName(role))
}

// viewRoot holds the toolbox's views: in work, or, when the run tool has
// users of its own, in reach (where those users can enter their view).
func (h *Host) viewRoot() string {
	if h.toolUID >= 0 {
		return filepath.Join(h.reach, "view")
	}
	return filepath.Join(h.work, "view")
}

// Reset implements [Sandbox]: both working trees (each its user's), both
// views (the run tool's user's) and the file tools' copies (root's), from
// the pristine copies.
func (h *Host) Reset(ctx context.Context) error {
	// Each side is warmed up again before its next run.
	h.primed = map[string]bool{}
	if err := forceRemove(filepath.Join(h.work, "snap")); err != nil {
		return fmt.Errorf("sandbox: the snapshots could not be cleared: %w", err)
	}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		for _, dst := range []string{h.tree(role), h.view(role), h.files(role)} {
			if err := forceRemove(dst); err != nil {
				return fmt.Errorf("sandbox: the %s tree could not be cleared: %w", role, err)
			}
			if err := copyTree(h.pristine(role), dst); err != nil {
				return fmt.Errorf("sandbox: the %s tree could not be restored: %w", role, err)
			}
		}
		if err := chownTree(h.tree(role), h.sides[role].uid); err != nil {
			return fmt.Errorf("sandbox: the %s tree could not be given to its user: %w", role, err)
		}
		if err := os.Chmod(h.view(role), 0o700); err != nil {
			return fmt.Errorf("sandbox: the %s view could not be closed to others: %w", role, err)
		}
		if err := chownTree(h.view(role), h.toolUIDs[role]); err != nil {
			return fmt.Errorf("sandbox: the %s view could not be given to the run tool's user: %w", role, err)
		}
	}
	return ctx.Err()
}

// Roots implements [Sandbox]: the file tools read root's copies, shown
// as the run tool's views (where a run command executes).
func (h *Host) Roots() []agent.RootSpec {
	return []agent.RootSpec{
		{Name: "original", Dir: h.files(RoleOriginal), Shown: h.view(RoleOriginal)},
		{Name: "workspace", Dir: h.files(RoleSubmission), Shown: h.view(RoleSubmission)},
	}
}

// RunTool implements [Sandbox]: the run tool runs on this machine; when
// this process is root, each command runs as the user of the view its
// folder is in, with that view's HOME, and that user's processes and
// leftovers in the shared temporary folders are removed after every
// command ([hostViewRunner]).
func (h *Host) RunTool() (agent.Runner, func(string) string) {
	if h.toolUID < 0 {
		return agent.LocalRunner{}, os.Getenv
	}
	r := hostViewRunner{}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		r = append(r, hostView{dir: h.view(role), home: h.toolHome(role), run: toolRunner{uid: h.toolUIDs[role], network: h.cfg.Network}})
	}
	return r, func(name string) string {
		if name == "HOME" {
			return "" // each view's own: hostViewRunner sets it
		}
		return os.Getenv(name)
	}
}

// hostView is one view of a [Host] run tool: its folder, its HOME and
// its user's runner.
type hostView struct {
	dir, home string
	run       toolRunner
}

// hostViewRunner runs each command as the user of the view its folder is
// in, with HOME that view's; a folder in neither view is refused.
type hostViewRunner []hostView

// Run implements [agent.Runner].
func (r hostViewRunner) Run(ctx context.Context, c agent.Command) (agent.RunResult, error) {
	dir := filepath.Clean(c.Dir)
	for _, v := range r {
		if dir == v.dir || strings.HasPrefix(dir, v.dir+string(filepath.Separator)) {
			env := slices.DeleteFunc(slices.Clone(c.Env), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
			c.Env = append(env, "HOME="+v.home)
			return v.run.Run(ctx, c)
		}
	}
	return agent.RunResult{ExitCode: -1}, fmt.Errorf("run: %s is in neither view", c.Dir)
}

// toolRunner is the run tool's [agent.Runner] on this machine as root:
// each command runs contained ([proc.Run]) as uid (no supplementary
// groups, a fresh IPC namespace, and a fresh network namespace unless
// network is allowed), killed at its timeout; afterwards
// every process of uid is killed and what it left in the shared temporary
// folders removed. Output is kept to [agent.MaxCapturedOutput] bytes per
// stream.
type toolRunner struct {
	uid     int
	network bool
}

// cloneflags are the namespaces a command of the run tool gets: IPC, and
// network unless the task allows it (the host's loopback would reach the
// machine's own services, which no stage-3 process may).
func (r toolRunner) cloneflags() uintptr {
	if r.network {
		return syscall.CLONE_NEWIPC
	}
	return syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET
}

// Run implements [agent.Runner].
func (r toolRunner) Run(ctx context.Context, c agent.Command) (agent.RunResult, error) {
	if len(c.Argv) == 0 {
		return agent.RunResult{ExitCode: -1}, errors.New("run: empty argv")
	}
	defer func() {
		sweepUser(r.uid)
		clearShared(r.uid)
	}()
	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	env := c.Env
	if env == nil {
		env = []string{}
	}
	stdout, stderr := &capped{max: agent.MaxCapturedOutput}, &capped{max: agent.MaxCapturedOutput}
	e, err := proc.Run(rctx, proc.Spec{Argv: c.Argv, Dir: c.Dir, Env: env, Stdout: stdout, Stderr: stderr, WaitDelay: 2 * time.Second,
		Credential: &syscall.Credential{Uid: uint32(r.uid), Gid: uint32(r.uid), Groups: []uint32{}}, Cloneflags: r.cloneflags()})
	res := agent.RunResult{ExitCode: -1, Stdout: stdout.b, Stderr: stderr.b}
	if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		res.TimedOut = true
		return res, nil
	}
	switch {
	case err != nil:
		return res, err
	case e.Exited():
		res.ExitCode = e.Code
	}
	return res, nil
}

// capped keeps the first max bytes written to it and accepts the rest.
type capped struct {
	b   []byte
	max int
}

// Write implements io.Writer.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

// users returns the uids of the sandbox's own users (the trees' and the
// run tool's) that it has drawn: none when it runs as this process's
// user. Never 0: sweeping root would kill srb.
func (h *Host) users() []int {
	var out []int
	for _, s := range h.sides {
		if s.uid > 0 {
			out = append(out, s.uid)
		}
	}
	for _, role := range []string{RoleOriginal, RoleSubmission} {
		if uid := h.toolUIDs[role]; uid > 0 {
			out = append(out, uid)
		}
	}
	return out
}

// Close implements [Sandbox]: every process of the trees' users is
// killed, what they left in the shared temporary folders removed, and the
// scratch folder removed, unless HostConfig.Keep (the trees' folders are
// then moved under it when they were made in /tmp).
func (h *Host) Close() error {
	for _, uid := range h.users() {
		sweepUser(uid)
		clearShared(uid)
	}
	var err error
	if h.reach != h.work {
		if h.cfg.Keep && os.Rename(h.reach, filepath.Join(h.work, "trees")) == nil {
			return nil
		}
		err = forceRemove(h.reach)
	}
	if h.cfg.Keep {
		return err
	}
	return errors.Join(err, forceRemove(h.work))
}

// Execute implements [Sandbox]: every run of a side, the adjudicator's
// reruns included, starts from the side's snapshot (see [Host]), so
// nothing an earlier run of the side did can change what this one sees.
func (h *Host) Execute(ctx context.Context, c *Candidate, role string) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	harness := func(why string) CandidateRun {
		run.Harness = why
		run.Stderr = "cannot run candidate command: " + why
		return run
	}
	// Nothing of either tree's user, or of the run tool's, may be
	// running when a run starts.
	for _, uid := range h.users() {
		sweepUser(uid)
	}
	// Every run of a side starts from the same state: the side's
	// snapshot, taken after its warm-up (see [Host]).
	if !h.primed[role] {
		if err := h.prime(ctx, role); err != nil {
			return harness(err.Error())
		}
	}
	if err := h.restore(role); err != nil {
		return harness(err.Error())
	}
	return h.execute(ctx, c, role)
}

// WarmUp is the candidate a sandbox runs once on each side before the
// side's first candidate of a round, so that the task's candidate runner
// builds (and caches, in SRB_WORK) the tree before any candidate test
// runs; the working tree and SRB_WORK that run leaves are the side's
// snapshot, from which every later run of the side starts (with HOME and
// TMPDIR empty). Its outcome decides nothing: whatever it
// was, the real runs are classed as before (a tree that does not build
// fails them with its fault code).
var WarmUp = Candidate{Name: "warm-up", Filename: "warm-up", Code: "exit 0\n"}

// snapParts are the folders of a [Host] side a snapshot keeps: the
// working tree and SRB_WORK (where the task's runner caches its build).
// HOME and TMPDIR start every run empty.
var snapParts = []string{"tree", "work"}

// snap is where role's snapshot is kept: a folder of root's only, under
// work (never reach), which no candidate can enter.
func (h *Host) snap(role string) string { return filepath.Join(h.work, "snap", h.Token(role)) }

// prime gives role's side a fresh start (its folder emptied, the working
// tree from the pristine copy, SRB_WORK and TMPDIR empty, HOME from
// HostConfig.HomeSeed or empty), runs [WarmUp] there and keeps the
// working tree and SRB_WORK it left as the side's snapshot. An error is srb's (a copy failed, the
// warm-up could not be carried out).
func (h *Host) prime(ctx context.Context, role string) error {
	side := h.sides[role]
	if err := h.freshSide(role); err != nil {
		return err
	}
	w := WarmUp
	if run := h.execute(ctx, &w, role); run.Harness != "" {
		return fmt.Errorf("the warm-up run on the tree could not be carried out: %s", run.Harness)
	}
	snap := h.snap(role)
	if err := forceRemove(snap); err != nil {
		return fmt.Errorf("cannot clear the tree's snapshot: %w", err)
	}
	if err := os.MkdirAll(snap, 0o700); err != nil {
		return fmt.Errorf("cannot keep the tree's snapshot: %w", err)
	}
	for _, part := range snapParts {
		src := filepath.Join(side.dir, part)
		if _, err := os.Lstat(src); err != nil {
			continue // the warm-up removed it: runs start without it
		}
		if err := snapCopy(src, filepath.Join(snap, part)); err != nil {
			return fmt.Errorf("cannot keep the tree's snapshot: %w", err)
		}
	}
	h.primed[role] = true
	return nil
}

// freshSide empties role's folder and makes it as [NewHost] did: the
// working tree from the pristine copy, SRB_WORK and TMPDIR empty, HOME
// from HostConfig.HomeSeed (or empty), all of them the side's user's.
func (h *Host) freshSide(role string) error {
	side := h.sides[role]
	if err := forceRemove(side.dir); err != nil {
		return fmt.Errorf("cannot clear the tree's folder: %w", err)
	}
	for _, d := range []string{side.dir, side.work(), side.home(), side.tmp()} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("cannot make the tree's folder: %w", err)
		}
	}
	if err := copyTree(h.pristine(role), side.tree()); err != nil {
		return fmt.Errorf("cannot restore the working tree: %w", err)
	}
	if h.cfg.HomeSeed != "" {
		if err := copyInto(h.cfg.HomeSeed, side.home()); err != nil {
			return fmt.Errorf("cannot seed HOME from %s: %w", h.cfg.HomeSeed, err)
		}
	}
	if err := chownTree(side.dir, side.uid); err != nil {
		return fmt.Errorf("cannot give the tree's folder to its user: %w", err)
	}
	return nil
}

// restore puts role's side back in its snapshot's state, with no process
// of the side's user alive: the side's folder is emptied (whatever a run
// left there, beside the four folders too, is gone), the working tree and
// SRB_WORK are copied from the snapshot, HOME and TMPDIR are made empty,
// and all of it is given to the side's user again.
func (h *Host) restore(role string) error {
	side := h.sides[role]
	if side.uid >= 0 {
		sweepUser(side.uid)
		if err := clearShared(side.uid); err != nil {
			return fmt.Errorf("cannot clear what an earlier run left: %w", err)
		}
	}
	if err := forceRemove(side.dir); err != nil {
		return fmt.Errorf("cannot clear the tree's folder: %w", err)
	}
	if err := os.Mkdir(side.dir, 0o700); err != nil {
		return fmt.Errorf("cannot make the tree's folder: %w", err)
	}
	for _, part := range snapParts {
		src := filepath.Join(h.snap(role), part)
		if _, err := os.Lstat(src); err != nil {
			continue
		}
		if err := snapCopy(src, filepath.Join(side.dir, part)); err != nil {
			return fmt.Errorf("cannot restore the tree's folder from its snapshot: %w", err)
		}
	}
	for _, d := range []string{side.home(), side.tmp()} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("cannot make the tree's HOME or TMPDIR: %w", err)
		}
	}
	if err := chownTree(side.dir, side.uid); err != nil {
		return fmt.Errorf("cannot give the tree's folder to its user: %w", err)
	}
	return nil
}

// snapCopy copies a side's folder to or from its snapshot: modes (with the
// owner's write and search bits), modification times, links as links and
// .git folders kept; special files left out.
func snapCopy(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{FileBits: 0o200, DirBits: 0o700, Times: true, Git: copytree.GitCopy})
	return err
}

// execute runs candidate c on role's side as it is now (no restore): the
// candidate file written, the command run as the side's user, its
// processes and what they left in the shared temporary folders removed.
func (h *Host) execute(ctx context.Context, c *Candidate, role string) CandidateRun {
	run := CandidateRun{Target: role, ExitCode: -1}
	side := h.sides[role]
	harness := func(why string) CandidateRun {
		run.Harness = why
		run.Stderr = "cannot run candidate command: " + why
		return run
	}
	file := filepath.Join(h.reach, "candidates", c.Filename)
	if err := os.WriteFile(file+".tmp", []byte(c.Code), 0o755); err != nil {
		return harness("cannot write the candidate: " + err.Error())
	}
	if err := errors.Join(os.Chmod(file+".tmp", 0o755), os.Rename(file+".tmp", file)); err != nil {
		return harness("cannot write the candidate: " + err.Error())
	}
	env := CandidateEnv(h.env, h.cfg.Network,
		EnvCandidate+"="+file, EnvCandidateName+"="+c.Name,
		EnvTarget+"="+side.tree(), EnvTargetToken+"="+h.Token(role), EnvWork+"="+side.work(),
		"HOME="+side.home(), "TMPDIR="+side.tmp())
	argv := append(slices.Clone(h.command), role)
	// Only the outputs' last bytes are kept, in memory: what a run prints
	// (the submission's program printing without end) never grows on the
	// grader's disk.
	stdout, stderr := &tailWriter{}, &tailWriter{}
	start := time.Now()
	// WaitDelay: the outputs are pipes now; every process that holds them
	// is ended with the containment, and one that outlives it for longer
	// is a fault of the run (exit.Err), never a hang of the stage.
	spec := proc.Spec{Argv: argv, Dir: side.tree(), Env: env, Stdout: stdout, Stderr: stderr, WaitDelay: 5 * time.Second}
	if side.uid >= 0 {
		spec.Credential = &syscall.Credential{Uid: uint32(side.uid), Gid: uint32(side.uid), Groups: []uint32{}}
		// SysV IPC and POSIX message queues die with the run.
		spec.Cloneflags = syscall.CLONE_NEWIPC
		if !h.cfg.Network {
			// A network namespace of the run's own (loopback only, and
			// down): the host's is shared by both trees, and what a run
			// leaves in it outlives every process (a TCP socket in
			// TIME_WAIT lasts a minute), so the original's runs could
			// tell the submission's which run it is.
			spec.Cloneflags |= syscall.CLONE_NEWNET
		}
	}
	p, err := proc.Start(spec)
	if err != nil {
		return harness(err.Error())
	}
	timer := time.NewTimer(h.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
	case <-timer.C:
		p.Kill()
		run.TimedOut = true
	case <-ctx.Done():
		p.Kill()
		run.Harness = "cancelled: " + ctx.Err().Error()
		run.Stderr = "cannot run candidate command: cancelled"
	}
	// Wait returns once everything the candidate started is gone, setsid
	// and double-forked processes included (HARNESS.md §7 bugs 94, 95).
	exit := p.Wait()
	run.DurationSec = time.Since(start).Seconds()
	run.Reaped = exit.Leftovers != 0
	if exit.Err != nil && run.Harness == "" && !run.TimedOut {
		run.Harness = exit.Err.Error()
	}
	// Every process of the tree's user is gone too, and what it left in
	// the shared temporary folders.
	if side.uid >= 0 {
		run.Reaped = sweepUser(side.uid) || run.Reaped
		if err := clearShared(side.uid); err != nil && run.Harness == "" {
			run.Harness = "cannot clear what the run left: " + err.Error()
		}
	}
	switch {
	case run.TimedOut || run.Harness != "":
		run.ExitCode = -1
	case exit.Exited():
		run.ExitCode = exit.Code
	}
	run.Passed = run.ExitCode == 0 && run.Harness == ""
	run.Fault = !run.TimedOut && run.Harness == "" && run.ExitCode > 1 && slices.Contains(h.cfg.FaultCodes, run.ExitCode)
	run.Stdout = stdout.String()
	if e := stderr.String(); e != "" || run.Stderr == "" {
		run.Stderr = e + run.Stderr
	}
	return run
}

// searchable reports whether every folder from dir up to / lets other
// users pass through it (o+x).
func searchable(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// copyAssets copies each folder pathMap maps to (the task's files, by the
// image path they stand for) into its own folder under dst, readable (never
// writable) by every user, and returns pathMap onto the copies: so a
// command run as another user can read them, and nothing it does reaches
// the task folder.
func copyAssets(pathMap map[string]string, dst string) (map[string]string, error) {
	out := map[string]string{}
	for i, from := range slices.Sorted(maps.Keys(pathMap)) {
		d := filepath.Join(dst, strconv.Itoa(i))
		if err := copyTree(pathMap[from], d); err != nil {
			return nil, fmt.Errorf("copy %s: %w", pathMap[from], err)
		}
		if err := openToAll(d); err != nil {
			return nil, err
		}
		out[from] = d
	}
	return out, nil
}

// openToAll lets every user read (never write) what is under dir.
func openToAll(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()&^0o022 | 0o444
		if d.IsDir() || mode&0o100 != 0 {
			mode |= 0o111
		}
		return os.Chmod(p, mode)
	})
}

// copyInto copies the content of src into the existing folder dst.
func copyInto(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// chownTree gives everything under dir to uid (and the group of the same
// number), never following a symbolic link; uid -1 changes nothing.
func chownTree(dir string, uid int) error {
	if uid < 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
}

// The uids a [Host] draws its trees' users from: far above any a system
// allocates (useradd's and subuid's ranges end well below), far below the
// 32-bit limit.
const (
	hostUIDBase = 1_000_000_000
	hostUIDSpan = 1_000_000_000
)

// unusedIDs draws n distinct uids at random from the host range that no
// account, group or process of this machine uses.
func unusedIDs(n int) ([]int, error) {
	used := map[int]bool{}
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if parts := strings.Split(line, ":"); len(parts) > 2 {
				if id, err := strconv.Atoi(parts[2]); err == nil {
					used[id] = true
				}
			}
		}
	}
	for _, p := range procs() {
		for _, id := range p.uids {
			used[id] = true
		}
	}
	var out []int
	for tries := 0; len(out) < n && tries < 1000; tries++ {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("sandbox: draw a user: %w", err)
		}
		id := hostUIDBase + int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))%hostUIDSpan
		if !used[id] {
			used[id] = true
			out = append(out, id)
		}
	}
	if len(out) < n {
		return nil, errors.New("sandbox: no unused user id found for the trees")
	}
	return out, nil
}

// hostProc is one process of this machine: its pid and its real,
// effective, saved and file-system uids.
type hostProc struct {
	pid  int
	uids []int
}

// procs lists this machine's processes from /proc.
func procs() []hostProc {
	ents, _ := os.ReadDir("/proc")
	var out []hostProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				p := hostProc{pid: pid}
				for _, f := range strings.Fields(rest) {
					if id, err := strconv.Atoi(f); err == nil {
						p.uids = append(p.uids, id)
					}
				}
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// sweepUser kills every process any of whose uids is uid, until none is
// left (at most 5 s), and reports whether there was one. A uid below the
// range sandboxes draw from is refused (nothing is killed).
func sweepUser(uid int) bool {
	if uid < hostUIDBase {
		return false // never a user of this machine's own
	}
	any := false
	deadline := time.Now().Add(5 * time.Second)
	for {
		found := false
		for _, p := range procs() {
			if slices.Contains(p.uids, uid) {
				found, any = true, true
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		if !found || time.Now().After(deadline) {
			return any
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sharedTmp are the folders of this machine every user may write in,
// where a tree's run could leave something for the other's.
var sharedTmp = []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue"}

// clearShared removes everything uid owns in the shared temporary folders
// (and in every folder there that every user may write in, at any depth),
// never following a link. A uid below the range sandboxes draw from is
// refused (nothing is removed).
func clearShared(uid int) error {
	if uid < hostUIDBase {
		return nil // never a user of this machine's own
	}
	dirs := slices.Clone(sharedTmp)
	if t := os.TempDir(); !slices.Contains(dirs, t) {
		dirs = append(dirs, t)
	}
	var errs []error
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			fi, err := os.Lstat(p)
			if err != nil {
				continue
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			switch {
			case ok && int(st.Uid) == uid:
				if err := forceRemove(p); err != nil {
					errs = append(errs, err)
				}
			case fi.IsDir() && fi.Mode().Perm()&0o002 != 0 && depth < 16:
				walk(p, depth+1)
			}
		}
	}
	for _, d := range dirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() && st.Mode().Perm()&0o002 != 0 {
			walk(d, 0)
		}
	}
	return errors.Join(errs...)
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

// tailWriter keeps the last [MaxRunTail] bytes written to it and accepts
// everything. It is safe for concurrent use.
type tailWriter struct {
	mu sync.Mutex
	b  []byte
}

// Write implements io.Writer; it never fails.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) >= MaxRunTail {
		w.b = append(w.b[:0], p[len(p)-MaxRunTail:]...)
		return len(p), nil
	}
	w.b = append(w.b, p...)
	if len(w.b) > 2*MaxRunTail {
		w.b = append(w.b[:0], w.b[len(w.b)-MaxRunTail:]...)
	}
	return len(p), nil
}

// String returns the last MaxRunTail bytes written, as valid UTF-8.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return lastBytes(w.b)
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

// copyTree copies src to dst (copytree): folders, regular files (modes
// kept with the owner's write bit, modification times kept) and symbolic
// links (as links); .git and special files are left out.
func copyTree(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{FileBits: 0o200, DirBits: 0o700, Times: true, Git: copytree.GitSkip})
	return err
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

// TreeDigest returns "sha256:<hex>" over the tree at dir as a sandbox
// copies it (.git left out): for every entry, in lexical path order, its
// path, type and permission bits, and its content's sha256 or its link
// target. verification.json records the trees' digests
// (metadata.inputs), so a re-run knows whether it grades the same trees.
func TreeDigest(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && rel != "." {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel = strings.ReplaceAll(filepath.ToSlash(rel), "\n", `\n`)
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "d %s %o\n", rel, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "l %s %q\n", rel, link)
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			fh := sha256.New()
			_, err = io.Copy(fh, f)
			f.Close()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "f %s %o %x\n", rel, info.Mode().Perm(), fh.Sum(nil))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("tree digest of %s: %w", dir, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// HostProcessLimit is the most tasks (processes and threads) a candidate's
// uid may have at once on --host as root: the soft and hard RLIMIT_NPROC
// srb sets on itself there, which every process it starts inherits. A
// fork bomb in a candidate otherwise fills the machine's PID space and
// fails the grader's own forks and threads (an invalid verdict the graded
// side chose). Root, srb itself, is not bound by it.
const HostProcessLimit = 4096

// limitUserProcesses lowers this process's RLIMIT_NPROC to n (soft and
// hard) when it is higher; processes it starts afterwards inherit it, and
// it binds each non-root uid they switch to. An error is the kernel's
// refusal.
func limitUserProcesses(n uint64) error {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &l); err != nil {
		return fmt.Errorf("RLIMIT_NPROC: %w", err)
	}
	if l.Cur <= n && l.Max <= n {
		return nil
	}
	l.Cur, l.Max = min(l.Cur, n), min(l.Max, n)
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &l); err != nil {
		return fmt.Errorf("RLIMIT_NPROC: %w", err)
	}
	return nil
}
