package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/internal/testenv"
)

// probeEnv makes this test binary the launched probe of
// TestLocalLauncherSeparatesTheProgram (started through the launcher under
// a name other than srb-launch).
const probeEnv = "SRB_TEST_PROGSEP_PROBE"

func TestMain(m *testing.M) {
	testenv.QuickRaceExit()
	if os.Getenv(probeEnv) != "" {
		os.Exit(progsepProbe(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// progsepProbe is forge-pass's reach, tried on the process whose pid (in
// this machine's PID namespace) is in the file args[0], a process of the
// candidate's uid: each line says what one attempt got.
func progsepProbe(args []string) int {
	b, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Println("pidfile:", err)
		return 2
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	res := func(what string, err error) {
		if err == nil {
			fmt.Printf("%s=ok\n", what)
		} else {
			fmt.Printf("%s=%v\n", what, err)
		}
	}
	runtime.LockOSThread()
	err = syscall.PtraceAttach(pid)
	res("ptrace", err)
	if err == nil {
		syscall.PtraceDetach(pid)
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
	res("mem", err)
	if err == nil {
		f.Close()
	}
	res("signal", syscall.Kill(pid, 0))
	err = os.WriteFile(fmt.Sprintf("/proc/%d/cwd/forged", pid), []byte("x"), 0o644)
	res("cwd", err)
	res("caller-file", os.WriteFile("mine.txt", []byte("forged\n"), 0o644))
	fmt.Printf("uid=%d\n", os.Getuid())
	return 0
}

// TestLocalLauncherSeparatesTheProgram: a program run through a session's
// launcher (Spec.Launcher) gets the caller's streams, working folder and
// arguments and answers with its status, but cannot ptrace, open the
// memory of, signal or write the working folder of a process of the
// caller's uid, nor write the caller's files: forge-pass's class
// (docs/LADDER.md, known holes).
func TestLocalLauncherSeparatesTheProgram(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the launcher runs programs as a uid of their own: root only")
	}
	l := &Local{}
	s := startSession(t, l, Spec{Launcher: true})
	if !s.Launches() {
		t.Fatal("a session started with Launcher serves no launcher")
	}
	st, err := os.Stat(s.Path("/"))
	if err != nil {
		t.Fatal(err)
	}
	uid := int(st.Sys().(*syscall.Stat_t).Gid)
	if err := s.CopyInOwned(t.Context(), t.TempDir(), "/work", 1, 1); err != nil {
		t.Fatal(err)
	}
	work := s.Path("/work")
	// The stand-in for the candidate runner: a process of the caller's
	// uid, found by the test (as root) in this machine's /proc.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				pid, err := strconv.Atoi(e.Name())
				if err != nil {
					continue
				}
				cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				if string(cmd) != "sleep\x00313.5\x00" {
					continue
				}
				var fi os.FileInfo
				if fi, err = os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil || int(fi.Sys().(*syscall.Stat_t).Uid) != uid {
					continue
				}
				os.WriteFile(filepath.Join(work, "target.pid"), []byte(strconv.Itoa(pid)), 0o644)
				return
			}
		}
	}()
	script := `set -u
umask 022
chmod 750 .
echo mine >mine.txt
printf 'a b c\n' >in.txt
out=$(printf 'x y\n' | "$SRB_LAUNCH" /bin/sh -c 'wc -w; cat in.txt; exit 7'); echo "status=$? out=[$out]"
"$SRB_LAUNCH" /bin/sh -c 'kill -TERM $$; sleep 5'; echo "signalled=$?"
"$SRB_LAUNCH" ./nothing-here; echo "missing=$?"
echo carried >carried.txt; echo secret >secret.txt; chmod 600 secret.txt; aside=$(mktemp -d) && ln -s "$aside" out
"$SRB_LAUNCH" --copy-cwd /bin/sh -c 'cat carried.txt >/dev/null && echo changed >carried.txt && echo made >made.txt && mkdir d && echo deep >d/f && echo forged >secret.txt && rm out && mkdir out && echo x >out/escaped && echo mine >mine.txt'
echo "copy=$? carried=$(cat carried.txt) made=$(cat made.txt) deep=$(cat d/f) secret=$(cat secret.txt) escaped=$(ls "$aside") made-by=$(stat -c %u made.txt) mine=$(cat mine.txt)"
(cd / && sleep 313.5) &
target=$!
for i in $(seq 200); do [ -s target.pid ] && break; sleep 0.1; done
ln -s "$SRB_LAUNCH" probe
SRB_TEST_PROGSEP_PROBE=1 "$SRB_LAUNCH" ./probe target.pid; echo "probe=$?"
echo "mine=$(cat mine.txt) forged=$(ls /proc/$target/cwd/forged 2>/dev/null)"
mine=$(readlink /proc/self/ns/net); theirs=$("$SRB_LAUNCH" /bin/readlink /proc/self/ns/net)
[ -n "$mine" ] && [ "$mine" = "$theirs" ] && echo "netns=same" || echo "netns=[$mine] [$theirs]"
"$SRB_LAUNCH" /bin/sleep 60 & l=$!
sleep 1; kill -TERM $l; wait $l; echo "terminated=$?"
kill $target
echo "caller-uid=$(id -u)"
`
	start := time.Now()
	r := sh(t, s, script, func(es *ExecSpec) { es.Argv[0] = "bash"; es.WorkDir = "/work"; es.Timeout = 2 * time.Minute })
	<-done
	out := string(r.Stdout)
	t.Logf("%s (%v)\nstderr: %s", out, time.Since(start), r.Stderr)
	for _, want := range []string{
		"status=7 out=[2\na b c]",
		"signalled=143",
		"missing=125",
		"probe=0",
		"mine=mine forged=\n",
		"terminated=143",
		"netns=same",
		fmt.Sprintf("copy=0 carried=changed made=made deep=deep secret=secret escaped= made-by=%d mine=mine\n", uid),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in the output", want)
		}
	}
	for _, attempt := range []string{"ptrace", "mem", "signal", "cwd", "caller-file"} {
		if strings.Contains(out, attempt+"=ok") {
			t.Errorf("the launched program's %s reached the caller", attempt)
		}
		if !strings.Contains(out, attempt+"=") {
			t.Errorf("the probe did not try %s", attempt)
		}
	}
	if strings.Contains(out, fmt.Sprintf("\nuid=%d\n", uid)) || !strings.Contains(out, "\nuid=") {
		t.Errorf("the launched program ran as the caller's uid %d", uid)
	}
}

