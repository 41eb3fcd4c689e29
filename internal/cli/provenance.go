package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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

// stampStage records p in the stage result at path when this run wrote
// it (modified at or after since): a stage command defers it once its
// task is loaded, so every path that publishes a result — a failure
// included — publishes its provenance. A result left by an earlier run
// (a stage not earned writes none) is not touched; one that does not
// read is left as it is and the reason printed on errOut.
func stampStage(path string, since time.Time, p result.Provenance, errOut io.Writer) {
	info, err := os.Stat(path)
	if err != nil || info.ModTime().Before(since) {
		return
	}
	st, err := result.ReadStage(path)
	if err == nil {
		p.Apply(st)
		err = st.Write(path)
	}
	if err != nil {
		fmt.Fprintf(errOut, "srb: the stage's provenance could not be recorded: %v\n", err)
	}
}
