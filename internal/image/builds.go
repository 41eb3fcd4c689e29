package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moby/buildkit/client"
	_ "github.com/moby/buildkit/client/connhelper/dockercontainer" // docker-container:// addresses
	_ "github.com/moby/buildkit/client/connhelper/kubepod"         // kube-pod:// addresses

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// Builds is srb build over several tasks on one buildkitd: it dials
// BuildKit once, connects to Docker when the images are loaded, and runs
// a [TaskBuild] per task. srb build runs it for the tasks it is given,
// and [LoadingBuilder] for the one stage image a stage needs.
type Builds struct {
	// BuildKit is buildkitd's address (unix://, tcp://,
	// docker-container://, kube-pod://); "" is $BUILDKIT_HOST, else
	// [DefaultBuildKitHost].
	BuildKit string
	// Dial connects to buildkitd; nil is [Dial].
	Dial func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
	// Load loads the images into the Docker engine Engine returns.
	Load bool
	// Engine connects to Docker for Load and the identity run; nil is
	// engine.NewDocker.
	Engine func() (engine.Runner, error)
	// Progress is BuildKit's progress display (auto, tty, plain, quiet,
	// rawjson: [TaskBuild]'s Mode), shown on ProgressOut (nil: none).
	Progress    string
	ProgressOut io.Writer
	// CacheDir, Stages, Verify, Push, Helper, SkipIdentity,
	// IdentityCache and StateA are each [TaskBuild]'s.
	CacheDir      string
	Stages        []string
	Verify        bool
	Push          string
	Helper        string
	SkipIdentity  string
	IdentityCache string
	StateA        func(ctx context.Context, t *task.Task) (string, func(), error)
	// Locks are the lockfiles Verify compares with, by task id.
	Locks map[string]*Lock
	// Log reports progress; nil is silent.
	Log func(format string, args ...any)
	// Refused, when set, is told of each task whose build its own
	// configuration refused (a capability probe, the identity run); the
	// builds go on with the next task.
	Refused func(t *task.Task, err error)
}

// BuildsDone is what [Builds.Run] made: a report per task built or
// refused, in the order given, and how many tasks failed which way.
type BuildsDone struct {
	Reports []*TaskBuilt
	// Drifted counts the tasks whose rebuild (Verify) moved a digest;
	// CapFailed those a capability probe refused; IdentityFailed those
	// whose truth did not reproduce on State A.
	Drifted, CapFailed, IdentityFailed int
}

// Fault is the task fault the builds amount to, as a [*TaskFault] naming
// how many tasks failed (capability probes first, then drift, then the
// identity run), or nil when every task built (and verified).
func (d *BuildsDone) Fault() error {
	switch {
	case d.CapFailed > 0:
		return &TaskFault{Err: fmt.Errorf("%d task(s) failed their capability probes", d.CapFailed)}
	case d.Drifted > 0:
		return &TaskFault{Err: fmt.Errorf("%d task(s) did not reproduce their lockfile", d.Drifted)}
	case d.IdentityFailed > 0:
		return &TaskFault{Err: fmt.Errorf("%d task(s) failed the identity run: their truth does not reproduce on State A", d.IdentityFailed)}
	}
	return nil
}

// BuildKitAddr is the buildkitd address flag names: flag, else
// $BUILDKIT_HOST, else [DefaultBuildKitHost].
func BuildKitAddr(flag string) string {
	if flag != "" {
		return flag
	}
	if h := os.Getenv("BUILDKIT_HOST"); h != "" {
		return h
	}
	return DefaultBuildKitHost
}

// Run builds tasks in order. A task its own configuration refuses on a
// capability probe or the identity run is counted and reported
// (Refused), and the next task built; a [*TaskFault] (an asset that
// cannot go into the images) stops the builds and is returned as it is;
// any other error (buildkitd or Docker not reachable, a build that could
// not run) is a harness fault.
func (b *Builds) Run(ctx context.Context, tasks []*task.Task) (*BuildsDone, error) {
	dial := b.Dial
	if dial == nil {
		dial = Dial
	}
	bk, info, err := dial(ctx, BuildKitAddr(b.BuildKit))
	if err != nil {
		return nil, fmt.Errorf("build: %w (scripts/engines.sh starts buildkitd; srb doctor says what is missing)", err)
	}
	defer bk.Close()
	var docker engine.Runner
	if b.Load {
		newEngine := b.Engine
		if newEngine == nil {
			newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
		}
		if docker, err = newEngine(); err != nil {
			return nil, fmt.Errorf("build: %w", err)
		}
	}
	logf := b.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	refused := b.Refused
	if refused == nil {
		refused = func(*task.Task, error) {}
	}
	done := &BuildsDone{}
	for _, t := range tasks {
		tb := &TaskBuild{Client: bk, BuildKitVersion: info.BuildkitVersion.Version, CacheDir: b.CacheDir, Stages: b.Stages,
			Verify: b.Verify, Want: b.Locks[t.ID], Push: b.Push, Helper: b.Helper, Docker: docker, Engine: b.Engine,
			Progress: b.ProgressOut, Mode: b.Progress, SkipIdentity: b.SkipIdentity, IdentityCache: b.IdentityCache, Log: logf,
			StateA: b.StateA}
		r, err := tb.Build(ctx, t)
		var ce *CapabilityError
		switch {
		case err != nil && errors.As(err, &ce):
			refused(t, err)
			done.CapFailed++
		case errors.Is(err, ErrIdentityFailed):
			refused(t, err)
			done.IdentityFailed++
		case err != nil:
			return nil, err
		case b.Verify && !r.Verified:
			done.Drifted++
		}
		done.Reports = append(done.Reports, r)
	}
	return done, nil
}

