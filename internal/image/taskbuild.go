package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/moby/buildkit/client"

	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TaskBuild is srb build of one task as a library: prepare the inputs,
// build the stage images on BuildKit (loading them into Docker when
// Docker is set), record their digests, compare them with a lockfile
// (Verify), run the behavioural image's identity run ([Identity]) and
// write images.lock. srb build runs it for every task it is given, and
// srb's stage-image provider ([StageImages], through the builder srb
// gives it) runs it to build a missing or stale stage image.
type TaskBuild struct {
	// Client is the BuildKit client; BuildKitVersion is what images.lock
	// records of it.
	Client          *client.Client
	BuildKitVersion string
	// CacheDir is srb's cache folder: the inputs are made under its
	// images/, State A comes from it, and passed identity runs are
	// remembered under its identity/ (unless IdentityCache is set).
	CacheDir string
	// Stages are the stage images to build; empty is all four.
	Stages []string
	// Verify rebuilds with no cache and compares with Want (the task's
	// lockfile) instead of writing images.lock.
	Verify bool
	Want   *Lock
	// Push, when set, pushes the images to Push:<task id>-<stage>.
	Push string
	// Helper is a prebuilt static srb-helper; "" builds it from srb's
	// source.
	Helper string
	// Docker, when set, is the engine the images are loaded into (srb
	// build --load).
	Docker engine.Runner
	// Engine connects to Docker for an identity run when Docker is nil;
	// nil is engine.NewDocker.
	Engine func() (engine.Runner, error)
	// Progress receives BuildKit's progress display in mode Mode (auto,
	// tty, plain, quiet, rawjson); nil shows none.
	Progress io.Writer
	Mode     string
	// SkipIdentity, when not "", skips the identity run and says why;
	// images.lock records the skip.
	SkipIdentity string
	// IdentityCache is the folder passed identity runs are remembered in;
	// "" is CacheDir's identity/.
	IdentityCache string
	// StateA materialises t's State A tree for the identity run and
	// returns it with its cleanup.
	StateA func(ctx context.Context, t *task.Task) (string, func(), error)
	// Log reports progress; it must not be nil.
	Log func(format string, args ...any)
}

// TaskBuilt is what [TaskBuild.Build] made of one task (srb build --json
// prints it per task).
type TaskBuilt struct {
	// Task is the task's id.
	Task string `json:"task"`
	// Lock is the lockfile the build made (written unless Verify).
	Lock *Lock `json:"lock,omitempty"`
	// Seconds are the wall-clock seconds of each stage image, the
	// identity run and the total.
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Verified says every digest reproduced (Verify); Drift says what
	// moved when one did not.
	Verified bool     `json:"verified,omitempty"`
	Drift    []string `json:"drift,omitempty"`
	// Error is why the build failed on the task's own fault.
	Error string `json:"error,omitempty"`
	// Loaded are the names each stage image was loaded into Docker as.
	Loaded map[string][]string `json:"loaded,omitempty"`
	// Identity is what the behavioural image's identity run said (nil
	// when the behavioural image was not built); Failing what did not
	// reproduce when it failed.
	Identity *IdentityRun `json:"identity_run,omitempty"`
	Failing  []string     `json:"identity_failing,omitempty"`
	// IdentityCached says a passed run for the same images was found in
	// the cache instead of running it again.
	IdentityCached bool `json:"identity_cached,omitempty"`
}

// TaskFault wraps an error that is the task's own fault (an asset that
// cannot go into the images as it is): srb build exits 2 for it.
type TaskFault struct{ Err error }

// Error is the wrapped error's message.
func (e *TaskFault) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *TaskFault) Unwrap() error { return e.Err }

