package harbor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/swe-refactor-bench/srb/internal/image"
	"github.com/swe-refactor-bench/srb/internal/source"
	"github.com/swe-refactor-bench/srb/internal/submission"
	"github.com/swe-refactor-bench/srb/internal/task"
	"github.com/swe-refactor-bench/srb/ladder/copytree"
)

func loadTask(t *testing.T, dir string) *task.Task {
	t.Helper()
	tk, problems := task.Load(dir)
	if len(problems) > 0 {
		t.Fatalf("%s: %v", dir, problems)
	}
	return tk
}

// fakeBinary is a file standing in for srb's and docker's binaries.
func fakeBinary(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExportRealTasks exports the real tasks (every folder of tasks/) and checks that every
// task.toml field equals the declaration it is derived from, that the
// schema accepts it, and that the Dockerfiles and test.sh pin the
// images.lock digests under the registry given.
func TestExportRealTasks(t *testing.T) {
	cache, err := source.DefaultCacheDir()
	if err != nil {
		t.Skip(err)
	}
	// Every real task: each folder of tasks/ that holds a task.cue.
	ids, err := filepath.Glob(filepath.Join("..", "..", "tasks", "*", "task.cue"))
	if err != nil || len(ids) < 5 {
		t.Fatalf("the real tasks: %v %v", ids, err)
	}
	for _, p := range ids {
		id := filepath.Base(filepath.Dir(p))
		t.Run(id, func(t *testing.T) {
			tk := loadTask(t, filepath.Join("..", "..", "tasks", id))
			lock, err := image.ReadLock(tk.Dir)
			if err != nil {
				t.Fatal(err)
			}
			// Without State A in the cache, the derived task.toml is
			// still checked; the folder needs State A for its verifier.
			key := source.Key(tk.StateA.Source, source.Top(tk.StateA))
			_, statErr := os.Stat(filepath.Join(cache, "sources", key+".json"))
			var data []byte
			var ex *Exported
			out := filepath.Join(t.TempDir(), "export")
			if statErr != nil {
				c, err := Derive(tk, nil)
				if err != nil {
					t.Fatal(err)
				}
				if data, err = c.Marshal(); err != nil {
					t.Fatal(err)
				}
			} else {
				ex, err = Export(context.Background(), ExportOptions{Task: tk, Lock: lock, Registry: "registry.example/srb", Out: out,
					SRBBinary: fakeBinary(t, "srb"), DockerCLI: fakeBinary(t, "docker"), Cache: cache})
				if err != nil {
					t.Fatal(err)
				}
				if data, err = os.ReadFile(filepath.Join(out, "task.toml")); err != nil {
					t.Fatal(err)
				}
			}
			if err := Check("task.toml", data); err != nil {
				t.Fatal(err)
			}
			var got TaskConfig
			if err := toml.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				field string
				got   any
				want  any
			}{
				{"schema_version", got.SchemaVersion, "1.4"},
				{"artifacts[0].source", got.Artifacts[0].Source, tk.Artifacts.Path},
				{"artifacts[0].exclude", strings.Join(got.Artifacts[0].Exclude, ","), strings.Join(tk.Artifacts.Exclude, ",")},
				{"task.name", got.Task.Name, "swe-refactor-bench/" + id},
				{"metadata.category", got.Metadata.Category, tk.Class},
				{"metadata.license", got.Metadata.License, tk.StateA.License},
				{"metadata.upstream", got.Metadata.Upstream, tk.StateA.Upstream},
				{"metadata.upstream_version", got.Metadata.UpstreamVersion, tk.StateA.Version},
				{"metadata.state_a", got.Metadata.StateA, tk.StateA.Stack},
				{"metadata.state_b", got.Metadata.StateB, tk.StateB.Stack},
				{"agent.harness", got.Agent.Harness, tk.Agent.Harness},
				{"agent.timeout_sec", got.Agent.TimeoutSec, float64(tk.BudgetHours * 3600)},
				{"agent.network_mode", got.Agent.NetworkMode, "no-network"},
				{"agent.user", got.Agent.User, tk.Agent.User},
				{"environment.network_mode", got.Environment.NetworkMode, "no-network"},
				{"environment.memory_mb", got.Environment.MemoryMB, tk.Limits.MemoryMiB},
				{"environment.cpus", got.Environment.CPUs, tk.Limits.CPUs},
				{"environment.workdir", got.Environment.Workdir, tk.Artifacts.Path},
				{"verifier.timeout_sec", got.Verifier.TimeoutSec, float64(tk.Timeouts.Verifier)},
				{"verifier.environment_mode", got.Verifier.EnvironmentMode, "separate"},
				{"verifier.user", got.Verifier.User, "root"},
				{"verifier.environment.network_mode", got.Verifier.Environment.NetworkMode, "public"},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
				}
			}
			if sum := tk.Timeouts.Audit + tk.Timeouts.Behavioural + tk.Timeouts.Verification; got.Verifier.TimeoutSec < float64(sum) {
				t.Errorf("verifier.timeout_sec %v is under the ladder's budgets %d", got.Verifier.TimeoutSec, sum)
			}
			// Credentials by name only: each value is a reference to the
			// same variable.
			if len(got.Verifier.Env) == 0 {
				t.Error("[verifier.env] passes no credential")
			}
			for k, v := range got.Verifier.Env {
				if v != "${"+k+"}" {
					t.Errorf("[verifier.env] %s = %q, want a reference by name", k, v)
				}
			}
			if ex == nil {
				t.Skipf("State A of %s is not cached (srb fetch %s): the folder was not written: %v", id, id, statErr)
			}
			for stage, file := range map[string]string{"agent": "environment/Dockerfile", "audit": "tests/Dockerfile",
				"behavioural": "tests/test.sh", "verification": "tests/test.sh"} {
				b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(file)))
				if err != nil {
					t.Fatal(err)
				}
				want := "registry.example/srb:" + id + "-" + stage + "@" + lock.Images[stage].Digest
				if !strings.Contains(string(b), want) {
					t.Errorf("%s does not pin %s:\n%s", file, want, b)
				}
			}
			for _, f := range []string{"instruction.md", "tests/docker-compose.yaml", "tests/srb", "tests/docker",
				"tests/root/tasks/" + id + "/task.cue", "tests/root/tasks/" + id + "/images.lock"} {
				if !slices.Contains(ex.Files, f) {
					t.Errorf("the export lacks %s", f)
				}
			}
			compose, _ := os.ReadFile(filepath.Join(out, "tests", "docker-compose.yaml"))
			if !strings.Contains(string(compose), "/var/run/docker.sock:/var/run/docker.sock") {
				t.Errorf("docker-compose.yaml does not mount the socket:\n%s", compose)
			}
		})
	}
}

