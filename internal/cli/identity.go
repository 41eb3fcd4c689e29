package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// imageSuites runs a task's behavioural suite in its stage images, the
// way srb freeze and srb build's identity run both need it: a record run
// in a container of the verification image (State A built with the old
// toolchain), and identity runs in containers of the behavioural image
// with the record run's build ledger imported (the behavioural image may
// lack the old toolchain).
type imageSuites struct {
	Engine engine.Runner
	// Images are the verification and behavioural images, by stage.
	Images map[string]*suite.Image
	// Original is State A's tree on the host.
	Original string
	// Work is the host folder every run leaves its files in:
	// <Work>/<name>.json and <Work>/<name>/ (the container's work folder).
	Work   string
	Budget time.Duration
	Log    func(format string, args ...any)
}

// recordRun is the name of the record run whose ledger identity runs
// import.
const recordRun = "record"

// run is one run named name of decl's modules in mode: record in the
// verification image (its work folder, with the ledger, copied out to
// <Work>/record), identity in the behavioural image with that ledger
// imported, checked against the host folder truthDir ("" is the image's
// own truth/). A stage result is returned whenever the container left
// one; a container fault is then logged, not returned (the stage result
// says what happened, and a refusal names its modules).
func (s *imageSuites) run(ctx context.Context, decl *behavioural.Declaration, name, mode, truthDir string) (*result.Stage, error) {
	cs := &suite.Container{Engine: s.Engine, Decl: decl, Mode: mode, Repo: s.Original, Original: s.Original, Budget: s.Budget,
		Result: filepath.Join(s.Work, name+".json"), Work: filepath.Join(s.Work, name), Log: s.Log}
	if mode == behavioural.ModeRecord {
		cs.Image = s.Images[result.StageVerification]
	} else {
		cs.Image, cs.Truth = s.Images[result.StageBehavioural], truthDir
		imported, err := importLedger(filepath.Join(s.Work, recordRun, behavioural.SharedWork, behavioural.LedgerDir), filepath.Join(s.Work, name+"-ledger"))
		if err != nil {
			return nil, err
		}
		cs.Imports = []engine.Copy{{HostPath: imported, ContainerPath: suite.WorkPath + "/" + behavioural.SharedWork + "/" + behavioural.LedgerDir}}
	}
	st, err := cs.Run(ctx)
	if st == nil {
		return nil, err
	}
	if err != nil && s.Log != nil {
		s.Log("%s: %v", name, err)
	}
	return st, nil
}

// identity is srb build's identity run: State A built by decl's build
// modules in the verification image (a record run of those modules only:
// the other modules' observations are not needed), then every module run
// in the behavioural image against the image's own truth/, with that
// build imported. It returns the identity run's stage result and what in
// it did not reach 1.0 (behavioural.Incomplete; empty when it passed).
func (s *imageSuites) identity(ctx context.Context, decl *behavioural.Declaration) (*result.Stage, []string, error) {
	builds := *decl
	builds.Modules = nil
	for _, m := range decl.Modules {
		if m.Kind == "build" {
			builds.Modules = append(builds.Modules, m)
		}
	}
	if len(builds.Modules) > 0 {
		if s.Log != nil {
			s.Log("identity run: building State A in the verification image (the old toolchain)")
		}
		if _, err := s.run(ctx, &builds, recordRun, behavioural.ModeRecord, ""); err != nil {
			return nil, nil, fmt.Errorf("building State A in the verification image: %w", err)
		}
	} else if err := os.MkdirAll(filepath.Join(s.Work, recordRun, behavioural.SharedWork, behavioural.LedgerDir), 0o755); err != nil {
		return nil, nil, err
	}
	if s.Log != nil {
		s.Log("identity run: State A checked by every module against the image's truth, in the behavioural image")
	}
	st, err := s.run(ctx, decl, "identity", behavioural.ModeIdentity, "")
	if err != nil {
		return nil, nil, err
	}
	return st, behavioural.Incomplete(st), nil
}

// errIdentityFailed is wrapped when a behavioural image's identity run
// did not reach 1.0 in every module, or its truth does not fit the task:
// the task's configuration is wrong (exit 2).
var errIdentityFailed = errors.New("the identity run failed")

// identityCache remembers passed identity runs under the cache folder
// (<Dir>/<key>.json, Dir being <cache>/identity), keyed by what
// determines one: the
// behavioural image's digest (which covers truth/, data/, modules/ and
// the helper), the verification image's (State A's build and the old
// toolchain), State A's digest and the task's declaration (modules,
// params, configurations, which reach the images only through the
// suite spec srb writes).
type identityCache struct{ Dir string }

// identityEntry is one remembered passed identity run.
type identityEntry struct {
	Task         string    `json:"task"`
	Behavioural  string    `json:"behavioural"`
	Verification string    `json:"verification"`
	StateA       string    `json:"state_a_sha256"`
	Checks       int       `json:"checks"`
	Modules      int       `json:"modules"`
	Seconds      float64   `json:"seconds"`
	At           time.Time `json:"at"`
}

