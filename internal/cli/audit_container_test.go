package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/engine"
	"github.com/swe-refactor-bench/srb/ladder/result"
	"github.com/swe-refactor-bench/srb/ladder/stages"
)

// auditFixture copies the fixture task (with audit.allowed_commands set to
// allowed), State A and a one-file submission into a temporary folder, and
// writes a scripted review that makes its run calls, then passes every
// gate. It returns the task folder, State A, the submission and the
// script.
func auditFixture(t *testing.T, allowed []string, calls ...map[string]any) (taskDir, stateA, sub, script string) {
	t.Helper()
	base := t.TempDir()
	repo := filepath.Join("..", "..", "testdata")
	taskDir = filepath.Join(base, "tasks", "lang90-tally-c-to-go")
	stateA = filepath.Join(base, "statea", "tally-1.0")
	if err := copyTree(filepath.Join(repo, "tasks", "lang90-tally-c-to-go"), taskDir); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Join(repo, "statea"), filepath.Join(base, "statea")); err != nil {
		t.Fatal(err)
	}
	cue := filepath.Join(taskDir, "task.cue")
	b, _ := os.ReadFile(cue)
	q, _ := json.Marshal(allowed)
	edited := strings.Replace(string(b), "effort: \"medium\"\n\tgates", "effort: \"medium\"\n\tallowed_commands: "+string(q)+"\n\tgates", 1)
	if edited == string(b) {
		t.Fatal("the fixture's audit block moved: cannot add allowed_commands")
	}
	os.WriteFile(cue, []byte(edited), 0o644)
	sub = filepath.Join(base, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	var tc []map[string]any
	for _, c := range calls {
		tc = append(tc, map[string]any{"name": "run", "arguments": c})
	}
	turns := []map[string]any{{"tool_calls": tc}, {"tool_calls": []map[string]any{{"name": "submit_review", "arguments": map[string]any{
		"summary": "Fine.", "gates": []map[string]any{
			{"id": "c-retired", "verdict": "pass", "reasoning": "No C."},
			{"id": "go-is-primary", "verdict": "pass", "reasoning": "Go counts."},
			{"id": "no-grader-awareness", "verdict": "pass", "reasoning": "Fine."}}}}}}}
	js, _ := json.Marshal(turns)
	script = filepath.Join(base, "review.json")
	os.WriteFile(script, js, 0o644)
	return taskDir, stateA, sub, script
}

