package verification

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/agent"
	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// hostExec stands in for the verification image: it runs each command on
// this machine with the container's /srb under the fake container's root
// and /tests/verification at the fixture task, in its own process group.
// The sandbox's root steps are the session's verbs (Delete, CopyIn,
// Reap), which the fake carries out under its root: no command here runs
// as root.
func hostExec(t *testing.T, assets string) func(context.Context, *engine.FakeContainer, engine.ExecSpec) (*engine.Result, error) {
	return func(ctx context.Context, c *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		m := func(s string) string {
			s = strings.ReplaceAll(s, ContainerRoot+"/", c.Root+ContainerRoot+"/")
			return strings.ReplaceAll(s, assetsDir, assets)
		}
		argv := make([]string, len(es.Argv))
		for i, a := range es.Argv {
			argv[i] = m(a)
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

// step is one thing a sandbox asked of its session: a verb ("exec",
// "copyin", "copyout", "delete", "reap"), the container path it named
// (an exec's working folder), the host path a copy read, the user it ran
// as or gave the copy to, and an exec's spec.
type step struct {
	verb, path, host, user string
	es                     engine.ExecSpec
}

// recStarter starts sessions through inner and records every verb the
// sandbox calls on each ([recSession]), in order.
type recStarter struct {
	inner    Starter
	mu       sync.Mutex
	sessions []*recSession
}

// recSession is one session of a recStarter: an engine.Container that
// records each call and passes it on to the session inner started.
type recSession struct {
	spec  engine.Spec
	s     *engine.Session
	mu    sync.Mutex
	steps []step
}

// Start implements Starter.
func (r *recStarter) Start(ctx context.Context, spec engine.Spec) (*engine.Session, error) {
	s, err := r.inner.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	rs := &recSession{spec: spec, s: s}
	r.mu.Lock()
	r.sessions = append(r.sessions, rs)
	r.mu.Unlock()
	return engine.NewSession(s.ID, s.Image, rs), nil
}

// Steps returns what the session was asked, in order.
func (rs *recSession) Steps() []step {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.steps)
}

func (rs *recSession) note(st step) {
	rs.mu.Lock()
	rs.steps = append(rs.steps, st)
	rs.mu.Unlock()
}

func (rs *recSession) Exec(ctx context.Context, es engine.ExecSpec) (*engine.Result, error) {
	rs.note(step{verb: "exec", path: es.WorkDir, user: es.User, es: es})
	return rs.s.Exec(ctx, es)
}

func (rs *recSession) CopyIn(ctx context.Context, cp engine.Copy) error {
	st := step{verb: "copyin", path: cp.ContainerPath, host: cp.HostPath, user: "0:0"}
	if cp.Owned {
		st.user = strconv.Itoa(cp.UID) + ":" + strconv.Itoa(cp.GID)
		rs.note(st)
		return rs.s.CopyInOwned(ctx, cp.HostPath, cp.ContainerPath, cp.UID, cp.GID)
	}
	rs.note(st)
	return rs.s.CopyIn(ctx, cp.HostPath, cp.ContainerPath)
}

func (rs *recSession) CopyOut(ctx context.Context, containerPath, hostPath string) error {
	rs.note(step{verb: "copyout", path: containerPath, host: hostPath})
	return rs.s.CopyOut(ctx, containerPath, hostPath)
}

func (rs *recSession) CopyOutBounded(ctx context.Context, containerPath, hostPath string, b engine.CopyBounds) (*engine.CopySummary, error) {
	rs.note(step{verb: "copyout", path: containerPath, host: hostPath})
	return rs.s.CopyOutBounded(ctx, containerPath, hostPath, b)
}

func (rs *recSession) Delete(ctx context.Context, containerPath string) error {
	rs.note(step{verb: "delete", path: containerPath})
	return rs.s.Delete(ctx, containerPath)
}

func (rs *recSession) Reap(ctx context.Context, user string) (bool, error) {
	rs.note(step{verb: "reap", user: user})
	return rs.s.Reap(ctx, user)
}

func (rs *recSession) Path(containerPath string) string { return rs.s.Path(containerPath) }
func (rs *recSession) Kill(ctx context.Context) error   { return rs.s.Kill(ctx) }
func (rs *recSession) Remove(ctx context.Context) error { return rs.s.Close(ctx) }
func (rs *recSession) LimitHits(ctx context.Context) (engine.LimitHits, error) {
	return rs.s.LimitHits(ctx)
}

// hostImage is what the tests' engine.Local calls the fixture's
// verification image: the task's files at assetsDir.
const hostImage = "srb-host/verification"

// hostEngine is stage 3's --host backend for a task whose files are
// assets (stages.HostVerification's kind): sessions on this machine, the
// task's files at assetsDir.
func hostEngine(assets string) *engine.Local {
	return &engine.Local{Env: HostCandidateEnv(), Images: map[string][]engine.Copy{hostImage: {{HostPath: assets, ContainerPath: assetsDir}}}}
}

// hostContainer starts a Container on this machine (engine.Local) on
// State A and the Go port, with cmd as its candidate command and the
// fixture task's files at assetsDir; mod changes its configuration. It is
// closed when the test ends.
func hostContainer(t *testing.T, cmd []string, mod ...func(*ContainerConfig)) *Container {
	t.Helper()
	assets, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ContainerConfig{Engine: hostEngine(assets), Image: hostImage, Paths: []string{assetsDir}, Original: stateA, Submission: goPort,
		Command: cmd, Timeout: time.Minute, Work: t.TempDir(), ToolEnv: func(name string) string {
			if name == "HOME" {
				return ""
			}
			return os.Getenv(name)
		}}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := NewContainer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sessionUID is the user a session on this machine runs its commands as:
// the group of its root folder (-1 when it runs as this process's user).
func sessionUID(t *testing.T, s *engine.Session) int {
	t.Helper()
	fi, err := os.Stat(s.Path("/"))
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return -1
	}
	return int(fi.Sys().(*syscall.Stat_t).Gid)
}

// A whole stage with each round in a container of its own: the trees
// are copied in (from the grader's pristine copies, the candidate user's),
// the candidate copied in and run as the task's command with the role
// last, in a salted tree; every run starts from the side's snapshot; the
// toolbox shows the container's paths. No step runs a command as root:
// the root steps are the session's verbs.
func TestContainerRounds(t *testing.T) {
	t.Parallel()
	needTools(t)
	assets, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	fake := &engine.Fake{ExecFunc: hostExec(t, assets)}
	rec := &recStarter{inner: fake}
	sub := port(t, func(s string) string { return replaceOnce(t, s, "\t\tos.Exit(2)\n", "\t\tos.Exit(1)\n") })
	cfg := fixtureConfig(t, sub, map[string][]turn{
		"a05-usage": {call("list_dir", map[string]any{"path": "workspace:"}), try("usage", candUsage), found("usage", "tally exits 1, not 2, when given arguments")},
	}, []turn{rule(true, "[usage] promised")})
	v, _ := task_(t)
	cfg.NewSandbox = func(ctx context.Context, id string) (Sandbox, error) {
		return NewContainer(ctx, ContainerConfig{
			Engine: rec, Image: "srb/lang90-tally-c-to-go:verification", Labels: map[string]string{"srb.round": id},
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
		if !c.Closed() || c.Spec.Network != "" || len(c.Spec.Copies) != 0 || !c.Spec.NoNewPrivileges ||
			c.Spec.Labels["srb.tree"] == "" || c.Spec.Labels["srb.round"] == "" {
			t.Errorf("container %+v", c.Spec)
		}
	}
	// The a05 round's containers ran the candidate with the role last,
	// in a salted tree, with nothing naming the role in its environment,
	// as the candidate user, right after everything left running was
	// reaped and the side restored from its snapshot; the tree is the
	// candidate user's; each container ran one role only, in the tree it
	// holds; no command ran as root.
	var runs, warmUps int
	for _, rs := range rec.sessions {
		if rs.spec.Labels["srb.round"] != "a05-usage" {
			continue
		}
		tree := "/srb/trees/" + rs.spec.Labels["srb.tree"]
		steps := rs.Steps()
		owned := map[string]bool{}
		roles := map[string]bool{}
		for i, st := range steps {
			switch st.verb {
			case "copyin":
				if st.user == CandidateUser {
					owned[st.path] = true
				} else if st.user != "0:0" || !strings.HasPrefix(st.path, "/srb/candidates/") {
					t.Errorf("copy %+v: only the candidates are root's", st)
				}
				token := rs.spec.Labels["srb.tree"]
				if st.path == tree && !strings.HasSuffix(st.host, "/pristine/"+token) && !strings.HasSuffix(st.host, "/snap/"+token+"/tree") {
					t.Errorf("the tree came from %s, neither its pristine copy nor its snapshot", st.host)
				}
			case "exec":
				if st.user == "0" || st.user == "root" {
					t.Errorf("a command ran as root: %q", st.es.Argv)
				}
			}
			if st.verb != "exec" || len(st.es.Argv) < 3 || st.es.Argv[1] != v.CandidateCommand[1] {
				continue
			}
			es := st.es
			role := es.Argv[len(es.Argv)-1]
			if slices.Contains(es.Env, EnvCandidateName+"="+WarmUp.Name) {
				// The side's warm-up: its first run, before any candidate,
				// on a fresh tree; its snapshot is kept right after it.
				warmUps++
				if roles[role] {
					t.Errorf("a warm-up ran after a candidate in container %s", rs.spec.Labels["srb.tree"])
				}
				var next []string
				for _, n := range steps[i+1 : min(i+6, len(steps))] {
					next = append(next, n.verb+" "+n.path)
				}
				if !slices.Equal(next[:1], []string{"reap "}) || !slices.Contains(next, "copyout "+tree) || !slices.Contains(next, "copyout /srb/run") {
					t.Errorf("the warm-up was not followed by a reaping and the snapshot, but by %q", next)
				}
				continue
			}
			runs++
			roles[role] = true
			if role != RoleOriginal && role != RoleSubmission || es.WorkDir != tree ||
				strings.Contains(es.WorkDir, role) || strings.Contains(strings.Join(es.Env, " "), role) || es.User != CandidateUser {
				t.Errorf("candidate run %+v", es)
			}
			if !owned[es.WorkDir] {
				t.Errorf("the candidate runs in %s, which was not given to the candidate user", es.WorkDir)
			}
			// Each run starts from the snapshot, restored right after
			// everything left running was reaped: the working tree and
			// SRB_WORK from the snapshot, HOME and TMPDIR empty.
			j := i - 1
			restored := map[string]bool{}
			for ; j >= 0 && (steps[j].verb == "delete" || steps[j].verb == "copyin"); j-- {
				if steps[j].verb == "copyin" {
					restored[steps[j].path] = steps[j].user == CandidateUser
				}
			}
			if j < 0 || steps[j].verb != "reap" || steps[j].user != CandidateUser {
				t.Errorf("the candidate run %d's restore did not come right after a reaping", runs)
			}
			for _, p := range []string{tree, "/srb/run", "/srb/home", "/srb/tmp"} {
				if !restored[p] {
					t.Errorf("the candidate run %d did not come right after %s was restored, the candidate user's", runs, p)
				}
			}
			// What the side's previous run (or its warm-up) left was
			// deleted before the restore copied into it: a copy into a
			// folder still holding it would keep it.
			prev := j
			for prev >= 0 && steps[prev].verb != "exec" {
				prev--
			}
			deleted := map[string]bool{}
			for _, st := range steps[prev+1 : i] {
				if st.verb == "delete" {
					deleted[st.path] = true
				}
			}
			for _, p := range []string{tree, "/srb/run", "/srb/home", "/srb/tmp"} {
				if prev < 0 || !deleted[p] {
					t.Errorf("the candidate run %d's %s was not deleted between the side's previous run and its restore", runs, p)
				}
			}
			if next := steps[i+1]; next.verb != "reap" {
				t.Errorf("the candidate run %d was not followed by a reaping, but by %+v", runs, next)
			}
		}
		if len(roles) != 1 {
			t.Errorf("container %s ran the roles %v, want one", rs.spec.Labels["srb.tree"], roles)
		}
		for _, p := range []string{"/srb/home", "/srb/run", "/srb/tmp"} {
			if !owned[p] {
				t.Errorf("%s was not given to the candidate user", p)
			}
		}
		for p := range owned {
			if strings.HasPrefix(p, "/srb/view") || strings.HasPrefix(p, "/srb/pristine") {
				t.Errorf("%s was given to the candidate user", p)
			}
		}
	}
	if runs != 11 || warmUps != 2 {
		t.Errorf("%d candidate runs and %d warm-ups in a05's containers, want 11 (the claimed pair, three reruns of the submission and six of State A) and 2 (one per tree)", runs, warmUps)
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
// any round: the container is removed. The check runs as the candidate
// user, never root.
func TestContainerLaunchCheck(t *testing.T) {
	var users []string
	fake := &engine.Fake{ExecFunc: func(_ context.Context, _ *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		users = append(users, es.User)
		return &engine.Result{ExitCode: 1, Stdout: []byte("1\n")}, nil // missingArg: the first argument after the program
	}}
	_, err := NewContainer(context.Background(), ContainerConfig{Engine: fake, Image: "img", Original: stateA, Submission: goPort,
		Command: []string{"/bin/bash", "/tests/verification/run.sh"}, Work: t.TempDir()})
	if err == nil || err.Error() != "sandbox: candidate command argument /tests/verification/run.sh does not exist in the verification image img" {
		t.Fatalf("error %v", err)
	}
	if c := fake.Containers(); len(c) != 1 || !c[0].Closed() {
		t.Errorf("the container was not removed")
	}
	if !slices.Equal(users, []string{CandidateUser}) {
		t.Errorf("the launch check ran as %q, want the candidate user", users)
	}
}

// The run tool runs each command in a container of its view's own,
// holding that tree alone: a command the adversary runs in the workspace
// view (the submission's Makefile, say, as root in its container) cannot
// reach the original view, so it cannot change what the adversary runs of
// State A. Before, one container held both views. A folder in neither
// view is refused, what a command left running is reaped after it, and
// both view containers are removed with the sandbox.
func TestContainerRunToolViewsAreApart(t *testing.T) {
	fake := &engine.Fake{ExecFunc: func(_ context.Context, _ *engine.FakeContainer, es engine.ExecSpec) (*engine.Result, error) {
		return &engine.Result{ExitCode: 0}, nil
	}}
	rec := &recStarter{inner: fake}
	c, err := NewContainer(context.Background(), ContainerConfig{Engine: rec, Image: "img", Original: stateA, Submission: goPort,
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
		var copied []string
		reaps := 0
		for _, st := range rec.sessions[started+i].Steps() {
			switch st.verb {
			case "copyin":
				if st.path != "/srb/home" {
					copied = append(copied, path.Base(st.path))
				}
			case "reap":
				reaps++
			}
		}
		if spec.Labels["srb.tree"] != "view-"+want || !slices.Equal(copied, []string{want}) {
			t.Errorf("run-tool container %d: labels %v, copies %v: want the %s view alone", i, spec.Labels, copied, want)
		}
		var ran []string
		for _, es := range views[i].Execs() {
			if len(es.Argv) > 0 && es.Argv[0] == "make" {
				ran = append(ran, es.WorkDir)
			}
		}
		if want == "workspace" && (!slices.Equal(ran, []string{"/srb/view/workspace", "/srb/view/workspace/sub"}) || reaps != 2) ||
			want == "original" && (!slices.Equal(ran, []string{"/srb/view/original"}) || reaps != 1) {
			t.Errorf("the %s view's container ran make in %v and reaped %d time(s)", want, ran, reaps)
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
