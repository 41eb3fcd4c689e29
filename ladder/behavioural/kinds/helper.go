package kinds

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// Main runs the helper with args (without the program name) and returns
// its exit code:
//
//	run [PLAN]                             run one declarative module ($SRB_PLAN)
//	jail                                   run a process of the submission in its sandbox ($SRB_JAIL_SPEC)
//	suite [SPEC]                           run a whole stage (a [SuiteSpec]; $SRB_SUITE_SPEC)
//	wrap --log L --tool T --root R --dir D -- ARG...   a provenance wrapper
//
// The exit code is advisory (the runner reads $SRB_RESULT): 0 when the
// module's checks all passed, 1 when some did not, 70 when it could not
// run at all.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: srb-helper run PLAN | suite SPEC | wrap --log L --tool T --root R --dir D -- ARG...")
		return 64
	}
	switch args[0] {
	case "run":
		switch {
		case len(args) == 2:
			return runPlan(args[1], stderr)
		case len(args) == 1 && os.Getenv(behavioural.EnvPlan) != "":
			return runPlan(os.Getenv(behavioural.EnvPlan), stderr)
		}
		fmt.Fprintln(stderr, "usage: srb-helper run [PLAN] (default $SRB_PLAN)")
		return 64
	case "jail":
		if len(args) != 1 {
			fmt.Fprintln(stderr, "usage: srb-helper jail (with $"+EnvJailSpec+")")
			return 64
		}
		return jailMain(stderr)
	case "wrap":
		return wrap(args[1:], stderr)
	case "suite":
		switch {
		case len(args) == 2:
			return runSuite(args[1], stderr)
		case len(args) == 1 && os.Getenv(EnvSuiteSpec) != "":
			return runSuite(os.Getenv(EnvSuiteSpec), stderr)
		}
		fmt.Fprintln(stderr, "usage: srb-helper suite [SPEC] (default $"+EnvSuiteSpec+")")
		return 64
	}
	fmt.Fprintf(stderr, "srb-helper: unknown command %q\n", args[0])
	return 64
}

// kind is one declarative module kind.
type kind interface {
	// observe runs the module and emits its observations in order.
	observe(m *module) error
}

// judge is implemented by kinds whose check mode does not compare with
// the truth (provenance judges the submission by its rules).
type judge interface {
	judgeCheck(id string, got any) (pass bool, summary string)
}

func newKind(name string, raw json.RawMessage) (kind, error) {
	var k kind
	switch name {
	case "build":
		k = &buildKind{}
	case "command":
		k = &commandKind{}
	case "http":
		k = &httpKind{}
	case "tree":
		k = &treeKind{}
	case "symbols":
		k = &symbolsKind{}
	case "digests":
		k = &digestsKind{}
	case "provenance":
		k = &provenanceKind{}
	default:
		return nil, fmt.Errorf("the helper does not run modules of kind %q", name)
	}
	if err := Decode(raw, k); err != nil {
		return nil, fmt.Errorf("params of kind %s: %w", name, err)
	}
	return k, nil
}

// Decode reads params JSON into dst strictly: an unknown field is an error.
func Decode(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// Fingerprint is the cases fingerprint of a module: the sha256 of its
// kind, its params (as canonical JSON) and every file under the task's
// data/ folder (path and content). A truth file records it; a check
// against truth with another fingerprint is refused.
func Fingerprint(kindName string, params json.RawMessage, taskDir string) (string, error) {
	h := sha256.New()
	var v any
	if err := json.Unmarshal(params, &v); err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	canon, _ := json.Marshal(v) // maps marshal with sorted keys
	fmt.Fprintf(h, "kind %s\nparams %s\n", kindName, canon)
	root := filepath.Join(taskDir, "data")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipDir
			}
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("fingerprint: %w", err)
		}
		rel, _ := filepath.Rel(taskDir, p)
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "file %s %x\n", filepath.ToSlash(rel), sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// check is one check of the module result.
type check struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
	Summary string `json:"summary"`
	Detail  string `json:"detail,omitempty"`
}

