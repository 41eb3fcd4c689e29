package verification

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
	"github.com/swe-refactor-bench/srb/ladder/hostuser"
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
// srb's implementation is [Container], a sandbox of the task's
// verification image per tree on any [engine.Runner] (Docker, or
// engine.Local with --host); another harness may bring its own. A Sandbox
// is used by one round, one call at a time.
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
	// UpkeepSec is the wall-clock seconds of the grader's own steps
	// around the run: placing the candidate, ending leftover processes,
	// restoring the side from its snapshot, clearing it afterwards, and
	// the side's warm-up and snapshot when this run was its first. A
	// round's budget does not count them (agent.Config.Uncounted).
	UpkeepSec float64
	// ExcessSec is, for a run on the submission's side, how many seconds
	// it took past State A's latest run of the same candidate; what the
	// round's allowance leaves of it is not the adversary's budget
	// ([Round.excessCredit]).
	ExcessSec float64
	// Seq is the run's place (1-based) in its adjudication's schedule of
	// reruns, whose order is drawn at random; 0 for a run of the round
	// (try_test).
	Seq int
}

// Map returns the run as verification.json records it:
// target, exit_code, passed, timed_out, duration_sec (3 dp), reaped,
// stdout, stderr, infrastructure_fault: true only for a fault, and
// harness_error only when srb could not carry the run out, limit_hit
// only when a container limit was reached, upkeep_sec (3 dp) when
// measured, excess_sec (3 dp) when the submission's run took longer than
// State A's of the same candidate, and rerun (the run's place in its
// adjudication's random schedule) for an adjudicator's rerun.
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
	if r.UpkeepSec > 0 {
		m["upkeep_sec"] = round(r.UpkeepSec, 3)
	}
	if r.ExcessSec > 0 {
		m["excess_sec"] = round(r.ExcessSec, 3)
	}
	if r.Seq > 0 {
		m["rerun"] = r.Seq
	}
	return m
}

// decided reports whether the run says something about its tree: it ran
// to its end, within its time, and was no fault.
func (r CandidateRun) decided() bool {
	return !r.TimedOut && !r.Fault && r.Harness == ""
}

// untestableAgainst reports whether the run, on the submission's side,
// could not test its tree by the submission's own doing next to orig,
// State A's run of the same pair: orig ran to its end and passed, and
// this run ended with one of the task's fault codes (the runner could not
// build or start the tree). Stage 3 runs only after stage 2 built and ran
// the same tree, and the same image built State A, so a tree that cannot
// be built here alone is one the submission made so (a build that sees
// SRB_WORK and fails: docs/LADDER.md, "Stage 3 untestable by choice");
// counted neither way (HARNESS.md §7 bug 87, which stays the rule for
// State A's side) it let the submission turn its defect into an invalid
// verdict. A run srb could not carry out (Harness) stays the grader's,
// and in a round's pair a timeout stays undecided on either side (issue
// 15: a candidate killed at its time limit is no break; a hang counts
// only when the candidate bounds it itself); in the adjudicator's reruns
// of a claimed break a timeout counts against its side ([reproduce]).
func (r CandidateRun) untestableAgainst(orig CandidateRun) bool {
	return r.Fault && r.Harness == "" && orig.decided() && orig.Passed
}

// neverStarted reports whether the run looks like the candidate command
// could not be started at all (HARNESS.md §4.3 _not_attacked): srb could
// not carry it out, or it ended with the status a shell gives a command it
// could not execute or find (126, 127; -1 when it never started) and said
// so on stderr. A candidate that ran and failed with its own "permission
// denied" (exit 1: a folder its program could not read) started: counted
// as never started, a round of such candidates was an error and the
// verdict invalid.
func (r CandidateRun) neverStarted() bool {
	if r.Harness != "" {
		return true
	}
	if r.Passed || r.TimedOut || strings.TrimSpace(r.Stdout) != "" {
		return false
	}
	switch r.ExitCode {
	case -1, 126, 127:
	default:
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

// How the two trees of a round are kept apart (metadata.isolation of
// verification.json): a container of its own per tree (the image), a user
// and folders of its own per tree ([Container] on engine.Local, --host,
// when srb runs as root), or folders of its own only (--host otherwise:
// both trees' candidates run as srb's own user, which can reach the other
// tree's folders).
const (
	IsolationContainer = "container-per-tree"
	IsolationUser      = "user-per-tree"
	IsolationFolder    = "folder-per-tree"
)

// HostIsolation is how the rounds of this process with --host (a
// [Container] on engine.Local, a session per tree) keep the trees apart:
// [IsolationUser] when it runs as root, else [IsolationFolder].
func HostIsolation() string {
	if os.Geteuid() == 0 {
		return IsolationUser
	}
	return IsolationFolder
}

// HostProcessLimit is [hostuser.ProcessLimit]: the most tasks a
// candidate's uid may have at once on --host as root ([engine.Local]
// lowers srb's RLIMIT_NPROC to it).
const HostProcessLimit = hostuser.ProcessLimit

// WarmUp is the candidate a sandbox runs once on each side before the
// side's first candidate of a round, so that the task's candidate runner
// builds (and caches, in SRB_WORK) the tree before any candidate test
// runs; the working tree and SRB_WORK that run leaves are the side's
// snapshot, from which every later run of the side starts (with HOME and
// TMPDIR empty). Its exit status decides nothing: whatever it was, the
// real runs are classed as before (a tree that does not build fails them
// with its fault code). A warm-up that does not end within its own bound
// ([ContainerConfig.WarmUpTimeout]) does: the submission's side cannot be
// tested and every run of it fails, where State A's warm-up ended in that
// bound (State A's that does not is an error).
var WarmUp = Candidate{Name: "warm-up", Filename: "warm-up", Code: "exit 0\n"}

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

// copyTree copies src to dst (copytree): folders, regular files (modes
// kept with the owner's write bit, modification times kept) and symbolic
// links (as links); .git and special files are left out.
func copyTree(src, dst string) error {
	_, err := copytree.Copy(src, dst, copytree.Options{FileBits: 0o200, DirBits: 0o700, Times: true, Git: copytree.GitSkip})
	return err
}

// forceRemove removes p even when a candidate left folders without write
// permission in it ([hostuser.RemoveAll]).
func forceRemove(p string) error { return hostuser.RemoveAll(p) }

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
