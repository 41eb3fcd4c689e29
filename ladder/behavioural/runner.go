package behavioural

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/proc"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// DefaultGrace is how long a module's processes have between SIGTERM and
// SIGKILL when its deadline passes (HARNESS.md §4.2, reap_group). The
// module runs contained by ladder/proc, srb's one reaper, which ends every
// process it started, setsid and double-forked ones included, before its
// result is read.
const DefaultGrace = 5 * time.Second

// Module is one module of a suite, as the runner sees it: a command run in
// Dir with the contract environment.
type Module struct {
	// ID names the module: its unit id, its work folder and the prefix of
	// its check ids. It never contains '/' and never starts with '.'.
	ID    string
	Title string
	// Weight is the module's relative share of the stage (≥ 0).
	Weight float64
	// Timeout is the module's own budget; the stage's context deadline
	// shortens it when that comes first.
	Timeout time.Duration
	// About is one sentence for the report (unit metadata "about").
	About string
	// Dir is $SRB_MODULE_DIR and the command's working directory.
	Dir string
	// Command is the program and its arguments; no shell.
	Command []string
	// Env is set on top of the inherited environment and the suite's.
	Env map[string]string
	// Metadata is copied into the unit's metadata.
	Metadata map[string]any
}

// Suite is an ordered list of modules and what they share.
type Suite struct {
	// Task is the task id written into the stage result.
	Task string
	// Dir is $SRB_SUITE_DIR: the task folder inside the stage.
	Dir string
	// Env is set for every module (task-declared variables).
	Env     map[string]string
	Modules []Module
}

// Runner runs a suite against one tree.
type Runner struct {
	// Repo is $SRB_REPO: the tree under test (the submission, or State A
	// in record and the identity run).
	Repo string
	// Original is $SRB_ORIGINAL (State A), or "" when not given; the
	// variable is then not set at all.
	Original string
	// Work is the stage's scratch folder: <Work>/<module id> is each
	// module's $SRB_WORK and <Work>/shared is $SRB_SUITE_WORK.
	Work string
	// ResultPath is where the stage result is written after seeding and
	// after every module (atomically); "" writes nothing.
	ResultPath string
	// Grace is the time between SIGTERM and SIGKILL when reaping a
	// module's process group (default [DefaultGrace]).
	Grace time.Duration
	// Now is the clock of started_at (default time.Now); module deadlines
	// always use the monotonic clock the runner waits on.
	Now func() time.Time
	// BaseEnv is the inherited environment (default: the names
	// [AllowedEnv] keeps from os.Environ(); a caller that sets it is
	// trusted with what it passes).
	BaseEnv []string
	// Jail, when set, is the sandbox the suite's plans run the tree under
	// test in (Declaration.Jail): the stage records its isolation level
	// and, at a module's deadline, whether the submission's user was
	// still running (its timeout) or only the grader's processes were (a
	// harness fault).
	Jail *Jail
	// Log receives one line per module, or nil.
	Log func(format string, args ...any)
	// Orchestrator is the fingerprint of the srb this runner grades for
	// when it is not that srb itself (srb's in-image helper running the
	// suite inside the behavioural image), or "". The stage result's
	// harness stamp records it next to this program's own fingerprint
	// (result.Stamp), so the stage is attributed to that srb build.
	Orchestrator string
}

// LogTailBytes is how much of a module's log an error carries.
const LogTailBytes = 1500

// Unreached is the summary of a seeded module the stage never reached.
const Unreached = "the stage ended before this module was reached; it recorded nothing and keeps its weight"

// SharedWork is the name of $SRB_SUITE_WORK inside the runner's work folder.
const SharedWork = "shared"

