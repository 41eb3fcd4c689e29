package behavioural

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-refactor-bench/srb/ladder/result"
)

// sh is a module running a shell script.
func sh(id, script string, timeout time.Duration) Module {
	return Module{ID: id, Weight: 1, Timeout: timeout, About: id, Command: []string{"/bin/sh", "-c", script}}
}

const pass = `echo '{"checks":[{"id":"a","verdict":"pass"}]}' > "$SRB_RESULT"`

func newRunner(t *testing.T) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Runner{Repo: repo, Work: filepath.Join(dir, "work"), ResultPath: filepath.Join(dir, "behavioural.json"), Grace: 500 * time.Millisecond}, dir
}

func suite(dir string, ms ...Module) *Suite {
	for i := range ms {
		if ms[i].Dir == "" {
			ms[i].Dir = dir
		}
	}
	return &Suite{Task: "t", Dir: dir, Modules: ms}
}

func statuses(st *result.Stage) []string {
	var out []string
	for _, u := range st.Units {
		out = append(out, u.ID+"="+u.Status)
	}
	return out
}

func readStage(t *testing.T, p string) *result.Stage {
	t.Helper()
	st, err := result.ReadStage(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestFaults(t *testing.T) {
	r, dir := newRunner(t)
	marker := filepath.Join(dir, "server.pid")
	s := suite(dir,
		sh("hang", `sleep 30`, time.Second),
		sh("hang-after-check", `echo '[{"id":"x","verdict":"pass"}]' > "$SRB_RESULT"; sleep 30`, time.Second),
		sh("crash", `echo dying; kill -SEGV $$`, 10*time.Second),
		sh("invalid", `echo 'some output'; echo '{not json' > "$SRB_RESULT"`, 10*time.Second),
		sh("server", `sleep 300 & echo $! > `+marker+`; `+pass, 10*time.Second),
		sh("advisory", pass+`; exit 3`, 10*time.Second),
		sh("silent", `exit 0`, 10*time.Second),
	)
	st, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hang=timeout", "hang-after-check=timeout", "crash=error", "invalid=error", "server=ok", "advisory=ok", "silent=error"}
	if diff := cmp.Diff(want, statuses(st)); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	sum := func(id string) string { return st.Unit(id).Summary }
	for id, frag := range map[string]string{
		"hang":             "exceeded its 1s budget and recorded nothing",
		"hang-after-check": "exceeded its 1s budget; 1 check(s) were recorded before the deadline",
		"crash":            "killed by signal 11 (SIGSEGV) and wrote no checks; last output:\ndying",
		"invalid":          "wrote an unusable result (exit 0): JSONDecodeError",
		"silent":           "exited successfully and wrote no checks",
	} {
		if !strings.Contains(sum(id), frag) {
			t.Errorf("%s: summary %q lacks %q", id, sum(id), frag)
		}
	}
	if !strings.Contains(sum("invalid"), "some output") {
		t.Errorf("invalid: no log tail in %q", sum("invalid"))
	}
	// Nothing measured is lost: the check written before the hang counts.
	if ids := checkIDs(st); !slices.Equal(ids, []string{"hang-after-check/x", "server/a", "advisory/a"}) {
		t.Errorf("checks = %v", ids)
	}
	if st.Unit("server").Metadata["reaped_process_group"] != true {
		t.Errorf("the server's group was not reaped: %v", st.Unit("server").Metadata)
	}
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if procAlive(pid) {
		t.Errorf("the server (pid %d) outlived its module", pid)
	}
	if st.Unit("advisory").Metadata["exit_code"] != 3 {
		t.Errorf("exit code not recorded: %v", st.Unit("advisory").Metadata)
	}
	// What is on disk is what Run returned.
	disk := readStage(t, r.ResultPath)
	if diff := cmp.Diff(statuses(st), statuses(disk)); diff != "" {
		t.Errorf("disk differs:\n%s", diff)
	}
}

func checkIDs(st *result.Stage) []string {
	var out []string
	for _, c := range st.Checks {
		out = append(out, c.ID)
	}
	return out
}

// Every module is seeded unreached before the first starts, and the result
// is rewritten after each one: the second module sees the first finished
// and itself still unreached.
func TestSeedAndCheckpoint(t *testing.T) {
	r, dir := newRunner(t)
	seen := filepath.Join(dir, "seen.json")
	s := suite(dir,
		sh("one", pass, 10*time.Second),
		sh("two", `cp `+r.ResultPath+` `+seen+`; `+pass, 10*time.Second),
		sh("three", pass, 10*time.Second),
	)
	if _, err := r.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	mid := readStage(t, seen)
	if diff := cmp.Diff([]string{"one=ok", "two=unreached", "three=unreached"}, statuses(mid)); diff != "" {
		t.Errorf("checkpoint (-want +got):\n%s", diff)
	}
	if mid.Unit("three").Summary != Unreached {
		t.Errorf("unreached summary = %q", mid.Unit("three").Summary)
	}
}

// A stage stopped at its clock keeps the finished modules, marks the one
// running, and leaves the rest unreached, on disk.
func TestStoppedMidSuite(t *testing.T) {
	r, dir := newRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	s := suite(dir,
		sh("one", pass, 10*time.Second),
		sh("two", `echo '[{"id":"early","verdict":"pass"}]' > "$SRB_RESULT"; sleep 30`, 60*time.Second),
		sh("three", pass, 10*time.Second),
	)
	st, err := r.Run(ctx, s)
	if err == nil {
		t.Fatal("no error for a stopped stage")
	}
	disk := readStage(t, r.ResultPath)
	if diff := cmp.Diff([]string{"one=ok", "two=timeout", "three=unreached"}, statuses(disk)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if ids := checkIDs(st); !slices.Equal(ids, []string{"one/a", "two/early"}) {
		t.Errorf("checks = %v", ids)
	}
	// The module was told the stage's deadline, not its own.
	if got := st.Unit("two").Summary; !strings.Contains(got, "1 check(s) were recorded") {
		t.Errorf("summary = %q", got)
	}
}

// A runner killed outright (SIGKILL, as a container kill) leaves the last
// checkpoint: finished modules and unreached ones.
func TestRunnerKilled(t *testing.T) {
	if os.Getenv("SRB_TEST_RUNNER_CHILD") != "" {
		var cfg struct{ Repo, Work, Result, Dir, Marker string }
		_ = json.Unmarshal([]byte(os.Getenv("SRB_TEST_RUNNER_CHILD")), &cfg)
		r := &Runner{Repo: cfg.Repo, Work: cfg.Work, ResultPath: cfg.Result}
		s := suite(cfg.Dir,
			sh("one", pass, 10*time.Second),
			sh("two", `echo $$ > `+cfg.Marker+`.tmp; mv `+cfg.Marker+`.tmp `+cfg.Marker+`; sleep 30`, 60*time.Second),
			sh("three", pass, 10*time.Second),
		)
		r.Run(context.Background(), s)
		os.Exit(0)
	}
	r, dir := newRunner(t)
	marker := filepath.Join(dir, "two-started")
	cfg, _ := json.Marshal(map[string]string{"Repo": r.Repo, "Work": r.Work, "Result": r.ResultPath, "Dir": dir, "Marker": marker})
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunnerKilled$")
	cmd.Env = append(os.Environ(), "SRB_TEST_RUNNER_CHILD="+string(cfg))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("module two never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	disk := readStage(t, r.ResultPath)
	if diff := cmp.Diff([]string{"one=ok", "two=unreached", "three=unreached"}, statuses(disk)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if ids := checkIDs(disk); !slices.Equal(ids, []string{"one/a"}) {
		t.Errorf("checks = %v", ids)
	}
	// The orphaned module's group is the container's to kill; here, ours.
	if b, err := os.ReadFile(marker); err == nil {
		if pgid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pgid > 0 {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}

func TestEnvContract(t *testing.T) {
	r, dir := newRunner(t)
	r.BaseEnv = []string{"PATH=" + os.Getenv("PATH"), "SRB_RESULT=/stale", "SRB_GOPROXY_ROOT=/opt/goproxy", "KEEP=1"}
	dump := filepath.Join(dir, "env")
	s := suite(dir, sh("m", `env > `+dump+`; `+pass, 7*time.Second))
	s.Env = map[string]string{"SUITE_VAR": "s"}
	start := time.Now()
	if _, err := r.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dump)
	env := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	want := map[string]string{
		"SRB_REPO": r.Repo, "SRB_MODULE_DIR": dir, "SRB_MODULE_ID": "m", "SRB_SUITE_DIR": dir,
		"SRB_WORK": filepath.Join(r.Work, "m"), "SRB_SUITE_WORK": filepath.Join(r.Work, "shared"),
		"SRB_RESULT": filepath.Join(r.Work, "m", "result.json"), "SRB_MODULE_TIMEOUT_SEC": "7",
		"SRB_GOPROXY_ROOT": "/opt/goproxy", "KEEP": "1", "SUITE_VAR": "s", "TZ": "UTC", "LC_ALL": "C.UTF-8",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if _, ok := env["SRB_ORIGINAL"]; ok {
		t.Errorf("SRB_ORIGINAL set without an original")
	}
	dl, err := strconv.ParseFloat(env["SRB_MODULE_DEADLINE"], 64)
	if err != nil {
		t.Fatal(err)
	}
	if got := dl - float64(start.UnixNano())/1e9; got < 6.5 || got > 7.5 {
		t.Errorf("deadline is %.3f s after the start, want 7", got)
	}
}

func TestSubmissionEnv(t *testing.T) {
	base := []string{"PATH=/bin", "SRB_REPO=a", "SRB_ORIGINAL=b", "SRB_MODULE_DIR=c", "SRB_MODULE_ID=d", "SRB_SUITE_DIR=e",
		"SRB_WORK=f", "SRB_SUITE_WORK=g", "SRB_RESULT=h", "SRB_GOPROXY_ROOT=/opt", "SRB_MODULE_DEADLINE=1"}
	got := SubmissionEnv(base, "X=1", "PATH=/usr/bin")
	want := []string{"PATH=/usr/bin", "SRB_GOPROXY_ROOT=/opt", "SRB_MODULE_DEADLINE=1", "X=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := len(ContractEnv()); n != 8 {
		t.Errorf("%d contract names, want 8", n)
	}
}

func TestMissingRepoAndDir(t *testing.T) {
	r, dir := newRunner(t)
	m := sh("gone", pass, time.Second)
	m.Dir = filepath.Join(dir, "nope")
	st, _ := r.Run(context.Background(), suite(dir, m))
	if got := st.Unit("gone").Summary; !strings.Contains(got, "module directory") {
		t.Errorf("summary = %q", got)
	}
	r.Repo = filepath.Join(dir, "absent")
	st, _ = r.Run(context.Background(), suite(dir, sh("m", pass, time.Second)))
	if st.Status != result.StatusError || !strings.Contains(st.Metadata["error"].(string), "no submission at") {
		t.Errorf("status %s, metadata %v", st.Status, st.Metadata)
	}
	if st.Unit("m").Status != result.UnitUnreached {
		t.Errorf("module ran without a submission")
	}
}

// procAlive reports whether pid is a live (not zombie) process.
func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
