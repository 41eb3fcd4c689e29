package grade

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/campaign"
	"github.com/swe-refactor-bench/srb/ladder/models"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Run is one submission of a batch (srb ladder's --submission or
// --submission-fixture) and, once GradeAll has graded it, its outcome.
type Run struct {
	// Name is the submitted folder's base name or the fixture's name.
	Name string
	// Tree is the submitted tree's absolute path; "" for a fixture,
	// which is applied on State A instead.
	Tree string
	// Fixture is the loaded submission fixture, nil for a submitted tree.
	Fixture *submission.Fixture
	// Results is the run's results folder: the batch's folder with one
	// submission, its Name under it with several.
	Results string
	// Drivers are the model positions' overrides (ResolveDrivers).
	Drivers pipeline.Drivers

	// Log gets the run's stage lines; GradeAll sets it.
	Log io.Writer
	// Verdict is what was published (nil when nothing could be).
	Verdict *result.Verdict
	// Code is the run's exit class (0, pipeline.CouldNotRun or
	// pipeline.BadTask) and Err its cause.
	Code int
	Err  error
	// Unmet are the fixture's expect.json checks the verdict did not
	// meet (empty when met or when there is no expect.json).
	Unmet []string
}

// NameClashError says two submissions of a batch have one name, so their
// results would share Path.
type NameClashError struct {
	Name, Path string
}

// Error implements error.
func (e *NameClashError) Error() string {
	return fmt.Sprintf("two submissions are named %s: their results would share %s", e.Name, e.Path)
}

// Plan names each submission (the submitted trees, then the fixtures,
// loaded) and its results folder under results. Two submissions with one
// name are a *NameClashError; a fixture that cannot be loaded is its
// loading error.
func Plan(trees, fixtures []string, results string) ([]*Run, error) {
	var runs []*Run
	for _, s := range trees {
		abs, err := filepath.Abs(s)
		if err != nil {
			return nil, err
		}
		runs = append(runs, &Run{Name: filepath.Base(abs), Tree: abs})
	}
	for _, d := range fixtures {
		fx, err := submission.Load(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, &Run{Name: fx.Name, Fixture: fx})
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Name] && len(runs) > 1 {
			return nil, &NameClashError{Name: r.Name, Path: filepath.Join(results, r.Name)}
		}
		seen[r.Name] = true
		r.Results = results
		if len(runs) > 1 {
			r.Results = filepath.Join(results, r.Name)
		}
	}
	return runs, nil
}

// DriverFlags are the operator's choice of drivers for a batch (srb
// ladder's --driver, --audit-driver, … flags); "" and nil fields leave
// the choice to the environment, a fixture's scripts or the task.
type DriverFlags struct {
	// Driver is every position's driver no per-position field names.
	Driver            string
	AuditDriver       string
	AuditModel        string
	AuditScripts      []string
	AdversaryDriver   string
	AdversaryModel    string
	AdversaryScripts  []string // ID=FILE
	AdjudicatorDriver string
	AdjudicatorModel  string
	AdjudicatorScript string
	// Scripts are every adversary's scripted turns, adversary n
	// replaying Scripts[(n-1) % len] (srb verification --script; srb
	// ladder has none: ResolveDrivers does not read it).
	Scripts []string
}

// CheckDriverFlags says what is wrong with f's driver names and
// --adversary-script values (an error naming the flag), or nil when
// every driver is known and every ID=FILE well formed.
func CheckDriverFlags(f DriverFlags) error {
	for _, d := range []struct{ flag, v string }{{"--driver", f.Driver}, {"--audit-driver", f.AuditDriver},
		{"--adversary-driver", f.AdversaryDriver}, {"--adjudicator-driver", f.AdjudicatorDriver}} {
		if d.v != "" && !slices.Contains(models.DriverNames(), d.v) {
			return fmt.Errorf("%s %s: known drivers are %s", d.flag, d.v, strings.Join(models.DriverNames(), ", "))
		}
	}
	for _, s := range f.AdversaryScripts {
		if id, file, ok := strings.Cut(s, "="); !ok || id == "" || file == "" {
			return fmt.Errorf("--adversary-script %s: write ID=FILE", s)
		}
	}
	return nil
}

