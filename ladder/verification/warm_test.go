package verification

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/engine"
)

// warmTask is a task folder whose modules/warm.sh writes a file under
// HOME naming the user it ran as and the folder it ran in, or fails with
// a message when its first argument is "fail".
func warmTask(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `set -eu
if [ "${1:-}" = fail ]; then echo "no toolchain here" >&2; exit 3; fi
mkdir -p "$HOME/.cache/build"
printf '%s %s\n' "$(id -u)" "$PWD" >"$HOME/.cache/build/entry"
if [ -e "$HOME/started" ]; then cp "$HOME/started" "$HOME/.cache/build/started"; fi
`
	if err := os.WriteFile(filepath.Join(dir, "modules", "warm.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The warm command runs once on this machine (engine.Local), as a user of
// its own when srb is root, with an empty HOME (or one started from a seed of srb's),
// the task's files it names reachable; what it leaves in HOME is the
// seed. A command that fails is the task's (a WarmError with its status
// and stderr), never a seed.
func TestWarmHomeOnHost(t *testing.T) {
	task := warmTask(t)
	start := t.TempDir()
	if err := os.WriteFile(filepath.Join(start, "started"), []byte("from srb's seed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(t.TempDir(), "seed")
	cfg := WarmConfig{Command: []string{"/bin/sh", assetsDir + "/modules/warm.sh"}, Paths: []string{assetsDir},
		Seed: seed, Start: start, Timeout: time.Minute}
	host := &engine.Local{Images: map[string][]engine.Copy{"srb/x:host": {{HostPath: task, ContainerPath: assetsDir}}}}
	warm := func(cfg WarmConfig) (*Warmed, error) {
		return WarmHome(context.Background(), host, "srb/x:host", nil, cfg)
	}
	w, err := warm(cfg)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := os.ReadFile(filepath.Join(seed, ".cache", "build", "entry"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(entry))
	uid, _ := strconv.Atoi(fields[0])
	if os.Geteuid() == 0 && uid == 0 {
		t.Errorf("the warm command ran as root: %q", entry)
	}
	if strings.HasPrefix(fields[1], seed) || strings.HasPrefix(fields[1], task) {
		t.Errorf("the warm command ran in %s, a folder of the grader's", fields[1])
	}
	if got, _ := os.ReadFile(filepath.Join(seed, ".cache", "build", "started")); string(got) != "from srb's seed\n" {
		t.Errorf("HOME did not start from srb's seed: %q", got)
	}
	if w.Seed != seed || w.Files != 3 || w.Bytes != int64(len(entry))+int64(len("from srb's seed\n"))*2 || w.Duration <= 0 {
		t.Errorf("warmed %+v", w)
	}
	if m := w.Map(cfg.Command); m["files"] != 3 || m["command"].([]string)[1] != assetsDir+"/modules/warm.sh" {
		t.Errorf("record %v", m)
	}

	// A second run into the same seed folder is refused (nothing is mixed).
	if _, err := warm(cfg); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("reuse of the seed folder: %v", err)
	}

	cfg.Seed = filepath.Join(t.TempDir(), "seed")
	cfg.Command = append(cfg.Command, "fail")
	_, err = warm(cfg)
	var we *WarmError
	if !errors.As(err, &we) || we.ExitCode != 3 || !strings.Contains(err.Error(), "exited 3: no toolchain here") {
		t.Errorf("failing warm command: %v", err)
	}
	if _, err := os.Stat(cfg.Seed); !os.IsNotExist(err) {
		t.Errorf("a failed warm command left a seed: %v", err)
	}

	cfg.Command = []string{"/bin/sh", assetsDir + "/modules/missing.sh"}
	if _, err = warm(cfg); !errors.As(err, &we) || !strings.Contains(err.Error(), "missing.sh does not exist") {
		t.Errorf("a warm command naming no file: %v", err)
	}
}

// In the image the warm command runs in a container of its own (no tree,
// no network, no_new_privs, labelled as the warm run), as the candidate
// user with HOME the empty /srb/home, and HOME is copied out as the seed;
// the container is removed.
func TestWarmHomeInImage(t *testing.T) {
	task := warmTask(t)
	fake := &engine.Fake{ExecFunc: hostExec(t, task)}
	seed := filepath.Join(t.TempDir(), "seed")
	w, err := WarmHome(context.Background(), fake, "srb/x:verification", map[string]string{"srb.round": "none"},
		WarmConfig{Command: []string{"/bin/sh", assetsDir + "/modules/warm.sh"}, Seed: seed, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(seed, ".cache", "build", "entry")); err != nil || w.Files != 1 {
		t.Fatalf("seed: %v, %+v", err, w)
	}
	cs := fake.Containers()
	if len(cs) != 1 {
		t.Fatalf("%d containers, want one", len(cs))
	}
	c := cs[0]
	if !c.Closed() || c.Spec.Network != "" || len(c.Spec.Copies) != 0 || !c.Spec.NoNewPrivileges || c.Spec.Labels["srb.tree"] != "warm-home" || c.Spec.Pids != 1024 {
		t.Errorf("container %+v", c.Spec)
	}
	var ran bool
	for _, es := range c.Execs() {
		if len(es.Argv) == 2 && es.Argv[1] == assetsDir+"/modules/warm.sh" {
			ran = true
			if es.User != CandidateUser || es.WorkDir != containerHome || !strings.Contains(strings.Join(es.Env, " "), "HOME="+containerHome) {
				t.Errorf("warm exec %+v", es)
			}
		}
	}
	if !ran {
		t.Errorf("the warm command never ran: %+v", c.Execs())
	}
}

// A tree's fresh start copies the seed (the grader's folder) into its
// HOME for the warm-up run, the candidate user's, a copy per tree.
func TestContainerHomeSeed(t *testing.T) {
	needTools(t)
	assets := t.TempDir()
	if err := os.MkdirAll(filepath.Join(assets, "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The warm-up run keeps what it found in HOME in SRB_WORK, which the
	// side's snapshot keeps.
	if err := os.WriteFile(filepath.Join(assets, "modules", "run.sh"), []byte(`cat "$HOME/.cache/marker" >"$SRB_WORK/seen" 2>&1; exit 0`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := t.TempDir()
	if err := os.MkdirAll(filepath.Join(seed, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seed, ".cache", "marker"), []byte("warm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &engine.Fake{ExecFunc: hostExec(t, assets)}
	rec := &recStarter{inner: fake}
	c, err := NewContainer(context.Background(), ContainerConfig{Engine: rec, Image: "srb/x:verification", Original: stateA, Submission: stateA,
		Command: []string{"/bin/sh", assetsDir + "/modules/run.sh"}, Timeout: time.Minute, Work: t.TempDir(), HomeSeed: seed,
		Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cand := &Candidate{Name: "noop", Filename: "noop.sh", Code: "true\n"}
	if run := c.Execute(context.Background(), cand, RoleSubmission); run.Harness != "" {
		t.Fatalf("run: %+v", run)
	}
	for _, rs := range rec.sessions {
		if rs.spec.Labels["srb.tree"] != c.Token(RoleSubmission) {
			continue
		}
		seeded := 0
		for _, st := range rs.Steps() {
			if st.verb == "copyin" && st.path == containerHome && st.host == seed {
				if st.user != CandidateUser {
					t.Errorf("HOME seeded as %q's", st.user)
				}
				seeded++
			}
		}
		if seeded != 1 {
			t.Errorf("HOME seeded %d time(s), want once (the fresh start before the warm-up)", seeded)
		}
	}
	got, err := os.ReadFile(filepath.Join(c.snap(RoleSubmission), "work", "seen"))
	if err != nil || string(got) != "warm\n" {
		t.Errorf("the warm-up run saw HOME %q (%v), want the seed's content", got, err)
	}
}
