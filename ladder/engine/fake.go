package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/proc"
)

// Fake is a Runner for unit tests without an engine. Its "containers" are
// host folders: a Session's Root stands for the container's "/", CopyIn and
// CopyOut copy under it, and Exec runs ExecFunc — or, when ExecFunc is nil,
// runs Argv on the host in Root+WorkDir with SRB_FAKE_ROOT=Root in the
// environment (contained by ladder/proc: every process it starts is ended
// when it returns, and all of them are stopped at the timeout). Fake
// records what it was asked. The zero Fake is ready to use; it is safe
// for concurrent use.
type Fake struct {
	// RunFunc answers Run; nil answers an empty Result with exit code 0.
	RunFunc func(ctx context.Context, spec Spec) (*Result, error)
	// ExecFunc answers Session.Exec; nil runs the command on the host.
	ExecFunc func(ctx context.Context, c *FakeContainer, es ExecSpec) (*Result, error)
	// HostPaths makes Session.Path give a container path under Root,
	// where the commands run on the host find it (as [Local] does);
	// false plays a container, whose processes see container paths as
	// they are (the stage's view of an image).
	HostPaths bool
	// StartErr, when set, is what Start returns.
	StartErr error
	// VersionString is what Version returns ("fake" when empty).
	VersionString string
	// Loaded collects what Load read, one entry per call.
	Loaded [][]byte
	// Images answers Image by ref; a ref it lacks is ErrNoImage.
	Images map[string]ImageInfo

	mu         sync.Mutex
	runs       []Spec
	containers []*FakeContainer
}

var _ Runner = (*Fake)(nil)

// FakeContainer is one Session of a Fake.
type FakeContainer struct {
	// Spec is what Start was given.
	Spec Spec
	// Root is the host folder standing for the container's "/".
	Root string
	// Hits is what Session.LimitHits reports; a test sets it to play a
	// container that reached its limits.
	Hits LimitHits

	mu      sync.Mutex
	execs   []ExecSpec
	killed  bool
	closed  bool
	running map[*proc.Process]bool
}

// Runs returns the specs Run was given, in order.
func (f *Fake) Runs() []Spec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Spec(nil), f.runs...)
}

// Containers returns the containers Start made, in order.
func (f *Fake) Containers() []*FakeContainer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*FakeContainer(nil), f.containers...)
}

// Version implements Runner.
func (f *Fake) Version(context.Context) (string, error) {
	if f.VersionString == "" {
		return "fake", nil
	}
	return f.VersionString, nil
}

// Load implements Runner: it keeps the archive and loads no names.
func (f *Fake) Load(_ context.Context, r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	f.mu.Lock()
	f.Loaded = append(f.Loaded, b)
	f.mu.Unlock()
	return nil, err
}

// Run implements Runner.
func (f *Fake) Run(ctx context.Context, spec Spec) (*Result, error) {
	f.mu.Lock()
	f.runs = append(f.runs, spec)
	f.mu.Unlock()
	if f.RunFunc != nil {
		return f.RunFunc(ctx, spec)
	}
	return &Result{}, nil
}

// Start implements Runner: Root is a new temporary folder (removed by
// Close) holding spec.Copies.
func (f *Fake) Start(ctx context.Context, spec Spec) (*Session, error) {
	if f.StartErr != nil {
		return nil, f.StartErr
	}
	root, err := os.MkdirTemp("", "srb-fake-container-")
	if err != nil {
		return nil, err
	}
	c := &FakeContainer{Spec: spec, Root: root}
	f.mu.Lock()
	f.containers = append(f.containers, c)
	f.mu.Unlock()
	s := &Session{ID: filepath.Base(root), Image: spec.Image, c: &fakeBackend{f: f, c: c}}
	for _, cp := range spec.Copies {
		if err := s.c.CopyIn(ctx, cp); err != nil {
			s.Close(ctx)
			return nil, err
		}
	}
	return s, nil
}

// Image implements Runner from f.Images: ref is a key (a tag), or, as
// on Docker, the ID of one of the images.
func (f *Fake) Image(_ context.Context, ref string) (*ImageInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if in, ok := f.Images[ref]; ok {
		return &in, nil
	}
	for _, in := range f.Images {
		if in.ID == ref {
			return &in, nil
		}
	}
	return nil, fmt.Errorf("fake image %s: %w", ref, ErrNoImage)
}

