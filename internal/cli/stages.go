package cli

import (
	"context"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/pipeline"
)

// LadderStages are srb's three stages behind [pipeline.Stages] for a
// ladder run of t with opts (its Now, Lookup, Host, Helper and Engine are
// read; Now and Lookup must be set): the audit, the behavioural suite and the
// verification rounds, each in the task's stage image on opts.Engine, or
// on this machine with opts.Host. Each writes its stage file and prints
// its lines on the submission's log.
func LadderStages(opts *LadderOptions, t *task.Task) pipeline.Stages {
	sio := func(in pipeline.StageInput) IOStreams {
		return IOStreams{In: strings.NewReader(""), Out: in.Log, ErrOut: in.Log}
	}
	return pipeline.Stages{
		Audit: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			d := in.Drivers.Audit
			return runAudit(ctx, &AuditOptions{IO: sio(in), Now: opts.Now, Lookup: opts.Lookup, Task: t.Dir, Submission: in.Submission,
				Results: in.Results, Original: in.Original, Driver: d.Driver, Model: d.Model, Scripts: d.Scripts,
				Host: opts.Host, Engine: opts.Engine, BuildImage: opts.BuildImage})
		}),
		Behavioural: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			// The image was readied by the pipeline; the stage finds it again
			// by its lock, so its provenance names images.lock's digest.
			bo := &BehaviouralOptions{IO: sio(in), Now: opts.Now, Task: t.Dir, Submission: in.Submission, Results: in.Results,
				Original: in.Original, Host: opts.Host, Engine: opts.Engine, BuildImage: opts.BuildImage}
			if opts.Host {
				bo.Helper = opts.Helper
			}
			return runBehavioural(ctx, bo)
		}),
		Verification: pipeline.StageFunc(func(ctx context.Context, in pipeline.StageInput) error {
			d := in.Drivers
			return runVerification(ctx, &VerificationOptions{IO: sio(in), Now: opts.Now, Lookup: opts.Lookup, Task: t.Dir,
				Submission: in.Submission, Original: in.Original, Results: in.Results, KeepWork: in.Work,
				Adjudicator: d.Adjudicator, Adversaries: d.Adversaries, Adversary: d.Adversary, Host: opts.Host,
				Image: in.Image, Engine: opts.Engine, BuildImage: opts.BuildImage})
		}),
	}
}
