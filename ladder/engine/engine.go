// Package engine is srb's one execution interface: "run these processes
// with these files in and these results out, under these limits".
// [Runner] starts sandboxes; a [Session] is one of them (Exec with a
// timeout that ends the command's whole process group and a bound on its
// output, CopyIn and CopyOut as tar streams that keep modes and links,
// Path, Kill, Close), driving a [Container], the interface a backend
// implements. Three do here: [Docker] (a Docker engine through
// github.com/docker/docker/client, addressed by DOCKER_HOST, default
// unix:///var/run/docker.sock, the API version negotiated: Debian's
// dockerd speaks API 1.41), [Local] (this machine: a private root folder
// and an unused uid per session, contained by ladder/proc; srb's --host)
// and [Fake] (unit tests without an engine). A cluster backend
// (Kubernetes pods) implements Runner and Container the same way, here or
// outside the package ([NewSession]); the stages see only the Session.
// Limits on how many run at once are a decorator ([Limit]).
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// DefaultHost is where scripts/engines.sh starts dockerd.
const DefaultHost = "unix:///var/run/docker.sock"

// Spec is one container: run to completion by Runner.Run, or kept alive as
// a Session by Runner.Start.
type Spec struct {
	// Image is the image reference ("srb/task:behavioural" or a digest).
	Image string
	// Entrypoint, when not empty, replaces the image's entrypoint.
	Entrypoint []string
	// Cmd is the command (the image's entrypoint's arguments).
	Cmd []string
	// Env is the container's environment ("NAME=value"), added to the
	// image's.
	Env []string
	// Network is the container's network mode; "" means "none".
	Network string
	// User is "name", "uid" or "uid:gid"; "" is the image's user.
	User string
	// WorkDir is the absolute working directory; "" is the image's.
	WorkDir string
	// Name names the container; "" lets the engine pick one.
	Name string
	// Labels label the container (e.g. "srb.task", "srb.stage").
	Labels map[string]string
	// ReadOnly lists absolute container paths mounted read-only inside the
	// container (writes from inside fail with EROFS). A path must exist
	// when the container starts — in the image or copied in by Copies —
	// or it is not protected.
	ReadOnly []string
	// Copies are copied into the container after it is created and
	// before it starts (so they may lie under ReadOnly paths).
	Copies []Copy
	// ExtraHosts are lines added to the container's /etc/hosts, each
	// "name:address" (Docker's --add-host).
	ExtraHosts []string
	// Tmpfs maps absolute container paths to tmpfs mount options
	// ("size=64m"); "" takes the engine's defaults.
	Tmpfs map[string]string
	// Memory limits the container's memory in bytes (swap included);
	// 0 is no limit.
	Memory int64
	// Pids limits how many processes the container may hold at once;
	// 0 is no limit.
	Pids int64
	// Disk limits the container's writable layer in bytes (Docker's
	// storage-opt size, where its storage driver supports it); 0 is no
	// limit.
	Disk int64
	// NanoCPUs limits CPU in billionths of a CPU (1e9 is one CPU); 0 is
	// no limit.
	NanoCPUs int64
	// NoNewPrivileges starts the container, and every command run in it,
	// with no_new_privs set (Docker's no-new-privileges): no setuid or
	// file-capability program gives a process more than it had.
	NoNewPrivileges bool
	// CapAdd are capabilities added to the container's default set
	// (Docker's --cap-add, e.g. "SYS_PTRACE"). They are the bounding set
	// of its root processes; a process that drops to another user (and
	// execs) has none of them.
	CapAdd []string
	// Launcher serves srb's program launcher in the session (stage 3's
	// program separation, ladder/progsep): every command finds in
	// SRB_LAUNCH a program (`$SRB_LAUNCH PROGRAM ARG...`, the socket in
	// SRB_LAUNCH_SOCKET) that runs PROGRAM as a uid of its own, apart
	// from the command's processes and files, with the caller's standard
	// streams, environment and working folder, and exits with its status.
	// Only [Local] as root serves it today; elsewhere the variables are
	// not set ([Session.Launches] says whether they are).
	Launcher bool
}

