// Package suite runs a behavioural suite inside a container of a stage
// image: the tree under test and State A copied in, no network, the
// image's srb-helper running the task's declaration, and the stage result
// copied out whatever happened to the container. srb behavioural runs it
// in the behavioural image; srb build's and srb freeze's identity runs
// run it in both the verification and the behavioural images.
//
// It is the container half of stage 2; the host half is
// [behavioural.Runner] run directly. The image a suite runs in is found
// and readied elsewhere (srb's internal/image); this package only needs
// its reference ([Image]).
package suite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// HelperPath is srb's in-image helper in the behavioural and
// verification images (the stage images srb compiles put it there).
const HelperPath = "/opt/srb/bin/srb-helper"

// Image is a task's stage image as found on the engine.
type Image struct {
	// Stage is the stage the image is for ("behavioural", "verification").
	Stage string `json:"stage"`
	// Ref is what containers are started from: the image id, so a tag
	// moved meanwhile changes nothing.
	Ref string `json:"ref"`
	// Tag is srb/<task id>:<stage>, or the ref --image named.
	Tag string `json:"tag"`
	// Digest is the manifest digest images.lock records for the stage;
	// "" when the lockfile does not record it (an --image run).
	Digest string `json:"digest,omitempty"`
}

// Paths inside a stage container running a behavioural suite. The task's
// assets (modules/, data/, truth/) are the image's own, at
// /tests/<stage> ([TaskDir]), and the helper is [HelperPath].
const (
	// RepoPath is the tree under test.
	RepoPath = "/srb/submission"
	// OriginalPath is State A, read-only.
	OriginalPath = "/srb/original"
	// WorkPath is the suite's work folder.
	WorkPath = "/srb/work"
	// ResultsPath receives the stage result.
	ResultsPath = "/srb/results"
	// SpecPath is the suite's spec (kinds.SuiteSpec).
	SpecPath = "/srb/suite.json"
	// TruthPath holds truth files given instead of the image's own.
	TruthPath = "/srb/truth"
)

// TaskDir is where stage's image holds the task's assets.
func TaskDir(stage string) string { return "/tests/" + stage }

// Container is one run of a behavioural suite inside a container of
// a stage image: the tree under test copied in (at RepoPath), State A
// copied in read-only (OriginalPath), no network, the image's helper
// running `srb-helper suite` over the task's declaration, and the stage
// result — rewritten inside after every module — copied out whatever
// happened to the container. The spec names this srb's fingerprint as the
// orchestrator, so the helper stamps the result for this srb build
// (result.Stamp) and the report does not count the helper's executable as
// another grader; srb never re-stamps the result it copies out.
type Container struct {
	// Engine starts the container.
	Engine engine.Runner
	// Image is the stage image the container starts from.
	Image *Image
	// Decl is the host declaration; its TaskDir is replaced by the
	// image's /tests/<stage>.
	Decl *behavioural.Declaration
	// Mode is behavioural.ModeCheck, ModeRecord or ModeIdentity.
	Mode string
	// Repo and Original are host folders: the tree under test and State
	// A ("" for none).
	Repo, Original string
	// Truth, when set, is a host folder of truth files copied in and used
	// instead of the image's truth/ (freeze's identity run).
	Truth string
	// Imports are copied in before the container starts (freeze: State
	// A's ledger, built in the verification image).
	Imports []engine.Copy
	// Budget is the stage's clock, given to the helper; the container
	// gets Budget plus a minute before it is treated as hung.
	Budget time.Duration
	// Result is the host path of the stage result (behavioural.json).
	Result string
	// Modules, when set, is a host folder that receives each module's
	// result.json and stdout.log (<Modules>/<module id>/).
	Modules string
	// Work, when set, is a host folder that receives the whole work
	// folder (--keep-work, and freeze's record run).
	Work string
	// Labels label the container.
	Labels map[string]string
	// Limits bound the container; zero is engine.DefaultLimits.
	Limits engine.Limits
	// Log reports progress; nil is silent.
	Log func(format string, args ...any)
	// Started, when set, is called with the session once the container
	// runs (tests kill it mid-suite).
	Started func(*engine.Session)
}

// ErrContainerFault is wrapped when the stage's container did not run the
// suite to its end (killed, crashed, hung): the stage result it left is
// kept, with status error.
var ErrContainerFault = errors.New("the stage's container did not finish the suite")

func (c *Container) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

