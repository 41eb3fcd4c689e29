package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/hostuser"
	"github.com/swe-refactor-bench/srb/ladder/internal/py"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/scoring"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// BehaviouralOptions are one run of stage 2.
type BehaviouralOptions struct {
	// Submission is the collected submission's tree.
	Submission string
	// Results is the results folder: behavioural.json, and each module's
	// result.json and stdout.log under behavioural/<module>/ for an image
	// run.
	Results string
	// Original is State A's tree; "" is Task.StateA's.
	Original string
	// Host runs the suite on this machine (the host's toolchains, the
	// helper Helper) instead of in the task's behavioural image.
	Host bool
	// Helper is the argv prefix that runs the helper on a Host run (a
	// static srb-helper, or srb's own "helper" command).
	Helper []string
	// KeepWork keeps the work folder there (for an image run: copied out
	// of the container); "" works in a temporary folder.
	KeepWork string
	// Image, when set, is the image to run in instead of the task's
	// behavioural image.
	Image string
	// Started, when set, is given the stage's container session once it
	// runs (tests kill it mid-suite).
	Started func(*engine.Session)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Out receives a line per module and the gate's sentence; Log the
	// progress lines.
	Out, Log io.Writer
}

// Behavioural runs stage 2 on t: the task's modules build the submission
// and compare what it does with the truth recorded from State A, in a
// container of the task's behavioural image or, with Host, on this
// machine; behavioural.json is written after each module. Truth whose
// cases fingerprint differs from the task's is refused before anything
// runs ([pipeline.BadTask]). It returns nil when the stage ran, whatever the
// checks decided.
func Behavioural(ctx context.Context, t *Task, opts BehaviouralOptions) error {
	now := orNow(opts.Now)
	logw, outw := orDiscard(opts.Log), orDiscard(opts.Out)
	sr := newRun(result.StageBehavioural, t, opts.Results, now, logw)
	out, fail := sr.out, sr.fail
	// The sandbox and the work folder (and the trash in them: folders the
	// stage discarded, behavioural.Trash) are removed after the stage's
	// result is stamped and published, outside the stage's clock: a case
	// that left millions of files makes this slow, never the stage.
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()
	defer sr.stamp(t, opts.Image, opts.Host)()
	sub, err := filepath.Abs(opts.Submission)
	if st, serr := os.Stat(sub); err != nil || serr != nil || !st.IsDir() {
		return fail(pipeline.CouldNotRun, "submission not found at "+opts.Submission, nil)
	}
	decl, err := t.Declaration()
	if err != nil {
		return fail(pipeline.BadTask, err.Error(), map[string]any{"config_error": true})
	}
	if msgs := suite.CheckTruth(decl); len(msgs) > 0 {
		for _, m := range msgs {
			fmt.Fprintln(logw, m)
		}
		return fail(pipeline.BadTask, fmt.Sprintf("the truth of %d module(s) is missing or stale: run srb freeze %s", len(msgs), t.ID),
			map[string]any{"config_error": true})
	}
	origDir := opts.Original
	if origDir != "" {
		if origDir, err = filepath.Abs(origDir); err != nil {
			return fail(pipeline.CouldNotRun, err.Error(), nil)
		}
	} else {
		dir, cleanup, err := original(ctx, t, "")
		if err != nil {
			return fail(pipeline.CouldNotRun, "State A: "+err.Error(), nil)
		}
		defer cleanup()
		origDir = dir
	}
	if !opts.Host {
		return behaviouralInImage(ctx, t, opts, decl, sub, origDir, out, fail)
	}
	if len(opts.Helper) == 0 {
		return fail(pipeline.CouldNotRun, "no helper was given for a host run", nil)
	}
	work, done, err := WorkDir(opts.KeepWork, "srb-behavioural-")
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	cleanups = append(cleanups, done)
	// The task's limits bound the submission's processes together, as the
	// stage image's container does (its defaults too), when a cgroup can
	// be made here (as root; cgroup v2 only under SRB_HOST_CGROUP).
	limits := t.Limits
	if limits == (engine.Limits{}) {
		limits = engine.DefaultLimits
	}
	plan := cgroup.Here("")
	jail, closeJail, err := hostJail(decl, work, opts.Results, opts.Helper, plan, limits, logw)
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	cleanups = append(cleanups, closeJail)
	if jail == nil {
		fmt.Fprintln(logw, "srb: behavioural: --host as a user other than root cannot run the submission as another user: it can reach whatever srb's user can (recorded as isolation: none)")
	}
	if how, why := plan.How(); jail != nil && jail.Cgroup != nil {
		fmt.Fprintf(logw, "srb: behavioural: the submission's processes are bounded together by the task's limits (%d MiB, %d processes) in %s (%s)\n",
			limits.Memory>>20, limits.Pids, strings.Join(jail.Cgroup.Dirs, " "), how)
	} else if why != "" {
		fmt.Fprintf(logw, "srb: behavioural: --host does not bound the submission's processes by the task's limits.memory and limits.pids (%s): they could take this machine's memory\n", why)
	}
	decl.Jail = jail
	s, err := decl.Suite(behavioural.ModeCheck, work, filepath.Join(decl.TaskDir, behavioural.TruthDir), opts.Helper)
	if err != nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(t.BehaviouralTimeout)*time.Second)
	defer cancel()
	r := &behavioural.Runner{Repo: sub, Original: origDir, Work: work, ResultPath: out, Now: now, Jail: jail,
		Log: func(format string, args ...any) { fmt.Fprintf(logw, "srb: "+format+"\n", args...) }}
	st, err := r.Run(ctx, s)
	if st != nil {
		recordHostLimits(st, jail, plan, logw)
		recordHiddenPaths(st, jail)
		if werr := st.Write(out); werr != nil && err == nil {
			err = werr
		}
	}
	PrintBehavioural(outw, st, t, opts.Results)
	if err != nil {
		// An interrupt, the stage's clock, a module that hangs on its own,
		// a sandbox that could not be entered: the grader's fault, an
		// invalid stage (status error), never the submission's zero.
		return couldNotRun(err)
	}
	if st.Status != result.StatusOK {
		return &pipeline.Error{Code: pipeline.CouldNotRun, Err: errors.New("behavioural: the stage could not run"), Printed: true}
	}
	return nil
}