// Execs returns the commands run in c, in order.
func (c *FakeContainer) Execs() []ExecSpec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ExecSpec(nil), c.execs...)
}

// Killed reports whether the Session was killed.
func (c *FakeContainer) Killed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// Closed reports whether the Session was closed.
func (c *FakeContainer) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Path maps an absolute container path to the host path standing for it.
func (c *FakeContainer) Path(containerPath string) string {
	return filepath.Join(c.Root, filepath.FromSlash(containerPath))
}

// Path implements [Pather]: with HostPaths (and ExecFunc nil) a
// container path is c.Path's, where the commands the Fake runs on the
// host find it; otherwise the Fake plays a container, whose processes see
// container paths as they are.
func (b *fakeBackend) Path(containerPath string) string {
	if !b.f.HostPaths || b.f.ExecFunc != nil {
		return containerPath
	}
	return b.c.Path(containerPath)
}

// fakeBackend is a Fake's container.
type fakeBackend struct {
	f *Fake
	c *FakeContainer
}

// Exec implements [Container].
func (b *fakeBackend) Exec(ctx context.Context, es ExecSpec) (*Result, error) {
	b.c.mu.Lock()
	b.c.execs = append(b.c.execs, es)
	gone := b.c.killed || b.c.closed
	b.c.mu.Unlock()
	if gone {
		return nil, fmt.Errorf("exec %q in %s: container is not running", es.Argv[0], b.c.Spec.Image)
	}
	if b.f.ExecFunc != nil {
		return b.f.ExecFunc(ctx, b.c, es)
	}
	start := time.Now()
	cmd := exec.Command(es.Argv[0], es.Argv[1:]...)
	cmd.Dir = b.c.Root
	if es.WorkDir != "" {
		cmd.Dir = b.c.Path(es.WorkDir)
		if rel, ok := strings.CutPrefix(filepath.Clean(es.WorkDir), b.c.Root); ok && (rel == "" || strings.HasPrefix(rel, "/")) {
			cmd.Dir = es.WorkDir // what Session.Path gave
		}
	}
	cmd.Env = append(append(append(os.Environ(), b.c.Spec.Env...), es.Env...), "SRB_FAKE_ROOT="+b.c.Root)
	cmd.Stdin = es.Stdin
	max := es.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	stdout, stderr := &capped{max: max, tail: es.Tail}, &capped{max: max, tail: es.Tail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	p, err := proc.StartCmd(cmd)
	if err != nil {
		return &Result{ExitCode: 127, Stderr: []byte(err.Error() + "\n")}, nil
	}
	b.c.mu.Lock()
	if b.c.running == nil {
		b.c.running = map[*proc.Process]bool{}
	}
	b.c.running[p] = true
	killed := b.c.killed || b.c.closed
	b.c.mu.Unlock()
	if killed {
		p.Kill() // Kill came while it started
	}
	defer func() {
		b.c.mu.Lock()
		delete(b.c.running, p)
		b.c.mu.Unlock()
	}()
	res := &Result{}
	// awaitExec returns once every process of the exec is gone.
	e, timedOut, ctxErr := awaitExec(ctx, p, es)
	res.TimedOut = timedOut
	res.ExitCode = e.Code
	if e.Signal != 0 {
		res.ExitCode = 128 + int(e.Signal)
	}
	if e.Leftovers > 0 {
		res.Leftovers = e.Leftovers
	}
	err = e.Err
	if err != nil {
		return nil, err
	}
	res.Stdout, res.StdoutDropped = stdout.kept()
	res.Stderr, res.StderrDropped = stderr.kept()
	res.Stdout, res.Stderr = bytes.Clone(res.Stdout), bytes.Clone(res.Stderr)
	res.Duration = time.Since(start)
	if ctxErr != nil {
		return res, fmt.Errorf("exec %q in %s: %w", es.Argv[0], b.c.Spec.Image, ctxErr)
	}
	return res, nil
}

// CopyIn implements [Container].
func (b *fakeBackend) CopyIn(_ context.Context, cp Copy) error {
	if !strings.HasPrefix(cp.ContainerPath, "/") {
		return fmt.Errorf("copy %s into %s: container path %q is not absolute", cp.HostPath, b.c.Spec.Image, cp.ContainerPath)
	}
	// The same tar round trip as a real engine, so modes and links match.
	pr, pw := io.Pipe()
	base := Copy{HostPath: cp.HostPath, ContainerPath: "/" + filepath.Base(cp.ContainerPath)}
	go func() { pw.CloseWithError(writeTar(pw, base)) }()
	err := readTar(pr, b.c.Path(cp.ContainerPath))
	pr.CloseWithError(errors.New("copy ended"))
	return err
}

// CopyOut implements [Container].
func (b *fakeBackend) CopyOut(_ context.Context, containerPath, hostPath string) error {
	src := b.c.Path(containerPath)
	if _, err := os.Lstat(src); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = ErrNoPath
		}
		return fmt.Errorf("copy %s:%s out: %w", b.c.Spec.Image, containerPath, err)
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeTar(pw, Copy{HostPath: src, ContainerPath: "/" + filepath.Base(src)}))
	}()
	err := readTar(pr, hostPath)
	pr.CloseWithError(errors.New("copy ended"))
	return err
}