// Build builds t's images and returns what it made. A *CapabilityError
// (a capability probe failed) or an error wrapping [ErrIdentityFailed]
// (the truth does not reproduce) comes with the partial result (Error
// set, no lockfile written): both are the task's fault, and srb build
// goes on with its next task. A [*TaskFault] is the task's fault too;
// any other error is a harness fault. Errors name the task.
func (b *TaskBuild) Build(ctx context.Context, t *task.Task) (*TaskBuilt, error) {
	r := &TaskBuilt{Task: t.ID}
	start := time.Now()
	root := filepath.Join(b.CacheDir, "images")
	in, err := Prepare(ctx, t, PrepareOptions{
		Root: root, Cache: &source.Cache{Dir: b.CacheDir}, Recheck: b.Verify, Log: b.Log,
		Helper: b.Helper,
	})
	if err != nil {
		// An asset that cannot go into the images as it is (a link
		// out of modules/) is the task's fault, not srb's.
		if tfe := (*TaskFolderError)(nil); errors.As(err, &tfe) {
			return nil, &TaskFault{Err: fmt.Errorf("build %s: %w", t.ID, err)}
		}
		return nil, fmt.Errorf("build %s: %w", t.ID, err)
	}
	bk := &Builder{Client: b.Client, Progress: b.Progress, Mode: b.Mode}
	bo := BuildOptions{Stages: b.Stages, NoCache: b.Verify, Push: b.Push}
	var loads *dockerLoads
	if b.Docker != nil {
		loads = newDockerLoads(ctx, b.Docker)
		bo.Load = loads.load
	}
	built, err := bk.Build(ctx, t, in, bo)
	var ce *CapabilityError
	switch {
	case err != nil && errors.As(err, &ce):
		r.Error = err.Error()
		return r, err
	case err != nil:
		return nil, fmt.Errorf("%s: %w", t.ID, err)
	}
	if loads != nil {
		if lerr := loads.wait(len(built)); lerr != nil {
			return nil, fmt.Errorf("%s: %w", t.ID, lerr)
		}
		r.Loaded = loads.names
	}
	lock := NewLock(t, b.BuildKitVersion, in, built)
	// Each image's packages list (Debian and the npm tree) is kept, so
	// what moved since images.lock is named, not only its digest.
	if err := RememberPackages(root, built); err != nil {
		return nil, fmt.Errorf("%s: %w", t.ID, err)
	}
	r.Seconds = map[string]float64{"total": time.Since(start).Seconds()}
	for _, bt := range built {
		r.Seconds[bt.Stage] = bt.Elapsed.Seconds()
	}
	if b.Verify {
		want := b.Want
		if len(b.Stages) > 0 {
			want = onlyStages(want, b.Stages)
		}
		for _, d := range Compare(want, lock) {
			r.Drift = append(r.Drift, packagesDrift(root, want, lock, d).String())
		}
		r.Verified = len(r.Drift) == 0
	}
	// The identity run: a behavioural image whose truth does not
	// reproduce is not built (no lockfile is written for it).
	if bt := builtStage(built, result.StageBehavioural); bt != nil && (!b.Verify || r.Verified) {
		prev, _ := ReadLock(t.Dir)
		dir := b.IdentityCache
		if dir == "" {
			dir = filepath.Join(b.CacheDir, "identity")
		}
		id := &Identity{Task: t, Built: built, Docker: b.Docker, Loaded: loads != nil, Engine: b.Engine,
			CacheDir: dir, Prev: prev, Skip: b.SkipIdentity, Log: b.Log,
			StateA: func(ctx context.Context) (string, func(), error) { return b.StateA(ctx, t) },
			Load: func(ctx context.Context, eng engine.Runner) ([]*Built, error) {
				loads := newDockerLoads(ctx, eng)
				again, err := bk.Build(ctx, t, in, BuildOptions{
					Stages: []string{result.StageVerification, result.StageBehavioural}, Load: loads.load})
				if err != nil {
					return nil, err
				}
				return again, loads.wait(len(again))
			}}
		var out IdentityOutcome
		istart := time.Now()
		run, err := id.Run(ctx, &out)
		r.Failing, r.IdentityCached = out.Failing, out.Cached
		r.Seconds["identity_run"] = time.Since(istart).Seconds()
		r.Seconds["total"] = time.Since(start).Seconds()
		if errors.Is(err, ErrIdentityFailed) {
			r.Error = err.Error()
			return r, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: the identity run: %w", t.ID, err)
		}
		r.Identity = run
		im := lock.Images[result.StageBehavioural]
		im.IdentityRun = run
		lock.Images[result.StageBehavioural] = im
	}
	if !b.Verify {
		if len(b.Stages) > 0 {
			if old, err := ReadLock(t.Dir); err == nil {
				lock = mergeLock(old, lock)
			}
		}
		if prev, err := ReadLock(t.Dir); err == nil {
			notePackagesMoved(root, prev, lock, b.Log)
		}
		if err := WriteLock(t.Dir, lock); err != nil {
			return nil, err
		}
	}
	r.Lock = lock
	return r, nil
}

