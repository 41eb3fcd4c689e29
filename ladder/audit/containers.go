package audit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// Containers are the containers the reviews' run tool executes in,
// one per review, each started from the same spec (srb's: the task's
// audit image with no network, State A copied in read-only and the
// submission copied in): copies, so nothing run does reaches the host's
// trees, and a review never sees what an earlier one ran. It is an
// [agent.Execer] on the current review's container, and its Fresh is
// [Config.BeforeReview].
type Containers struct {
	eng  engine.Runner
	spec engine.Spec
	ref  string

	mu    sync.Mutex
	cur   *engine.Session
	fresh bool // cur has run nothing yet
}

// Ref names the containers' image, as StartContainers was given it.
func (a *Containers) Ref() string { return a.ref }

// StartContainers starts the first container of spec on eng; ref names
// the image in errors ("srb/<task id>:audit (sha256:…)").
func StartContainers(ctx context.Context, eng engine.Runner, spec engine.Spec, ref string) (*Containers, error) {
	a := &Containers{eng: eng, spec: spec, ref: ref}
	if err := a.start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Containers) start(ctx context.Context) error {
	s, err := a.eng.Start(ctx, a.spec)
	if err != nil {
		return fmt.Errorf("the audit image %s: %w", a.ref, err)
	}
	a.cur, a.fresh = s, true
	return nil
}

// Fresh gives the review about to start a container nothing has run in:
// the current one when it is still pristine, else a new one (the old one
// is removed). It is Config.BeforeReview.
func (a *Containers) Fresh(ctx context.Context, _ int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil && a.fresh {
		return nil
	}
	if a.cur != nil {
		a.cur.Close(ctx)
		a.cur = nil
	}
	return a.start(ctx)
}

// Path is where the current container's processes find containerPath
// ([engine.Session.Path]): the path itself in a container, under the
// session's root folder on this machine.
func (a *Containers) Path(containerPath string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur == nil {
		return containerPath
	}
	return a.cur.Path(containerPath)
}

// Exec implements [agent.Execer] on the current review's container.
func (a *Containers) Exec(ctx context.Context, es engine.ExecSpec) (*engine.Result, error) {
	a.mu.Lock()
	s := a.cur
	a.fresh = false
	a.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("no audit container is running (%s)", a.ref)
	}
	before, _ := s.LimitHits(ctx)
	res, err := s.Exec(ctx, es)
	// A command that reached the container's limits says so in its
	// transcript (audit.json), so its failure is not read as the code's.
	after, herr := s.LimitHits(context.WithoutCancel(ctx))
	if res != nil && herr == nil && after != before {
		if n := (engine.LimitHits{OOMKilled: after.OOMKilled && !before.OOMKilled, OOMKills: after.OOMKills - before.OOMKills,
			PidsMax: after.PidsMax - before.PidsMax}).Note(); n != "" {
			res.Stderr = append(res.Stderr, []byte("\nsrb: "+n+"\n")...)
		}
	}
	if herr == nil && ctx.Err() == nil && after.OOMAtLimit(before, a.spec.Memory) && !a.usable(ctx, s) {
		// The command's processes reached the memory limit and left the
		// container unusable: the OOM killer took its keep-alive (where
		// it cannot be exempted, engine.Hardening), or what they left
		// fills it. The review's later commands run in a fresh one
		// rather than fail, so the submission's code cannot take the
		// run tool from the review.
		note := "\nsrb: the container was left unusable at its memory limit; the review's next command runs in a fresh container (the submission and State A as at the review's start, nothing earlier commands made)\n"
		if res != nil {
			res.Stderr = append(res.Stderr, []byte(note)...)
		}
		a.mu.Lock()
		if a.cur == s {
			s.Close(context.WithoutCancel(ctx))
			a.cur = nil
			// A start that fails leaves none: the next command says so.
			a.start(context.WithoutCancel(ctx))
		}
		a.mu.Unlock()
	}
	return res, err
}

// usable reports whether a command can still run in s.
func (a *Containers) usable(ctx context.Context, s *engine.Session) bool {
	r, err := s.Exec(ctx, engine.ExecSpec{Argv: []string{"true"}, Timeout: time.Minute})
	return err == nil && r.ExitCode == 0 && !r.Unstarted
}

// Close removes the current container.
func (a *Containers) Close(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur == nil {
		return nil
	}
	err := a.cur.Close(ctx)
	a.cur = nil
	return err
}