// StageDrivers are the model positions' overrides of a stage run alone
// (srb verification's flags: no environment, no fixture): every
// adversary's (Adversary), single adversaries' by id (Adversaries, which
// win), and the adjudicator's. The error names a flag that is wrong
// ([CheckDriverFlags]) or a script given to a driver that is not the
// scripted one.
func StageDrivers(f DriverFlags) (adversary pipeline.Driver, adversaries map[string]pipeline.Driver, adjudicator pipeline.Driver, err error) {
	if err := CheckDriverFlags(f); err != nil {
		return adversary, nil, adjudicator, err
	}
	adversary = pipeline.Driver{Driver: cmp.Or(f.AdversaryDriver, f.Driver), Model: f.AdversaryModel, Scripts: f.Scripts}
	adjudicator = pipeline.Driver{Driver: cmp.Or(f.AdjudicatorDriver, f.Driver), Model: f.AdjudicatorModel}
	if len(f.Scripts) > 0 && adversary.Driver != models.DriverScripted {
		return adversary, nil, adjudicator, errors.New("--script needs --driver scripted (or --adversary-driver scripted)")
	}
	for _, s := range f.AdversaryScripts {
		id, file, _ := strings.Cut(s, "=")
		if adversaries == nil {
			adversaries = map[string]pipeline.Driver{}
		}
		adversaries[id] = pipeline.Driver{Driver: cmp.Or(adversary.Driver, models.DriverScripted), Model: f.AdversaryModel, Scripts: []string{file}}
		if adversaries[id].Driver != models.DriverScripted {
			return adversary, nil, adjudicator, errors.New("--adversary-script needs the scripted adversary driver")
		}
	}
	if f.AdjudicatorScript != "" {
		adjudicator.Driver = cmp.Or(adjudicator.Driver, models.DriverScripted)
		if adjudicator.Driver != models.DriverScripted {
			return adversary, nil, adjudicator, errors.New("--adjudicator-script needs the scripted adjudicator driver")
		}
		adjudicator.Scripts = []string{f.AdjudicatorScript}
	}
	return adversary, adversaries, adjudicator, nil
}

// ResolveDrivers decides each model position's override for a
// submission (fx: its fixture, nil for a submitted tree): the
// per-position field of f, else its environment variable (lookup:
// SRB_AUDIT_DRIVER, SRB_AUDIT_MODEL, …), else f.Driver, else SRB_DRIVER,
// else the scripted driver when the fixture has a script for the
// position, else the task's own driver (a zero override).
func ResolveDrivers(f DriverFlags, lookup func(string) (string, bool), fx *submission.Fixture) pipeline.Drivers {
	env := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	first := func(vs ...string) string {
		for _, v := range vs {
			if v != "" {
				return v
			}
		}
		return ""
	}
	all := first(f.Driver, env("SRB_DRIVER"))
	var x submission.Fixture
	if fx != nil {
		x = *fx
	}
	scripted := func(has bool) string {
		if has {
			return models.DriverScripted
		}
		return ""
	}

	var d pipeline.Drivers
	d.Audit = pipeline.Driver{
		Driver:  first(f.AuditDriver, env("SRB_AUDIT_DRIVER"), all, scripted(len(x.AuditScripts) > 0)),
		Model:   first(f.AuditModel, env("SRB_AUDIT_MODEL")),
		Scripts: f.AuditScripts,
	}
	if len(d.Audit.Scripts) == 0 && d.Audit.Driver == models.DriverScripted {
		d.Audit.Scripts = x.AuditScripts
	}
	d.Adjudicator = pipeline.Driver{
		Driver: first(f.AdjudicatorDriver, env("SRB_ADJUDICATOR_DRIVER"), all, scripted(x.AdjudicatorScript != "")),
		Model:  first(f.AdjudicatorModel, env("SRB_ADJUDICATOR_MODEL")),
	}
	if s := first(f.AdjudicatorScript, x.AdjudicatorScript); s != "" && d.Adjudicator.Driver == models.DriverScripted {
		d.Adjudicator.Scripts = []string{s}
	}
	advDriver := first(f.AdversaryDriver, env("SRB_ADVERSARY_DRIVER"), all)
	advModel := first(f.AdversaryModel, env("SRB_ADVERSARY_MODEL"))
	d.Adversary = pipeline.Driver{Driver: advDriver, Model: advModel}
	scripts := map[string]string{}
	for id, p := range x.AdversaryScripts {
		scripts[id] = p
	}
	for _, s := range f.AdversaryScripts {
		id, file, _ := strings.Cut(s, "=")
		scripts[id] = file
	}
	d.Adversaries = map[string]pipeline.Driver{}
	for id, p := range scripts {
		a := pipeline.Driver{Driver: advDriver, Model: advModel}
		if a.Driver == "" {
			a.Driver = models.DriverScripted
		}
		if a.Driver == models.DriverScripted {
			a.Scripts = []string{p}
		}
		d.Adversaries[id] = a
	}
	return d
}

// RunPositions are the model positions r may call, with its overrides
// applied: stage 1's, and stage 3's when this build can run stage 3 —
// except for a fixture whose expect.json says stage 3 does not run: it
// need not script (or hold keys for) positions it declares unreachable,
// and if stage 3 is earned after all, stage 3's own preflight fails, the
// verdict is invalid and the expectation is not met.
func RunPositions(t *task.Task, r *Run) []models.Position {
	var out []models.Position
	for _, p := range Positions(t, result.StageAudit) {
		p.Config = r.Drivers.Audit.Apply(p.Config, 1)
		out = append(out, p)
	}
	if r.Fixture != nil && r.Fixture.Expect != nil && r.Fixture.Expect.Stage3 == "not-run" {
		return out
	}
	for i, p := range Positions(t, result.StageVerification) {
		if i == 0 {
			p.Config = r.Drivers.Adjudicator.Apply(p.Config, 1)
		} else {
			d, ok := r.Drivers.Adversaries[t.Verification.Adversaries[i-1].ID]
			if !ok {
				d = r.Drivers.Adversary
			}
			p.Config = d.Apply(p.Config, 1)
		}
		out = append(out, p)
	}
	return out
}

