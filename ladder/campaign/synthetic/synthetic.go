// Package synthetic writes a synthetic campaign whose aggregates are the
// ones the SWE Refactor Bench paper publishes: 520 valid runs of 26
// model-effort configurations (8 models) on the paper's 20 tasks, of which
// 340 migrated, 118 reached 100 % of the fixed checks, 30 were stopped by
// blindness, 88 reached stage 3 and 28 were accepted; a mean score of
// 13.44; 13 tasks never accepted; and class means of 31.4 (build), 17.2
// (framework), 12.0 (platform) and 5.6 (language).
//
// The paper publishes those margins, not every run, so the runs are
// invented to fit them: the per-class outcome counts and counterexample
// scores below are one solution of the published figures (the class means
// force unequal runs per task: 21 per build task, 24 per framework task,
// 26 or 27 per platform task, 30 per language task, so some configuration ×
// task cells are missing and some hold a second attempt). Every run's
// score.json is a verdict srb's reader accepts; a quarter are written in the
// earlier harness's shape (no harnesses, unscored_stages, unscored or
// uncounted; the discarded stage under "uncredited"), half carry a
// telemetry.json written by srb telemetry, and the rest leave cost to be
// projected from score.json. Beyond the 520, [Write] adds three invalid runs
// (the grader could not complete) and one run folder with no score.json, so
// a reader that counts invalid runs as zeros, or drops a missing run
// silently, disagrees with the published figures.
package synthetic

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/telemetry"
)

// Tasks are the paper's twenty tasks (Einsia/SWE-Refactor-Bench tasks/).
var Tasks = []string{
	"build01-libsodium-autotools-to-cmake", "build02-gson-maven-to-gradle", "build03-pycryptodome-setuptools-to-meson",
	"fw01-httpbin-flask-to-asgi", "fw02-jsonserver-express-to-fastify", "fw03-conduit-vue-to-react",
	"fw04-chartmuseum-gin-to-chi", "fw05-miniserve-actix-to-axum", "fw06-uploadserver-gorillamux-to-nethttp",
	"fw07-graphhopper-dropwizard-to-springboot",
	"pf01-sqlite-wasi-port", "pf02-stylus-web-platform-port", "pf03-quickjs-byteorder-port",
	"lang01-cmark-c-to-rust", "lang02-zlib-c-to-java", "lang03-sqlparse-python-to-go", "lang04-acorn-js-to-rust",
	"lang05-goyaml-go-to-zig", "lang06-jsonnet-cpp-to-csharp", "lang07-jsonata-js-to-typescript",
}

// Config is one model-effort configuration.
type Config struct{ Model, Effort string }

// Name is the configuration's folder name: <model>-<effort>, or <model>.
func (c Config) Name() string {
	if c.Effort == "" {
		return c.Model
	}
	return c.Model + "-" + c.Effort
}

// Configs are the 26 configurations: six models at four efforts and two
// with none (8 models).
func Configs() []Config {
	var out []Config
	for _, m := range []string{"synth-a", "synth-b", "synth-c", "synth-d", "synth-e", "synth-f"} {
		for _, e := range []string{"low", "medium", "high", "xhigh"} {
			out = append(out, Config{m, e})
		}
	}
	return append(out, Config{"synth-g", ""}, Config{"synth-h", ""})
}

// classPlan is one debt class's share of the published figures.
type classPlan struct {
	prefix       string
	runsPerTask  []int          // per task of the class, in Tasks order
	accepted     map[string]int // task → accepted runs
	counterexmpl []float64      // the scores of the runs stage 3 broke
	stopped      int            // audit passed, stage 2 incomplete
	blindness    int            // audit failed, stage 2 at 100 %
	notMigrated  int            // audit failed, stage 2 short
}

// plan is the solution of the published figures the runs are drawn from:
// per class, runs = accepted + counterexamples + stopped + blindness +
// not migrated, and the score sums 1980, 2890, 950 and 1170 give the class
// means 31.43, 17.20, 12.03 and 5.57 over 63, 168, 79 and 210 runs, and the
// mean 6990/520 = 13.44.
var plan = []classPlan{
	{prefix: "build", runsPerTask: []int{21, 21, 21},
		accepted:     map[string]int{"build01-libsodium-autotools-to-cmake": 7, "build02-gson-maven-to-gradle": 5},
		counterexmpl: []float64{40, 50, 50, 60, 60, 60, 70, 70, 70, 80, 80, 90},
		stopped:      20, blindness: 4, notMigrated: 15},
	{prefix: "fw", runsPerTask: []int{24, 24, 24, 24, 24, 24, 24},
		accepted:     map[string]int{"fw01-httpbin-flask-to-asgi": 4, "fw04-chartmuseum-gin-to-chi": 3, "fw06-uploadserver-gorillamux-to-nethttp": 3},
		counterexmpl: repeat([]float64{60, 70, 80}, 9),
		stopped:      80, blindness: 10, notMigrated: 41},
	{prefix: "pf", runsPerTask: []int{27, 26, 26},
		accepted:     map[string]int{"pf03-quickjs-byteorder-port": 4},
		counterexmpl: []float64{60, 70, 70, 70, 70, 70, 70, 70},
		stopped:      40, blindness: 6, notMigrated: 21},
	{prefix: "lang", runsPerTask: []int{30, 30, 30, 30, 30, 30, 30},
		accepted:     map[string]int{"lang03-sqlparse-python-to-go": 2},
		counterexmpl: append(repeat([]float64{70}, 10), 90, 90, 90),
		stopped:      112, blindness: 10, notMigrated: 73},
}

