package engines

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moby/buildkit/client"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestProbeNothingThere: with no engine and no program, every line is
// missing with its error and the command that starts it; only the
// registry is optional.
func TestProbeNothingThere(t *testing.T) {
	t.Setenv("SRB_REGISTRY", "127.0.0.1:1")
	st := Probe(context.Background(), Probes{BuildKit: "unix:///nowhere.sock",
		Dial: func(context.Context, string) (*client.Client, *client.Info, error) {
			return nil, nil, errors.New("no buildkitd")
		},
		Engine:   func() (engine.Runner, error) { return nil, errors.New("no dockerd") },
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
	})
	var names []string
	for _, s := range st {
		names = append(names, s.Name)
		if s.OK || s.Error == "" || s.Start == "" {
			t.Errorf("%s: %+v, want missing with its error and start command", s.Name, s)
		}
		if s.Optional != (s.Name == "registry") {
			t.Errorf("%s: optional %v", s.Name, s.Optional)
		}
	}
	if got := strings.Join(names, " "); got != "buildkitd dockerd registry runc debootstrap go" {
		t.Errorf("probed %s", got)
	}
	if st[0].Address != "unix:///nowhere.sock" || st[0].Error != "no buildkitd" || st[3].Error != "not on PATH" {
		t.Errorf("buildkitd %+v, runc %+v", st[0], st[3])
	}
}
