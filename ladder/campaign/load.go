// Package campaign aggregates many graded runs into the benchmark's
// published tables: the funnel (how many runs migrated, reached 100 % of
// the fixed checks, were stopped by blindness, reached stage 3, were
// accepted), scores by debt class, by task and by configuration, which
// adversaries found breaks, what grading cost, and a configuration × task
// matrix of who ran what.
//
// A campaign is a folder laid out ROOT/<task>/<configuration>/<run>/, each
// run folder holding the score.json srb ladder (or the earlier harness)
// wrote, and telemetry.json when srb telemetry ran on it. [Load] reads it;
// [Summarize] aggregates it into a [Report]; the Write* functions render a
// report as text tables, JSON, CSV or one self-contained HTML page; and
// [Compare] says what moved between two campaigns.
//
// A run whose verdict is invalid (the grader could not complete), or whose
// score.json cannot be read, is counted apart and never as a zero: it is in
// [Report.Invalid] and in no funnel, mean or matrix score.
package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/telemetry"
)

// Outcome is a run's class in the funnel (docs/CAMPAIGN.md).
type Outcome string

// The outcome classes, in funnel order. Every valid run has exactly one of
// the first five; Invalid is a run the grader could not decide.
const (
	// NotMigrated: the audit gate failed and stage 2 finished short of
	// 100 % (or did not run). A stage 2 that did not finish under the
	// failed gate makes the run Invalid: blindness cannot be ruled out.
	NotMigrated Outcome = "not-migrated"
	// Blindness: the audit gate failed while stage 2 reached 100 %: the
	// fixed checks cannot tell this tree from a migration (ran, not
	// counted).
	Blindness Outcome = "blindness"
	// StoppedStage2: the audit gate passed and stage 2 was incomplete.
	StoppedStage2 Outcome = "stopped-stage2"
	// Counterexample: stage 3 ran and at least one adversary broke the
	// submission (a score of 40 to 90).
	Counterexample Outcome = "counterexample"
	// Accepted: the run scored the maximum (100): every adversary survived.
	Accepted Outcome = "accepted"
	// Invalid: the verdict is invalid or unreadable; counted apart.
	Invalid Outcome = "invalid"
)

// Outcomes lists the valid outcome classes in funnel order.
var Outcomes = []Outcome{NotMigrated, Blindness, StoppedStage2, Counterexample, Accepted}

// Classes are the debt classes in the paper's order (the order tables and
// plots use); a task whose class is none of these is reported under its
// own class after them.
var Classes = []string{"build", "framework", "platform", "language"}

// classPrefix maps a task id's prefix to its debt class.
var classPrefix = map[string]string{"build": "build", "fw": "framework", "pf": "platform", "lang": "language"}

// ClassOf is a task's debt class from its id's prefix (the letters before
// the first digit or dash: lang → language, fw → framework, pf →
// platform, build → build), else "unknown".
func ClassOf(taskID string) string {
	prefix := strings.TrimRightFunc(strings.SplitN(taskID, "-", 2)[0], func(r rune) bool { return r >= '0' && r <= '9' })
	if c, ok := classPrefix[prefix]; ok {
		return c
	}
	return "unknown"
}

// MaxScore is the published scale every run of a campaign is scored on.
const MaxScore = 100

// RunMetaKey is the key of score.json's metadata under which srb ladder
// records who made the submission (see [RunMeta]).
const RunMetaKey = "run"

// RunMeta is metadata.run of a score.json: who made the submission. Model,
// Effort, Agent and AgentVersion are free text ("" when not recorded);
// Attempt counts from 1 (0: not recorded); Configuration overrides the
// <model>-<effort> name when set; TaskClass is the task's declared debt
// class; Operator holds the operator's other key=value pairs.
type RunMeta struct {
	Model         string            `json:"model,omitempty"`
	Effort        string            `json:"effort,omitempty"`
	Agent         string            `json:"agent,omitempty"`
	AgentVersion  string            `json:"agent_version,omitempty"`
	Attempt       int               `json:"attempt,omitempty"`
	Configuration string            `json:"configuration,omitempty"`
	TaskClass     string            `json:"task_class,omitempty"`
	Operator      map[string]string `json:"operator,omitempty"`
}

// ConfigName is the configuration the metadata names: Configuration when
// set, else <model>-<effort>, else <model>, else "".
func (m RunMeta) ConfigName() string {
	switch {
	case m.Configuration != "":
		return m.Configuration
	case m.Model != "" && m.Effort != "":
		return m.Model + "-" + m.Effort
	default:
		return m.Model
	}
}

