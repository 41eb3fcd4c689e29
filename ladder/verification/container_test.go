package verification

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// hostExec stands in for the verification image: it runs each command on
// this machine with the container's /srb under the fake container's root
// and /tests/verification at the fixture task, in its own process group.
// The process listing and the reaping shell are answered, never run
// (here they would see, and kill, this machine's processes), and so is
// chown (the candidate user need not exist here, nor this process be
// root).
func hostExec(t *testing.T, assets string) func(context.Context, *engine.FakeContainer, engine.ExecSpec) (*engine.Result, error) {
	return func(ctx context.Context, c *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		if len(es.Argv) >= 3 && es.Argv[2] == reapScript {
			return &engine.Result{Stdout: []byte("0\n")}, nil
		}
		if len(es.Argv) >= 3 && es.Argv[2] == listScript {
			return &engine.Result{Stdout: []byte("1\n7\n")}, nil
		}
		if es.Argv[0] == "chown" {
			return &engine.Result{}, nil
		}
		m := func(s string) string {
			s = strings.ReplaceAll(s, ContainerRoot+"/", c.Root+ContainerRoot+"/")
			return strings.ReplaceAll(s, assetsDir, assets)
		}
		argv := make([]string, len(es.Argv))
		for i, a := range es.Argv {
			argv[i] = m(a)
		}
		// The shared folders a fresh start and a restore clear are the
		// fake container's, never this machine's.
		if len(argv) > 9 && (es.Argv[2] == freshScript || es.Argv[2] == restoreScript) {
			first := 9 // restoreScript: snap tree run home user shared...
			if es.Argv[2] == freshScript {
				first = 10 // pristine tree run home user seed shared...
			}
			for i := first; i < len(argv); i++ {
				argv[i] = filepath.Join(c.Root, argv[i])
			}
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		for _, kv := range es.Env {
			cmd.Env = append(cmd.Env, m(kv))
		}
		cmd.Dir = c.Root
		if es.WorkDir != "" {
			cmd.Dir = m(es.WorkDir)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		start := time.Now()
		err := cmd.Run()
		res := &engine.Result{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start)}
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			return nil, err
		}
		return res, nil
	}
}

