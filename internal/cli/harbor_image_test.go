package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// TestHarborExportInImage runs an exported task the way Harbor runs it,
// with the docker client standing in for Harbor: the fixture task's
// images are pushed to the local registry (srb build --push), the task is
// exported with usage-exit-1 as its solution, environment/ and tests/ are
// built, solve.sh runs as the agent's uid in a container of the
// environment with no network, /workspace/repo is copied into a container
// of the verifier with the Docker socket mounted, /tests/test.sh runs
// there (given the fixture's audit scripts and the scripted driver, as
// Harbor would give credentials), and /logs/verifier/reward.json equals
// the one srb ladder --submission-fixture usage-exit-1 publishes here.
func TestHarborExportInImage(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes images, builds two more and runs the ladder from inside a container")
	}
	requireEngines(t)
	reg := os.Getenv("SRB_REGISTRY_ADDR")
	if reg == "" {
		reg = "127.0.0.1:5000"
	}
	if resp, err := http.Get("http://" + reg + "/v2/"); err != nil {
		if os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
			t.Fatalf("SRB_REQUIRE_ENGINES=1 but the registry %s is not reachable: %v", reg, err)
		}
		t.Skipf("the registry %s is not reachable (scripts/engines.sh starts it): %v", reg, err)
	} else {
		resp.Body.Close()
	}
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("no docker client on PATH")
	}
	taskDir := fixtureCopy(t)
	fxRoot, err := filepath.Abs(filepath.Join("..", "..", "testdata", "submissions", "lang90-tally-c-to-go"))
	if err != nil {
		t.Fatal(err)
	}
	fx := filepath.Join(fxRoot, "usage-exit-1")
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Minute)
	defer cancel()
	run := func(args ...string) (int, string) {
		f := NewFactory()
		var out, errOut bytes.Buffer
		f.IO = IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		code := Run(ctx, f, args)
		return code, out.String() + errOut.String()
	}
	sh := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return strings.TrimSpace(out.String())
	}

	// srb's static binary for the verifier image.
	srbBin := filepath.Join(t.TempDir(), "srb")
	build := exec.CommandContext(ctx, "go", "build", "-o", srbBin, "../../cmd/srb")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build srb: %v\n%s", err, out)
	}

	repo := reg + "/srb-harbor-test"
	if code, log := run("build", taskDir, "--push", repo); code != ExitRan {
		t.Fatalf("srb build --push: exit %d\n%s", code, log)
	}
	out := filepath.Join(t.TempDir(), "harbor")
	if code, log := run("export", "harbor", taskDir, out, "--registry", repo, "--solution", fx, "--srb", srbBin, "--docker", docker); code != ExitRan {
		t.Fatalf("srb export harbor: exit %d\n%s", code, log)
	}

	// The ladder's own verdict.
	ladderOut := t.TempDir()
	if code, log := run("ladder", taskDir, "--submission-fixture", fx, "--results", ladderOut); code != ExitRan {
		t.Fatalf("srb ladder: exit %d\n%s", code, log)
	}
	want, err := result.ReadReward(filepath.Join(ladderOut, "reward.json"))
	if err != nil {
		t.Fatal(err)
	}

	// Harbor's part, by hand.
	tag := fmt.Sprintf("srb-harbor-test-%d", time.Now().UnixNano())
	sh(docker, "build", "-q", "-t", tag+"-env", filepath.Join(out, "environment"))
	sh(docker, "build", "-q", "-t", tag+"-verifier", filepath.Join(out, "tests"))
	t.Cleanup(func() { exec.Command(docker, "rmi", "-f", tag+"-env", tag+"-verifier").Run() })
	env := sh(docker, "create", "--network", "none", tag+"-env", "sleep", "infinity")
	t.Cleanup(func() { exec.Command(docker, "rm", "-f", env).Run() })
	sh(docker, "cp", filepath.Join(out, "solution"), env+":/solution")
	sh(docker, "start", env)
	sh(docker, "exec", "-u", "1000:1000", env, "sh", "/solution/solve.sh")
	collected := filepath.Join(t.TempDir(), "repo")
	sh(docker, "cp", env+":/workspace/repo", collected)
	sh(docker, "rm", "-f", env)
	if _, err := os.Stat(filepath.Join(collected, "tally.c")); err == nil {
		t.Error("solve.sh left tally.c, which usage-exit-1 deletes")
	}

	scripts := t.TempDir()
	nothing := filepath.Join(scripts, "nothing.json")
	if err := os.WriteFile(nothing, []byte(`[{"tool_calls": [{"name": "report", "arguments": {"found": false, "notes": "not run"}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--driver", "scripted", "--adjudicator-script", "/srb-scripts/nothing.json"}
	for _, id := range []string{"a01-whitespace", "a02-binary", "a03-large", "a04-lines", "a05-usage", "a06-open"} {
		args = append(args, "--adversary-script", id+"=/srb-scripts/nothing.json")
	}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("review-%d.json", i)
		b, err := os.ReadFile(filepath.Join(fx, "audit", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(scripts, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--audit-script", "/srb-scripts/"+name)
	}
	ver := sh(docker, "create", "-v", "/var/run/docker.sock:/var/run/docker.sock", tag+"-verifier", "sleep", "infinity")
	t.Cleanup(func() { exec.Command(docker, "rm", "-f", ver).Run() })
	sh(docker, "cp", collected, ver+":/workspace/repo")
	sh(docker, "cp", scripts, ver+":/srb-scripts")
	sh(docker, "start", ver)
	cmd := exec.CommandContext(ctx, docker, append([]string{"exec", ver, "/tests/test.sh"}, args...)...)
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("/tests/test.sh: %v\n%s", err, log)
	}
	got := filepath.Join(t.TempDir(), "reward.json")
	sh(docker, "cp", ver+":/logs/verifier/reward.json", got)
	rw, err := result.ReadReward(got)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if !maps.Equal(rw, want) {
		t.Errorf("the Harbor run's reward.json differs from srb ladder's:\nharbor: %v\nladder: %v\n%s", rw, want, log)
	}
	if rw["valid"] != 1 || rw["stage1_passed"] != 1 || rw["module_usage_rate"] == 1 {
		t.Errorf("the Harbor run's verdict is not usage-exit-1's: %v", rw)
	}
}