// TestLocalLauncherCost logs what a launch costs against running the
// program directly (SRB_PROGSEP_COST=N launches of /bin/true; skipped
// without it).
func TestLocalLauncherCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SRB_PROGSEP_COST"))
	if n <= 0 || os.Geteuid() != 0 {
		t.Skip("SRB_PROGSEP_COST=N as root measures N launches")
	}
	s := startSession(t, &Local{}, Spec{Launcher: true})
	script := `n=$1
s=$(date +%s%N); for i in $(seq $n); do /bin/true; done; e=$(date +%s%N); echo "direct $(( (e-s)/n/1000 )) us"
s=$(date +%s%N); for i in $(seq $n); do "$SRB_LAUNCH" /bin/true || exit 1; done; e=$(date +%s%N); echo "launched $(( (e-s)/n/1000 )) us"
`
	r := sh(t, s, script, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", strconv.Itoa(n)); es.Timeout = 10 * time.Minute })
	if r.ExitCode != 0 {
		t.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
	}
	t.Logf("%d calls: %s", n, r.Stdout)
}

// TestDockerLauncherSeparatesTheProgram: the verification image's
// launcher (the helper as broker, as the container's root, under
// no-new-privileges and Docker's default seccomp: no PID namespace): a
// program launched by the candidate user gets its streams, working folder
// and status through, runs as another uid, and cannot signal, read the
// environment or memory of, or write through /proc/PID/cwd a process of
// the candidate's, nor write the candidate's files; what it leaves
// running is ended.
func TestDockerLauncherSeparatesTheProgram(t *testing.T) {
	const image = "srb/lang90-tally-c-to-go:verification"
	d := requireEngine(t, "docker")
	if _, err := d.Image(t.Context(), image); err != nil {
		t.Skipf("no %s here: %v", image, err)
	}
	helper := filepath.Join(t.TempDir(), "srb-helper")
	build := exec.Command("go", "build", "-o", helper, "../../cmd/srb-helper")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the helper: %v %s", err, out)
	}
	s, err := d.Start(t.Context(), Spec{Image: image, NoNewPrivileges: true, Launcher: true,
		Copies: []Copy{{HostPath: helper, ContainerPath: launchHelper}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	if !s.Launches() {
		t.Fatal("the container serves no launcher")
	}
	if r := sh(t, s, `mkdir -p /work && chown 65532:65532 /work`, func(es *ExecSpec) { es.User = "0" }); r.ExitCode != 0 {
		t.Fatalf("%s", r.Stderr)
	}
	script := `set -u
umask 022
cd /work && chmod 750 .
echo mine >mine.txt
printf 'a b c\n' >in.txt
out=$(printf 'x y\n' | "$SRB_LAUNCH" /bin/sh -c 'wc -w; cat in.txt; exit 7'); echo "status=$? out=[$out]"
sleep 300 & target=$!
"$SRB_LAUNCH" /bin/sh -c "kill -0 $target" 2>/dev/null; echo "signal=$?"
"$SRB_LAUNCH" /bin/sh -c "cat /proc/$target/environ" >/dev/null 2>&1; echo "environ=$?"
"$SRB_LAUNCH" /bin/sh -c "cat /proc/$target/cmdline" >/dev/null 2>&1; echo "cmdline=$?"
"$SRB_LAUNCH" /bin/sh -c 'n=0; for p in /proc/[0-9]*; do u=$(stat -c %u "$p" 2>/dev/null) && [ "$u" != "$(id -u)" ] && n=$((n+1)); done; echo "seen=$n"'
"$SRB_LAUNCH" /bin/sh -c "exec 3<>/proc/$target/mem" 2>/dev/null; echo "mem=$?"
"$SRB_LAUNCH" /bin/sh -c "echo x >/proc/$target/cwd/forged" 2>/dev/null; echo "cwd=$?"
"$SRB_LAUNCH" /bin/sh -c 'echo forged >mine.txt' 2>/dev/null; echo "write=$? mine=$(cat mine.txt)"
echo "theirs=$("$SRB_LAUNCH" id -u) mine=$(id -u)"
echo carried >carried.txt; echo secret >secret.txt; chmod 600 secret.txt; aside=$(mktemp -d) && ln -s "$aside" out
"$SRB_LAUNCH" --copy-cwd /bin/sh -c 'cat carried.txt >/dev/null && echo changed >carried.txt && echo made >made.txt && mkdir d && echo deep >d/f && echo forged >secret.txt && rm out && mkdir out && echo x >out/escaped && echo mine >mine.txt'
echo "copy=$? carried=$(cat carried.txt) made=$(cat made.txt) deep=$(cat d/f) secret=$(cat secret.txt) escaped=$(ls "$aside") made-by=$(stat -c %u made.txt) mine=$(cat mine.txt)" | sed s/^/copied-/
"$SRB_LAUNCH" /bin/sh -c 'setsid sleep 1000 </dev/null >/dev/null 2>&1 & exit 0'
"$SRB_LAUNCH" /bin/sh -c 'for d in /tmp /var/tmp /dev/shm; do echo planted >$d/want-$(id -u); chmod 444 $d/want-$(id -u); done; ipcmk -M 4096 >/dev/null && ipcmk -Q >/dev/null && echo ipc-made'
echo "planted=$(ls /tmp /var/tmp /dev/shm | grep -c '^want-')"
s=$(date +%s%N); for i in $(seq 20); do "$SRB_LAUNCH" /bin/true; done; e=$(date +%s%N); echo "cost $(( (e-s)/20000 )) us a launch"
kill $target
`
	r := sh(t, s, script, func(es *ExecSpec) { es.Argv[0] = "bash"; es.User = "65532:65532"; es.Timeout = 2 * time.Minute })
	out := string(r.Stdout)
	t.Logf("%s\nstderr: %s", out, r.Stderr)
	// Root's group sees every process (hidepid's gid=0), so the sweep
	// is counted as root: the candidate sees no process of another uid.
	left := sh(t, s, `n=0; for p in /proc/[0-9]*; do u=$(stat -c %u "$p" 2>/dev/null) && [ "$u" -ge 70000 ] && n=$((n+1)); done; echo "left=$n"; setpriv --reuid 65532 --regid 65532 --clear-groups sleep 60 & m=0; for p in /proc/[0-9]*; do u=$(stat -c %u "$p" 2>/dev/null) && [ "$u" = 65532 ] && m=$((m+1)); done; echo "candidate's=$m"; kill $!; echo "ipc=$(awk 'FNR > 1 && $8 >= 70000' /proc/sysvipc/shm /proc/sysvipc/msg | wc -l)"`, func(es *ExecSpec) { es.User = "0" })
	if got := string(left.Stdout); got != "left=0\ncandidate's=1\nipc=0\n" {
		t.Errorf("after the launches root counts %q, want no launched process left, the one of uid 65532 it started and no System V object of a launched uid", got)
	}
	// What a launch leaves in the shared temporary folders is gone after
	// it (a file at a name the candidate writes its expected output to,
	// read-only in a sticky folder, made the candidate compare with the
	// program's answer).
	for _, want := range []string{"status=7 out=[2\na b c]", "mine=mine\n", "seen=0\n", "planted=0\n", "ipc-made\n",
		"copied-copy=0 carried=changed made=made deep=deep secret=secret escaped= made-by=65532 mine=mine\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in the output", want)
		}
	}
	for _, attempt := range []string{"signal", "environ", "cmdline", "mem", "cwd", "write"} {
		if !strings.Contains(out, attempt+"=") || strings.Contains(out, attempt+"=0") {
			t.Errorf("the launched program's %s reached the candidate (or was not tried)", attempt)
		}
	}
	if !strings.Contains(out, "theirs=7") || strings.Contains(out, "theirs=65532") {
		t.Errorf("the launched program ran as the candidate's uid, or not as a launched one")
	}
}