// A whole stage with each round in a container of its own: the trees are
// copied in (pristine, read-only), reset with rm and cp inside, the
// candidate copied in and run as the task's command with the role last,
// in a salted tree; the toolbox shows the container's paths.
func TestContainerRounds(t *testing.T) {
	t.Parallel()
	needTools(t)
	assets, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	fake := &engine.Fake{ExecFunc: hostExec(t, assets)}
	sub := port(t, func(s string) string { return replaceOnce(t, s, "\t\tos.Exit(2)\n", "\t\tos.Exit(1)\n") })
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a05-usage": {call("list_dir", map[string]any{"path": "workspace:"}), try("usage", candUsage), found("usage", "tally exits 1, not 2, when given arguments")},
	}, []turn{rule(true, "[usage] promised")})
	v, _ := task_(t)
	cfg.NewSandbox = func(ctx context.Context, id string) (Sandbox, error) {
		return NewContainer(ctx, ContainerConfig{
			Engine: fake, Image: "srb/lang90-tally-c-to-go:verification", Labels: map[string]string{"srb.round": id},
			Original: stateA, Submission: sub, Command: v.CandidateCommand, Timeout: 5 * time.Minute, Work: t.TempDir(),
			Env: []string{"PATH=" + os.Getenv("PATH"), "GOCACHE=" + filepath.Join(homeSeed(t), ".cache", "go-build")},
		})
	}
	st, rounds := runStage(t, cfg)
	want := allSurvive("a05-usage")
	for id, v := range verdicts(st) {
		if want[id] != v {
			t.Errorf("%s: %s, want %s", id, v, want[id])
		}
	}
	if got := roundOf(t, rounds, "a05-usage")["adjudication"].(map[string]any)["reproduced"]; got != 3.0 {
		t.Errorf("reproduced %v", got)
	}
	// Each tree of each round has a container of its own, holding that
	// tree only (no run tool was used, so no third container started).
	cs := fake.Containers()
	if len(cs) != 12 {
		t.Fatalf("%d containers, want two per round", len(cs))
	}
	for _, c := range cs {
		if !c.Closed() || c.Spec.Network != "" || len(c.Spec.Copies) != 1 || c.Spec.ReadOnly[0] != "/srb/pristine" || !c.Spec.NoNewPrivileges ||
			c.Spec.Labels["srb.tree"] == "" || c.Spec.Labels["srb.round"] == "" {
			t.Errorf("container %+v", c.Spec)
		}
	}
	// The a05 round's containers ran the candidate with the role last,
	// in a salted tree, with nothing naming the role in its environment,
	// as the candidate user, right after everything left running was
	// killed; the tree is the candidate user's; each container ran one
	// role only, in the tree it holds.
	var runs, warmUps int
	for _, c := range cs {
		if c.Spec.Labels["srb.round"] != "a05-usage" {
			continue
		}
		execs := c.Execs()
		chowned := map[string]bool{}
		roles := map[string]bool{}
		for i, es := range execs {
			if es.Argv[0] == "chown" {
				if es.User != "0" || strings.Join(es.Argv[1:5], " ") != "-R -h -P "+CandidateUser {
					t.Errorf("chown %+v: want -R -h -P %s (never following a link) as root", es, CandidateUser)
				}
				for _, p := range es.Argv[5:] {
					chowned[p] = true
				}
			}
			if len(es.Argv) < 3 || es.Argv[1] != v.CandidateCommand[1] {
				continue
			}
			role := es.Argv[len(es.Argv)-1]
			if slices.Contains(es.Env, EnvCandidateName+"="+WarmUp.Name) {
				// The side's warm-up: its first run, before any candidate,
				// on a fresh tree; its snapshot is kept right after it.
				warmUps++
				if roles[role] {
					t.Errorf("a warm-up ran after a candidate in container %s", c.Spec.Labels["srb.tree"])
				}
				if next := execs[i+1]; len(next.Argv) < 3 || next.Argv[2] != reapScript || len(execs) < i+3 || execs[i+2].Argv[2] != snapshotScript {
					t.Errorf("the warm-up was not followed by a reaping and the snapshot, but by %q", next.Argv)
				}
				continue
			}
			runs++
			roles[role] = true
			if role != RoleOriginal && role != RoleSubmission || !strings.HasPrefix(es.WorkDir, "/srb/trees/") ||
				strings.Contains(es.WorkDir, role) || strings.Contains(strings.Join(es.Env, " "), role) || es.User != CandidateUser {
				t.Errorf("candidate run %+v", es)
			}
			if !chowned[es.WorkDir] {
				t.Errorf("the candidate runs in %s, which was not given to the candidate user", es.WorkDir)
			}
			if es.WorkDir != "/srb/trees/"+path.Base(c.Spec.Copies[0].ContainerPath) {
				t.Errorf("the candidate runs in %s, not in the tree its container holds (%s)", es.WorkDir, c.Spec.Copies[0].ContainerPath)
			}
			// Each run starts from the snapshot, restored by root right
			// after everything left running was killed.
			if prev := execs[i-1]; len(prev.Argv) < 3 || prev.Argv[2] != restoreScript || prev.User != "0" {
				t.Errorf("the candidate run %d did not come right after a restore, but after %q", runs, prev.Argv)
			} else if prev := execs[i-2]; len(prev.Argv) < 3 || prev.Argv[2] != reapScript || prev.User != "0" {
				t.Errorf("the candidate run %d's restore did not come right after a reaping, but after %q", runs, prev.Argv)
			}
		}
		if len(roles) != 1 {
			t.Errorf("container %s ran the roles %v, want one", c.Spec.Labels["srb.tree"], roles)
		}
		for _, p := range []string{"/srb/home", "/srb/run"} {
			if !chowned[p] {
				t.Errorf("%s was not given to the candidate user", p)
			}
		}
		for p := range chowned {
			if strings.HasPrefix(p, "/srb/view") || strings.HasPrefix(p, "/srb/pristine") {
				t.Errorf("%s was given to the candidate user", p)
			}
		}
	}
	if runs != 6 || warmUps != 2 {
		t.Errorf("%d candidate runs and %d warm-ups in a05's containers, want 6 and 2 (one per tree)", runs, warmUps)
	}
	b, err := os.ReadFile(filepath.Join(cfg.LogDir, "round-a05-usage.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "/srb/view/workspace") {
		t.Errorf("the toolbox does not show the container's paths")
	}
}

