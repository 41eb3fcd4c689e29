package kinds

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
)

// A command case whose program leaves setsid'd and double-forked
// processes behind, or hangs past its timeout after doing so: none of
// them outlives runProc, and the pipes are read to the end.
func TestRunProcLeavesNothingRunning(t *testing.T) {
	runProc := (&module{plan: &behavioural.Plan{}}).runProc
	kv := "SRB_TEST_CASE=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	env := []string{"PATH=/usr/bin:/bin", kv}
	leave := `setsid sh -c 'sleep 300 & sleep 300' & ( setsid sleep 300 & ) & echo out; echo err >&2;`
	r := runProc([]string{"sh", "-c", leave + " exit 4"}, t.TempDir(), env, nil, 10*time.Second)
	if r.Err != nil || r.Exit != 4 || r.TimedOut || string(r.Stdout) != "out\n" || string(r.Stderr) != "err\n" {
		t.Errorf("result %+v", r)
	}
	r = runProc([]string{"sh", "-c", leave + " sleep 30"}, t.TempDir(), env, nil, 300*time.Millisecond)
	if !r.TimedOut || r.Exit != -9 || r.Signal != "killed" {
		t.Errorf("timed out: result %+v", r)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(b), kv) && !strings.Contains(string(st), ") Z") {
			t.Errorf("process %s outlived its case", e.Name())
		}
	}
	if r := runProc([]string{"srb-no-such-program"}, t.TempDir(), env, nil, time.Second); r.Err == nil {
		t.Errorf("a missing program ran: %+v", r)
	}
}

// With a jail (the grader is root), a case runs as the submission's user
// with exactly the environment it is given, in a mount namespace where
// the grader's folders are empty and /proc shows only its own user's
// processes, in an IPC namespace of its own, with no_new_privs.
func TestRunProcJailed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	hidden := filepath.Join(root, "grader")
	if err := os.MkdirAll(hidden, 0o755); err != nil || os.WriteFile(filepath.Join(hidden, "truth.json"), []byte("{}"), 0o644) != nil {
		t.Fatal(err)
	}
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, []string{hidden})
	if err != nil {
		t.Fatal(err)
	}
	m := &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}}
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	env := m.baseEnv()
	script := `id -u; id -g; cat ` + filepath.Join(hidden, "truth.json") + ` 2>&1 || true; ls /proc | grep -c '^[0-9]' ; grep NoNewPrivs /proc/self/status | tr -d ' \t'; readlink /proc/self/ns/ipc; env | sort`
	r := m.runProc([]string{"sh", "-c", script}, dir, env, nil, 10*time.Second)
	if r.Err != nil || r.Exit != 0 {
		t.Fatalf("result %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if len(lines) < 4 || lines[0] != strconv.Itoa(behavioural.SubmissionUID) || lines[1] != strconv.Itoa(behavioural.SubmissionGID) {
		t.Fatalf("not the submission's user:\n%s", r.Stdout)
	}
	if lines[2] == "{}" || !strings.Contains(lines[2], "cat:") {
		t.Errorf("the grader's folder is readable: %q", lines[2])
	}
	if n, _ := strconv.Atoi(lines[3]); n > 6 {
		t.Errorf("/proc lists %d processes (the grader's among them?)", n)
	}
	// no_new_privs, as in a stage container, and an IPC namespace of its
	// own: no setuid program makes it more than its user, and no System V
	// object of another user's is in reach.
	own, _ := os.Readlink("/proc/self/ns/ipc")
	if len(lines) < 6 || lines[4] != "NoNewPrivs:1" || !strings.HasPrefix(lines[5], "ipc:") || lines[5] == own {
		t.Fatalf("want NoNewPrivs:1 and an IPC namespace other than %s:\n%s", own, r.Stdout)
	}
	for _, l := range lines[6:] {
		name, _, _ := strings.Cut(l, "=")
		switch name {
		case "PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "PWD", "SHLVL", "_", "OLDPWD":
		default:
			if !strings.HasPrefix(name, "LC_") {
				t.Errorf("the case was given %s", l)
			}
		}
	}
	if !strings.Contains(string(r.Stdout), "HOME="+filepath.Join(j.Root, "home")) {
		t.Errorf("HOME is not the sandbox's:\n%s", r.Stdout)
	}
}