// Map is m as score.json's metadata.run object (only the fields set).
func (m RunMeta) Map() map[string]any {
	out := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	set("model", m.Model)
	set("effort", m.Effort)
	set("agent", m.Agent)
	set("agent_version", m.AgentVersion)
	set("configuration", m.Configuration)
	set("task_class", m.TaskClass)
	if m.Attempt > 0 {
		out["attempt"] = m.Attempt
	}
	if len(m.Operator) > 0 {
		op := map[string]any{}
		for k, v := range m.Operator {
			op[k] = v
		}
		out["operator"] = op
	}
	return out
}

// runMetaFrom reads metadata.run of a verdict; a field of the wrong type is
// an error naming it.
func runMetaFrom(md map[string]any) (RunMeta, error) {
	var m RunMeta
	raw, ok := md[RunMetaKey]
	if !ok || raw == nil {
		return m, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return m, fmt.Errorf("metadata.run: want an object, got %T", raw)
	}
	str := func(k string) (string, error) {
		v, ok := obj[k]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("metadata.run.%s: want a string, got %v", k, v)
		}
		return s, nil
	}
	var err error
	for _, f := range []struct {
		k string
		p *string
	}{{"model", &m.Model}, {"effort", &m.Effort}, {"agent", &m.Agent}, {"agent_version", &m.AgentVersion},
		{"configuration", &m.Configuration}, {"task_class", &m.TaskClass}} {
		if *f.p, err = str(f.k); err != nil {
			return m, err
		}
	}
	if v, ok := obj["attempt"]; ok && v != nil {
		n, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || n < 1 {
			return m, fmt.Errorf("metadata.run.attempt: want a whole number ≥ 1, got %v", v)
		}
		m.Attempt = n
	}
	if op, ok := obj["operator"].(map[string]any); ok {
		m.Operator = map[string]string{}
		for k, v := range op {
			m.Operator[k] = fmt.Sprint(v)
		}
	}
	return m, nil
}

// Cost is what grading one run (or a group of runs) cost, summed over its
// stage-1 reviews, stage-3 rounds and their adjudications (srb telemetry's
// figures). Credits is nil when no endpoint reported any (never 0 for "not
// reported"); Seconds is the models' summed wall-clock time.
type Cost struct {
	Calls        int64    `json:"calls"`
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	Credits      *float64 `json:"credits"`
	Seconds      float64  `json:"seconds"`
}

func (c *Cost) add(o *Cost) {
	c.Calls += o.Calls
	c.InputTokens += o.InputTokens
	c.OutputTokens += o.OutputTokens
	c.Seconds += o.Seconds
	if o.Credits != nil {
		v := *o.Credits
		if c.Credits != nil {
			v += *c.Credits
		}
		c.Credits = &v
	}
}

// Run is one graded run of a campaign.
type Run struct {
	// Task, Config and Name are the run's task id, configuration and run
	// folder name; Config is the one metadata.run names, else the folder's.
	Task   string `json:"task"`
	Config string `json:"configuration"`
	Name   string `json:"run"`
	// Dir is the run folder relative to the campaign root, slash-separated.
	Dir   string  `json:"dir"`
	Class string  `json:"class"`
	Meta  RunMeta `json:"meta"`
	// Outcome is the run's class; Reason says why a run is Invalid.
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// Score is the published score on the 0–100 scale (0 for an invalid run,
	// which no aggregate reads).
	Score     float64 `json:"score"`
	AuditGate string  `json:"audit_gate"`
	// Stage2Rate is stage 2's measured pass rate (0–1), counted or not;
	// Stage2Complete says every scored check passed.
	Stage2Rate     float64 `json:"stage2_rate"`
	Stage2Complete bool    `json:"stage2_complete"`
	Stage3Ran      bool    `json:"stage3_ran"`
	Adversaries    int     `json:"adversaries"`
	Survived       int     `json:"survived"`
	// Breaks are the adversaries whose break was upheld; Played are the
	// adversaries whose rounds the verdict's metadata records.
	Breaks []string `json:"breaks"`
	Played []string `json:"-"`
	// Cost is nil when neither telemetry.json nor score.json records any
	// model usage.
	Cost *Cost `json:"cost"`
}

// Valid reports whether the run counts in the aggregates.
func (r *Run) Valid() bool { return r.Outcome != Invalid }

// MarshalJSON encodes the run with its fields' names; an invalid run's
// score is null, never a zero (docs/CAMPAIGN.md: a run the grader could not
// finish is counted apart).
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	out := struct {
		plain
		Score *float64 `json:"score"`
	}{plain: plain(r)}
	if r.Valid() {
		out.Score = &r.Score
	}
	return json.Marshal(out)
}