type moduleResult struct {
	Status   string         `json:"status,omitempty"`
	Summary  string         `json:"summary,omitempty"`
	Checks   []check        `json:"checks"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// module is one run of the helper.
type module struct {
	plan      *behavioural.Plan
	kind      kind
	work      string
	suiteWork string
	result    string
	deadline  time.Time
	truth     *behavioural.Truth
	obs       behavioural.Observations
	log       io.Writer

	mu        sync.Mutex
	checks    []check
	seen      map[string]bool
	lastFlush time.Time
	// partial is the result file written as checks come ([partialResult]),
	// nil until the first check.
	partial *partialResult
	// unobserved is why truth checks that were never observed fail.
	unobserved string
	// meta is the module result's metadata.
	meta map[string]any
	// truthGaps are the checks observed that the truth has no
	// observation of (behavioural.MetaTruthGaps).
	truthGaps []string
	// harness is why the grader failed this module (the submission's
	// sandbox could not be entered), or "": the module's result then
	// says so ([behavioural.MetaHarnessFault]) and the stage is invalid.
	harness string
	// atDeadline says a process was cut at the module's deadline.
	atDeadline bool
	// statusDir is the root-only folder of the jail's status files
	// ([module.newJailStatus]), made on first use.
	statusDir string
	// procs, when set, runs the module's processes in reused process
	// inits ([procPool]); nil starts an init per process.
	procs *procPool
}

// stoppedAtDeadline records that a process was cut at the module's
// deadline: the module's result then has status timeout.
func (m *module) stoppedAtDeadline() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.atDeadline = true
}

// harnessFault records that the grader, not the tree under test, failed
// this module (the first reason is kept).
func (m *module) harnessFault(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.harness == "" {
		m.harness = err.Error()
	}
}

func runPlan(planPath string, stderr io.Writer) int {
	m := &module{
		work: os.Getenv(behavioural.EnvWork), suiteWork: os.Getenv(behavioural.EnvSuiteWork),
		result: os.Getenv(behavioural.EnvResult), log: stderr, seen: map[string]bool{},
	}
	if m.result == "" {
		fmt.Fprintln(stderr, "srb-helper: SRB_RESULT is not set: run me through the suite runner")
		return 70
	}
	if d, err := strconv.ParseFloat(os.Getenv(behavioural.EnvModuleDeadline), 64); err == nil {
		m.deadline = time.Unix(0, int64(d*1e9))
	}
	plan, err := behavioural.ReadPlan(planPath)
	if err != nil {
		return m.fail(err)
	}
	m.plan = plan
	m.obs = behavioural.Observations{Module: plan.Module, Kind: plan.Kind, Values: map[string]any{}}
	if m.kind, err = newKind(plan.Kind, plan.Params); err != nil {
		return m.fail(err)
	}
	fp, err := Fingerprint(plan.Kind, plan.Params, plan.TaskDir)
	if err != nil {
		return m.fail(err)
	}
	m.obs.CasesFingerprint = fp
	if plan.Mode != behavioural.ModeRecord {
		t, err := behavioural.ReadTruth(plan.Truth)
		if err != nil {
			return m.fail(fmt.Errorf("module %s has no usable truth (run srb freeze): %w", plan.Module, err))
		}
		if t.CasesFingerprint != fp {
			return m.fail(fmt.Errorf("module %s: its cases changed since the truth was recorded (fingerprint %s, recorded %s): run srb freeze to re-record", plan.Module, short(fp), short(t.CasesFingerprint)))
		}
		m.truth = t
	}
	oerr := m.kind.observe(m)
	return m.finish(oerr)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// fail writes a module result that says the module could not run.
func (m *module) fail(err error) int {
	fmt.Fprintf(m.log, "srb-helper: %v\n", err)
	_ = behavioural.WriteJSON(m.result, moduleResult{Status: "error", Summary: err.Error(), Checks: []check{}})
	return 70
}

// timeLeft reports whether there is time for another step before the
// module's deadline (half a second is kept to write the result).
func (m *module) timeLeft() bool {
	return m.deadline.IsZero() || time.Until(m.deadline) > 500*time.Millisecond
}

// emit records one observation under id and turns it into a check: in
// record mode a pass; otherwise compared with the truth (or judged, or
// compared with expect when non-nil, in every mode).
func (m *module) emit(id string, got any, expect any) {
	got = jsonValue(got)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[id] {
		return
	}
	m.seen[id] = true
	m.obs.Values[id] = got
	var c check
	switch {
	case expect != nil:
		c = compareWith(id, jsonValue(expect), got, "as the expected output file says")
	case m.plan.Mode == behavioural.ModeRecord:
		c = check{ID: id, Verdict: "pass", Summary: "recorded"}
	case m.plan.Mode == behavioural.ModeCheck && m.judge() != nil:
		pass, summary := m.judge().judgeCheck(id, got)
		c = check{ID: id, Verdict: "fail", Summary: summary}
		if pass {
			c.Verdict = "pass"
		}
	default:
		want, ok := m.truth.Observations[id]
		switch {
		case ok:
			c = compare(id, want, got)
		case openEnded(m.plan.Kind, id, m.truth):
			c = check{ID: id, Verdict: "fail", Summary: "State A has no such observation: the tree under test has it, State A's does not"}
		default:
			// The truth lacks what the declaration checks: a fault of the
			// task's truth, which the runner turns into a stage error
			// (behavioural.MetaTruthGaps), never the submission's.
			m.truthGaps = append(m.truthGaps, id)
			c = check{ID: id, Verdict: "error", Summary: "no truth was recorded for this check: the task's truth is incomplete (not the tree under test's fault): run srb freeze"}
		}
	}
	m.checks = append(m.checks, c)
	m.partialLocked(c)
}

// partialLocked adds c to the result file written while the module runs:
// each check is encoded once and appended (at most every 250 ms, one
// write for all that came since), never re-encoded, so a module of n
// checks costs O(n) however long it runs. The runner reads this file only
// when the module timed out (the checks recorded before the deadline);
// [module.finish] replaces it with the whole result, atomically.
func (m *module) partialLocked(c check) {
	if m.partial == nil {
		p, err := openPartial(m.result)
		if err != nil {
			fmt.Fprintf(m.log, "srb-helper: %v\n", err)
			m.partial = &partialResult{}
		} else {
			m.partial = p
		}
	}
	m.partial.add(c)
	if time.Since(m.lastFlush) > 250*time.Millisecond {
		m.lastFlush = time.Now()
		if err := m.partial.flush(); err != nil {
			fmt.Fprintf(m.log, "srb-helper: %v\n", err)
		}
	}
}

func (m *module) judge() judge {
	j, _ := m.kind.(judge)
	return j
}

// notObserved sets why truth checks that are never observed fail.
func (m *module) notObserved(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unobserved == "" {
		m.unobserved = why
	}
}

func (m *module) flushLocked(status, summary string) {
	m.lastFlush = time.Now()
	if m.partial != nil {
		m.partial.close()
	}
	res := moduleResult{Status: status, Summary: summary, Checks: m.checks, Metadata: m.meta}
	if res.Checks == nil {
		res.Checks = []check{}
	}
	if err := behavioural.WriteJSON(m.result, res); err != nil {
		fmt.Fprintf(m.log, "srb-helper: %v\n", err)
	}
}

// finish fails the truth checks never observed, writes the result and
// the observations, and returns the exit code.
func (m *module) finish(oerr error) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	status, summary := "", ""
	if oerr != nil {
		fmt.Fprintf(m.log, "srb-helper: %v\n", oerr)
		if errors.Is(oerr, errDeadline) {
			status, summary = "timeout", oerr.Error()
		} else if m.unobserved == "" {
			m.unobserved = oerr.Error()
		}
	}
	if m.atDeadline && status == "" {
		status, summary = "timeout", errDeadline.Error()
	}
	if m.harness != "" {
		status, summary = "error", "harness fault: "+m.harness
		if m.meta == nil {
			m.meta = map[string]any{}
		}
		m.meta[behavioural.MetaHarnessFault] = m.harness
	}
	if m.truth != nil && status == "" {
		why := m.unobserved
		if why == "" {
			why = "the module did not observe it"
		}
		for _, id := range sortedKeys(m.truth.Observations) {
			if !m.seen[id] {
				m.checks = append(m.checks, check{ID: id, Verdict: "fail", Summary: "not observed: " + why})
			}
		}
	}
	if len(m.checks) == 0 && status == "" {
		status = "error"
		summary = "the module observed nothing"
		if oerr != nil {
			summary = oerr.Error()
		}
	}
	if len(m.truthGaps) > 0 {
		if m.meta == nil {
			m.meta = map[string]any{}
		}
		m.meta[behavioural.MetaTruthGaps] = m.truthGaps
	}
	if m.plan.Observations != "" {
		if err := behavioural.WriteJSON(m.plan.Observations, m.obs); err != nil {
			fmt.Fprintf(m.log, "srb-helper: %v\n", err)
		}
	}
	m.flushLocked(status, summary)
	for _, c := range m.checks {
		if c.Verdict != "pass" {
			return 1
		}
	}
	if status != "" {
		return 1
	}
	return 0
}

var errDeadline = errors.New("stopped at the module's deadline")

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonValue converts v to what JSON decoding gives (map[string]any,
// []any, float64, string, bool, nil) so observed and recorded values
// compare equal.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