// The submission's program cannot pass for a sandbox failure (a grader
// fault, which makes the verdict invalid rather than 0) by printing the
// jail's mark and exiting with the jail's codes: only the jail's status
// file, which the program cannot reach, says the sandbox failed. A real
// setup failure still is the grader's fault, and a program that cannot
// be executed is the submission's "could not start".
func TestJailFaultCannotBeForged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	newModule := func(hide []string) *module {
		j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, hide)
		if err != nil {
			t.Fatal(err)
		}
		return &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}, work: filepath.Join(root, "work")}
	}
	m := newModule(nil)
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	for _, forged := range []string{
		`echo "srb-jail: forged" >&2; exit 122`,
		`echo "srb-jail: setup: forged" >&2; exit 122`,
		`echo "srb-jail: exec /x: forged" >&2; exit 121`,
	} {
		r := m.runProc([]string{"sh", "-c", forged}, dir, m.baseEnv(), nil, 10*time.Second)
		if r.Err != nil || m.harness != "" {
			t.Errorf("%s: err %v, harness fault %q: the program forged a grader fault", forged, r.Err, m.harness)
		}
		if r.Exit != 121 && r.Exit != 122 {
			t.Errorf("%s: exit %d, want the program's own", forged, r.Exit)
		}
	}
	r := m.runProc([]string{filepath.Join(dir, "srb-no-such-program")}, dir, m.baseEnv(), nil, 10*time.Second)
	if r.Err == nil || errors.Is(r.Err, errJail) || m.harness != "" {
		t.Errorf("a missing program: err %v, harness %q; want could not start, the submission's", r.Err, m.harness)
	}
	// A real setup failure: a hidden path that is a file cannot take a
	// tmpfs mount.
	file := filepath.Join(root, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m = newModule([]string{file})
	dir, err = m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	r = m.runProc([]string{"true"}, dir, m.baseEnv(), nil, 10*time.Second)
	if !errors.Is(r.Err, errJail) || !strings.Contains(m.harness, "hide "+file) {
		t.Errorf("a sandbox that could not be entered: err %v, harness %q; want the grader's fault", r.Err, m.harness)
	}
	ents, _ := os.ReadDir(m.statusDir)
	if len(ents) != 0 {
		t.Errorf("status files left behind: %v", ents)
	}
}

// A POSIX message queue file system mounted on the machine shows the
// machine's queues; in the jail (an IPC namespace of its own) each such
// mount is replaced by the namespace's own, so a queue of the machine's is
// neither listed nor opened there.
func TestJailHasItsOwnMessageQueues(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the jail needs root")
	}
	root := searchableTempDir(t)
	mq := filepath.Join(root, "mq dir")
	if err := os.Mkdir(mq, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("mqueue", mq, "mqueue", 0, ""); err != nil {
		t.Skipf("no mqueue file system here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mq, syscall.MNT_DETACH) })
	q, err := os.OpenFile(filepath.Join(mq, "srb-machine-queue"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	t.Cleanup(func() { os.Remove(filepath.Join(mq, "srb-machine-queue")) })
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}}
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	r := m.runProc([]string{"sh", "-c", `ls -A "$1"; echo listed; cat "$1/srb-machine-queue" 2>/dev/null && echo opened; true`, "sh", mq}, dir, m.baseEnv(), nil, 10*time.Second)
	if r.Err != nil || r.Exit != 0 || string(r.Stdout) != "listed\n" {
		t.Errorf("result %+v, output %q: want no queue of the machine's listed or opened", r, r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(mq, "srb-machine-queue")); err != nil {
		t.Errorf("the machine's queue is gone: %v", err)
	}
}
