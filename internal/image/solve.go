package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/core/content"
	"github.com/containerd/containerd/v2/plugins/content/local"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/exporter/containerimage/exptypes"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/util/progress/progressui"
	"github.com/tonistiigi/fsutil"
	"golang.org/x/sync/errgroup"

	"github.com/swe-refactor-bench/srb/internal/task"
)

// Builder solves compiled stage images against one buildkitd.
type Builder struct {
	Client *client.Client
	// Progress receives BuildKit's progress display; nil shows none.
	Progress io.Writer
	// Mode is the progressui mode: auto, tty, plain, quiet or rawjson.
	Mode string
}

// BuildOptions say how images are built and where they go.
type BuildOptions struct {
	// Stages to build; empty means all four.
	Stages []string
	// NoCache rebuilds every vertex (srb build --verify).
	NoCache bool
	// Load, when set, receives each image as a docker-archive tar
	// (BuildKit's docker exporter) named Tag(t, stage).
	Load func(ctx context.Context, stage string) (io.WriteCloser, error)
	// Push, when set, is a repository each image is pushed to, tagged
	// <task id>-<stage>.
	Push string
}

// Built is one built stage image.
type Built struct {
	Stage string
	// Digest is the image's manifest digest: what the lockfile pins.
	Digest string
	// Config is the digest of the image's config: the id Docker gives the
	// image when it is loaded.
	Config string
	// LLB is the digest of the image graph's head vertex.
	LLB string
	// Probed is what the capability probes found.
	Probed  *Probed
	Elapsed time.Duration
}

// Tag is the name srb gives stage's image when it loads or pushes it.
func Tag(t *task.Task, stage string) string { return "srb/" + t.ID + ":" + stage }

// exportAttrs are the exporter attributes every export uses, so an image
// has the same digest whether it is only built, loaded or pushed: OCI
// media types, and SOURCE_DATE_EPOCH for the config's history. Layer file
// times are made deterministic by the compiler itself (normalised local
// sources, scratch layers with created times, RUN steps that clamp what
// they wrote), not by the exporter's rewrite-timestamp, which would
// recompress every layer on every export and make a no-op rebuild slow.
func exportAttrs(t *task.Task) map[string]string {
	return map[string]string{
		string(exptypes.OptKeyOCITypes):        "true",
		string(exptypes.OptKeySourceDateEpoch): strconv.FormatInt(t.Images.SourceDateEpoch, 10),
	}
}

// Build compiles and builds the requested stage images of t, all at once
// (vertices they share are built once), runs each image's capability
// probes before it is exported, and returns them in stage order. A
// failed capability is a *CapabilityError (several are joined).
func (b *Builder) Build(ctx context.Context, t *task.Task, in *Inputs, opts BuildOptions) ([]*Built, error) {
	stages := opts.Stages
	if len(stages) == 0 {
		stages = task.StageNames
	}
	var mopts []llb.ConstraintsOpt
	if opts.NoCache {
		mopts = append(mopts, llb.IgnoreCache)
	}
	type job struct {
		c          *Compiled
		def, probe *llb.Definition
		cfg        []byte
	}
	jobs := make([]job, len(stages))
	for i, s := range stages {
		c, err := Compile(t, s, in)
		if err != nil {
			return nil, err
		}
		def, err := Marshal(ctx, c.Image, mopts...)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", s, err)
		}
		probe, err := Marshal(ctx, c.Probe, mopts...)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", s, err)
		}
		cfg, err := c.ConfigJSON()
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", s, err)
		}
		jobs[i] = job{c: c, def: def, probe: probe, cfg: cfg}
	}
	mounts, err := localMounts(in)
	if err != nil {
		return nil, err
	}
	stores := map[string]content.Store{}
	if t.Images.Base.Kind == "debootstrap" && in.Base.Dir != "" {
		cs, err := local.NewStore(in.Base.Dir)
		if err != nil {
			return nil, fmt.Errorf("build: base store: %w", err)
		}
		stores[BaseStore] = cs
	}
	if len(in.Go) > 0 && in.ToolchainStore != "" {
		cs, err := local.NewStore(in.ToolchainStore)
		if err != nil {
			return nil, fmt.Errorf("build: toolchain store: %w", err)
		}
		stores[ToolchainStore] = cs
	}

	// One display for every build: their statuses merge into one channel,
	// read on a context of its own so a failure still prints in full.
	all := make(chan *client.SolveStatus)
	var disp sync.WaitGroup
	var dispErr error
	disp.Add(1)
	go func() {
		defer disp.Done()
		if b.Progress == nil {
			for range all {
			}
			return
		}
		d, err := progressui.NewDisplay(b.Progress, progressui.DisplayMode(b.Mode))
		if err != nil {
			dispErr = err
			for range all {
			}
			return
		}
		_, dispErr = d.UpdateFrom(context.WithoutCancel(ctx), all)
	}()
	var fwd sync.WaitGroup

	out := make([]*Built, len(stages))
	g, gctx := errgroup.WithContext(ctx)
	for i := range jobs {
		j := jobs[i]
		ch := make(chan *client.SolveStatus)
		fwd.Add(1)
		go func() {
			defer fwd.Done()
			for s := range ch {
				all <- s
			}
		}()
		g.Go(func() error {
			start := time.Now()
			bt, err := b.buildOne(gctx, t, j.c, j.def, j.probe, j.cfg, mounts, stores, opts, ch)
			if err != nil {
				return err
			}
			bt.Elapsed = time.Since(start)
			out[i] = bt
			return nil
		})
	}
	err = g.Wait()
	fwd.Wait()
	close(all)
	disp.Wait()
	if err != nil {
		return nil, err
	}
	if dispErr != nil && !errors.Is(dispErr, context.Canceled) {
		return out, fmt.Errorf("build: progress: %w", dispErr)
	}
	return out, nil
}

