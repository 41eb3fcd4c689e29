package verification

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
)

// A submission whose own code fills the disk when the adversary runs it in
// the workspace view (its Makefile, its tests, run by the adversary's
// `make` or `go test`) must leave State A's next run, and its own, no
// harness error: the view's sandbox is kept between commands, so what a
// command left there stayed for the rest of the round, the disk full (a
// machine with free room for every side's and view's bound, the task's
// limits.disk here, as docs/LADDER.md asks). A view past the bound is put
// back as it started, and the command's output says so.
func TestRunToolFilledDiskIsNoFault(t *testing.T) {
	t.Parallel()
	c := buildContainer(t, "", 8<<20, smallDisk(t, 48<<20), func(cfg *ContainerConfig) {
		// The run tool's HOME is each view's own, as with --host.
		cfg.ToolEnv = func(name string) string {
			if name == "HOME" {
				return ""
			}
			return os.Getenv(name)
		}
	})
	run, _ := c.RunTool()
	for _, fill := range []string{
		`cat /dev/zero > fill; true`,
		`cat /dev/zero > "$HOME/fill"; true`,
		`mkdir -p many; i=0; while [ $i -lt 3000 ]; do : > many/f$i; i=$((i+1)); done; cat /dev/zero > fill; true`,
	} {
		res, err := run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", fill},
			Dir: c.views[RoleSubmission].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("the filling command: %v (%+v)", err, res)
		}
		if !strings.Contains(string(res.Stderr), "the view was put back as it started") {
			t.Errorf("the filling command's output says nothing of the view put back: %q", res.Stderr)
		}
		ok := &Candidate{Name: "ok", Filename: "ok.sh", Code: "# " + strings.Repeat("x", 64<<10) + "\nexit 0\n"}
		for _, role := range []string{RoleOriginal, RoleSubmission} {
			if r := c.Execute(t.Context(), ok, role); r.Harness != "" {
				t.Fatalf("after %q in the workspace view, the %s's run is a harness error: %.600s", fill, role, r.Harness)
			}
		}
		// The original view's commands still run.
		res, err = run.Run(context.Background(), agent.Command{Argv: []string{"/bin/sh", "-c", "echo x > mine && cat mine"},
			Dir: c.views[RoleOriginal].shown(), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
		if err != nil || strings.TrimSpace(string(res.Stdout)) != "x" {
			t.Fatalf("after %q in the workspace view, a command in the original view: %v %+v", fill, err, res)
		}
	}
}
