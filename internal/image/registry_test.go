package image

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// TestRegistryBase builds an image on a registry base pinned by digest
// (images.base kind "registry"): it pushes the fixture's audit image to
// the local registry (SRB_REGISTRY) first, then builds a task whose base
// is that image by digest. The build pulls it over plain http (BuildKit
// treats a loopback registry so), probes pass, the lockfile's base input
// is the pinned digest, and a rebuild with no cache reproduces the digest.
func TestRegistryBase(t *testing.T) {
	c, version := requireEngine(t, "buildkit")
	reg := requireRegistry(t)
	tk := loadFixture(t)
	in := prepareFixture(t, tk)
	b := &Builder{Client: c, Progress: testWriter{t}, Mode: "plain"}
	pushed, err := b.Build(t.Context(), tk, in, BuildOptions{Stages: []string{"audit"}, Push: reg + "/srb-base-test"})
	if err != nil {
		t.Fatal(err)
	}
	ref := reg + "/srb-base-test@" + pushed[0].Digest

	k := *tk
	k.Images = cloneImages(tk.Images)
	k.Images.Base = task.Base{Kind: "registry", Ref: ref}
	root, cache := inputRoot(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	rin, err := Prepare(ctx, &k, PrepareOptions{Root: root, Cache: cache, Log: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	if rin.Base.Digest != pushed[0].Digest || !strings.Contains(rin.Base.About, ref) {
		t.Errorf("base input %+v, want digest %s", rin.Base, pushed[0].Digest)
	}
	built, err := b.Build(ctx, &k, rin, BuildOptions{Stages: []string{"audit"}})
	if err != nil {
		t.Fatal(err)
	}
	first := NewLock(&k, version, rin, built)
	if got := first.Images["audit"].Inputs["base"]; got != pushed[0].Digest {
		t.Errorf("lock base input %s, want %s", got, pushed[0].Digest)
	}
	if first.Images["audit"].Digest == pushed[0].Digest {
		t.Errorf("the image on the registry base is the base itself (%s)", pushed[0].Digest)
	}
	again, err := b.Build(ctx, &k, rin, BuildOptions{Stages: []string{"audit"}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds := Compare(first, NewLock(&k, version, rin, again)); len(ds) > 0 {
		for _, d := range ds {
			t.Errorf("not reproducible on a registry base: %s", d)
		}
	}
}