// Run runs every module of s in declared order and returns the stage
// result (never nil). Every module is seeded "unreached" first; after
// seeding and after each module the result is written to r.ResultPath.
// When ctx ends, the running module is reaped and marked (with whatever it
// recorded), the rest stay unreached, and Run returns ctx's error beside
// the result. A failed checkpoint write is returned as well, after the
// suite has run.
func (r *Runner) Run(ctx context.Context, s *Suite) (*result.Stage, error) {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	start := time.Now()
	st := result.NewOrchestratedStage(result.StageBehavioural, s.Task, r.Orchestrator, now())
	for _, m := range s.Modules {
		st.Units = append(st.Units, result.Unit{
			ID: m.ID, Title: titleOf(m), Weight: m.Weight, Status: result.UnitUnreached,
			Summary: Unreached, Metadata: map[string]any{"about": m.About},
		})
	}
	var writeErr error
	// checkpoint writes the stage result so far. Between modules it is a
	// checkpoint (atomic, not synced: a crash loses at most the last one,
	// and the stage is then re-run), encoded at once and written in the
	// background, so the next module does not wait on its write and
	// rename (a checkpoint not yet written when the next comes is
	// replaced by it); the last write of every path (final) waits for
	// the checkpoints before it and is synced, so what the stage
	// published survives a crash.
	cw := newCheckpointWriter(r.ResultPath, func(err error) {
		writeErr = err
		r.logf("checkpoint: %v", err)
	})
	defer cw.close()
	checkpoint := func(final bool) {
		st.DurationSec = time.Since(start).Seconds()
		r.summarise(st)
		if r.ResultPath == "" {
			return
		}
		if !final {
			data, err := st.CheckpointBytes()
			if err != nil {
				writeErr = err
				r.logf("checkpoint: %v", err)
				return
			}
			cw.put(data)
			return
		}
		cw.flush()
		if err := st.Write(r.ResultPath); err != nil {
			writeErr = err
			r.logf("checkpoint: %v", err)
		}
	}
	if info, err := os.Stat(r.Repo); err != nil || !info.IsDir() {
		reason := fmt.Sprintf("no submission at %s", r.Repo)
		st.Status = result.StatusError
		st.Metadata["error"] = reason
		st.Note(reason)
		checkpoint(true)
		return st, writeErr
	}
	st.Metadata["isolation"] = r.Jail.Level()
	st.Metadata["network"] = r.Jail.Network()
	if r.Jail != nil && r.Jail.NProc > 0 {
		st.Metadata["process_limit"] = r.Jail.NProc
	}
	if err := os.MkdirAll(filepath.Join(r.Work, SharedWork), 0o700); err != nil {
		reason := fmt.Sprintf("behavioural: the work folder cannot be made: %v", err)
		st.Status = result.StatusError
		st.Metadata["error"] = reason
		st.Note(reason)
		checkpoint(true)
		return st, writeErr
	}
	for _, p := range []string{r.Work, filepath.Join(r.Work, SharedWork)} {
		_ = os.Chmod(p, 0o700) // the grader's: plans, results, the ledger
	}
	checkpoint(false)
	// Each module runs in a process init of its own, started while the
	// module before it runs ([proc.Server], used once): its start (a Go
	// program's, a few milliseconds) is not on the suite's path.
	next := prestartInit()
	defer func() {
		if next != nil {
			go func(ch <-chan *proc.Server) {
				if sv := <-ch; sv != nil {
					sv.Close()
				}
			}(next)
		}
	}()
	for i, m := range s.Modules {
		if ctx.Err() != nil {
			break
		}
		sv := <-next
		next = nil
		started := func() {
			if i+1 < len(s.Modules) {
				next = prestartInit()
			}
		}
		unit, checks := r.runModule(ctx, s, m, sv, started)
		if next == nil {
			started() // the module did not start
		}
		if sv != nil {
			// Every process of the module is gone (its report said so):
			// the init's own end, and its namespaces', need not be
			// waited for.
			go sv.Close()
		}
		st.Units[i] = unit // in place: declared order kept (bug 58)
		st.Checks = append(st.Checks, checks...)
		MarkTruthGaps(st, unit)
		r.logf("module %s: %s, %d check(s)", m.ID, unit.Status, len(checks))
		if unit.Metadata[metaStageClock] == true {
			delete(unit.Metadata, metaStageClock)
			st.Units[i] = unit
			harnessFault(st, "the stage's clock (timeouts.behavioural) ran out: nothing that did not finish is charged to the submission")
			checkpoint(true)
			return st, fmt.Errorf("behavioural: stopped: %w: %w", ErrHarnessFault, context.DeadlineExceeded)
		}
		if why, ok := unit.Metadata[MetaHarnessFault].(string); ok && why != "" {
			harnessFault(st, fmt.Sprintf("module %s: %s", m.ID, why))
			checkpoint(true)
			return st, fmt.Errorf("behavioural: %w: module %s: %s", ErrHarnessFault, m.ID, why)
		}
		checkpoint(false)
	}
	if err := ctx.Err(); err != nil {
		why := "the stage was interrupted (a signal to srb, or its caller gave up)"
		if errors.Is(err, context.DeadlineExceeded) {
			why = "the stage's clock (timeouts.behavioural) ran out"
		}
		harnessFault(st, why+": nothing that did not finish is charged to the submission")
		checkpoint(true)
		return st, fmt.Errorf("behavioural: stopped: %w: %w", ErrHarnessFault, err)
	}
	checkpoint(true)
	return st, writeErr
}