// Run runs the suite and returns the stage result it left, with status
// error and the reason in metadata.error when the container did not finish
// (the error then wraps ErrContainerFault), or nil and an error when
// nothing could be read back.
func (c *Container) Run(ctx context.Context) (*result.Stage, error) {
	stage := c.Image.Stage
	decl := *c.Decl
	decl.TaskDir = TaskDir(stage)
	truthDir := filepath.Join(decl.TaskDir, behavioural.TruthDir)
	if c.Truth != "" {
		truthDir = TruthPath
	}
	spec := kinds.SuiteSpec{Declaration: &decl, Mode: c.Mode, Repo: RepoPath, Work: WorkPath, TruthDir: truthDir,
		Result: ResultsPath + "/" + result.StageBehavioural + ".json", TimeoutSec: int(c.Budget.Seconds()), Helper: []string{HelperPath},
		Orchestrator: result.Fingerprint()}
	if c.Mode == behavioural.ModeRecord {
		spec.TruthDir = ""
	}
	if c.Original != "" {
		spec.Original = OriginalPath
	}
	tmp, err := os.MkdirTemp("", "srb-suite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	specPath := filepath.Join(tmp, "suite.json")
	if err := behavioural.WriteJSON(specPath, spec); err != nil {
		return nil, err
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		return nil, err
	}
	copies := []engine.Copy{
		{HostPath: specPath, ContainerPath: SpecPath},
		{HostPath: c.Repo, ContainerPath: RepoPath},
		{HostPath: empty, ContainerPath: ResultsPath},
		{HostPath: empty, ContainerPath: WorkPath},
	}
	var ro []string
	if c.Original != "" {
		copies = append(copies, engine.Copy{HostPath: c.Original, ContainerPath: OriginalPath})
		ro = append(ro, OriginalPath)
	}
	if c.Truth != "" {
		copies = append(copies, engine.Copy{HostPath: c.Truth, ContainerPath: TruthPath})
		ro = append(ro, TruthPath)
	}
	copies = append(copies, c.Imports...)
	labels := map[string]string{"org.swe-refactor-bench.stage": stage, "org.swe-refactor-bench.task.id": c.Decl.Task,
		"org.swe-refactor-bench.mode": c.Mode}
	for k, v := range c.Labels {
		labels[k] = v
	}
	c.logf("%s: starting a container of %s (%.19s), no network", c.Mode, c.Image.Tag, c.Image.Ref)
	limits := c.Limits
	if limits == (engine.Limits{}) {
		limits = engine.DefaultLimits
	}
	// CAP_SYS_PTRACE for the container's root: the helper's process init
	// traces each build (ladder/proc, Spec.TraceExecs) and reads
	// /proc/<pid>/exe of the submission's processes, which run as another
	// user. It widens nothing the submission can do: its processes drop to
	// that user (no capabilities left after setuid and exec), and
	// no-new-privileges keeps any setuid or file-capability program in the
	// image from giving one back.
	es := engine.Spec{Image: c.Image.Ref, Copies: copies, ReadOnly: ro, Labels: labels, WorkDir: WorkPath,
		CapAdd: []string{"SYS_PTRACE"}, NoNewPrivileges: true}
	limits.Apply(&es)
	s, err := c.Engine.Start(ctx, es)
	if err != nil {
		return nil, fmt.Errorf("%s image: %w", stage, err)
	}
	defer s.Close(ctx)
	// The counters before the suite: a memory limit reached while it runs
	// is told from the container's counters growing (memoryLimitKills).
	before, berr := s.LimitHits(ctx)
	if c.Started != nil {
		c.Started(s)
	}
	res, xerr := s.Exec(ctx, engine.ExecSpec{Argv: []string{HelperPath, "suite"}, Env: []string{kinds.EnvSuiteSpec + "=" + SpecPath},
		Timeout: c.Budget + time.Minute, MaxOutput: 1 << 20})
	// Whatever happened, what the suite wrote comes out before Close.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if res != nil {
		for _, line := range strings.Split(strings.TrimSpace(string(res.Stderr)), "\n") {
			if line != "" {
				c.logf("%s", strings.TrimPrefix(line, "srb-helper: "))
			}
		}
	}
	copied := filepath.Join(tmp, "results")
	cerr := s.CopyOut(octx, ResultsPath, copied)
	c.copyModules(octx, s, tmp)
	st, rerr := result.ReadStage(filepath.Join(copied, result.StageBehavioural+".json"))
	var fault, oom, oomProcs string
	switch {
	case xerr != nil:
		fault = fmt.Sprintf("the suite was stopped: %v", xerr)
	case res.TimedOut:
		fault = fmt.Sprintf("the helper did not finish within the stage's %s budget and a minute; it was killed", c.Budget)
	case res.ExitCode == 0:
		// The helper finished, but the OOM killer may have chosen the
		// submission's processes rather than the helper (which it cannot
		// be kept from where the container's root lacks
		// CAP_SYS_RESOURCE): the limit was reached all the same, and the
		// result says so as --host's does (recordHostLimits).
		if n := memoryLimitKills(octx, s, before, berr, limits.Memory); n > 0 {
			oomProcs = fmt.Sprintf("the stage container reached its memory limit (%d MiB, the task's limits.memory_mib) and the kernel's OOM killer killed %d of the submission's processes: "+
				"the checks of what they ran failed, as a program that runs out of memory fails; every module ran", limits.Memory>>20, n)
		}
	case res.ExitCode == 70:
		fault = "the helper could not run the suite (exit 70)"
	case res.ExitCode == 126 || res.ExitCode == 127:
		fault = fmt.Sprintf("the image cannot run its helper %s (exit %d)", HelperPath, res.ExitCode)
	case res.ExitCode == 137 && memoryLimitKills(octx, s, before, berr, limits.Memory) > 0:
		oom = fmt.Sprintf("the stage container reached its memory limit (%d MiB, the task's limits.memory_mib) and the kernel's OOM killer killed srb's helper (exit 137) mid-suite: "+
			"what the submission's processes held filled the container, so the modules not reached score zero, as a program that runs out of memory fails", limits.Memory>>20)
	default:
		fault = fmt.Sprintf("the container ended mid-suite (exit %d: killed, or the helper crashed)", res.ExitCode)
	}
	if rerr != nil {
		why := fault
		if why == "" {
			why = oom
		}
		if why == "" {
			why = "the helper exited 0"
		}
		if cerr != nil {
			rerr = cerr
		}
		return nil, fmt.Errorf("%w: %s, and no stage result could be read from it: %v", ErrContainerFault, why, rerr)
	}
	st.Metadata["where"] = "container"
	RecordLimits(octx, st, s, limits)
	st.Metadata["image"] = map[string]any{"stage": stage, "tag": c.Image.Tag, "id": c.Image.Ref, "digest": c.Image.Digest}
	st.Metadata["repo"] = c.Repo
	if c.Modules != "" {
		for i := range st.Units {
			if p := filepath.Join(c.Modules, st.Units[i].ID, "stdout.log"); fileExists(p) {
				st.Units[i].Metadata["log"] = p
			}
		}
	}
	if oom != "" {
		// The submission's failure, not the grader's: the stage ran and
		// its status stays the helper's; the modules that finished are
		// kept and the rest stay unreached, which scoring charges.
		done, unreached := countUnits(st)
		reason := fmt.Sprintf("%s; the %d module(s) that finished are kept, %d are unreached", oom, done, unreached)
		st.Metadata["memory_limit_killed"] = reason
		st.Note(reason)
		c.logf("%s", reason)
	}
	if oomProcs != "" {
		st.Metadata["memory_limit_killed"] = oomProcs
		st.Note(oomProcs)
		c.logf("%s", oomProcs)
	}
	if fault != "" {
		done, unreached := countUnits(st)
		reason := fmt.Sprintf("%s: the %d module(s) that finished are kept, %d are unreached", fault, done, unreached)
		if st.Status == result.StatusOK {
			st.Status = result.StatusError
		}
		st.Metadata["error"] = reason
		st.Note(reason)
	}
	if err := st.Write(c.Result); err != nil {
		return st, err
	}
	if fault != "" {
		return st, fmt.Errorf("%w: %s", ErrContainerFault, fault)
	}
	return st, nil
}