// CopyOutBounded implements [BoundedCopier].
func (b *fakeBackend) CopyOutBounded(_ context.Context, containerPath, hostPath string, bounds CopyBounds) (*CopySummary, error) {
	src := b.c.Path(containerPath)
	if _, err := os.Lstat(src); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = ErrNoPath
		}
		return nil, fmt.Errorf("copy %s:%s out: %w", b.c.Spec.Image, containerPath, err)
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeTar(pw, Copy{HostPath: src, ContainerPath: "/" + filepath.Base(src)}))
	}()
	sum, err := readTarBounded(pr, hostPath, &bounds)
	pr.CloseWithError(errors.New("copy ended"))
	return sum, err
}

// Delete implements [Deleter]: the path under Root, made writable first
// as root's removal would not need.
func (b *fakeBackend) Delete(_ context.Context, containerPath string) error {
	p := b.c.Path(containerPath)
	filepath.WalkDir(p, func(q string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// Reap implements [Reaper]: the Fake's commands run on the host under
// ladder/proc, so nothing outlives its Exec; there is nothing to reap and
// no shared folder of the sandbox's own to clear.
func (b *fakeBackend) Reap(context.Context, string) (bool, error) {
	return false, nil
}

// LimitHits implements [Container].
func (b *fakeBackend) LimitHits(context.Context) (LimitHits, error) {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	return b.c.Hits, nil
}

// Kill implements [Container]: the commands running on the host are
// killed, as a container's processes are.
func (b *fakeBackend) Kill(context.Context) error {
	b.stop(func() { b.c.killed = true })
	return nil
}

// stop marks the container (mark runs under its lock) and kills the
// commands it runs.
func (b *fakeBackend) stop(mark func()) {
	b.c.mu.Lock()
	mark()
	running := make([]*proc.Process, 0, len(b.c.running))
	for p := range b.c.running {
		running = append(running, p)
	}
	b.c.mu.Unlock()
	for _, p := range running {
		p.Kill()
	}
}

// Remove implements [Container].
func (b *fakeBackend) Remove(context.Context) error {
	b.stop(func() { b.c.closed = true })
	// Read-only folders copied in must be writable to be removed.
	filepath.WalkDir(b.c.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(b.c.Root)
}

// awaitExec waits for the contained command p of es: when es.Timeout
// passes (0: none) or ctx ends first, it terminates p's whole process
// group (SIGTERM, then SIGKILL after es.Grace, [DefaultGrace] when 0). It
// returns once every process of the exec is gone, with p's exit, whether
// the timeout fired, and ctx's error when ctx ended the wait. The Fake's
// and [Local]'s Exec share it.
func awaitExec(ctx context.Context, p *proc.Process, es ExecSpec) (e proc.Exit, timedOut bool, ctxErr error) {
	var timeout <-chan time.Time
	if es.Timeout > 0 {
		t := time.NewTimer(es.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	grace := es.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	select {
	case <-p.Done():
	case <-timeout:
		timedOut = true
		p.Terminate(grace)
	case <-ctx.Done():
		ctxErr = ctx.Err()
		p.Terminate(grace)
	}
	return p.Wait(), timedOut, ctxErr
}
