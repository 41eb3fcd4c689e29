package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/suite"
)

// FreezeOptions are one freeze of a task's ground truth.
type FreezeOptions struct {
	// Original is State A's tree; "" is Task.StateA's.
	Original string
	// KeepWork keeps the work folder (record/, identity-1/, identity-2/,
	// truth/) there; "" works in a temporary folder.
	KeepWork string
	// Host freezes on this machine with its toolchains, running the
	// declarative modules with Helper, instead of in the task's images.
	Host bool
	// Helper is the helper argv prefix of a Host freeze.
	Helper []string
	// Images, for a freeze in the images, returns the engine and the
	// task's verification and behavioural images, by stage (found, built
	// and loaded when missing or stale); it is called once State A and
	// the work folder are ready.
	Images func(ctx context.Context) (engine.Runner, map[string]*suite.Image, error)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Out receives the truth files written and the closing line; Log the
	// progress lines.
	Out, Log io.Writer
}

// Freeze records the ground truth of t's behavioural modules from State
// A, then proves it reproduces with two identity runs: the record run in
// a container of the verification image (State A built with the old
// toolchain), the identity runs in containers of the behavioural image
// with the record run's build ledger imported, or all of it on this
// machine with opts.Host. It writes truth/ into the task folder only when
// both identity runs reach 1.0 in every module. A refusal (the truth does
// not reproduce, the declaration is wrong, State A is not the pinned one)
// is [pipeline.BadTask]; anything else that stops it is
// [pipeline.CouldNotRun].
func Freeze(ctx context.Context, t *Task, opts FreezeOptions) error {
	logw, outw := orDiscard(opts.Log), orDiscard(opts.Out)
	badTask := func(err error) error { return &pipeline.Error{Code: pipeline.BadTask, Err: err} }
	decl, err := t.Declaration()
	if err != nil {
		return badTask(fmt.Errorf("freeze: %w", err))
	}
	var prov result.Provenance
	if t.Provenance != nil {
		prov = t.Provenance(result.StageBehavioural, "", true)
	}
	original := opts.Original
	if original == "" {
		dir, cleanup, err := t.StateA(ctx)
		if err != nil {
			if pipeline.Code(err) == pipeline.BadTask {
				return badTask(fmt.Errorf("freeze: State A: %w", err))
			}
			return couldNotRun(fmt.Errorf("freeze: State A: %w", err))
		}
		defer cleanup()
		original = dir
	} else if original, err = filepath.Abs(original); err != nil {
		return couldNotRun(err)
	}
	work, done, err := WorkDir(opts.KeepWork, "srb-freeze-")
	if err != nil {
		return couldNotRun(fmt.Errorf("freeze: %w", err))
	}
	defer done()
	var fz *behavioural.Freezer
	if opts.Host {
		if len(opts.Helper) == 0 {
			return couldNotRun(errors.New("freeze: no helper was given for a host run"))
		}
		fz = &behavioural.Freezer{
			Runner: behavioural.Runner{Repo: original, Original: original, Work: work, Now: opts.Now},
			Decl:   decl, Helper: opts.Helper,
			Provenance: behavioural.Provenance{TaskCommit: prov.TaskCommit, StateA: prov.StateA, Where: "host", SRB: result.Fingerprint()},
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(t.BehaviouralTimeout)*time.Second)
		defer cancel()
	} else {
		if opts.Images == nil {
			return couldNotRun(errors.New("freeze: no stage images were given"))
		}
		eng, images, err := opts.Images(ctx)
		if err != nil {
			return couldNotRun(fmt.Errorf("freeze: %w", err))
		}
		fz = imageFreezer(t, eng, images, decl, original, work, prov, opts.Now, logw)
	}
	rep, err := fz.Freeze(ctx)
	for i, st := range []*result.Stage{rep.Record, rep.Identity[0], rep.Identity[1]} {
		if st == nil {
			continue
		}
		passed, total := result.Pooled(st.Checks)
		fmt.Fprintf(logw, "srb: %s: %d module(s), %d/%d checks passed\n", []string{"record", "identity run 1", "identity run 2"}[i], len(st.Units), passed, total)
	}
	if errors.Is(err, behavioural.ErrRefused) {
		return badTask(err)
	}
	if err != nil {
		return couldNotRun(err)
	}
	for _, p := range rep.Written {
		rel, rerr := filepath.Rel(decl.TaskDir, p)
		if rerr != nil {
			rel = p
		}
		fmt.Fprintf(outw, "wrote %s\n", filepath.ToSlash(filepath.Join(filepath.Base(t.Dir), rel)))
	}
	fmt.Fprintf(outw, "%s: frozen; the identity run reached 1.0 in every module twice\n", t.ID)
	return nil
}

// imageFreezer is a Freezer whose record run happens in a container of
// the task's verification image (State A built with the old toolchain,
// the toolchain versions observed there) and whose identity runs happen in
// containers of the behavioural image, with the ledger the record run
// built imported (the behavioural image may lack the old toolchain).
// Provenance names both images' digests.
func imageFreezer(t *Task, eng engine.Runner, images map[string]*suite.Image, decl *behavioural.Declaration, original, work string,
	prov result.Provenance, now func() time.Time, log io.Writer) *behavioural.Freezer {
	logf := func(format string, args ...any) { fmt.Fprintf(log, "srb: "+format+"\n", args...) }
	bp := behavioural.Provenance{TaskCommit: prov.TaskCommit, StateA: prov.StateA, Where: "container", SRB: result.Fingerprint(),
		Images: map[string]string{}}
	for stage, im := range images {
		bp.Images[stage] = im.Digest
	}
	suites := &suite.Images{Engine: eng, Images: images, Original: original, Work: work,
		Budget: time.Duration(t.BehaviouralTimeout) * time.Second, Log: logf}
	run := func(ctx context.Context, name, mode, truthDir string) (*result.Stage, error) {
		return suites.Run(ctx, decl, name, mode, truthDir)
	}
	return &behavioural.Freezer{Runner: behavioural.Runner{Work: work, Now: now}, Decl: decl, Helper: []string{suite.HelperPath},
		Provenance: bp, RunStage: run}
}