// checkpointWriter writes a runner's checkpoints in the background, in
// order, each replaced by the next when that comes before it was
// written.
type checkpointWriter struct {
	path   string
	fail   func(error) // called on the runner's goroutine, from flush
	mu     sync.Mutex
	cond   *sync.Cond
	next   []byte // waiting to be written
	busy   bool   // a write is under way
	err    error
	closed bool
}

func newCheckpointWriter(path string, fail func(error)) *checkpointWriter {
	w := &checkpointWriter{path: path, fail: fail}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// put hands data over to be written.
func (w *checkpointWriter) put(data []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = data
	if !w.busy {
		w.busy = true
		go w.loop()
	}
}

func (w *checkpointWriter) loop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.next != nil {
		data := w.next
		w.next = nil
		w.mu.Unlock()
		err := result.WriteCheckpointBytes(w.path, data)
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
	}
	w.busy = false
	w.cond.Broadcast()
}

// flush waits until every checkpoint handed over is written and reports
// the first error (once).
func (w *checkpointWriter) flush() {
	w.mu.Lock()
	for w.busy {
		w.cond.Wait()
	}
	err := w.err
	w.err = nil
	w.mu.Unlock()
	if err != nil {
		w.fail(err)
	}
}

// close waits for the writes under way: none outlives Run.
func (w *checkpointWriter) close() {
	w.mu.Lock()
	for w.busy {
		w.cond.Wait()
	}
	w.mu.Unlock()
}

// metaStageClock marks, between runModule and Run, a module the stage's
// clock stopped.
const metaStageClock = "stopped_by_stage_clock"

// The runner wraps [ErrHarnessFault] (freeze.go) when the stage ended in a
// fault of the grader (an interrupt, the stage clock, a module that hangs
// whatever the submission does, a sandbox that could not be entered): the
// stage result then has status error and metadata harness_fault, so the
// verdict is invalid and nothing is charged to the submission.

// harnessFault marks st as ended by a fault of the grader: status error,
// metadata error and harness_fault set to why, and a note.
func harnessFault(st *result.Stage, why string) {
	st.Status = result.StatusError
	st.Metadata["error"] = "harness fault: " + why
	st.Metadata[MetaHarnessFault] = why
	st.Note("harness fault: " + why)
}

func titleOf(m Module) string {
	if m.Title != "" {
		return m.Title
	}
	return m.ID
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(format, args...)
	}
}

// summarise refreshes the stage metadata the earlier harness wrote at
// every checkpoint (HARNESS.md §3.6).
func (r *Runner) summarise(st *result.Stage) {
	ok, unreached := 0, 0
	for _, u := range st.Units {
		switch u.Status {
		case result.UnitOK:
			ok++
		case result.UnitUnreached:
			unreached++
		}
	}
	passed := 0
	for _, c := range st.Checks {
		if c.OK() {
			passed++
		}
	}
	st.Metadata["modules"] = len(st.Units)
	st.Metadata["modules_ok"] = ok
	st.Metadata["modules_unreached"] = unreached
	st.Metadata["checks"] = len(st.Checks)
	st.Metadata["checks_passed"] = passed
	st.Metadata["repo"] = r.Repo
}