func localMounts(in *Inputs) (map[string]fsutil.FS, error) {
	m := map[string]fsutil.FS{}
	add := func(x *Input) error {
		if x == nil || x.Dir == "" {
			return nil
		}
		fs, err := fsutil.NewFS(x.Dir)
		if err != nil {
			return fmt.Errorf("build: local source %s: %w", x.Name, err)
		}
		m[x.Name] = fs
		return nil
	}
	for _, x := range []*Input{&in.StateA, in.Assets, in.Helper, in.NPMConfig} {
		if err := add(x); err != nil {
			return nil, err
		}
	}
	for _, s := range sortedKeys(in.Files) {
		f := in.Files[s]
		if err := add(&f); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (b *Builder) buildOne(ctx context.Context, t *task.Task, c *Compiled, def, probe *llb.Definition, cfg []byte, mounts map[string]fsutil.FS, stores map[string]content.Store, opts BuildOptions, ch chan *client.SolveStatus) (*Built, error) {
	bt := &Built{Stage: c.Stage}
	if head, err := def.Head(); err == nil {
		bt.LLB = head.String()
	}
	attrs := exportAttrs(t)
	var ex client.ExportEntry
	switch {
	case opts.Push != "":
		attrs[string(exptypes.OptKeyName)] = fmt.Sprintf("%s:%s-%s", opts.Push, t.ID, c.Stage)
		attrs[string(exptypes.OptKeyPush)] = "true"
		if host, _, _ := strings.Cut(opts.Push, "/"); strings.HasPrefix(host, "127.0.0.1:") || strings.HasPrefix(host, "localhost:") {
			attrs[string(exptypes.OptKeyInsecure)] = "true" // a local registry speaks plain http
		}
		ex = client.ExportEntry{Type: client.ExporterImage, Attrs: attrs}
	case opts.Load != nil:
		attrs[string(exptypes.OptKeyName)] = Tag(t, c.Stage)
		ex = client.ExportEntry{Type: client.ExporterDocker, Attrs: attrs, Output: func(map[string]string) (io.WriteCloser, error) {
			return opts.Load(ctx, c.Stage)
		}}
	default:
		ex = client.ExportEntry{Type: client.ExporterImage, Attrs: attrs}
	}
	so := client.SolveOpt{
		Exports:     []client.ExportEntry{ex},
		LocalMounts: mounts,
		OCIStores:   stores,
		SharedKey:   "srb",
	}
	var capErr error
	res, err := b.Client.Build(ctx, so, "srb", func(ctx context.Context, gw gateway.Client) (*gateway.Result, error) {
		pr, err := gw.Solve(ctx, gateway.SolveRequest{Definition: probe.ToPB(), Evaluate: true})
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		ref, err := pr.SingleRef()
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		probes, err := ref.ReadFile(ctx, gateway.ReadRequest{Filename: "probes.tsv"})
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		pkgs, err := ref.ReadFile(ctx, gateway.ReadRequest{Filename: "packages.txt"})
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		p, err := Evaluate(c.Stage, c.Checks, probes, pkgs)
		if err != nil {
			return nil, err
		}
		bt.Probed = p
		if len(p.Failures) > 0 {
			errs := make([]error, len(p.Failures))
			for i, f := range p.Failures {
				errs[i] = f
			}
			capErr = errors.Join(errs...)
			return nil, capErr
		}
		r, err := gw.Solve(ctx, gateway.SolveRequest{Definition: def.ToPB()})
		if err != nil {
			return nil, err
		}
		r.AddMeta(exptypes.ExporterImageConfigKey, cfg)
		return r, nil
	}, ch)
	if capErr != nil {
		return nil, fmt.Errorf("build %s: %w", c.Stage, capErr)
	}
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", c.Stage, err)
	}
	bt.Digest = res.ExporterResponse[exptypes.ExporterImageDigestKey]
	bt.Config = res.ExporterResponse[exptypes.ExporterImageConfigDigestKey]
	if bt.Digest == "" {
		return nil, fmt.Errorf("build %s: the exporter returned no image digest", c.Stage)
	}
	return bt, nil
}

// Dial connects to buildkitd at addr (unix://, tcp://,
// docker-container://, kube-pod://) and checks it answers.
func Dial(ctx context.Context, addr string) (*client.Client, *client.Info, error) {
	c, err := client.New(ctx, addr)
	if err != nil {
		return nil, nil, fmt.Errorf("buildkit %s: %w", addr, err)
	}
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := c.Info(ictx)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("buildkit %s: %w", addr, err)
	}
	return c, info, nil
}

// DefaultBuildKitHost is where scripts/engines.sh starts buildkitd; srb
// uses it when neither --buildkit nor BUILDKIT_HOST says otherwise.
const DefaultBuildKitHost = "unix:///run/buildkit/buildkitd.sock"