// A candidate command whose file the image lacks ends the sandbox before
// any round: the container is removed.
func TestContainerLaunchCheck(t *testing.T) {
	fake := &engine.Fake{ExecFunc: func(_ context.Context, _ *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		return &engine.Result{ExitCode: 1, Stdout: []byte("/tests/verification/run.sh\n")}, nil
	}}
	_, err := NewContainer(context.Background(), ContainerConfig{Engine: fake, Image: "img", Original: stateA, Submission: goPort,
		Command: []string{"/bin/bash", "/tests/verification/run.sh"}, Work: t.TempDir()})
	if err == nil || err.Error() != "sandbox: candidate command argument /tests/verification/run.sh does not exist in the verification image img" {
		t.Fatalf("error %v", err)
	}
	if c := fake.Containers(); len(c) != 1 || !c[0].Closed() {
		t.Errorf("the container was not removed")
	}
}

// The run tool runs each command in a container of its view's own,
// holding that tree alone: a command the adversary runs in the workspace
// view (the submission's Makefile, say, as root in its container) cannot
// reach the original view, so it cannot change what the adversary runs of
// State A. Before, one container held both views. A folder in neither
// view is refused, and both view containers are removed with the sandbox.
func TestContainerRunToolViewsAreApart(t *testing.T) {
	fake := &engine.Fake{ExecFunc: func(_ context.Context, _ *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		return &engine.Result{ExitCode: 0}, nil
	}}
	c, err := NewContainer(context.Background(), ContainerConfig{Engine: fake, Image: "img", Original: stateA, Submission: goPort,
		Command: []string{"/bin/sh", "-c", "true"}, Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := c.RunTool()
	started := len(fake.Containers())
	for _, dir := range []string{"/srb/view/workspace", "/srb/view/workspace/sub", "/srb/view/original"} {
		if _, err := run.Run(context.Background(), agent.Command{Argv: []string{"make"}, Dir: dir, Timeout: time.Minute}); err != nil {
			t.Fatalf("run in %s: %v", dir, err)
		}
	}
	if _, err := run.Run(context.Background(), agent.Command{Argv: []string{"make"}, Dir: "/srb/view/originals", Timeout: time.Minute}); err == nil {
		t.Error("the run tool ran a command in a folder of neither view")
	}
	views := fake.Containers()[started:]
	if len(views) != 2 {
		t.Fatalf("%d run-tool containers, want one per view", len(views))
	}
	for i, want := range []string{"workspace", "original"} {
		spec := views[i].Spec
		if spec.Labels["srb.tree"] != "view-"+want || len(spec.Copies) != 1 || path.Base(spec.Copies[0].ContainerPath) != want {
			t.Errorf("run-tool container %d: labels %v, copies %+v: want the %s view alone", i, spec.Labels, spec.Copies, want)
		}
		var ran []string
		for _, es := range views[i].Execs() {
			if len(es.Argv) > 0 && es.Argv[0] == "make" {
				ran = append(ran, es.WorkDir)
			}
		}
		if want == "workspace" && !slices.Equal(ran, []string{"/srb/view/workspace", "/srb/view/workspace/sub"}) ||
			want == "original" && !slices.Equal(ran, []string{"/srb/view/original"}) {
			t.Errorf("the %s view's container ran make in %v", want, ran)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		if !v.Closed() {
			t.Errorf("run-tool container %s was not removed", v.Spec.Labels["srb.tree"])
		}
	}
}