func repeat(xs []float64, n int) []float64 {
	var out []float64
	for i := 0; i < n; i++ {
		out = append(out, xs...)
	}
	return out
}

// Adversaries are the six stage-3 adversaries' ids.
var Adversaries = []string{"a01-boundary", "a02-encoding", "a03-errors", "a04-concurrency", "a05-platform", "a06-scale"}

// cell is one planned run.
type cell struct {
	task    string
	cfg     Config
	attempt int
	score   float64
	outcome string // accepted, counterexample, stopped, blindness, not-migrated
}

// Write writes the synthetic campaign under root (created if needed):
// root/<task>/<configuration>/attempt-<n>/score.json (+ telemetry.json for
// half), the three invalid runs and the run folder without a score.json.
// It returns the number of valid runs written (520).
func Write(root string) (int, error) {
	rng := rand.New(rand.NewPCG(19, 520))
	cfgs := Configs()
	var cells []cell
	taskIdx := 0
	for _, cp := range plan {
		var classCells []*cell
		for i, n := range cp.runsPerTask {
			task := classTasks(cp.prefix)[i]
			// Rotate which configurations run the task so the missing
			// cells and second attempts spread over configurations.
			for k := 0; k < n; k++ {
				c := cfgs[(taskIdx*7+k)%len(cfgs)]
				classCells = append(classCells, &cell{task: task, cfg: c, attempt: 1 + k/len(cfgs)})
			}
			taskIdx++
		}
		rng.Shuffle(len(classCells), func(i, j int) { classCells[i], classCells[j] = classCells[j], classCells[i] })
		// Accepted runs go to their tasks; everything else fills the rest.
		var rest []*cell
		want := map[string]int{}
		for t, n := range cp.accepted {
			want[t] = n
		}
		for _, c := range classCells {
			if want[c.task] > 0 {
				want[c.task]--
				c.outcome, c.score = "accepted", 100
				continue
			}
			rest = append(rest, c)
		}
		var outcomes []cell
		for _, s := range cp.counterexmpl {
			outcomes = append(outcomes, cell{outcome: "counterexample", score: s})
		}
		for _, o := range []struct {
			name string
			n    int
		}{{"stopped", cp.stopped}, {"blindness", cp.blindness}, {"not-migrated", cp.notMigrated}} {
			for i := 0; i < o.n; i++ {
				outcomes = append(outcomes, cell{outcome: o.name})
			}
		}
		if len(outcomes) != len(rest) {
			return 0, fmt.Errorf("synthetic: class %s plans %d outcomes for %d runs", cp.prefix, len(outcomes), len(rest))
		}
		for i, c := range rest {
			c.outcome, c.score = outcomes[i].outcome, outcomes[i].score
		}
		for _, c := range classCells {
			cells = append(cells, *c)
		}
	}
	sort.Slice(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if a.task != b.task {
			return a.task < b.task
		}
		if a.cfg.Name() != b.cfg.Name() {
			return a.cfg.Name() < b.cfg.Name()
		}
		return a.attempt < b.attempt
	})
	for i, c := range cells {
		v := verdict(c, rng)
		dir := filepath.Join(root, c.task, c.cfg.Name(), fmt.Sprintf("attempt-%d", c.attempt))
		if err := writeRun(dir, v, i%4 == 3, i%2 == 0); err != nil {
			return 0, err
		}
	}
	// Three runs the grader could not complete, and one never graded.
	for i, t := range []string{Tasks[0], Tasks[5], Tasks[13]} {
		c := cfgs[i]
		v := result.ErrorVerdict(t, "stage 3: 2 of 6 verification round(s) did not complete (synthetic harness fault)")
		v.BlockedBy = "verification-incomplete"
		v.Metadata["run"] = runMeta(cell{task: t, cfg: c, attempt: 9})
		if err := writeRun(filepath.Join(root, t, c.Name(), "attempt-9"), v, false, false); err != nil {
			return 0, err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, Tasks[19], cfgs[25].Name(), "attempt-9"), 0o755); err != nil {
		return 0, err
	}
	return len(cells), nil
}

func classTasks(prefix string) []string {
	var out []string
	for _, t := range Tasks {
		if len(t) > len(prefix) && t[:len(prefix)] == prefix && t[len(prefix)] >= '0' && t[len(prefix)] <= '9' {
			out = append(out, t)
		}
	}
	return out
}

