// Package engine runs stage containers on a Docker engine through
// github.com/docker/docker/client, addressed by DOCKER_HOST (default
// unix:///var/run/docker.sock) with the API version negotiated (Debian's
// dockerd speaks API 1.41). [Runner] is the small interface the ladder
// uses; limits are a decorator ([Limit]).
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// DefaultHost is where scripts/engines.sh starts dockerd.
const DefaultHost = "unix:///var/run/docker.sock"

// Spec is one container to run to completion.
type Spec struct {
	Image string
	Cmd   []string
	Env   []string
	// Network is the container's network mode; "" means "none".
	Network string
	User    string
	WorkDir string
}

// Result is how a container ended and what it printed.
type Result struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
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
	network := spec.Network
	if network == "" {
		network = "none"
	}
	created, err := d.Client.ContainerCreate(ctx, &container.Config{
		Image: spec.Image, Cmd: spec.Cmd, Env: spec.Env, User: spec.User, WorkingDir: spec.WorkDir,
	}, &container.HostConfig{NetworkMode: container.NetworkMode(network)}, nil, nil, "")
	if err != nil {
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, err)
	}
	defer d.Client.ContainerRemove(context.WithoutCancel(ctx), created.ID, container.RemoveOptions{Force: true})
	if err := d.Client.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, err)
	}
	waitC, errC := d.Client.ContainerWait(ctx, created.ID, container.WaitConditionNotRunning)
	var code int
	select {
	case w := <-waitC:
		code = int(w.StatusCode)
	case err := <-errC:
		return nil, fmt.Errorf("docker run %s: %w", spec.Image, err)
	}
	logs, err := d.Client.ContainerLogs(ctx, created.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true})
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

// Limit returns r with at most n containers running at once (Load and
// Version are not limited).
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