// onlyStages keeps the images of l that are in stages.
func onlyStages(l *Lock, stages []string) *Lock {
	c := *l
	c.Images = map[string]LockImage{}
	for _, s := range stages {
		if im, ok := l.Images[s]; ok {
			c.Images[s] = im
		}
	}
	return &c
}

// mergeLock puts the images and inputs of now over old.
func mergeLock(old, now *Lock) *Lock {
	m := *now
	m.Images = map[string]LockImage{}
	m.Inputs = map[string]LockInput{}
	for k, v := range old.Images {
		m.Images[k] = v
	}
	for k, v := range old.Inputs {
		m.Inputs[k] = v
	}
	for k, v := range now.Images {
		m.Images[k] = v
	}
	for k, v := range now.Inputs {
		m.Inputs[k] = v
	}
	return &m
}

// dockerLoads streams built images into Docker as BuildKit exports them
// (BuildOptions.Load) and collects the names each was loaded as.
type dockerLoads struct {
	ctx    context.Context
	docker engine.Runner
	mu     sync.Mutex
	names  map[string][]string
	errs   chan error
}

func newDockerLoads(ctx context.Context, docker engine.Runner) *dockerLoads {
	return &dockerLoads{ctx: ctx, docker: docker, names: map[string][]string{}, errs: make(chan error, len(task.StageNames))}
}

// load is a BuildOptions.Load. The load reads on the build's context
// given to newDockerLoads: the build's own ends when the build does,
// while Docker is still reading the image.
func (d *dockerLoads) load(_ context.Context, stage string) (io.WriteCloser, error) {
	pr, pw := io.Pipe()
	go func() {
		names, err := d.docker.Load(d.ctx, pr)
		pr.CloseWithError(err)
		d.mu.Lock()
		d.names[stage] = names
		d.mu.Unlock()
		d.errs <- err
	}()
	return pw, nil
}

// wait waits for n loads and returns the first error.
func (d *dockerLoads) wait(n int) error {
	var first error
	for range n {
		if err := <-d.errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// builtStage returns the built image of stage, or nil.
func builtStage(built []*Built, stage string) *Built {
	for _, b := range built {
		if b.Stage == stage {
			return b
		}
	}
	return nil
}

// packagesDrift adds to d, an image of want that got did not reproduce,
// each package (Debian or npm, nested dependencies included) whose
// version or files moved between the packages list want recorded and
// got's, as "packages: <package> <was> → <now>" (issue 16: a registry's
// patch release of an npm dependency moved a digest with no input named).
// root is srb build's image folder, where the lists are kept by digest.
func packagesDrift(root string, want, got *Lock, d Drift) Drift {
	for _, m := range keptMoved(root, want, got, d.Stage) {
		d.Moved = append(d.Moved, "packages: "+m)
	}
	return d
}

// keptMoved is [PackagesMoved] without the npm lines when want records
// the stage's npm tree: [Compare] names those from the lockfile itself
// (and a list not kept here then leaves only the Debian packages
// unnamed, which the sentence says).
func keptMoved(root string, want, got *Lock, stage string) []string {
	ms := PackagesMoved(root, want, got, stage)
	if want == nil || want.Images[stage].NPM == nil {
		return ms
	}
	var out []string
	for _, m := range ms {
		switch {
		case strings.HasPrefix(m, "npm:"):
		case strings.HasSuffix(m, "so what moved cannot be named"):
			// The npm tree is named from the lockfile; the Debian
			// packages are what the kept list would have named.
			out = append(out, strings.TrimSuffix(m, "what moved cannot be named")+"the Debian packages that moved cannot be named")
		default:
			out = append(out, m)
		}
	}
	return out
}

// notePackagesMoved logs, for a build that writes images.lock over prev
// (nil when there was none), each package of each stage that moved since
// prev was written.
func notePackagesMoved(root string, prev, lock *Lock, logf func(format string, args ...any)) {
	if prev == nil {
		return
	}
	for _, s := range task.StageNames {
		if _, ok := lock.Images[s]; !ok {
			continue
		}
		for _, m := range keptMoved(root, prev, lock, s) {
			logf("%s: the %s image's packages moved since %s: %s", lock.Task, s, LockName, m)
		}
		if was := prev.Images[s].NPM; was != nil {
			for _, m := range NPMMoved(was, lock.Images[s].NPM) {
				logf("%s: the %s image's npm tree moved since %s: %s", lock.Task, s, LockName, m)
			}
		}
	}
}