// Result is how a container or an exec ended and what it printed.
type Result struct {
	// ExitCode is the exit status; -1 when it is unknown (a command that
	// timed out and whose status never settled).
	ExitCode int
	// Stdout and Stderr are the first bytes of each stream (bounded by
	// ExecSpec.MaxOutput for an exec).
	Stdout []byte
	Stderr []byte
	// StdoutDropped and StderrDropped count the bytes past the bound.
	StdoutDropped, StderrDropped int64
	// TimedOut says an exec reached ExecSpec.Timeout and its process
	// group was signalled.
	TimedOut bool
	// Duration is the wall time of an exec.
	Duration time.Duration
	// Leftovers counts the processes an exec on this machine ([Local],
	// [Fake]) left running when its command ended, all of which were
	// ended before Exec returned (1 stands for "some" where the count is
	// unknown). In a container they outlive the exec until
	// [Session.Reap] or Kill, and it is 0.
	Leftovers int
	// Unstarted says an exec in a container never reported that its
	// command started (the engine's wrapper, the image's /bin/sh, printed
	// no pid line): the command may not have run at all, whatever the exit
	// code says (a command run as root there can replace /bin/sh).
	Unstarted bool
}

// Runner runs containers and loads images on one engine.
type Runner interface {
	// Version is the engine's version and API version, "20.10.24 (API 1.41)".
	Version(ctx context.Context) (string, error)
	// Load loads a docker-archive tar (BuildKit's docker exporter output)
	// and returns the names it loaded.
	Load(ctx context.Context, r io.Reader) ([]string, error)
	// Run runs spec to completion and removes the container.
	Run(ctx context.Context, spec Spec) (*Result, error)
	// Start starts a long-lived container for spec (spec.Copies copied in
	// before it starts; "sleep infinity" when spec has no command). The
	// caller must Close the Session.
	Start(ctx context.Context, spec Spec) (*Session, error)
	// Image describes the image ref names on the engine, or returns an
	// error wrapping ErrNoImage when the engine does not have it.
	Image(ctx context.Context, ref string) (*ImageInfo, error)
}

// ImageInfo is what the engine knows of one image.
type ImageInfo struct {
	// ID is the image's id: the digest of its config ("sha256:…"), which
	// images.lock records as a stage's config.
	ID string
	// Tags are the names it carries ("srb/<task>:<stage>").
	Tags []string
	// Labels are its config's labels.
	Labels map[string]string
}

// ErrNoImage is wrapped by Runner.Image when the engine lacks the image.
var ErrNoImage = errors.New("no such image")

// Image implements Runner.
func (d *Docker) Image(ctx context.Context, ref string) (*ImageInfo, error) {
	in, _, err := d.Client.ImageInspectWithRaw(ctx, ref)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, fmt.Errorf("docker image %s: %w", ref, ErrNoImage)
		}
		return nil, fmt.Errorf("docker image %s: %w", ref, err)
	}
	info := &ImageInfo{ID: in.ID, Tags: in.RepoTags, Labels: map[string]string{}}
	if in.Config != nil {
		for k, v := range in.Config.Labels {
			info.Labels[k] = v
		}
	}
	return info, nil
}

// Docker is a Runner on a Docker engine.
type Docker struct {
	Client *client.Client
	Host   string
}

var _ Runner = (*Docker)(nil)

// Host returns DOCKER_HOST, or DefaultHost.
func Host() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return DefaultHost
}

// NewDocker connects to the engine at DOCKER_HOST (and the rest of
// Docker's environment: DOCKER_TLS_VERIFY, DOCKER_CERT_PATH), or at
// DefaultHost, negotiating the API version.
func NewDocker() (*Docker, error) {
	host := Host()
	c, err := client.NewClientWithOpts(client.FromEnv, client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker %s: %w", host, err)
	}
	return &Docker{Client: c, Host: host}, nil
}