func runMeta(c cell) map[string]any {
	m := map[string]any{"model": c.cfg.Model, "agent": "synthetic-agent", "agent_version": "1.0.0", "attempt": c.attempt,
		"task_class": map[string]string{"build": "build", "fw": "framework", "pf": "platform", "lang": "language"}[classPrefix(c.task)]}
	if c.cfg.Effort != "" {
		m["effort"] = c.cfg.Effort
	}
	return m
}

func classPrefix(task string) string {
	for _, p := range []string{"build", "fw", "pf", "lang"} {
		if len(task) > len(p) && task[:len(p)] == p {
			return p
		}
	}
	return ""
}

// usage is one model call record: driver, model, calls, tokens and, for the
// models whose endpoint reports them, credits.
func usage(model string, rng *rand.Rand, credits bool) map[string]any {
	u := map[string]any{"driver": "scripted", "model": model, "calls": 2 + rng.IntN(20),
		"input_tokens": 5000 + rng.IntN(200000), "output_tokens": 500 + rng.IntN(20000)}
	if credits {
		u["credits"] = float64(1+rng.IntN(400)) / 100
	}
	return u
}

// verdict builds the score.json of one planned run.
func verdict(c cell, rng *rand.Rand) *result.Verdict {
	v := result.NewVerdict(c.task, 100)
	credits := c.cfg.Model < "synth-d"
	v.Metadata["run"] = runMeta(c)
	var samples []any
	for i := 1; i <= 3; i++ {
		samples = append(samples, map[string]any{"index": i, "elapsed_sec": float64(30 + rng.IntN(300)), "usage": usage("judge-1", rng, credits)})
	}
	v.Metadata["audit"] = map[string]any{"samples": samples}
	passed := 100
	if c.outcome == "stopped" || c.outcome == "not-migrated" {
		passed = 50 + rng.IntN(49)
	}
	rate := float64(passed) / 100
	row := result.ModuleScore{ID: "tests", Title: "upstream tests", Weight: 1, Rate: rate, Complete: passed == 100, Status: "ok",
		ScoredWeight: 100, Passed: passed, Failed: 100 - passed, Notes: []string{}, Observations: []string{}}
	v.Modules = []result.ModuleScore{row}
	v.StagesRun = []string{result.StageAudit}
	switch c.outcome {
	case "blindness", "not-migrated":
		v.AuditGate = result.GateFail
		v.BlockedBy = "audit-gate"
		v.AuditFailures = []map[string]any{{"id": "old-stack-retired", "verdict": "fail", "summary": "State A's implementation is still on the default path", "detail": "", "evidence": []any{}}}
		would := 0.0
		if rate == 1 {
			would = 40
		}
		v.Unscored[result.StageBehavioural] = map[string]any{"points": would, "would_be_points": would, "rate": rate, "complete": rate == 1,
			"blocked_by": "", "harness_error": "", "notes": []string{}, "modules": []result.ModuleScore{row}, "status": "ok", "counted": false}
		v.UnscoredStages[result.StageBehavioural] = "ran and measured, not counted: the audit gate failed"
		v.Notes = append(v.Notes, "audit gate failed on 1 required check(s); score is 0 and no later stage can earn anything")
		return v
	}
	v.AuditGate = result.GatePass
	v.StagesRun = append(v.StagesRun, result.StageBehavioural)
	v.BehaviouralRate = rate
	if c.outcome == "stopped" {
		v.BlockedBy = "behavioural-incomplete"
		return v
	}
	v.BehaviouralPoints = 40
	v.StagesRun = append(v.StagesRun, result.StageVerification)
	survived := int((c.score - 40) / 10)
	order := rng.Perm(len(Adversaries))
	broke := map[string]bool{}
	for _, k := range order[:len(Adversaries)-survived] {
		broke[Adversaries[k]] = true
	}
	var rounds []any
	for _, a := range Adversaries {
		outcome := "survived"
		if broke[a] {
			outcome = "broken"
			v.VerificationBreaks = append(v.VerificationBreaks, map[string]any{"adversary": a, "summary": "an input on which the two trees disagree", "detail": "", "evidence": []any{}})
		}
		rounds = append(rounds, map[string]any{"adversary": a, "outcome": outcome, "elapsed_sec": float64(600 + rng.IntN(3000)), "usage": usage("adversary-"+a[:3], rng, credits)})
	}
	v.Metadata["verification"] = map[string]any{"rounds": rounds}
	v.AdversariesTotal, v.AdversariesSurvived = len(Adversaries), survived
	v.VerificationPoints = float64(10 * survived)
	v.Score = 40 + v.VerificationPoints
	return v
}

// writeRun writes v as dir/score.json (in the earlier harness's shape when
// earlier), and telemetry.json beside it when withTelemetry.
func writeRun(dir string, v *result.Verdict, earlier, withTelemetry bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, "score.json")
	if !earlier {
		if err := v.Write(p); err != nil {
			return err
		}
	} else {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		for _, k := range []string{"harnesses", "unscored_stages", "unscored", "uncounted"} {
			delete(doc, k)
		}
		out, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, append(out, '\n'), 0o644); err != nil {
			return err
		}
	}
	if withTelemetry {
		if _, err := telemetry.Write(dir); err != nil {
			return err
		}
	}
	return nil
}