// countUnits counts st's modules that finished and those unreached.
func countUnits(st *result.Stage) (done, unreached int) {
	for _, u := range st.Units {
		if u.Status == result.UnitUnreached {
			unreached++
		} else {
			done++
		}
	}
	return done, unreached
}

// memoryLimitKills says whether the OOM killer killed in the container at
// its own memory limit (limit bytes), and so, for a helper killed by
// SIGKILL (exit 137), whether that was the OOM killer: an OOM kill in the container since before (the counters
// read before the suite started; berr its error), and, where the cgroup
// says so, the container's memory peak at that limit.
//
// Such a kill is the submission's doing, never a fault of the grader.
// Docker drops CAP_SYS_RESOURCE, so nothing in the container can be
// exempted from the OOM killer (ladder/proc's init tries, and cannot
// here), and the killer chooses the largest process of the container,
// which is the helper (a Go program of tens of MB) whenever the
// submission spreads its memory over many small processes: a submission
// could otherwise turn its own zero into an invalid verdict at will.
//
// Could the grader's own memory be what reached the limit? Inside the
// container, the helper and its process init are charged to the same
// limit as the submission; srb build's identity run runs the same helper
// over the same suite on State A in containers with the task's memory
// and pids limits (suite.Images.Limits), so the grader's own use on the
// reference tree is shown to fit, and whatever more it uses on the
// submission's tree (more output to keep, a larger tree, more builds to
// trace) is what the submission made it do: a port that needs more
// memory than the task allows fails, as it would without srb. Outside
// the container, srb and the engine are charged to other cgroups and
// cannot fill this one. The one grader-side cause left is the host
// itself out of memory: its OOM killer may choose the helper too, and
// the container's OOM count grows just the same; so where the cgroup can
// be read, the kill counts only when the container's memory peak also
// reached its own limit (within cgroup.MemoryLimitSlack: a charge refused
// at the limit can leave the peak a batch of pages under it; the rule is
// engine.LimitHits.OOMAtLimit, which engine.Local applies too). A container
// at its limit when the host also ran out is still the submission's: it
// had filled what the task gives it. Where the peak cannot be read (a
// remote engine, cgroup v2 before Linux 5.19), the OOM kill alone
// decides, and where the kill count cannot be read either, the engine's
// OOMKilled flag newly set (Docker sets it from the OOM events of the
// container's own memory cgroup). A SIGKILL without an OOM kill (srb
// stopping the container, an operator, the engine) stays a fault of the
// grader, as does every other way the helper can end early, and so does
// a kill whose counters cannot be read at all.
//
// It returns how many processes the OOM killer killed at the limit since
// before (1 when a kill is known but the count cannot be read), 0 for none.
func memoryLimitKills(ctx context.Context, s *engine.Session, before engine.LimitHits, berr error, limit int64) int64 {
	after, err := s.LimitHits(ctx)
	if err != nil {
		return 0
	}
	if berr != nil {
		// Read before anything ran in the container: nothing had been
		// killed yet, unless the counters are unknown.
		before = engine.LimitHits{OOMKills: min(after.OOMKills, 0), MemoryPeak: -1, PidsMax: min(after.PidsMax, 0)}
	}
	if !after.OOMAtLimit(before, limit) {
		return 0
	}
	if after.OOMKills >= 0 && before.OOMKills >= 0 {
		return after.OOMKills - before.OOMKills
	}
	return 1
}

