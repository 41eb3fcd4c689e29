// Package engines probes what srb needs around it (srb doctor): the
// BuildKit daemon, the Docker engine, the local registry and the
// programs runc, debootstrap and go, each with the command that starts
// or installs it (scripts/engines.sh).
package engines

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/moby/buildkit/client"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// Status is one engine or program srb needs, as srb doctor reports it
// (one line, or one object of its --json list).
type Status struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Address string `json:"address,omitempty"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
	// Start is the exact command that installs or starts it.
	Start string `json:"start"`
	// Optional engines are reported but do not fail srb doctor.
	Optional bool `json:"optional,omitempty"`
}

// Probes are how Probe reaches each engine; nil fields use the real ones.
type Probes struct {
	// BuildKit is buildkitd's address.
	BuildKit string
	// Dial connects to buildkitd; nil uses image.Dial.
	Dial func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
	// Engine connects to Docker; nil uses engine.NewDocker.
	Engine func() (engine.Runner, error)
	// LookPath finds programs; nil uses exec.LookPath.
	LookPath func(string) (string, error)
}

// Probe reports every engine srb needs, in srb doctor's order: buildkitd,
// dockerd, the local registry (SRB_REGISTRY, else 127.0.0.1:5000;
// optional), then runc, debootstrap and go on PATH. Each Status says
// whether it answered, its version and address, and the command that
// starts or installs it. The whole probe is bounded by 20 seconds.
func Probe(ctx context.Context, p Probes) []Status {
	dial, newEngine, look := p.Dial, p.Engine, p.LookPath
	if dial == nil {
		dial = image.Dial
	}
	if newEngine == nil {
		newEngine = func() (engine.Runner, error) { return engine.NewDocker() }
	}
	if look == nil {
		look = exec.LookPath
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var st []Status

	addr := p.BuildKit
	bk := Status{Name: "buildkitd", Address: addr,
		Start: "scripts/engines.sh start (buildkitd --root /var/lib/srb-engines/buildkit --oci-worker=true --containerd-worker=false --addr unix:///run/buildkit/buildkitd.sock)"}
	if c, info, err := dial(ctx, addr); err != nil {
		bk.Error = err.Error()
	} else {
		bk.OK, bk.Version = true, info.BuildkitVersion.Version
		c.Close()
	}
	st = append(st, bk)

	dk := Status{Name: "dockerd", Address: engine.Host(), Start: "scripts/engines.sh start (dockerd --host unix:///var/run/docker.sock)"}
	if r, err := newEngine(); err != nil {
		dk.Error = err.Error()
	} else if v, err := r.Version(ctx); err != nil {
		dk.Error = err.Error()
	} else {
		dk.OK, dk.Version = true, v
	}
	st = append(st, dk)

	reg := os.Getenv("SRB_REGISTRY")
	if reg == "" {
		reg = "127.0.0.1:5000"
	}
	rs := Status{Name: "registry", Address: "http://" + reg, Optional: true,
		Start: "scripts/engines.sh start (registry serve /var/lib/srb-engines/registry/config.yml); only srb build --push needs it"}
	if req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+reg+"/v2/", nil); err == nil {
		if resp, err := http.DefaultClient.Do(req); err != nil {
			rs.Error = err.Error()
		} else {
			resp.Body.Close()
			rs.OK, rs.Version = resp.StatusCode == http.StatusOK, resp.Header.Get("Docker-Distribution-Api-Version")
			if !rs.OK {
				rs.Error = "GET /v2/: " + resp.Status
			}
		}
	}
	st = append(st, rs)

	for _, pr := range []struct{ name, arg, start string }{
		{"runc", "--version", "scripts/engines.sh install (apt-get install -y runc)"},
		{"debootstrap", "--version", "scripts/engines.sh install (apt-get install -y debootstrap)"},
		{"go", "version", "install Go 1.26 (the go command fetches toolchains and builds srb's helper)"},
	} {
		s := Status{Name: pr.name, Start: pr.start}
		path, err := look(pr.name)
		if err != nil {
			s.Error = "not on PATH"
			st = append(st, s)
			continue
		}
		s.OK, s.Address = true, path
		if out, err := exec.CommandContext(ctx, path, pr.arg).CombinedOutput(); err == nil {
			s.Version = versionLine(string(out))
		} else if pr.name == "debootstrap" {
			s.Version = debVersion(ctx, "debootstrap")
		}
		st = append(st, s)
	}
	return st
}

// versionLine is the first line of a program's version output.
func versionLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// debVersion is the installed version of a Debian package, or "".
func debVersion(ctx context.Context, pkg string) string {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Missing counts the engines of st that are needed (not Optional) and
// not reachable: srb doctor exits 1 when there is one.
func Missing(st []Status) int {
	n := 0
	for _, s := range st {
		if !s.OK && !s.Optional {
			n++
		}
	}
	return n
}

// WriteText prints st as srb doctor does: per engine, "ok" with its
// version and address, or "missing" with the error, where it was looked
// for and the command that starts it.
func WriteText(w io.Writer, st []Status) {
	for _, s := range st {
		if s.OK {
			fmt.Fprintf(w, "%-12s ok       %s  %s\n", s.Name, s.Version, s.Address)
			continue
		}
		where := ""
		if s.Address != "" {
			where = " at " + s.Address
		}
		fmt.Fprintf(w, "%-12s missing  %s%s\n%-12s          start: %s\n", s.Name, s.Error, where, "", s.Start)
	}
}