// Problem is something wrong with the campaign's layout rather than with a
// run: a folder at the wrong depth, a run folder without score.json.
type Problem struct {
	Path string `json:"path"`
	Msg  string `json:"problem"`
}

// Campaign is every run under one root, sorted by task, configuration and
// run name, and the layout problems found.
type Campaign struct {
	Root     string
	Runs     []*Run
	Problems []Problem
}

// Load reads every run under root, laid out <task>/<configuration>/<run>/.
// A run folder without score.json is a Problem (a missing run); a
// score.json that does not validate, names another task, or describes a
// verdict that is not valid is an Invalid run with the reason. Files and
// folders whose names start with "." or "_" are skipped. The error is
// non-nil only when root itself cannot be read.
func Load(root string) (*Campaign, error) {
	c := &Campaign{Root: root}
	tasks, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	skip := func(e fs.DirEntry) bool {
		n := e.Name()
		return strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")
	}
	for _, te := range tasks {
		if skip(te) {
			continue
		}
		if !te.IsDir() {
			c.Problems = append(c.Problems, Problem{te.Name(), "a file where a <task> folder belongs; ignored"})
			continue
		}
		cfgs, err := os.ReadDir(filepath.Join(root, te.Name()))
		if err != nil {
			c.Problems = append(c.Problems, Problem{te.Name(), err.Error()})
			continue
		}
		for _, ce := range cfgs {
			if skip(ce) {
				continue
			}
			rel := te.Name() + "/" + ce.Name()
			if !ce.IsDir() {
				c.Problems = append(c.Problems, Problem{rel, "a file where a <configuration> folder belongs; ignored"})
				continue
			}
			runs, err := os.ReadDir(filepath.Join(root, te.Name(), ce.Name()))
			if err != nil {
				c.Problems = append(c.Problems, Problem{rel, err.Error()})
				continue
			}
			for _, re := range runs {
				if skip(re) {
					continue
				}
				rrel := rel + "/" + re.Name()
				if !re.IsDir() {
					c.Problems = append(c.Problems, Problem{rrel, "a file where a <run> folder belongs (runs are <task>/<configuration>/<run>/score.json); ignored"})
					continue
				}
				run, prob := loadRun(root, te.Name(), ce.Name(), re.Name())
				if prob != "" {
					c.Problems = append(c.Problems, Problem{rrel, prob})
					continue
				}
				c.Runs = append(c.Runs, run)
			}
		}
	}
	sort.SliceStable(c.Runs, func(i, j int) bool {
		a, b := c.Runs[i], c.Runs[j]
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Config != b.Config {
			return a.Config < b.Config
		}
		return a.Dir < b.Dir
	})
	return c, nil
}

// loadRun reads one run folder; a non-empty problem means there is no run
// to count (no score.json).
func loadRun(root, taskDir, cfgDir, name string) (*Run, string) {
	dir := filepath.Join(root, taskDir, cfgDir, name)
	r := &Run{Task: taskDir, Config: cfgDir, Name: name, Dir: taskDir + "/" + cfgDir + "/" + name,
		Class: ClassOf(taskDir), Breaks: []string{}}
	scorePath := filepath.Join(dir, "score.json")
	data, err := os.ReadFile(scorePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "no score.json: the run was not graded (a missing run)"
	}
	invalid := func(format string, args ...any) (*Run, string) {
		r.Outcome, r.Reason = Invalid, fmt.Sprintf(format, args...)
		return r, ""
	}
	if err != nil {
		return invalid("%s: %v", scorePath, err)
	}
	v, err := result.ParseVerdict(data)
	if err != nil {
		return invalid("%s: %v", scorePath, err)
	}
	meta, err := runMetaFrom(v.Metadata)
	if err != nil {
		return invalid("%s: %v", scorePath, err)
	}
	r.Meta = meta
	if n := meta.ConfigName(); n != "" {
		r.Config = n
	}
	if meta.TaskClass != "" {
		r.Class = meta.TaskClass
	}
	r.Cost, r.Played = costOf(dir, data)
	if v.Task != taskDir {
		return invalid("%s: the verdict grades task %q but lies under %s/", scorePath, v.Task, taskDir)
	}
	r.AuditGate = v.AuditGate
	r.Score = v.Score
	if !v.Valid() {
		return invalid("the grader could not complete: %s", v.HarnessError)
	}
	if v.MaxScore != MaxScore {
		return invalid("%s: the verdict is on a scale of %g points, not the benchmark's %g: its score cannot be averaged with the others", scorePath, v.MaxScore, float64(MaxScore))
	}
	classify(r, v)
	return r, ""
}

