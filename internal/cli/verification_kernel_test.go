package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/verification"
)

// kernelContainer starts stage 3's two trees (the fixture's State A and
// its Go port) in the fixture's real verification image, built and
// loaded when the engine lacks it, with the candidate run as a shell
// script; fresh is [verification.ContainerConfig.FreshPerRun], and mod
// changes the rest of the configuration.
func kernelContainer(t *testing.T, fresh bool, mod ...func(*verification.ContainerConfig)) *verification.Container {
	t.Helper()
	if testing.Short() {
		t.Skip("starts containers of the verification image")
	}
	d := requireEngines(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	var log bytes.Buffer
	ref := verificationImage(t, ctx, fixtureCopy(t), &log)
	cfg := verification.ContainerConfig{Engine: d, Image: ref,
		Original:   filepath.Join("..", "..", "testdata", "statea", "tally-1.0"),
		Submission: filepath.Join("..", "..", "testdata", "submissions", "tally-go"),
		Command:    []string{"/bin/sh", "-c", `sh "$SRB_CANDIDATE"`, "sh"}, Work: t.TempDir(), FreshPerRun: fresh}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := verification.NewContainer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// In a tree's container every run of the side shares the container's IPC
// namespace, and a System V shared memory segment, semaphore set or
// message queue outlives the process that made it: a submission's program
// that made one on its first run and behaved correctly once one was there
// counted its runs in the image, so a break held once and its reruns
// passed ("not stable": the defect survived, as hide-in-reruns did through
// files). The reap after every run removes them, even in one container
// for all the side's runs (FreshPerRun off).
func TestContainerRunsLeaveNoIPC(t *testing.T) {
	t.Parallel()
	c := kernelContainer(t, false)
	cand := &verification.Candidate{Name: "ipc", Filename: "ipc.sh", Code: `n=$(cat /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg | grep -vc '^ *key')
ipcmk -M 1024 >/dev/null && ipcmk -S 1 >/dev/null && ipcmk -Q >/dev/null || exit 3
echo "left=$n"
`}
	for _, role := range []string{verification.RoleOriginal, verification.RoleSubmission} {
		for i := range 3 {
			r := c.Execute(t.Context(), cand, role)
			if r.Harness != "" || !r.Passed || strings.TrimSpace(r.Stdout) != "left=0" {
				t.Fatalf("the %s's run %d saw what an earlier run left: %+v", role, i, r)
			}
		}
	}
}

// kernelState prints what a run of a side in a container can read of the
// kernel state of its namespaces: its pid, the id the IPC namespace gives
// a new segment, the TCP sockets (TIME_WAIT ones included) and the
// loopback's packet counter; then it leaves more of each (a segment, a
// TIME_WAIT socket on the loopback), as a program counting its runs
// would.
const kernelState = `tw=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -vc local_address)
lo=$(awk '$1 == "lo:" { print $3 }' /proc/net/dev)
id=$(ipcmk -M 1024 | awk '{ print $NF }')
echo "pid=$$ shmid=$id tcp=$tw lo=$lo"
perl -MIO::Socket::INET -e '$l=IO::Socket::INET->new(LocalAddr=>"127.0.0.1",Listen=>1,ReuseAddr=>1) or die; $c=IO::Socket::INET->new(PeerAddr=>"127.0.0.1",PeerPort=>$l->sockport) or die; $s=$l->accept; close $s; select(undef,undef,undef,0.2); close $c;'
exit 0
`

// In the image a side's runs shared one container for the round, and the
// kernel state of its namespaces outlived each run: the next pid, the IPC
// namespace's ids, TCP sockets in TIME_WAIT on the loopback and the
// loopback's counters (seen: shmid 0, 1, 2, tcp 0, 1, 2, lo 0, 7, 14 and
// the pid 66 higher each run). A program could count its runs through any
// of them (a break that held once and hid in its reruns, as
// hide-in-reruns did through files). With FreshPerRun (what stage 3 sets
// in the images) every run of a side starts in a fresh container of the
// image, restored from the side's snapshot: each run reads the same.
func TestContainerRunsShareNoKernelState(t *testing.T) {
	t.Parallel()
	c := kernelContainer(t, true)
	cand := &verification.Candidate{Name: "kernel", Filename: "kernel.sh", Code: kernelState}
	for _, role := range []string{verification.RoleOriginal, verification.RoleSubmission} {
		first := ""
		for i := range 3 {
			r := c.Execute(t.Context(), cand, role)
			if r.Harness != "" || !r.Passed {
				t.Fatalf("the %s's run %d: %+v", role, i, r)
			}
			t.Logf("the %s's run %d: %s", role, i, strings.TrimSpace(r.Stdout))
			// The pid varies by a few with the engine's own execs, but
			// does not grow with the runs (66 a run before).
			var pid int
			var rest string
			if _, err := fmt.Sscanf(r.Stdout, "pid=%d %s", &pid, &rest); err != nil || pid > 100 {
				t.Errorf("the %s's run %d read %q: a pid that grows with the runs", role, i, r.Stdout)
			}
			_, rest, _ = strings.Cut(r.Stdout, " ")
			if i == 0 {
				first = rest
			} else if rest != first {
				t.Errorf("the %s's run %d read %q, its first %q", role, i, rest, first)
			}
		}
	}
}

// memoryBomb starts many small processes, each smaller than the
// container's keep-alive (a subshell and a sleep, about 1.7 MB of
// resident pages each), until the container's memory limit is reached.
const memoryBomb = `i=0; while [ $i -lt 400 ]; do (x=$(head -c 300000 /dev/zero | tr "\0" a); sleep 30) & i=$((i+1)); done 2>/dev/null; wait
echo done
`

// heldSegment fills a System V shared memory segment a MiB at a time up to
// 80 MiB (past a 64 MiB limit) and exits 0, leaving it.
const heldSegment = `perl -e 'my $id = shmget(0, 80 << 20, 0700); defined $id or die "shmget: $!"; my $mb = "x" x (1 << 20); for my $i (0 .. 79) { shmwrite($id, $mb, $i << 20, 1 << 20) or die }'
exit 0
`

// A candidate run whose many small processes reach the tree container's
// memory limit made the OOM killer choose the container's own keep-alive
// (docker-init's sleep, no larger than any of them): the container
// stopped, the run could not be cleaned up, and it was a harness error,
// an invalid verdict the candidate chose (seen: the original's run exit
// 137, "cannot clear the sandbox after the run: reap …: exit 126", with a
// 64 MiB limit). The candidate's processes are now the OOM killer's first
// choice, and one that lowers its score back to the container's, so the
// kernel may still choose the keep-alive where it cannot be exempted
// (root without CAP_SYS_RESOURCE, as on this project's machine), makes it
// the run's own failure, with the memory limit recorded; either way the
// side's next run starts in a fresh container and passes.
func TestContainerMemoryBombIsTheRuns(t *testing.T) {
	t.Parallel()
	c := kernelContainer(t, true, func(cfg *verification.ContainerConfig) { cfg.Memory = 64 << 20 })
	ok := &verification.Candidate{Name: "ok", Filename: "ok.sh", Code: "echo fine\n"}
	for _, bomb := range []*verification.Candidate{
		{Name: "bomb", Filename: "bomb.sh", Code: memoryBomb},
		{Name: "lowered", Filename: "lowered.sh", Code: "echo 0 > /proc/self/oom_score_adj\n" + memoryBomb},
		// Memory no process holds: a System V segment filled to the
		// limit outlives the run, and the grader's steps after it find
		// no room (nor a process the OOM killer could free any by).
		{Name: "held", Filename: "held.sh", Code: heldSegment},
	} {
		for _, role := range []string{verification.RoleOriginal, verification.RoleSubmission} {
			r := c.Execute(t.Context(), bomb, role)
			t.Logf("%s on the %s: exit %d, passed %v, limit %q, harness %q, stderr %q", bomb.Name, role, r.ExitCode, r.Passed, r.LimitHit, r.Harness, r.Stderr)
			if r.Harness != "" || r.Fault || !strings.Contains(r.LimitHit, "memory") {
				t.Errorf("%s on the %s: %+v; want the run's own outcome at its memory limit", bomb.Name, role, r)
			}
			if r := c.Execute(t.Context(), ok, role); r.Harness != "" || !r.Passed {
				t.Errorf("the %s's run after %s: %+v", role, bomb.Name, r)
			}
		}
	}
}

// A candidate run that leaves a process taking every pid its container
// may have as soon as one is free is no harness error either: where the
// grader's clearing after it cannot start (the engine's exec joins the
// full pids cgroup: exit 126, on this machine's kernel since 2026-12-03),
// the run is its own failure with the pids limit recorded and the side's
// next run starts in a fresh container, as after the memory limit.
func TestContainerPidsHeldIsTheRuns(t *testing.T) {
	t.Parallel()
	c := kernelContainer(t, true, func(cfg *verification.ContainerConfig) { cfg.Pids = 64 })
	hold := &verification.Candidate{Name: "hold", Filename: "hold.sh",
		Code: "setsid sh -c 'while :; do sleep 120 & done' >/dev/null 2>&1 &\nsleep 2\nexit 0\n"}
	ok := &verification.Candidate{Name: "ok", Filename: "ok.sh", Code: "echo fine\n"}
	for _, role := range []string{verification.RoleOriginal, verification.RoleSubmission} {
		r := c.Execute(t.Context(), hold, role)
		t.Logf("hold on the %s: exit %d, passed %v, limit %q, harness %q, stderr %q", role, r.ExitCode, r.Passed, r.LimitHit, r.Harness, r.Stderr)
		if r.Harness != "" || r.Fault || !strings.Contains(r.LimitHit, "pids") {
			t.Errorf("hold on the %s: %+v; want the run's own outcome at its pids limit", role, r)
		}
		if r := c.Execute(t.Context(), ok, role); r.Harness != "" || !r.Passed {
			t.Errorf("the %s's run after hold: %+v", role, r)
		}
	}
}