// ModuleWork returns $SRB_WORK of module id under work.
func ModuleWork(work, id string) string { return filepath.Join(work, id) }

// prestartInit starts a process init for a module ahead of it; it
// yields nil when none could be made (the module then starts its own).
func prestartInit() <-chan *proc.Server {
	ch := make(chan *proc.Server, 1)
	go func() {
		sv, err := proc.NewServer()
		if err != nil {
			sv = nil
		}
		ch <- sv
	}()
	return ch
}

// runModule runs one module and returns its unit and collected checks;
// sv, when set, is the idle process init it runs in (used once), else
// it starts one; started is called once its command runs.
func (r *Runner) runModule(ctx context.Context, s *Suite, m Module, sv *proc.Server, started func()) (result.Unit, []result.Check) {
	u := result.Unit{ID: m.ID, Title: titleOf(m), Weight: m.Weight, Status: result.UnitError, Metadata: map[string]any{"about": m.About}}
	for k, v := range m.Metadata {
		u.Metadata[k] = v
	}
	began := time.Now()
	defer func() {
		d := time.Since(began).Seconds()
		u.DurationSec = &d
	}()
	if info, err := os.Stat(m.Dir); err != nil || !info.IsDir() {
		u.Summary = fmt.Sprintf("module directory %s does not exist", m.Dir)
		return u, nil
	}
	if len(m.Command) == 0 {
		u.Summary = "the module declares no command"
		return u, nil
	}
	work := ModuleWork(r.Work, m.ID)
	if err := os.MkdirAll(work, 0o700); err != nil {
		u.Summary = fmt.Sprintf("its work folder cannot be made: %v", err)
		return u, nil
	}
	resultPath := filepath.Join(work, "result.json")
	logPath := filepath.Join(work, "stdout.log")
	_ = os.Remove(resultPath)
	logFile, err := os.Create(logPath)
	if err != nil {
		u.Summary = fmt.Sprintf("its log cannot be made: %v", err)
		return u, nil
	}
	defer logFile.Close()
	u.Metadata["log"] = logPath

	// One clock reading: the deadline the module is told is the one the
	// runner enforces (bug 59).
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 900 * time.Second
	}
	t0 := time.Now()
	deadline := t0.Add(timeout)
	stageClock := false // the stage's deadline comes first: its clock, not the module's budget
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
		timeout = d.Sub(t0)
		stageClock = true
	}
	env := r.BaseEnv
	if env == nil {
		// An allow-list: no credential or other grader secret reaches
		// any stage-2 process, whatever its name.
		env = AllowedEnv(os.Environ())
	}
	lcAll := "C.UTF-8"
	for _, kv := range env {
		if len(kv) > 7 && kv[:7] == "LC_ALL=" && kv[7:] != "" {
			lcAll = kv[7:]
		}
	}
	extra := []string{"TZ=UTC", "LC_ALL=" + lcAll}
	for _, k := range sortedKeys(s.Env) {
		extra = append(extra, k+"="+s.Env[k])
	}
	for _, k := range sortedKeys(m.Env) {
		extra = append(extra, k+"="+m.Env[k])
	}
	extra = append(extra,
		EnvRepo+"="+r.Repo,
		EnvModuleDir+"="+m.Dir,
		EnvModuleID+"="+m.ID,
		EnvSuiteDir+"="+s.Dir,
		EnvWork+"="+work,
		EnvSuiteWork+"="+filepath.Join(r.Work, SharedWork),
		EnvResult+"="+resultPath,
		EnvModuleTimeout+"="+strconv.FormatFloat(timeout.Seconds(), 'g', 6, 64),
		EnvModuleDeadline+"="+strconv.FormatFloat(float64(deadline.UnixNano())/1e9, 'f', 3, 64),
	)
	if r.Original != "" {
		extra = append(extra, EnvOriginal+"="+r.Original)
	}
	env = SubmissionEnv(env) // the contract names come only from this run
	env = mergeEnv(env, extra...)

	cmd := exec.Command(m.Command[0], m.Command[1:]...)
	cmd.Dir = m.Dir
	cmd.Env = env
	cmd.Stdin = nil
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	spec, err := proc.CmdSpec(cmd)
	var p *proc.Process
	if err == nil && sv != nil {
		p, err = sv.Start(spec)
		if errors.Is(err, proc.ErrNotServed) || errors.Is(err, proc.ErrServerGone) {
			p, err = proc.Start(spec)
		}
	} else if err == nil {
		p, err = proc.Start(spec)
	}
	if err != nil {
		u.Summary = fmt.Sprintf("the module could not start: %v", err)
		return u, nil
	}
	started()

	grace := r.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	timedOut, stopped := false, false
	var reaped []string
	submissionRan, lateOwnEnd := false, false
	select {
	case <-p.Done():
	case <-timer.C:
		if stageClock {
			stopped = true
			reaped = p.Terminate(grace)
			break
		}
		submissionRan = r.Jail != nil && p.RunsAs(r.Jail.UID)
		if r.Jail != nil && !submissionRan {
			// srb's helper cuts the submission's processes short of the
			// deadline and then writes a timeout result; on a loaded
			// machine ending them can outlast the deadline, so no
			// process of the submission is left to see. A module that
			// ends on its own within the grace is read below: only a
			// timeout it reports (the helper's cut) is the submission's.
			select {
			case <-p.Done():
				lateOwnEnd = true
			case <-ctx.Done():
				stopped = true
				reaped = p.Terminate(grace)
			case <-time.After(grace):
			}
			if lateOwnEnd || stopped {
				break
			}
		}
		timedOut = true
		reaped = p.Terminate(grace)
	case <-ctx.Done():
		stopped = true
		reaped = p.Terminate(grace)
	}
	// Whatever the module left running, setsid and double-forked
	// processes included, is gone before its result is read (bugs 60,
	// 94, 95): Wait returns only then.
	exit := p.Wait()
	if len(reaped) > 0 || exit.Leftovers != 0 {
		u.Metadata["reaped_process_group"] = true
	}
	exitCode, sig := exitStatus(exit)
	u.Metadata["exit_code"] = exitCode
	if sig != 0 {
		u.Metadata["signal"] = sig.String()
	}

	var mr result.ModuleResult
	data, rerr := readOwnResult(resultPath)
	switch {
	case rerr != nil:
		mr = result.ModuleResult{Metadata: map[string]any{}}
		if !errors.Is(rerr, os.ErrNotExist) {
			mr.Metadata["result_error"] = rerr.Error()
		}
	default:
		mr, _ = result.ParseModuleResult(m.ID, data)
	}
	checks := mr.Checks
	unscored, _ := mr.Metadata["unscored_observations"].(int)
	if stageClock && !stopped && (timedOut || mr.Status == result.UnitTimeout) {
		// The module stopped at its deadline, which was the stage's
		// clock's: the helper stops short of it (a build is cut at it) and
		// says "timeout", so it ended just before the runner's timer.
		stopped = true
	}
	switch {
	case stopped:
		// Interrupted, or the stage's clock: the grader's fault, never a
		// verdict on the module.
		u.Status = result.UnitError
		u.Summary = "stopped with the stage (a harness fault): it decides nothing"
		if stageClock {
			u.Metadata[metaStageClock] = true
		}
		return u, nil
	case (timedOut && r.Jail != nil && !submissionRan) || (lateOwnEnd && mr.Status != result.UnitTimeout):
		// Only the grader's own processes were running when the module's
		// budget ran out: it hangs whatever the submission does.
		u.Status = result.UnitError
		u.Summary = fmt.Sprintf("exceeded its %ss budget while no process of the submission was running: the module hangs on its own (a harness fault)",
			strconv.FormatFloat(timeout.Seconds(), 'g', 6, 64))
		u.Metadata[MetaHarnessFault] = u.Summary
		return u, nil
	case exit.Err != nil && !timedOut:
		// The module's init did not give one honest report (something
		// wrote on its channel, or killed it): what the module ended with
		// is unknown, so its result is never counted (issue 14).
		u.Status = result.UnitError
		u.Summary = fmt.Sprintf("its end could not be observed (%v): its result is never counted", exit.Err) + logTail(logPath)
		return u, nil
	case sig != 0 && !timedOut:
		// A result counts only from a module that ended normally: one
		// killed by a signal (by itself, or by what it ran) may have been
		// handed any result (issue 14).
		u.Status = result.UnitError
		u.Summary = fmt.Sprintf("killed by signal %d (%s): a killed module's result is never counted", int(sig), signalName(sig)) + logTail(logPath)
		return u, nil
	case mr.Metadata["result_error"] != nil && rerr != nil && !errors.Is(rerr, os.ErrNotExist):
		u.Status = result.UnitError
		u.Summary = fmt.Sprintf("its result is not srb's to count: %v", rerr)
		return u, nil
	case timedOut:
		u.Status = result.UnitTimeout
		what := fmt.Sprintf("exceeded its %ss budget", strconv.FormatFloat(timeout.Seconds(), 'g', 6, 64))
		if len(checks) > 0 {
			u.Summary = fmt.Sprintf("%s; %d check(s) were recorded before the deadline", what, len(checks))
		} else {
			u.Summary = what + " and recorded nothing"
		}
	case len(checks) == 0 && unscored == 0:
		// A module whose rows were all observations (weight 0) did
		// report: it is ok and decides nothing. Only a module that
		// reported nothing at all is an error.
		u.Status = result.UnitError
		cause := fmt.Sprintf("wrote no checks (exit %d)", exitCode)
		switch {
		case mr.Metadata["result_error"] != nil:
			cause = fmt.Sprintf("wrote an unusable result (exit %d): %v", exitCode, mr.Metadata["result_error"])
		case sig != 0:
			cause = fmt.Sprintf("killed by signal %d (%s) and wrote no checks", int(sig), signalName(sig))
		case exitCode == 0:
			cause = "exited successfully and wrote no checks"
		}
		u.Summary = cause + logTail(logPath)
	default:
		u.Status = result.UnitOK
	}
	mr.Apply(&u)
	return u, checks
}