// behaviouralInImage runs the suite in a container of the task's
// behavioural image (or opts.Image) and writes out; fail writes a failed
// stage result when nothing ran.
func behaviouralInImage(ctx context.Context, t *Task, opts BehaviouralOptions, decl *behavioural.Declaration,
	sub, original, out string, fail func(int, string, map[string]any) error) error {
	logw, outw := orDiscard(opts.Log), orDiscard(opts.Out)
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "srb: "+format+"\n", args...) }
	if t.Images == nil {
		return fail(pipeline.CouldNotRun, "no stage images were given", nil)
	}
	eng, img, err := t.Images(ctx, result.StageBehavioural, opts.Image, logw)
	if err != nil {
		code, meta := imageFailure(err)
		return fail(code, err.Error(), meta)
	}
	budget := time.Duration(t.BehaviouralTimeout) * time.Second
	cs := &suite.Container{Engine: eng, Image: img, Decl: decl, Mode: behavioural.ModeCheck, Repo: sub, Original: original,
		Budget: budget, Result: out, Modules: filepath.Join(opts.Results, result.StageBehavioural), Log: logf, Started: opts.Started,
		Limits: t.Limits}
	if opts.KeepWork != "" {
		if cs.Work, err = filepath.Abs(opts.KeepWork); err != nil {
			return fail(pipeline.CouldNotRun, err.Error(), nil)
		}
	}
	st, err := cs.Run(ctx)
	if st == nil {
		return fail(pipeline.CouldNotRun, err.Error(), nil)
	}
	PrintBehavioural(outw, st, t, opts.Results)
	if err != nil {
		return &pipeline.Error{Code: pipeline.CouldNotRun, Err: fmt.Errorf("behavioural: %w", err)}
	}
	if st.Status != result.StatusOK {
		return &pipeline.Error{Code: pipeline.CouldNotRun, Err: errors.New("behavioural: the stage could not run"), Printed: true}
	}
	return nil
}

