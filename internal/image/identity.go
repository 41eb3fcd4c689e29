package image

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

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/behavioural/kinds"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// ErrIdentityFailed is wrapped when a behavioural image's identity run
// did not reach 1.0 in every module, or its truth does not fit the task:
// the task's configuration is wrong (exit 2).
var ErrIdentityFailed = errors.New("the identity run failed")

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
// A run bounded by other limits than the defaults (identityLimits) is
// another run: a pass under 8 GiB says nothing of 256 MiB.
func identityKey(decl *behavioural.Declaration, behaviouralDigest, verificationDigest string, limits engine.Limits) (string, error) {
	d := *decl
	d.TaskDir = "" // where the task folder sits does not change the run
	b, err := json.Marshal(&d)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "srb identity run 1\nbehavioural %s\nverification %s\nstate-a %s\ndeclaration %s\n",
		behaviouralDigest, verificationDigest, decl.StateA, b)
	if limits != (engine.Limits{Pids: engine.DefaultLimits.Pids, Memory: engine.DefaultLimits.Memory}) {
		// Only then, so the keys of runs under the defaults stay as
		// they were.
		fmt.Fprintf(h, "limits pids %d memory %d\n", limits.Pids, limits.Memory)
	}
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
func identityImages(ctx context.Context, eng engine.Runner, t *task.Task, built map[string]*Built) (map[string]*suite.Image, error) {
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
		out[stage] = &suite.Image{Stage: stage, Ref: info.ID, Tag: Tag(t, stage), Digest: b.Digest}
	}
	return out, nil
}

// Identity is srb build's identity run for one task whose behavioural
// image was just built: the task's State A built by its build modules in
// the verification image, then checked by every module in the
// behavioural image against the image's own truth/ (suite.Images). A
// passed run is remembered under CacheDir, keyed by both images'
// digests, State A's and the task's declaration, and not run again.
type Identity struct {
	// Task is the task built.
	Task *task.Task
	// Built are the images just built.
	Built []*Built
	// Docker is the engine the build loaded into (nil without --load);
	// Loaded says the build's images were loaded into it.
	Docker engine.Runner
	Loaded bool
	// Engine connects to the container engine when Docker is nil; nil
	// is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// Load builds (from the build's cache) and loads the verification and
	// behavioural images into eng, returning what it built; called when
	// they were not loaded by the build.
	Load func(ctx context.Context, eng engine.Runner) ([]*Built, error)
	// StateA materialises State A's tree and returns it and its cleanup.
	StateA func(ctx context.Context) (string, func(), error)
	// CacheDir is the folder passed runs are remembered in (<key>.json
	// each).
	CacheDir string
	// Prev is the lockfile before this build (nil when there was none).
	Prev *Lock
	// Skip, when not "", skips the run and says why (--no-identity).
	Skip string
	// Log reports progress; it must not be nil.
	Log func(format string, args ...any)
}

// IdentityOutcome is what an identity run adds to srb build's report.
type IdentityOutcome struct {
	// Failing is what did not reproduce when the run failed.
	Failing []string
	// Cached says a passed run for the same images was found in the
	// cache instead of running it again.
	Cached bool
}

