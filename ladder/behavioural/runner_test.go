package behavioural

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		sh("server", `SRB_TEST_SERVER=`+filepath.Base(dir)+` sleep 300 & echo $! > `+marker+`; `+pass, 10*time.Second),
		sh("advisory", pass+`; exit 3`, 10*time.Second),
		sh("silent", `exit 0`, 10*time.Second),
		// A result handed over and then the module killed (issue 14): a
		// killed module's result is never counted.
		sh("planted", pass+`; kill -KILL $$`, 10*time.Second),
	)
	st, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hang=timeout", "hang-after-check=timeout", "crash=error", "invalid=error", "server=ok", "advisory=ok", "silent=error", "planted=error"}
	if diff := cmp.Diff(want, statuses(st)); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	sum := func(id string) string { return st.Unit(id).Summary }
	for id, frag := range map[string]string{
		"hang":             "exceeded its 1s budget and recorded nothing",
		"hang-after-check": "exceeded its 1s budget; 1 check(s) were recorded before the deadline",
		"crash":            "killed by signal 11 (SIGSEGV): a killed module's result is never counted; last output:\ndying",
		"planted":          "killed by signal 9 (SIGKILL): a killed module's result is never counted",
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
	if _, err := os.ReadFile(marker); err != nil {
		t.Fatal(err)
	}
	// The module's pids are its PID namespace's: the server is found by
	// the variable it carries.
	if pid := markedAlive("SRB_TEST_SERVER=" + filepath.Base(dir)); pid != 0 {
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
	// The clock leaves module one (a shell writing one result) seconds to
	// finish even on a loaded machine under -race; 1.5 s once did not.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
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
	if !errors.Is(err, ErrHarnessFault) {
		t.Errorf("err = %v, want a harness fault", err)
	}
	disk := readStage(t, r.ResultPath)
	if diff := cmp.Diff([]string{"one=ok", "two=error", "three=unreached"}, statuses(disk)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	// The stage clock is the grader's: the stage is an error (an invalid
	// verdict), and what the stopped module recorded is not counted.
	if disk.Status != result.StatusError || !strings.Contains(fmt.Sprint(disk.Metadata[MetaHarnessFault]), "clock (timeouts.behavioural) ran out") {
		t.Errorf("status %s, metadata %v", disk.Status, disk.Metadata)
	}
	if ids := checkIDs(st); !slices.Equal(ids, []string{"one/a"}) {
		t.Errorf("checks = %v", ids)
	}
	if got := st.Unit("two").Summary; !strings.Contains(got, "harness fault") {
		t.Errorf("summary = %q", got)
	}
}

// SIGINT or SIGTERM to srb cancels the stage's context: the running
// module is not charged (no timeout), the stage is an error naming the
// interrupt (issue 15).
func TestInterrupted(t *testing.T) {
	r, dir := newRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The interrupt comes once module two runs (however long one took to
	// start on a loaded machine): two leaves a mark, then hangs.
	mark := filepath.Join(dir, "two-started")
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(mark); err == nil {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	s := suite(dir, sh("one", pass, 60*time.Second), sh("two", "touch "+mark+"; sleep 30", 60*time.Second))
	st, err := r.Run(ctx, s)
	if !errors.Is(err, ErrHarnessFault) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	disk := readStage(t, r.ResultPath)
	if diff := cmp.Diff([]string{"one=ok", "two=error"}, statuses(disk)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if disk.Status != result.StatusError || !strings.Contains(fmt.Sprint(disk.Metadata[MetaHarnessFault]), "interrupted") {
		t.Errorf("status %s, metadata %v", disk.Status, disk.Metadata)
	}
	if st.Unit("two").Status == result.UnitTimeout {
		t.Error("an interrupt was recorded as the module's timeout")
	}
}

// With a jail, a module whose budget runs out while only the grader's
// processes run hangs on its own (a harness fault, the stage an error);
// one that runs out while a process of the submission's user runs is the
// submission's timeout.
func TestTimeoutWhose(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a process as the submission's user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv")
	}
	for _, tc := range []struct {
		name, script, status string
		fault                bool
	}{
		{"submission", fmt.Sprintf("setpriv --reuid %d --regid %d --clear-groups sleep 30", SubmissionUID, SubmissionGID), result.UnitTimeout, false},
		{"grader", "sleep 30", result.UnitError, true},
		// srb's helper cut the submission short of the deadline and
		// wrote its timeout just after it (a loaded machine): the
		// submission's timeout, not a hang of the module.
		{"late-cut", `sleep 1.2; echo '{"status":"timeout","summary":"stopped at the module''s deadline","checks":[{"id":"a","verdict":"fail"}]}' > "$SRB_RESULT"`, result.UnitTimeout, false},
		// A module that overran its budget with no process of the
		// submission running and then reports success: still a hang of
		// the grader's, whatever it wrote.
		{"late-ok", "sleep 1.2; " + pass, result.UnitError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, dir := newRunner(t)
			r.Jail = &Jail{UID: SubmissionUID, GID: SubmissionGID, Root: dir}
			if strings.HasPrefix(tc.name, "late-") {
				// The module's start (an init re-executed) may take a
				// second under -race: the grace covers its late end.
				r.Grace = 5 * time.Second
			}
			// The budget of the first two cases leaves seconds for the
			// module to start its process (an init re-executed, a shell,
			// setpriv) on a loaded machine under -race: one second once
			// ran out before the submission's process existed, which is
			// rightly the grader's hang. The late cases run out at 1 s.
			budget := 5 * time.Second
			if strings.HasPrefix(tc.name, "late-") {
				budget = time.Second
			}
			st, err := r.Run(context.Background(), suite(dir, sh("m", tc.script, budget), sh("next", pass, 10*time.Second)))
			if got := st.Unit("m").Status; got != tc.status {
				t.Errorf("status %s (%s), want %s", got, st.Unit("m").Summary, tc.status)
			}
			if tc.fault != errors.Is(err, ErrHarnessFault) || tc.fault != (st.Status == result.StatusError) {
				t.Errorf("err = %v, stage status %s", err, st.Status)
			}
			if tc.fault && st.Unit("next").Status != result.UnitUnreached {
				t.Errorf("the stage went on after a harness fault: %s", st.Unit("next").Status)
			}
			if st.Metadata["isolation"] != IsolationUID {
				t.Errorf("isolation = %v", st.Metadata["isolation"])
			}
		})
	}
}

// A result srb did not get from its own channel is a module error, never
// a pass: a symbolic link to a file elsewhere, a file with a second link,
// a file owned by another user (issue 14).
func TestResultFromElsewhere(t *testing.T) {
	r, dir := newRunner(t)
	planted := filepath.Join(dir, "planted.json")
	if err := os.WriteFile(planted, []byte(`{"checks":[{"id":"a","verdict":"pass"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mods := []Module{
		sh("link", `ln -s `+planted+` "$SRB_RESULT"`, 10*time.Second),
		sh("hardlink", `ln `+planted+` "$SRB_RESULT"`, 10*time.Second),
	}
	if os.Geteuid() == 0 {
		mods = append(mods, sh("owner", pass+fmt.Sprintf(`; chown %d "$SRB_RESULT"`, SubmissionUID), 10*time.Second))
	}
	st, err := r.Run(context.Background(), suite(dir, mods...))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range st.Units {
		if u.Status != result.UnitError || !strings.Contains(u.Summary, "not srb's to count") {
			t.Errorf("%s: %s %q", u.ID, u.Status, u.Summary)
		}
	}
	if len(st.Checks) != 0 {
		t.Errorf("checks counted: %v", checkIDs(st))
	}
}

// No credential or other secret of the grader reaches a module: the
// environment is an allow-list.
func TestAllowedEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("ANTHROPIC_API_KEY", "secret")
	t.Setenv("SOME_TOKEN", "secret")
	t.Setenv("LC_CTYPE", "C.UTF-8")
	r, dir := newRunner(t)
	dump := filepath.Join(dir, "env.txt")
	st, err := r.Run(context.Background(), suite(dir, sh("env", `env > `+dump+`; `+pass, 10*time.Second)))
	if err != nil || st.Unit("env").Status != result.UnitOK {
		t.Fatalf("%v %v", err, statuses(st))
	}
	b, _ := os.ReadFile(dump)
	if strings.Contains(string(b), "secret") {
		t.Errorf("a secret reached the module:\n%s", b)
	}
	if !strings.Contains(string(b), "LC_CTYPE=C.UTF-8") || !strings.Contains(string(b), "PATH=") {
		t.Errorf("an allowed name was dropped:\n%s", b)
	}
	got := AllowedEnv([]string{"PATH=/bin", "OPENAI_API_KEY=x", "LC_=y", "LC_ALL=C", "HOME=/root", "GOFLAGS=-x"})
	if diff := cmp.Diff([]string{"PATH=/bin", "LC_ALL=C", "HOME=/root"}, got); diff != "" {
		t.Errorf("AllowedEnv (-want +got):\n%s", diff)
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
	if n := len(ContractEnv()); n != 9 {
		t.Errorf("%d contract names, want 9 (eight and SRB_PLAN)", n)
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
// markedAlive returns the id of a live process whose environment holds
// kv, or 0.
func markedAlive(kv string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !procAlive(pid) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if slices.Contains(strings.Split(string(b), "\x00"), kv) {
			return pid
		}
	}
	return 0
}

func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
