package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/moby/buildkit/client"
	"github.com/spf13/cobra"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

const doctorDoc = `Report every engine srb needs: reachable or not, its version, and the exact command that starts it.

srb doctor checks buildkitd (--buildkit, else BUILDKIT_HOST, else
unix:///run/buildkit/buildkitd.sock), dockerd (DOCKER_HOST, else
unix:///var/run/docker.sock), the local registry (SRB_REGISTRY, else
127.0.0.1:5000; optional: only srb build --push needs it), runc,
debootstrap and the go command. For
each it prints ok or missing, the version it found, and for a missing one
the command that installs or starts it. scripts/engines.sh does all of
it on Debian.

Exit 0 when everything but optional engines is there, 1 otherwise.

Examples:
  srb doctor
  srb doctor --json
  srb doctor --buildkit tcp://builder:1234`

// DoctorOptions are the inputs of srb doctor.
type DoctorOptions struct {
	IO       IOStreams
	BuildKit string
	JSON     bool
	// Dial connects to buildkitd; nil uses image.Dial.
	Dial func(ctx context.Context, addr string) (*client.Client, *client.Info, error)
	// Engine connects to Docker; nil uses engine.NewDocker.
	Engine func() (engine.Runner, error)
	// LookPath finds programs; nil uses exec.LookPath.
	LookPath func(string) (string, error)
}

// NewCmdDoctor builds `srb doctor`.
func NewCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Dial: f.BuildKit, Engine: f.Engine}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report which engines are reachable, their versions, and how to start what is missing",
		Long:  doctorDoc,
		Args:  argsValidator(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.BuildKit, "buildkit", "", "buildkitd address (default $BUILDKIT_HOST, else "+image.DefaultBuildKitHost+")")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// engineStatus is one line of srb doctor.
type engineStatus struct {
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

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	dial, newEngine, look := opts.Dial, opts.Engine, opts.LookPath
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
	var st []engineStatus

	addr := buildKitAddr(opts.BuildKit)
	bk := engineStatus{Name: "buildkitd", Address: addr,
		Start: "scripts/engines.sh start (buildkitd --root /var/lib/srb-engines/buildkit --oci-worker=true --containerd-worker=false --addr unix:///run/buildkit/buildkitd.sock)"}
	if c, info, err := dial(ctx, addr); err != nil {
		bk.Error = err.Error()
	} else {
		bk.OK, bk.Version = true, info.BuildkitVersion.Version
		c.Close()
	}
	st = append(st, bk)

	dk := engineStatus{Name: "dockerd", Address: engine.Host(), Start: "scripts/engines.sh start (dockerd --host unix:///var/run/docker.sock)"}
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
	rs := engineStatus{Name: "registry", Address: "http://" + reg, Optional: true,
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

	for _, p := range []struct{ name, arg, start string }{
		{"runc", "--version", "scripts/engines.sh install (apt-get install -y runc)"},
		{"debootstrap", "--version", "scripts/engines.sh install (apt-get install -y debootstrap)"},
		{"go", "version", "install Go 1.26 (the go command fetches toolchains and builds srb's helper)"},
	} {
		s := engineStatus{Name: p.name, Start: p.start}
		path, err := look(p.name)
		if err != nil {
			s.Error = "not on PATH"
			st = append(st, s)
			continue
		}
		s.OK, s.Address = true, path
		if out, err := exec.CommandContext(ctx, path, p.arg).CombinedOutput(); err == nil {
			s.Version = versionLine(string(out))
		} else if p.name == "debootstrap" {
			s.Version = debVersion(ctx, "debootstrap")
		}
		st = append(st, s)
	}

	missing := 0
	for _, s := range st {
		if !s.OK && !s.Optional {
			missing++
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, st); err != nil {
			return couldNotRun(err)
		}
	} else {
		for _, s := range st {
			if s.OK {
				fmt.Fprintf(opts.IO.Out, "%-12s ok       %s  %s\n", s.Name, s.Version, s.Address)
				continue
			}
			where := ""
			if s.Address != "" {
				where = " at " + s.Address
			}
			fmt.Fprintf(opts.IO.Out, "%-12s missing  %s%s\n%-12s          start: %s\n", s.Name, s.Error, where, "", s.Start)
		}
	}
	if missing > 0 {
		return silent(ExitCouldNotRun, fmt.Errorf("%d engine(s) missing", missing))
	}
	return nil
}

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