// Run runs (or finds remembered) the identity run and returns what the
// lockfile records of it; out receives what failed and whether the run
// was remembered. An error wrapping [ErrIdentityFailed] means the task's
// truth does not reproduce (or does not fit its modules). Any other
// error is a harness fault.
func (ib *Identity) Run(ctx context.Context, out *IdentityOutcome) (*IdentityRun, error) {
	t := ib.Task
	if ib.Skip != "" {
		ib.Log("%s: the identity run is skipped (%s); %s records the skip", t.ID, ib.Skip, LockName)
		return &IdentityRun{Status: IdentitySkipped}, nil
	}
	if !frozen(t.Dir) {
		ib.Log("%s: not frozen yet (no %s/): no identity run; srb freeze %s records the truth, and the next srb build runs it",
			t.ID, behavioural.TruthDir, t.ID)
		return &IdentityRun{Status: IdentityNotFrozen}, nil
	}
	decl, err := Declaration(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrIdentityFailed, err)
	}
	if probs := suite.CheckTruth(decl); len(probs) > 0 {
		out.Failing = probs
		return nil, fmt.Errorf("%w: the truth does not fit the task's modules (srb freeze %s re-records it):\n  %s",
			ErrIdentityFailed, t.ID, identityFailure(probs, 20))
	}
	images := map[string]*Built{}
	for _, b := range ib.Built {
		images[b.Stage] = b
	}
	beh := images[result.StageBehavioural]
	cache := identityCache{Dir: ib.CacheDir}
	remembered := func(ver string) (*IdentityRun, string, error) {
		key, err := identityKey(decl, beh.Digest, ver, identityLimits(t))
		if err != nil {
			return nil, "", err
		}
		if e := cache.get(key); e != nil {
			ib.Log("%s: identity run: passed before for these images (%d checks, %s; remembered in %s)", t.ID, e.Checks,
				e.At.Format(time.RFC3339), filepath.Dir(cache.path(key)))
			out.Cached = true
			return &IdentityRun{Status: IdentityPassed, Checks: e.Checks, Verification: ver}, key, nil
		}
		return nil, key, nil
	}
	ver := ""
	if v := images[result.StageVerification]; v != nil {
		ver = v.Digest
	} else if ib.Prev != nil {
		ver = ib.Prev.Images[result.StageVerification].Digest
	}
	if ver != "" {
		if run, _, err := remembered(ver); run != nil || err != nil {
			return run, err
		}
	}
	eng := ib.Docker
	if eng == nil {
		newEngine := ib.Engine
		if newEngine == nil {
			newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
		}
		if eng, err = newEngine(); err != nil {
			return nil, fmt.Errorf("it runs in containers: %w (srb build --no-identity skips it, and %s records that)", err, LockName)
		}
	}
	if !ib.Loaded || images[result.StageVerification] == nil {
		ib.Log("%s: loading the verification and behavioural images into Docker for the identity run", t.ID)
		again, err := ib.Load(ctx, eng)
		if err != nil {
			var ce *CapabilityError
			if errors.As(err, &ce) {
				return nil, fmt.Errorf("%w: %v", ErrIdentityFailed, err)
			}
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
	original, cleanup, err := ib.StateA(ctx)
	if err != nil {
		var mm *source.MismatchError
		if errors.As(err, &mm) {
			return nil, fmt.Errorf("%w: State A: %v", ErrIdentityFailed, err)
		}
		return nil, fmt.Errorf("State A: %w", err)
	}
	defer cleanup()
	work, err := os.MkdirTemp("", "srb-identity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	suites := &suite.Images{Engine: eng, Images: si, Original: original, Work: work,
		Budget: time.Duration(t.Timeouts.Behavioural) * time.Second, Limits: identityLimits(t),
		Log: func(format string, args ...any) { ib.Log(t.ID+": "+format, args...) }}
	start := time.Now()
	st, bad, err := suites.Identity(ctx, decl)
	if err != nil {
		return nil, err
	}
	passed, total := result.Pooled(st.Checks)
	ib.Log("%s: identity run: %d module(s), %d/%d checks passed (%.1fs)", t.ID, len(st.Units), passed, total, time.Since(start).Seconds())
	if len(bad) > 0 {
		out.Failing = bad
		return nil, fmt.Errorf("%w: State A does not reproduce its truth in the behavioural image %.19s, so the image is not built (no %s written):\n  %s",
			ErrIdentityFailed, beh.Digest, LockName, identityFailure(bad, 20))
	}
	e := identityEntry{Task: t.ID, Behavioural: beh.Digest, Verification: ver, StateA: t.StateA.SHA256, Checks: passed,
		Modules: len(st.Units), Seconds: time.Since(start).Seconds(), At: time.Now().UTC()}
	if err := cache.put(key, e); err != nil {
		ib.Log("%s: the identity run passed, but it could not be remembered: %v", t.ID, err)
	}
	return &IdentityRun{Status: IdentityPassed, Checks: passed, Verification: ver}, nil
}

// Declaration turns a loaded task's stage-2 block into the runner's.
func Declaration(t *task.Task) (*behavioural.Declaration, error) {
	dir, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, err
	}
	d := &behavioural.Declaration{Task: t.ID, TaskDir: dir, StateA: t.StateA.SHA256, Env: t.Behavioural.Env,
		StateB: t.StateB.Build, StateBDetect: t.StateB.Detect, Configurations: map[string]behavioural.Configuration{}}
	for name, c := range t.Behavioural.Configurations {
		d.Configurations[name] = behavioural.Configuration{Args: c.Args, Env: c.Env, Original: c.Original, Outputs: c.Outputs, Watch: c.Watch}
	}
	for _, m := range t.Behavioural.Modules {
		raw, err := m.ParamsJSON()
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", m.ID, err)
		}
		names, err := kinds.ConfigurationsOf(m.Kind, raw)
		if err != nil {
			return nil, fmt.Errorf("module %s: params of kind %s: %w", m.ID, m.Kind, err)
		}
		for _, n := range names {
			if _, ok := t.Behavioural.Configurations[n]; !ok {
				return nil, fmt.Errorf("module %s uses build configuration %q, which behavioural.configurations does not declare", m.ID, n)
			}
		}
		d.Modules = append(d.Modules, behavioural.DeclaredModule{ID: m.ID, Title: m.Title, About: m.About, Kind: m.Kind,
			Weight: m.Weight, Timeout: time.Duration(m.TimeoutSec) * time.Second, Params: json.RawMessage(raw)})
	}
	return d, nil
}

// identityLimits bound the identity run's containers: the task's pids and
// memory, the limits that end a process, so the grader's own use on State
// A is shown to fit the memory a submission's stage gets (ladder/suite,
// memoryLimitKill). The disk and CPU limits are left out: a disk limit
// cannot be enforced on every storage driver, and neither ends a process.
func identityLimits(t *task.Task) engine.Limits {
	l := StageLimits(t)
	return engine.Limits{Pids: l.Pids, Memory: l.Memory}
}