// identityKey is the cache key of an identity run (hex sha256).
func identityKey(decl *behavioural.Declaration, behaviouralDigest, verificationDigest string) (string, error) {
	d := *decl
	d.TaskDir = "" // where the task folder sits does not change the run
	b, err := json.Marshal(&d)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "srb identity run 1\nbehavioural %s\nverification %s\nstate-a %s\ndeclaration %s\n",
		behaviouralDigest, verificationDigest, decl.StateA, b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (c identityCache) path(key string) string { return filepath.Join(c.Dir, key+".json") }

// get returns the remembered run under key, or nil.
func (c identityCache) get(key string) *identityEntry {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	var e identityEntry
	if json.Unmarshal(b, &e) != nil || e.Behavioural == "" {
		return nil
	}
	return &e
}

// put remembers a passed run under key.
func (c identityCache) put(key string, e identityEntry) error {
	if err := os.MkdirAll(filepath.Dir(c.path(key)), 0o755); err != nil {
		return err
	}
	return behavioural.WriteJSON(c.path(key), e)
}

// frozen says whether the task folder has truth files (truth/*.json).
func frozen(taskDir string) bool {
	m, _ := filepath.Glob(filepath.Join(taskDir, behavioural.TruthDir, "*.json"))
	return len(m) > 0
}

// identityFailure formats what did not reproduce, one line per module or
// check, at most limit lines and a count of the rest.
func identityFailure(bad []string, limit int) string {
	if len(bad) <= limit {
		return strings.Join(bad, "\n  ")
	}
	return strings.Join(bad[:limit], "\n  ") + fmt.Sprintf("\n  … and %d more", len(bad)-limit)
}

// identityImages returns the stage images an identity run uses, by the
// ids their digests' configs have on the engine (which must have them).
func identityImages(ctx context.Context, eng engine.Runner, t *task.Task, built map[string]*image.Built) (map[string]*suite.Image, error) {
	out := map[string]*suite.Image{}
	for _, stage := range []string{result.StageVerification, result.StageBehavioural} {
		b := built[stage]
		if b == nil || b.Config == "" {
			return nil, fmt.Errorf("the %s image was not built with a config digest", stage)
		}
		info, err := eng.Image(ctx, b.Config)
		if err != nil {
			return nil, fmt.Errorf("the %s image %.19s is not loaded: %w", stage, b.Config, err)
		}
		out[stage] = &suite.Image{Stage: stage, Ref: info.ID, Tag: image.Tag(t, stage), Digest: b.Digest}
	}
	return out, nil
}

// identityBuild is srb build's identity run for one task whose
// behavioural image was just built.
type identityBuild struct {
	opts  *BuildOptions
	t     *task.Task
	in    *image.Inputs
	b     *image.Builder
	built []*image.Built
	// docker is the engine --load loads into (nil without --load);
	// loaded says this build's images were loaded into it.
	docker   engine.Runner
	loaded   bool
	cacheDir string
	// prev is the lockfile before this build (nil when there was none).
	prev *image.Lock
	logf func(format string, args ...any)
}

// run runs (or finds remembered) the identity run of the behavioural
// image just built and returns what the lockfile records of it. An error
// wrapping errIdentityFailed means the task's truth does not reproduce
// (or does not fit its modules); r.Failing then lists what failed. Any
// other error is a harness fault.
func (ib *identityBuild) run(ctx context.Context, r *buildReport) (*image.IdentityRun, error) {
	t := ib.t
	if ib.opts.NoIdentity {
		ib.logf("%s: the identity run is skipped (%s); %s records the skip", t.ID, identitySkipWhy(ib.opts), image.LockName)
		return &image.IdentityRun{Status: image.IdentitySkipped}, nil
	}
	if !frozen(t.Dir) {
		ib.logf("%s: not frozen yet (no %s/): no identity run; srb freeze %s records the truth, and the next srb build runs it",
			t.ID, behavioural.TruthDir, t.ID)
		return &image.IdentityRun{Status: image.IdentityNotFrozen}, nil
	}
	decl, err := declaration(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errIdentityFailed, err)
	}
	if probs := truthProblems(decl, behavioural.ModeIdentity); len(probs) > 0 {
		r.Failing = probs
		return nil, fmt.Errorf("%w: the truth does not fit the task's modules (srb freeze %s re-records it):\n  %s",
			errIdentityFailed, t.ID, identityFailure(probs, 20))
	}
	images := map[string]*image.Built{}
	for _, b := range ib.built {
		images[b.Stage] = b
	}
	beh := images[result.StageBehavioural]
	cache := identityCache{Dir: filepath.Join(ib.cacheDir, "identity")}
	if ib.opts.IdentityCache != "" {
		cache.Dir = ib.opts.IdentityCache
	}
	remembered := func(ver string) (*image.IdentityRun, string, error) {
		key, err := identityKey(decl, beh.Digest, ver)
		if err != nil {
			return nil, "", err
		}
		if e := cache.get(key); e != nil {
			ib.logf("%s: identity run: passed before for these images (%d checks, %s; remembered in %s)", t.ID, e.Checks,
				e.At.Format(time.RFC3339), filepath.Dir(cache.path(key)))
			r.IdentityCached = true
			return &image.IdentityRun{Status: image.IdentityPassed, Checks: e.Checks, Verification: ver}, key, nil
		}
		return nil, key, nil
	}
	ver := ""
	if v := images[result.StageVerification]; v != nil {
		ver = v.Digest
	} else if ib.prev != nil {
		ver = ib.prev.Images[result.StageVerification].Digest
	}
	if ver != "" {
		if run, _, err := remembered(ver); run != nil || err != nil {
			return run, err
		}
	}
	eng := ib.docker
	if eng == nil {
		newEngine := ib.opts.Engine
		if newEngine == nil {
			newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
		}
		if eng, err = newEngine(); err != nil {
			return nil, fmt.Errorf("it runs in containers: %w (srb build --no-identity skips it, and %s records that)", err, image.LockName)
		}
	}
	if !ib.loaded || images[result.StageVerification] == nil {
		ib.logf("%s: loading the verification and behavioural images into Docker for the identity run", t.ID)
		loads := newDockerLoads(ctx, eng)
		again, err := ib.b.Build(ctx, t, ib.in, image.BuildOptions{
			Stages: []string{result.StageVerification, result.StageBehavioural}, Load: loads.load})
		if err != nil {
			var ce *image.CapabilityError
			if errors.As(err, &ce) {
				return nil, fmt.Errorf("%w: %v", errIdentityFailed, err)
			}
			return nil, err
		}
		if err := loads.wait(len(again)); err != nil {
			return nil, err
		}
		for _, a := range again {
			if a.Stage == result.StageBehavioural && a.Digest != beh.Digest {
				return nil, fmt.Errorf("loading it rebuilt the behavioural image as %s, not %s: the build does not reproduce", a.Digest, beh.Digest)
			}
			images[a.Stage] = a
		}
		ver = images[result.StageVerification].Digest
	}
	run, key, err := remembered(ver)
	if run != nil || err != nil {
		return run, err
	}
	si, err := identityImages(ctx, eng, t, images)
	if err != nil {
		return nil, err
	}
	original, cleanup, err := stateATreeIn(ctx, t, ib.opts.Cache)
	if err != nil {
		var mm *source.MismatchError
		if errors.As(err, &mm) {
			return nil, fmt.Errorf("%w: State A: %v", errIdentityFailed, err)
		}
		return nil, fmt.Errorf("State A: %w", err)
	}
	defer cleanup()
	work, done, err := workDir("", "srb-identity-")
	if err != nil {
		return nil, err
	}
	defer done()
	suites := &imageSuites{Engine: eng, Images: si, Original: original, Work: work,
		Budget: time.Duration(t.Timeouts.Behavioural) * time.Second,
		Log:    func(format string, args ...any) { ib.logf(t.ID+": "+format, args...) }}
	start := time.Now()
	st, bad, err := suites.identity(ctx, decl)
	if err != nil {
		return nil, err
	}
	passed, total := result.Pooled(st.Checks)
	ib.logf("%s: identity run: %d module(s), %d/%d checks passed (%.1fs)", t.ID, len(st.Units), passed, total, time.Since(start).Seconds())
	if len(bad) > 0 {
		r.Failing = bad
		return nil, fmt.Errorf("%w: State A does not reproduce its truth in the behavioural image %.19s, so the image is not built (no %s written):\n  %s",
			errIdentityFailed, beh.Digest, image.LockName, identityFailure(bad, 20))
	}
	e := identityEntry{Task: t.ID, Behavioural: beh.Digest, Verification: ver, StateA: t.StateA.SHA256, Checks: passed,
		Modules: len(st.Units), Seconds: time.Since(start).Seconds(), At: time.Now().UTC()}
	if err := cache.put(key, e); err != nil {
		ib.logf("%s: the identity run passed, but it could not be remembered: %v", t.ID, err)
	}
	return &image.IdentityRun{Status: image.IdentityPassed, Checks: passed, Verification: ver}, nil
}

// checkTruth lists, one line each ("truth/<module>.json:LINE: FIELD:
// message"), what in d's truth files does not fit the task as it is now
// (kinds.CheckTruth: missing or unreadable truth, another task, module or
// kind, provenance missing, empty or of another State A, cases changed,
// an observation a module checks not recorded).
func checkTruth(d *behavioural.Declaration) []string {
	var out []string
	for _, p := range kinds.CheckTruth(d, "") {
		rel, err := filepath.Rel(d.TaskDir, p.File)
		if err != nil {
			rel = p.File
		}
		loc := filepath.ToSlash(rel)
		if p.Line > 0 {
			loc += fmt.Sprintf(":%d", p.Line)
		}
		if p.Field != "" {
			loc += ": " + p.Field
		}
		out = append(out, loc+": "+p.Msg)
	}
	return out
}