// Version implements Runner.
func (d *Docker) Version(ctx context.Context) (string, error) {
	v, err := d.Client.ServerVersion(ctx)
	if err != nil {
		return "", fmt.Errorf("docker %s: %w", d.Host, err)
	}
	return fmt.Sprintf("%s (API %s)", v.Version, v.APIVersion), nil
}

// Load implements Runner.
func (d *Docker) Load(ctx context.Context, r io.Reader) ([]string, error) {
	resp, err := d.Client.ImageLoad(ctx, r, client.ImageLoadWithQuiet(true))
	if err != nil {
		return nil, fmt.Errorf("docker load: %w", err)
	}
	defer resp.Body.Close()
	var names []string
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Stream      string `json:"stream"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return names, fmt.Errorf("docker load: %w", err)
		}
		if m.ErrorDetail != nil {
			return names, fmt.Errorf("docker load: %s", m.ErrorDetail.Message)
		}
		if n, ok := strings.CutPrefix(strings.TrimSpace(m.Stream), "Loaded image: "); ok {
			names = append(names, n)
		}
	}
	return names, nil
}

// Run implements Runner.
func (d *Docker) Run(ctx context.Context, spec Spec) (*Result, error) {
	id, err := d.create(ctx, spec, spec.Entrypoint, spec.Cmd, false)
	if err != nil {
		return nil, err
	}
	c := &dockerContainer{d: d, id: id, image: spec.Image}
	defer c.Remove(context.WithoutCancel(ctx))
	for _, cp := range spec.Copies {
		if err := c.CopyIn(ctx, cp); err != nil {
			return nil, err
		}
	}
	if err := d.Client.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, err)
	}
	// Its TCP buffers within its memory limit (cgroup v1), as soon as it
	// runs; its command keeps its own OOM score.
	c.harden(ctx, spec.Memory, false)
	waitC, errC := d.Client.ContainerWait(ctx, id, container.WaitConditionNotRunning)
	var code int
	select {
	case w := <-waitC:
		code = int(w.StatusCode)
	case err := <-errC:
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, err)
	}
	logs, err := d.Client.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return nil, fmt.Errorf("docker run %s: logs: %w", spec.Image, err)
	}
	defer logs.Close()
	var out, errb bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &errb, logs); err != nil {
		return nil, fmt.Errorf("docker run %s: logs: %w", spec.Image, err)
	}
	return &Result{ExitCode: code, Stdout: out.Bytes(), Stderr: errb.Bytes()}, nil
}

// limited is a Runner that runs at most n containers at once.
type limited struct {
	Runner
	sem chan struct{}
}

var _ Runner = (*limited)(nil)

// Limit returns r with at most n containers running at once: a Run, or a
// Session from Start until it is closed (Load and Version are not
// limited).
func Limit(r Runner, n int) Runner {
	if n < 1 {
		n = 1
	}
	return &limited{Runner: r, sem: make(chan struct{}, n)}
}

// Run implements Runner, waiting for a free slot.
func (l *limited) Run(ctx context.Context, spec Spec) (*Result, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, ctx.Err())
	}
	defer func() { <-l.sem }()
	return l.Runner.Run(ctx, spec)
}

// Start implements Runner, waiting for a free slot; the slot is held until
// the Session is closed.
func (l *limited) Start(ctx context.Context, spec Spec) (*Session, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("docker start %s: %w", spec.Image, ctx.Err())
	}
	s, err := l.Runner.Start(ctx, spec)
	if err != nil {
		<-l.sem
		return nil, err
	}
	prev := s.onClose
	s.onClose = func() {
		if prev != nil {
			prev()
		}
		<-l.sem
	}
	return s, nil
}