// copyModules copies each module's result.json and stdout.log out to
// c.Modules (each within ModuleLogCopyLimit, else left out with a line),
// and the whole work folder to c.Work, when asked.
func (c *Container) copyModules(ctx context.Context, s *engine.Session, tmp string) {
	if c.Work != "" {
		if err := s.CopyOut(ctx, WorkPath, c.Work); err != nil {
			c.logf("copying the work folder out: %v", err)
		}
	}
	if c.Modules == "" {
		return
	}
	for _, m := range c.Decl.Modules {
		for _, f := range []string{"result.json", "stdout.log"} {
			dst := filepath.Join(c.Modules, m.ID, f)
			// Bounded: the log can hold what the submission printed.
			_, err := s.CopyOutBounded(ctx, WorkPath+"/"+m.ID+"/"+f, dst, engine.CopyBounds{MaxBytes: ModuleLogCopyLimit, MaxStreamBytes: ModuleLogCopyLimit, MaxEntries: 1})
			if err != nil && !errors.Is(err, engine.ErrNoPath) {
				c.logf("module %s: copying %s out: %v", m.ID, f, err)
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// ModuleLogCopyLimit bounds each file copied out of the behavioural
// container for a module (its stdout.log, its result.json): 64 MiB. A
// module's log can hold what the submission's program printed, so a copy
// past it is left out, with a line saying so, never written in full into
// the results folder.
const ModuleLogCopyLimit = 64 << 20

// RecordLimits writes into st's metadata "limits" the bounds l the stage
// container ran with and what of them s reached (engine.LimitHits), and a
// note when one was reached. A container whose counters cannot be read
// records the bounds and limits_error.
func RecordLimits(ctx context.Context, st *result.Stage, s *engine.Session, l engine.Limits) {
	m := l.Map()
	hits, err := s.LimitHits(ctx)
	if err != nil {
		m["limits_error"] = err.Error()
	} else {
		for k, v := range hits.Map() {
			m[k] = v
		}
		if n := hits.Note(); n != "" {
			st.Note(n)
		}
	}
	st.Metadata["limits"] = m
}