// PrintBehavioural prints on w one line per module of stage 2's result
// st (its status and checks passed, each failed weighted check under
// it) and the ladder's sentence on stage 2's gate, under t's policy. When
// stage 2 passed and the results folder holds stage 1's result, the
// sentence says what the verdict will: its points are paid when stage 1
// passed and uncredited when it did not (issue 16: stderr said "worth 40
// of 40" beside a table that said uncredited). Stage 1's reasons are not
// repeated: the audit printed them.
func PrintBehavioural(w io.Writer, st *result.Stage, t *Task, results string) {
	for _, u := range st.Units {
		passed, total := result.Pooled(st.ChecksOf(u.ID))
		line := fmt.Sprintf("%-12s %-9s %d/%d checks passed", u.ID, u.Status, passed, total)
		if u.Status != result.UnitOK && u.Summary != "" {
			line += " -- " + firstLine(u.Summary)
		}
		fmt.Fprintln(w, line)
		for _, c := range st.ChecksOf(u.ID) {
			if c.Weight > 0 && !c.OK() {
				fmt.Fprintf(w, "  %s %s: %s\n", c.Verdict, c.ID, c.Summary)
			}
		}
	}
	policy := t.Policy
	if policy.MaxScore == 0 {
		policy = scoring.Published()
	}
	reached, points, why := scoring.BehaviouralReachesGate(st, policy, "")
	if reached && results != "" {
		if audit, _ := pipeline.ReadStage(results, result.StageAudit, t.ID, false, time.Now()); audit != nil {
			worth := fmt.Sprintf("stage 2 passed every scored check, worth %s of %s points", py.FormatG(points), py.FormatG(policy.BehaviouralPoints))
			if ok, _ := scoring.AuditPassesGate(audit, policy, t.ID); ok {
				why = worth + ", paid: stage 1 passed every required gate"
			} else {
				why = worth + ", uncredited: stage 1 did not pass, so by policy stage 2 earns nothing"
			}
		}
	}
	fmt.Fprintln(w, why)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// WorkDir returns keep (made absolute and created) or a fresh temporary
// folder named with prefix, and what to call when done (which removes
// only the temporary folder).
func WorkDir(keep, prefix string) (string, func(), error) {
	if keep != "" {
		abs, err := filepath.Abs(keep)
		if err != nil {
			return "", nil, err
		}
		return abs, func() {}, os.MkdirAll(abs, 0o755)
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// hostJail makes the sandbox of a host run when the grader is root: a
// fresh folder under /tmp (searchable by every user, unlike a private
// TMPDIR) holding the task's data and a copy of the helper, with the
// grader's folders (the task folder, work, results, and TMPDIR when it is
// not /tmp) hidden from the submission's processes. It returns nil, and a
// no-op closer, when the grader is not root.
//
// As root, when plan (the cgroups this machine can make) allows, the jail
// carries a cgroup group of the stage run with limits' memory (swap
// included) and pids (behavioural.Jail.Cgroup), which every process of
// the submission joins; the closer removes it after the stage, once the
// processes are gone. A group that cannot be made where plan says it can
// is an error (the grader's).
func hostJail(decl *behavioural.Declaration, work, results string, helper []string, plan cgroup.Plan, limits engine.Limits, logw io.Writer) (*behavioural.Jail, func(), error) {
	if os.Geteuid() != 0 {
		return nil, func() {}, nil
	}
	root, err := os.MkdirTemp("/tmp", "srb-sandbox-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	done := func() { os.RemoveAll(root) }
	hide := []string{decl.TaskDir, work}
	if res, err := filepath.Abs(results); err == nil {
		hide = append(hide, res)
	}
	if tmp := os.TempDir(); filepath.Clean(tmp) != "/tmp" {
		hide = append(hide, tmp)
	}
	// A grader folder that holds the sandbox (a results folder given as
	// /) cannot be hidden without hiding the sandbox: it stays closed by
	// permissions only.
	hide = slices.DeleteFunc(hide, func(p string) bool {
		rel, err := filepath.Rel(p, root)
		return err == nil && !strings.HasPrefix(rel, "..")
	})
	// A user of its own per stage run: a ladder grades several
	// submissions at once on this machine, and no two may share a user
	// (one could signal, trace or write into the other's sandbox), nor
	// may an account or a running process have it
	// (hostuser.Draw, the rule of stage 3's trees and engine.Local).
	ids, err := hostuser.Draw(1)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	id := ids[0]
	// Closing the jail ends every process of its user (each ended with
	// its containment's init already; the sweep makes sure), so its cgroup
	// group is empty when removed, and removes what that user left in the
	// machine's shared temporary folders (/tmp, /var/tmp, /dev/shm, ...),
	// as stage 3's sessions do after each run: a stage-2 program's files
	// there outlived the ladder, so a submission could fill the disk or
	// memory for every later stage and submission
	// (TestHostJailClearsItsUserOnClose). Keys it left in the uid's
	// keyrings are not removed (docs/LADDER.md, known holes).
	var g *cgroup.Group
	done = func() {
		hostuser.Sweep(id)
		if err := g.Remove(); err != nil {
			fmt.Fprintf(logw, "srb: behavioural: %v\n", err)
		}
		hostuser.ClearShared(id)
		os.RemoveAll(root)
	}
	j, err := behavioural.NewJail(root, decl.TaskDir, id, id, true, hide)
	if err == nil {
		err = j.InstallHelper(helper)
	}
	if err == nil && plan.Why == "" {
		// One group for the stage run, as the image path has one
		// container: its processes together, whatever module or case
		// started them, within the task's limits.
		g, err = cgroup.New(plan, "behavioural", limits.Memory, limits.Pids)
		j.Cgroup = g
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	return j, done, nil
}

// recordHiddenPaths writes into st's metadata what --host's mount
// namespace leaves in sight of the submission's processes: the grader's
// folders (j.Hide) are each covered by an empty read-only tmpfs, and
// /proc/self/mountinfo lists every mount point, so their paths (never
// their contents) can be read there. "hidden_paths_visible" is true and a
// note says so; the stage image has no such covers (the grader's folders
// there are the image's fixed layout, closed by permissions). Where this
// falls short of the images is issue 14's "say so" rule (docs/LADDER.md,
// "The trust model": stage 2's --host jail).
func recordHiddenPaths(st *result.Stage, j *behavioural.Jail) {
	if j == nil || !j.Mount || len(j.Hide) == 0 {
		return
	}
	st.Metadata["hidden_paths_visible"] = true
	st.Note("--host: the grader's folders (the task, work and results folders) are empty to the submission's processes, but their paths can be read in /proc/self/mountinfo, where each empty cover is mounted; the stage image has no such paths")
}

// recordHostLimits writes into st's metadata how --host bounded the
// submission's processes: host_limits ("cgroup v1", "cgroup v2", or
// "none: <why>", as stage 3's --host records it), and, with a cgroup,
// "limits" as the stage image records its container's (the bounds and
// oom_killed, oom_kills, memory_peak, pids_max), memory_limit_killed when
// the OOM killer killed at the limit, and a note when a limit was hit.
func recordHostLimits(st *result.Stage, j *behavioural.Jail, plan cgroup.Plan, logw io.Writer) {
	how, why := plan.How()
	if how == "" || j == nil || j.Cgroup == nil {
		if why == "" {
			why = "no cgroup was made for the stage run"
		}
		st.Metadata["host_limits"] = "none: " + why
		st.Note("--host did not bound the submission's processes by the task's limits.memory and limits.pids (" + why + "): a process could take this machine's memory")
		return
	}
	st.Metadata["host_limits"] = how
	g := j.Cgroup
	c := g.Counts()
	h := engine.HitsOf(c)
	m := engine.Limits{Pids: g.PidsLimit, Memory: g.MemoryLimit}.Map()
	for k, v := range h.Map() {
		m[k] = v
	}
	st.Metadata["limits"] = m
	// The group was made for this stage run, so its counts started at 0.
	if c.OOMAtLimit(cgroup.Counts{}, g.MemoryLimit) {
		reason := fmt.Sprintf("the submission's processes reached the stage's memory limit (%d MiB, the task's limits.memory_mib) and the kernel's OOM killer killed %d of them: "+
			"the checks of what they ran failed, as a program that runs out of memory fails", g.MemoryLimit>>20, c.OOMKills)
		st.Metadata["memory_limit_killed"] = reason
		fmt.Fprintf(logw, "srb: behavioural: %s\n", reason)
	}
	if n := h.NoteOn("the submission's processes on --host"); n != "" {
		st.Note(n)
	}
}