// exitStatus returns a module's exit code (-signal when a signal ended
// it, -1 when it never reported one) and the signal.
func exitStatus(e proc.Exit) (int, syscall.Signal) {
	if e.Signal != 0 {
		return -int(e.Signal), e.Signal
	}
	return e.Code, 0
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGKILL: "SIGKILL",
		syscall.SIGTERM: "SIGTERM", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGILL: "SIGILL", syscall.SIGINT: "SIGINT", syscall.SIGPIPE: "SIGPIPE",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return s.String()
}

// logTail returns "; last output:\n<up to LogTailBytes of the log>", or ""
// for an empty log.
func logTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return ""
	}
	off := info.Size() - LogTailBytes
	if off < 0 {
		off = 0
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, LogTailBytes))
	return "; last output:\n" + string(b)
}

// readOwnResult reads a module's result file, refusing one that is not
// the module's own: a symbolic link, a file with other links, or one
// owned by another user than this runner's (the submission's user cannot
// write into the module's folder; a file it owns there came from
// elsewhere), or one that changed while it was read.
func readOwnResult(path string) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, before.Mode().Type())
	}
	if sys, ok := before.Sys().(*syscall.Stat_t); ok {
		if int(sys.Uid) != os.Geteuid() {
			return nil, fmt.Errorf("%s is owned by uid %d, not by the grader (uid %d): it was written from elsewhere", path, sys.Uid, os.Geteuid())
		}
		if sys.Nlink != 1 {
			return nil, fmt.Errorf("%s has %d links: it was written from elsewhere", path, sys.Nlink)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	after, err := os.Lstat(path)
	if err != nil || !os.SameFile(before, after) || after.Size() != int64(len(data)) || !after.ModTime().Equal(before.ModTime()) {
		return nil, fmt.Errorf("%s changed while srb read it", path)
	}
	return data, nil
}
