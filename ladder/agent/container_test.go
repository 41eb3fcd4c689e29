package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// TestShownRoots: a root shown at its container mount point is listed
// there, absolute paths resolve under it (the host path does not), the
// file tools still read the host folder, citations ground, and run's
// working directory is the container path.
func TestShownRoots(t *testing.T) {
	orig, ws, _ := trees(t)
	rec := &recorder{res: RunResult{ExitCode: 0, Stdout: []byte("ok\n")}}
	tb, err := NewToolbox([]RootSpec{{Name: "original", Dir: orig, Shown: "/opt/original"}, {Name: "workspace", Dir: ws, Shown: "/opt/workspace/"}},
		ToolboxOptions{AllowedCommands: []string{"ls"}, Runner: rec, Getenv: ContainerEnv})
	must(t, err)
	defer tb.Close()
	if got, want := tb.Roots(), "original = /opt/original, workspace = /opt/workspace"; got != want {
		t.Errorf("Roots() = %q, want %q", got, want)
	}
	if got := tb.RootDir("workspace"); got != "/opt/workspace" {
		t.Errorf("RootDir = %q", got)
	}
	ctx := context.Background()
	if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": "/opt/workspace/main.go"}); !strings.Contains(got, "Count   the WORDS") {
		t.Errorf("fetch by the shown path:\n%s", got)
	}
	if got := tb.Dispatch(ctx, ToolFetchSource, map[string]any{"path": filepath.Join(ws, "main.go")}); !strings.Contains(got, "is outside every readable root; the roots are original=/opt/original, workspace=/opt/workspace") {
		t.Errorf("fetch by the host path:\n%s", got)
	}
	if ok, note := tb.Ground("/opt/original/tally.c", 2, "int main(void)"); !ok {
		t.Errorf("ground: %s", note)
	}
	got := tb.Dispatch(ctx, ToolRun, map[string]any{"argv": []any{"ls", "-l"}, "cwd": "workspace:pkg"})
	if len(rec.got) != 1 {
		t.Fatalf("run: %s", got)
	}
	c := rec.got[0]
	if c.Dir != "/opt/workspace/pkg" {
		t.Errorf("run dir %q, want /opt/workspace/pkg", c.Dir)
	}
	if !strings.Contains(got, "(cwd /opt/workspace/pkg)") {
		t.Errorf("run output: %s", got)
	}
	if c.Env[0] != "PATH="+ContainerPath || c.Env[1] != "HOME=/tmp" {
		t.Errorf("env %q: want the container's PATH and HOME, not the host's", c.Env)
	}
	tb.Dispatch(ctx, ToolRun, map[string]any{"argv": []any{"ls"}})
	if d := rec.got[1].Dir; d != "/opt/workspace" {
		t.Errorf("default run dir %q", d)
	}
	if _, err := NewToolbox([]RootSpec{{Name: "w", Dir: ws, Shown: "opt/w"}}, ToolboxOptions{}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("relative shown path: %v", err)
	}
}

// TestSessionRunner runs commands through an engine session (the fake
// engine's host-folder container): the working directory and environment
// arrive, exit codes and both streams come back, a timeout kills the
// command and says so, and a closed container is an error.
func TestSessionRunner(t *testing.T) {
	ctx := context.Background()
	f := &engine.Fake{}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	s, err := f.Start(ctx, engine.Spec{Image: "srb/x:audit", Copies: []engine.Copy{{HostPath: dir, ContainerPath: "/opt/workspace"}}})
	must(t, err)
	r := SessionRunner{Session: s}
	res, err := r.Run(ctx, Command{Argv: []string{"sh", "-c", `basename "$PWD"; echo "$SRB_T" >&2; exit 3`}, Dir: "/opt/workspace/pkg", Env: []string{"SRB_T=seen"}, Timeout: 10 * time.Second})
	must(t, err)
	if res.ExitCode != 3 || string(res.Stdout) != "pkg\n" || string(res.Stderr) != "seen\n" || res.TimedOut {
		t.Errorf("got %+v (stdout %q, stderr %q)", res, res.Stdout, res.Stderr)
	}
	es := f.Containers()[0].Execs()[0]
	if es.WorkDir != "/opt/workspace/pkg" || es.MaxOutput != MaxCapturedOutput || es.Timeout != 10*time.Second {
		t.Errorf("exec spec %+v", es)
	}
	start := time.Now()
	res, err = r.Run(ctx, Command{Argv: []string{"sleep", "30"}, Timeout: 200 * time.Millisecond})
	must(t, err)
	if !res.TimedOut || res.ExitCode != -1 || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %+v after %v", res, time.Since(start))
	}
	must(t, s.Close(ctx))
	if _, err := r.Run(ctx, Command{Argv: []string{"true"}, Timeout: time.Second}); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("closed container: %v", err)
	}
	if _, err := (SessionRunner{}).Run(ctx, Command{Argv: []string{"true"}}); err == nil {
		t.Error("no session: no error")
	}
	if _, err := r.Run(ctx, Command{}); err == nil {
		t.Error("empty argv: no error")
	}
}