// Preflight checks, before anything starts, that every submitted tree
// of runs exists and that every credential each run's model positions
// need is in lookup. It returns one line per fault ("NAME: why"), none
// when all is well.
func Preflight(t *task.Task, runs []*Run, lookup func(string) (string, bool)) []string {
	var faults []string
	for _, r := range runs {
		if r.Fixture == nil {
			if st, err := os.Stat(r.Tree); err != nil || !st.IsDir() {
				faults = append(faults, fmt.Sprintf("%s: no submission at %s", r.Name, r.Tree))
				continue
			}
		}
		if err := models.Preflight(lookup, RunPositions(t, r)...); err != nil {
			faults = append(faults, fmt.Sprintf("%s: %v", r.Name, err))
		}
	}
	return faults
}

// Batch is how GradeAll grades a batch's runs.
type Batch struct {
	// Task is the loaded task and Grader the pipeline ready to grade its
	// submissions (its images prepared when the stages run in them).
	Task   *task.Task
	Grader *pipeline.Grader
	// Jobs is how many runs are graded at once (at least 1).
	Jobs int
	// RunMeta says who made the submissions: it overlays each run's
	// run.json (campaign.RunMetaPath) in the verdict's metadata.run.
	RunMeta campaign.RunMetaFlags
	// Resume keeps finished reviews and rounds (pipeline.Grader.Resume),
	// and an error verdict published here keeps them too.
	Resume bool
	// Log gets the runs' lines, each prefixed with the run's name when
	// there are several; it must be safe for concurrent writes.
	Log io.Writer
}

// GradeAll grades every run of runs, up to b.Jobs at once, and records
// each one's verdict, exit class and, for a fixture with expect.json,
// the checks not met (a run with no published verdict meets none).
// Every run publishes a verdict, an error verdict when it could not be
// graded.
func (b *Batch) GradeAll(ctx context.Context, runs []*Run) {
	sem := make(chan struct{}, max(b.Jobs, 1))
	var wg sync.WaitGroup
	for _, r := range runs {
		var pw *prefixWriter
		if len(runs) > 1 {
			pw = &prefixWriter{w: b.Log, prefix: r.Name + ": "}
			r.Log = pw
		} else {
			r.Log = b.Log
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b.grade(ctx, r)
			if r.Fixture != nil && r.Fixture.Expect != nil {
				// Whatever was published is what the expectation is
				// checked against, an error verdict included.
				if r.Verdict == nil {
					r.Unmet = []string{"no verdict was published"}
				} else {
					r.Unmet = r.Fixture.Expect.Check(submission.Observe(r.Verdict))
				}
			}
			if pw != nil {
				pw.Flush()
			}
		}()
	}
	wg.Wait()
}

// grade grades r and records its verdict and exit class on r. Every path
// publishes a verdict.
func (b *Batch) grade(ctx context.Context, r *Run) {
	fx := ""
	if r.Fixture != nil {
		fx = r.Fixture.Dir
	}
	m, _, err := campaign.ResolveRunMeta(b.RunMeta, campaign.RunMetaPath(r.Tree, fx), b.Task.Class)
	if err != nil {
		// Who made the submission cannot be told: nothing is graded, and
		// the published verdict is invalid.
		metaErr := fmt.Errorf("run metadata: %w", err)
		r.Code, r.Err = pipeline.CouldNotRun, metaErr
		v, err := pipeline.PublishError(r.Results, b.Task.ID, metaErr.Error(), b.Resume)
		r.Verdict = v
		if err != nil {
			fmt.Fprintf(r.Log, "srb: ladder: %v\n", err)
		}
		return
	}
	sub := pipeline.Submission{Name: r.Name, Tree: r.Tree, Results: r.Results, Log: r.Log, Annotate: campaign.RecordRunMeta(m),
		Drivers: r.Drivers}
	if fx := r.Fixture; fx != nil {
		sub.Apply = func(original, dst string) (string, error) {
			a, err := fx.Apply(original, dst)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("applied fixture %s: %d path(s) deleted, %d file(s) written", fx.Name, len(a.Deleted), len(a.Written)), nil
		}
	}
	o := b.Grader.Grade(ctx, sub)
	r.Verdict = o.Verdict
	r.Code, r.Err = o.Code()
}

// prefixWriter writes whole lines to w, each with prefix; a partial line
// waits for its newline (or Flush).
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    bytes.Buffer
}

// Write implements io.Writer.
func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		i := bytes.IndexByte(p.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.buf.Next(i + 1)
		if _, err := io.WriteString(p.w, p.prefix+string(line)); err != nil {
			return len(b), err
		}
	}
}

// Flush writes a pending partial line.
func (p *prefixWriter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf.Len() > 0 {
		io.WriteString(p.w, p.prefix+p.buf.String()+"\n")
		p.buf.Reset()
	}
}