// classify sets r's stage facts and outcome from a valid verdict.
func classify(r *Run, v *result.Verdict) {
	r.Adversaries, r.Survived = v.AdversariesTotal, v.AdversariesSurvived
	for _, b := range v.VerificationBreaks {
		if a, ok := b["adversary"].(string); ok {
			r.Breaks = append(r.Breaks, a)
		}
	}
	r.Stage3Ran = v.AdversariesTotal > 0
	switch v.AuditGate {
	case result.GatePass:
		r.Stage2Rate = v.BehaviouralRate
		r.Stage2Complete = v.BehaviouralPoints > 0
	case result.GateFail:
		// Stage 2 ran but was not counted: its measurement is in the
		// unscored record (any of its three spellings).
		if u := v.Unscored[result.StageBehavioural]; u != nil {
			r.Stage2Rate = num(u["rate"])
			if c, ok := u["complete"].(bool); ok {
				r.Stage2Complete = c
			} else {
				r.Stage2Complete = num(u["would_be_points"]) > 0
			}
			if _, failed := u["error"]; failed {
				r.Stage2Complete = false
			}
			if why := stage2Interrupted(u); why != "" {
				// Whether the submission passed every scored check is not
				// known: the run may have been blindness or not-migrated.
				r.Outcome, r.Reason = Invalid, "stage 2 did not finish under the failed audit gate ("+why+"): whether the run was blindness or not-migrated cannot be known"
				return
			}
		}
	default:
		r.Outcome, r.Reason = Invalid, fmt.Sprintf("the verdict is valid but its audit gate is %q (neither pass nor fail)", v.AuditGate)
		return
	}
	switch {
	case v.AuditGate == result.GateFail && r.Stage2Complete:
		r.Outcome = Blindness
	case v.AuditGate == result.GateFail:
		r.Outcome = NotMigrated
	case !r.Stage2Complete:
		r.Outcome = StoppedStage2
	case !r.Stage3Ran:
		r.Outcome, r.Reason = Invalid, "the verdict says stage 2 completed but records no stage-3 round"
	case v.Score >= v.MaxScore:
		r.Outcome = Accepted
	default:
		r.Outcome = Counterexample
	}
}

// stage2Interrupted says why an unscored stage-2 record (any of its
// spellings) did not finish: its reading failed ("error"), it records a
// harness fault ("harness_error"), or its status is "error" (interrupted,
// the stage's clock, a fault of the grader: docs/LADDER.md). "" when it
// finished.
func stage2Interrupted(u map[string]any) string {
	if e, ok := u["error"]; ok {
		return fmt.Sprint(e)
	}
	if h, ok := u["harness_error"].(string); ok && h != "" {
		return h
	}
	if st, _ := u["status"].(string); st == "error" {
		return "status error"
	}
	return ""
}

// num reads a JSON number (json.Number, float64 or int) as float64; 0 when
// it is none.
func num(x any) float64 {
	switch n := x.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return 0
}

// costOf sums a run's grading cost from its telemetry.json when present,
// else from the usage its score.json records (the same projection srb
// telemetry makes), and lists the adversaries whose rounds it records.
// A run that records no usage at all has a nil cost; an unreadable
// telemetry.json falls back to score.json.
func costOf(dir string, score []byte) (*Cost, []string) {
	var t *telemetry.Telemetry
	if b, err := os.ReadFile(filepath.Join(dir, telemetry.File)); err == nil {
		var got telemetry.Telemetry
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		if d.Decode(&got) == nil && got.Schema == telemetry.Schema {
			t = &got
		}
	}
	if t == nil {
		var err error
		if t, err = telemetry.Parse(score); err != nil {
			return nil, nil
		}
	}
	c := &Cost{}
	seen := false
	var played []string
	add := func(calls, in, out, credits, secs any) {
		if calls == nil && in == nil && out == nil && credits == nil && secs == nil {
			return
		}
		seen = true
		c.Calls += int64(num(calls))
		c.InputTokens += int64(num(in))
		c.OutputTokens += int64(num(out))
		c.Seconds += num(secs)
		if credits != nil {
			v := num(credits)
			if c.Credits != nil {
				v += *c.Credits
			}
			c.Credits = &v
		}
	}
	for _, s := range t.Stage1 {
		add(s.Calls, s.InputTokens, s.OutputTokens, s.Credits, s.ElapsedSec)
	}
	for _, r := range t.Stage3 {
		if a, ok := r.Adversary.(string); ok {
			played = append(played, a)
		}
		add(r.Calls, r.InputTokens, r.OutputTokens, r.Credits, r.ElapsedSec)
		if j := r.Adjudicator; j != nil {
			add(j.Calls, j.InputTokens, j.OutputTokens, j.Credits, j.ElapsedSec)
		}
	}
	if !seen {
		return nil, played
	}
	return c, played
}
