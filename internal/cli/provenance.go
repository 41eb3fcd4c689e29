package cli

import (
	"context"
	"strings"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/result"
)

// stageProvenance is what a stage of t runs with: the task folder's
// commit (image.TaskCommit), State A's pin, srb's fingerprint and, unless
// it runs on the host, the stage image's digest (images.lock's; the tag
// srb gives the task's image when the task has no lock; ref when --image
// names one) and the toolchains the task pins in that image.
func stageProvenance(t *task.Task, stage, ref string, host bool) result.Provenance {
	p := result.Provenance{TaskCommit: image.TaskCommit(context.Background(), t.Dir), StateA: t.StateA.SHA256,
		Images: map[string]string{}, Toolchains: map[string]string{}, SRB: result.Fingerprint(), Where: "host"}
	if host {
		return p
	}
	p.Where = "container"
	switch {
	case ref != "":
		p.Images[stage] = ref
	default:
		// images.lock's digest, which the stage checks the image it runs
		// against; a task with no lock ran the image srb built and tagged.
		p.Images[stage] = image.Tag(t, stage)
		if l, err := image.ReadLock(t.Dir); err == nil && l != nil {
			if im, ok := l.Images[stage]; ok && im.Digest != "" {
				p.Images[stage] = im.Digest
			}
		}
	}
	if si := t.Images.Stage(stage); si != nil {
		for _, pkg := range si.Packages {
			if name, ver, ok := strings.Cut(pkg, "="); ok {
				p.Toolchains[name] = ver
			}
		}
		for _, pkg := range si.NPM {
			if i := strings.LastIndex(pkg, "@"); i > 0 {
				p.Toolchains[pkg[:i]] = pkg[i+1:]
			}
		}
		if len(si.Go) > 0 {
			p.Toolchains["go"] = strings.Join(si.Go, ", ")
		}
	}
	return p
}