// WriteBuilt prints what r made, as srb build does: a line per stage
// image (its digest, and the names it was loaded as), the identity run's
// outcome (skipWhy: why it was skipped), and the lockfile written or,
// with verify, whether every digest reproduced (the drift otherwise).
// A report with no lockfile (a refused build) prints nothing.
func WriteBuilt(w io.Writer, r *TaskBuilt, verify bool, skipWhy string) {
	if r.Lock == nil {
		return
	}
	for _, s := range task.StageNames {
		im, ok := r.Lock.Images[s]
		if !ok {
			continue
		}
		line := fmt.Sprintf("%s: %-12s %s", r.Task, s, im.Digest)
		if names := r.Loaded[s]; len(names) > 0 {
			line += " loaded as " + strings.Join(names, ", ")
		}
		fmt.Fprintln(w, line)
	}
	if id := r.Identity; id != nil {
		switch {
		case id.Status == IdentityPassed && r.IdentityCached:
			fmt.Fprintf(w, "%s: identity run passed (%d checks; remembered from an earlier run on the same images)\n", r.Task, id.Checks)
		case id.Status == IdentityPassed:
			fmt.Fprintf(w, "%s: identity run passed (%d checks)\n", r.Task, id.Checks)
		case id.Status == IdentitySkipped:
			fmt.Fprintf(w, "%s: identity run skipped (%s)\n", r.Task, skipWhy)
		case id.Status == IdentityNotFrozen:
			fmt.Fprintf(w, "%s: identity run not run: the task is not frozen yet (no truth/)\n", r.Task)
		}
	}
	switch {
	case verify && r.Verified:
		fmt.Fprintf(w, "%s: verified: every digest reproduced with no cache (%.1fs)\n", r.Task, r.Seconds["total"])
	case verify:
		for _, d := range r.Drift {
			fmt.Fprintf(w, "%s: %s\n", r.Task, d)
		}
	default:
		fmt.Fprintf(w, "%s: wrote %s (%.1fs)\n", r.Task, LockName, r.Seconds["total"])
	}
}

// FreezeSkipsIdentity is why the stage-image builds srb freeze runs skip
// the identity run: it is about to record the truth that run would
// check.
const FreezeSkipsIdentity = "srb freeze is recording the truth it would check; the next srb build runs it"

// LoadingBuilder is the [StageBuilder] srb's stages fall back on: it
// builds t's stage image and loads it into the engine newEngine returns,
// as srb build --load --stage STAGE TASK does, with the cache cacheDir
// and State A from stateA, printing what srb build prints (its progress
// quiet) on w. With noIdentity the identity run is skipped
// ([FreezeSkipsIdentity]: srb freeze, which runs its own against a new
// truth); otherwise the behavioural image is built together with the
// verification image, which its identity run needs. A build the task's
// configuration refused is a [*TaskFault]; any other error a harness
// fault.
func LoadingBuilder(w io.Writer, cacheDir string, newEngine func() (engine.Runner, error), noIdentity bool,
	stateA func(ctx context.Context, t *task.Task) (string, func(), error)) StageBuilder {
	return func(ctx context.Context, t *task.Task, stage string) error {
		stages := []string{stage}
		if stage == result.StageBehavioural && !noIdentity {
			stages = []string{result.StageVerification, result.StageBehavioural}
		}
		skip := ""
		if noIdentity {
			skip = FreezeSkipsIdentity
		}
		b := &Builds{Load: true, Engine: newEngine, CacheDir: cacheDir, Stages: stages, ProgressOut: w, Progress: "quiet",
			SkipIdentity: skip, StateA: stateA,
			Log:     func(format string, args ...any) { fmt.Fprintf(w, "srb: "+format+"\n", args...) },
			Refused: func(t *task.Task, err error) { fmt.Fprintf(w, "srb: %s: %v\n", t.ID, err) }}
		done, err := b.Run(ctx, []*task.Task{t})
		if err != nil {
			return err
		}
		for _, r := range done.Reports {
			WriteBuilt(w, r, false, skip)
		}
		return done.Fault()
	}
}

// LocksToVerify reads (and validates) every task's images.lock, by task
// id, for a rebuild that compares with them (srb build --verify). Every
// error is the task's fault and names it: a task with no lockfile has
// nothing to verify.
func LocksToVerify(tasks []*task.Task) (map[string]*Lock, error) {
	locks := map[string]*Lock{}
	for _, t := range tasks {
		l, err := ReadLock(t.Dir)
		if errors.Is(err, ErrNoLock) {
			return nil, fmt.Errorf("%s: nothing to verify: %w; run srb build %s first", t.ID, err, t.ID)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.ID, err)
		}
		locks[t.ID] = l
	}
	return locks, nil
}