// runTranscript is the text of the run tool's results in a review's
// transcript, in order.
func runTranscript(t *testing.T, results string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(results, "audit", "review-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func auditOpts(t *testing.T, taskDir, stateA, sub, script string, eng func() (engine.Runner, error)) (*AuditOptions, *bytes.Buffer) {
	out := &bytes.Buffer{}
	return &AuditOptions{
		IO: IOStreams{Out: out, ErrOut: out}, Task: taskDir, Engine: eng,
		AuditOptions: stages.AuditOptions{Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
			Lookup:     func(string) (string, bool) { return "", false },
			Submission: sub, Results: filepath.Join(t.TempDir(), "out"), Original: stateA,
			Driver: StageDriver{Driver: "scripted", Scripts: []string{script}}},
	}, out
}

// TestAuditRunInAuditImage: with commands allowed, run executes in a
// container of the task's audit image — no network, State A copied to
// /opt/original and read-only, the submission copied to /opt/workspace —
// the reviews see those paths, and nothing they run reaches the host's
// submission. (The fake engine's container is a host folder.)
func TestAuditRunInAuditImage(t *testing.T) {
	taskDir, stateA, sub, script := auditFixture(t, []string{"touch", "ls"},
		map[string]any{"argv": []any{"touch", "made-by-review"}},
		map[string]any{"argv": []any{"ls"}, "cwd": "original:"})
	id := "sha256:" + strings.Repeat("a1", 32)
	fake := &engine.Fake{Images: map[string]engine.ImageInfo{"srb/lang90-tally-c-to-go:audit": {ID: id}}}
	opts, out := auditOpts(t, taskDir, stateA, sub, script, func() (engine.Runner, error) { return fake, nil })
	opts.Image = "srb/lang90-tally-c-to-go:audit"
	if err := runAudit(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The fixture's three reviews each get a container of their own.
	cs := fake.Containers()
	if len(cs) != 3 {
		t.Fatalf("%d containers, want one per review (3)", len(cs))
	}
	for i, c := range cs {
		if c.Spec.Image != id || c.Spec.Network != "" || !c.Closed() {
			t.Errorf("container %d: image %q network %q closed %v", i, c.Spec.Image, c.Spec.Network, c.Closed())
		}
		if len(c.Spec.ReadOnly) != 1 || c.Spec.ReadOnly[0] != image.OriginalMount {
			t.Errorf("read-only %q, want [%s]", c.Spec.ReadOnly, image.OriginalMount)
		}
		if len(c.Spec.Copies) != 2 || c.Spec.Copies[0].ContainerPath != image.OriginalMount || c.Spec.Copies[1].ContainerPath != image.AuditRepoMount ||
			c.Spec.Copies[1].HostPath != sub {
			t.Errorf("copies %+v", c.Spec.Copies)
		}
		execs := c.Execs()
		if len(execs) != 2 || execs[0].WorkDir != image.AuditRepoMount || execs[1].WorkDir != image.OriginalMount {
			t.Fatalf("container %d: execs %+v", i, execs)
		}
	}
	if _, err := os.Stat(filepath.Join(sub, "made-by-review")); !os.IsNotExist(err) {
		t.Errorf("the review's touch reached the host's submission: %v", err)
	}
	tr := runTranscript(t, opts.Results)
	for _, want := range []string{`(cwd /opt/workspace)`, `(cwd /opt/original)`, `tally.c`} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	st, err := result.ReadStage(filepath.Join(opts.Results, "audit.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Metadata["commands_ran_in"]; got != "srb/lang90-tally-c-to-go:audit ("+id+")" {
		t.Errorf("metadata commands_ran_in = %v", got)
	}
}

// TestAuditCredentialsBeforeContainer: missing credentials end the run
// (exit 1) before any engine is asked for a container; a missing image
// is exit 1 naming the command that builds it.
func TestAuditCredentialsBeforeContainer(t *testing.T) {
	taskDir, stateA, sub, script := auditFixture(t, []string{"ls"}, map[string]any{"argv": []any{"ls"}})
	called := 0
	opts, _ := auditOpts(t, taskDir, stateA, sub, script, func() (engine.Runner, error) { called++; return &engine.Fake{}, nil })
	opts.Driver = StageDriver{} // the task's openai driver: OPENAI_API_KEY is unset
	err := runAudit(context.Background(), opts)
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != ExitCouldNotRun || !strings.Contains(err.Error(), "OPENAI_API_KEY is unset") {
		t.Fatalf("err = %v", err)
	}
	if called != 0 {
		t.Errorf("the engine was asked for %d time(s) before the credentials were checked", called)
	}

	// No audit image on the engine and no lockfile to vouch for one: srb
	// builds it (here a builder that cannot), and says so.
	built := 0
	opts, _ = auditOpts(t, taskDir, stateA, sub, script, func() (engine.Runner, error) { return &engine.Fake{}, nil })
	opts.BuildImage = func(_ context.Context, tk *task.Task, stage string) error {
		built++
		if stage != "audit" || tk.ID != "lang90-tally-c-to-go" {
			t.Errorf("build %s %s", tk.ID, stage)
		}
		return errors.New("build: buildkit unix:///nowhere: connection refused")
	}
	err = runAudit(context.Background(), opts)
	if !errors.As(err, &ee) || ee.Code != ExitCouldNotRun || built != 1 {
		t.Fatalf("err = %v, built %d", err, built)
	}
	st, rerr := result.ReadStage(filepath.Join(opts.Results, "audit.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if want := "the audit image: building the audit image: build: buildkit unix:///nowhere: connection refused (srb audit --host runs the commands here)"; fmt.Sprint(st.Metadata["error"]) != want {
		t.Errorf("result error\n%q, want\n%q", st.Metadata["error"], want)
	}
	if st.Metadata["config_error"] != nil {
		t.Errorf("a build that could not run is marked config_error")
	}

	// srb build refusing the task's own configuration (exit 2) is the
	// task's fault here too: exit 2, config_error.
	opts, _ = auditOpts(t, taskDir, stateA, sub, script, func() (engine.Runner, error) { return &engine.Fake{}, nil })
	opts.BuildImage = func(context.Context, *task.Task, string) error {
		return badTask(errors.New("build lang90-tally-c-to-go: modules/x: is a link to /etc/passwd, which leads out of modules/"))
	}
	err = runAudit(context.Background(), opts)
	if !errors.As(err, &ee) || ee.Code != ExitBadTask {
		t.Fatalf("task's fault in the build: err = %v", err)
	}
	if st, rerr = result.ReadStage(filepath.Join(opts.Results, "audit.json")); rerr != nil || st.Metadata["config_error"] != true {
		t.Errorf("task's fault in the build: %v, metadata %v", rerr, st)
	}
}

// needEngines skips (outside CI) or fails (SRB_REQUIRE_ENGINES=1) without
// a reachable buildkitd and dockerd.
func needEngines(t *testing.T) engine.Runner {
	t.Helper()
	fail := func(what string, err error) {
		if os.Getenv("SRB_REQUIRE_ENGINES") == "1" {
			t.Fatalf("SRB_REQUIRE_ENGINES=1 but %s is not reachable: %v (scripts/engines.sh starts it)", what, err)
		}
		t.Skipf("skipping outside CI: %s is not reachable (%v); scripts/engines.sh starts it", what, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := image.Dial(ctx, image.BuildKitAddr(""))
	if err != nil {
		fail("buildkitd", err)
	}
	c.Close()
	d, err := engine.NewDocker()
	if err == nil {
		_, err = d.Version(ctx)
	}
	if err != nil {
		fail("dockerd", err)
	}
	return d
}

// TestAuditRunInRealAuditImage builds and loads the fixture's audit image
// and runs a scripted review whose commands run in it: it sees both trees
// at their mount points, cannot write State A, its writes stay in the
// container, it has no network, and the audit image has no Go.
func TestAuditRunInRealAuditImage(t *testing.T) {
	d := needEngines(t)
	taskDir, stateA, sub, script := auditFixture(t, []string{"touch", "ls", "cat", "sh", "go"},
		map[string]any{"argv": []any{"touch", "made-by-review"}},
		map[string]any{"argv": []any{"ls", "/opt/original", "/opt/workspace"}},
		map[string]any{"argv": []any{"touch", "/opt/original/x"}},
		map[string]any{"argv": []any{"sh", "-c", "cat /sys/class/net/*/operstate; ls /sys/class/net"}},
		map[string]any{"argv": []any{"go", "version"}})
	tk, problems := task.Load(taskDir)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	cacheDir, err := source.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	build := &BuildOptions{IO: IOStreams{Out: io.Discard, ErrOut: io.Discard}, Tasks: []string{taskDir},
		Builds: image.Builds{Stages: []string{"audit"}, Load: true, Progress: "quiet"}, Cache: cacheDir}
	if err := runBuild(ctx, build); err != nil {
		t.Fatalf("srb build --load --stage audit: %v", err)
	}
	opts, out := auditOpts(t, taskDir, stateA, sub, script, func() (engine.Runner, error) { return d, nil })
	if err := runAudit(ctx, opts); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(sub, "made-by-review")); !os.IsNotExist(err) {
		t.Errorf("the review's touch reached the host's submission: %v", err)
	}
	tr := runTranscript(t, opts.Results)
	for _, want := range []string{
		`$ touch made-by-review  (cwd /opt/workspace)\nexit 0`,
		`tally.c`, `main.go`, `made-by-review`, // ls of both trees, with the review's file in the container's copy
		`$ touch /opt/original/x  (cwd /opt/workspace)\nexit 1`, `Read-only file system`,
		`\nlo\n`, // the only network interface is the loopback
		`$ go version  (cwd /opt/workspace)\nexit 127`,
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if strings.Contains(tr, "eth0") {
		t.Error("the audit container has a network interface")
	}
	if t.Failed() {
		t.Log(tr)
	}
	_ = tk
}