// TestSchemaRefuses: the schema catches a misspelt key, a network mode
// Harbor does not have and a missing table.
func TestSchemaRefuses(t *testing.T) {
	tk := loadTask(t, filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	c, err := Derive(tk, []string{"SRB_DRIVER"})
	if err != nil {
		t.Fatal(err)
	}
	good, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check("task.toml", good); err != nil {
		t.Fatalf("the derived task.toml is refused: %v\n%s", err, good)
	}
	if c.Verifier.Env["SRB_DRIVER"] != "${SRB_DRIVER}" || c.Verifier.Env["OPENAI_API_KEY"] != "${OPENAI_API_KEY}" || c.Verifier.Env["ANTHROPIC_API_KEY"] != "${ANTHROPIC_API_KEY}" {
		t.Errorf("[verifier.env] = %v", c.Verifier.Env)
	}
	for name, bad := range map[string]string{
		"misspelt":     strings.Replace(string(good), "timeout_sec = 21600", "timeout_secs = 21600", 1),
		"network":      strings.Replace(string(good), "network_mode = 'no-network'", "network_mode = 'none'", 1),
		"version":      strings.Replace(string(good), "schema_version = '1.4'", "schema_version = '1.0'", 1),
		"no-verifier":  string(good[:strings.Index(string(good), "[verifier]")]),
		"syntax-error": string(good) + "\n[agent\n",
	} {
		if bad == string(good) {
			t.Fatalf("%s: the replacement matched nothing in:\n%s", name, good)
		}
		if err := Check("task.toml", []byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Derive(tk, []string{"NOT-A-NAME"}); err == nil {
		t.Error("a --pass-env that is no variable name was accepted")
	}
}

// TestExportRefusesStaleAssets: a lock whose behavioural image was built
// from other modules/, data/ or truth/ than the task folder holds is not
// exported (the verifier would grade with the old assets), and the error
// says which task, which image and how to rebuild.
func TestExportRefusesStaleAssets(t *testing.T) {
	t.Setenv("SRB_CACHE", t.TempDir())
	tk := loadTask(t, filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go"))
	dg := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	lock := &image.Lock{Schema: image.LockSchema, Task: tk.ID, TaskCommit: "uncommitted", BuildKit: "v0.26.3",
		Inputs: map[string]image.LockInput{}, Images: map[string]image.LockImage{}}
	for _, s := range task.StageNames {
		lock.Images[s] = image.LockImage{Digest: dg("d"), LLB: dg("e"), Inputs: map[string]string{"assets": dg("0")}}
	}
	_, err := Export(context.Background(), ExportOptions{Task: tk, Lock: lock, Registry: "registry.example/srb", Out: filepath.Join(t.TempDir(), "export"),
		SRBBinary: fakeBinary(t, "srb"), DockerCLI: fakeBinary(t, "docker")})
	for _, w := range []string{tk.ID + ": the task's modules/, data/, truth/ folders changed since the behavioural image was built (assets sha256:000000000000",
		"srb build " + tk.Arg() + " --push REG"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("stale assets: %v, want it to say %q", err, w)
		}
	}
}

// TestEnvironmentCPUs: [environment] cpus is the task's limits.cpus,
// read from the declaration, and absent (Harbor's default) when the task
// sets none; the schema accepts both and refuses a fraction or zero.
func TestEnvironmentCPUs(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "tasks", "lang90-tally-c-to-go")
	tk := loadTask(t, src)
	c, err := Derive(tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	none, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(none), "cpus") || c.Environment.CPUs != 0 {
		t.Errorf("no limits.cpus, yet task.toml says:\n%s", none)
	}
	if err := Check("task.toml", none); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "lang90-tally-c-to-go")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "task.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "task.cue"), append(b, "\nlimits: cpus: 3\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	tk = loadTask(t, dir)
	if c, err = Derive(tk, nil); err != nil {
		t.Fatal(err)
	}
	three, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check("task.toml", three); err != nil {
		t.Fatalf("%v\n%s", err, three)
	}
	var got TaskConfig
	if err := toml.Unmarshal(three, &got); err != nil {
		t.Fatal(err)
	}
	if got.Environment.CPUs != 3 || got.Environment.MemoryMB != tk.Limits.MemoryMiB {
		t.Errorf("[environment] %+v, want cpus 3 and memory_mb %d", got.Environment, tk.Limits.MemoryMiB)
	}
	for _, bad := range []string{"cpus = 1.5", "cpus = 0"} {
		if err := Check("task.toml", []byte(strings.Replace(string(three), "cpus = 3", bad, 1))); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestSolutionReplaysFixture: solve.sh, run on a copy of State A, makes
// exactly the fixture's tree (deleted C sources, the Go port's files).
func TestSolutionReplaysFixture(t *testing.T) {
	stateA, err := filepath.Abs(filepath.Join("..", "..", "testdata", "statea", "tally-1.0"))
	if err != nil {
		t.Fatal(err)
	}
	fx, err := submission.Load(filepath.Join("..", "..", "testdata", "submissions", "lang90-tally-c-to-go", "go-port"))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "want")
	applied, err := fx.Apply(stateA, want)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := Diff(fx.Name, stateA, want)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sol.Delete, applied.Deleted) {
		t.Errorf("Delete = %v, want the fixture's %v", sol.Delete, applied.Deleted)
	}
	if !slices.Equal(sol.Write, applied.Written) {
		t.Errorf("Write = %v, want the fixture's %v", sol.Write, applied.Written)
	}
	dir := filepath.Join(t.TempDir(), "solution")
	if err := sol.WriteDir(dir, "/workspace/repo"); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if _, err := copytree.Copy(stateA, ws, copytree.Options{DirBits: 0o700}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", filepath.Join(dir, "solve.sh"))
	cmd.Env = append(os.Environ(), "SRB_WORKSPACE="+ws)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("solve.sh: %v\n%s", err, out)
	}
	left, err := Diff("check", want, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Delete)+len(left.Write) != 0 {
		t.Errorf("after solve.sh the workspace differs from the fixture's tree: delete %v, write %v", left.Delete, left.Write)
	}
}
