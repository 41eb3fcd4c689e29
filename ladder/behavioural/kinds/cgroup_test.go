package kinds

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-refactor-bench/srb/ladder/behavioural"
	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// jailWithCgroup is a --host jail (root, mount namespace) carrying a
// cgroup group with memory bytes and pids tasks, removed at the end; it
// skips where this machine cannot make one.
func jailWithCgroup(t *testing.T, memory, pids int64) *module {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the jail and its cgroup need root")
	}
	plan := cgroup.Here("")
	if _, why := plan.How(); why != "" {
		t.Skipf("no cgroup here: %s", why)
	}
	root := searchableTempDir(t)
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.Cgroup, err = cgroup.New(plan, "kinds-test", memory, pids); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := j.Cgroup.Remove(); err != nil {
			t.Errorf("the group stayed: %v", err)
		}
	})
	return &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}}
}

// A case of many small processes past the jail's memory limit: whatever
// the OOM killer chose (the process init among them, where srb cannot
// exempt it: on this project's machine it does choose the init), the
// case is the submission's killed process, never a harness fault, and
// the kill is counted in the group. Without the rule an init killed at
// the limit made the verdict invalid, a fault the submission chose.
func TestRunProcJailedMemoryBombIsTheSubmissions(t *testing.T) {
	m := jailWithCgroup(t, 40<<20, 1024)
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	script := `i=0; while [ $i -lt 60 ]; do setsid sh -c 'x=$(head -c 2000000 /dev/zero | tr "\0" a); sleep 20' & i=$((i+1)); done; sleep 5; echo done`
	r := m.runProc([]string{"sh", "-c", script}, dir, m.baseEnv(), nil, 60*time.Second)
	if r.Err != nil || m.harness != "" {
		t.Fatalf("a memory bomb at the limit was a harness fault: %v (harness %q, result %+v)", r.Err, m.harness, r)
	}
	if c := m.jail().Cgroup.Counts(); c.OOMKills < 1 {
		t.Errorf("counts %+v: the bomb never reached the limit, so this proves nothing", c)
	}
	t.Logf("exit %d signal %q stdout %q", r.Exit, r.Signal, r.Stdout)
}

// A fork bomb in a case is bounded by the jail's pids limit (counted),
// not by RLIMIT_NPROC alone, and leaves nothing running.
func TestRunProcJailedForkBombBounded(t *testing.T) {
	m := jailWithCgroup(t, 256<<20, 64)
	dir, err := m.scratch("case")
	if err != nil {
		t.Fatal(err)
	}
	script := `i=0; while [ $i -lt 500 ]; do setsid sleep 30 2>/dev/null & i=$((i+1)); done 2>/dev/null; echo done`
	r := m.runProc([]string{"sh", "-c", script}, dir, m.baseEnv(), nil, 60*time.Second)
	if r.Err != nil || m.harness != "" {
		t.Fatalf("a fork bomb was a harness fault: %v (harness %q)", r.Err, m.harness)
	}
	if c := m.jail().Cgroup.Counts(); c.PidsMax < 1 {
		t.Errorf("counts %+v: no fork was refused at the group's pids limit", c)
	}
	if b, _ := os.ReadFile(filepath.Join(m.jail().Cgroup.Pids, "cgroup.procs")); strings.TrimSpace(string(b)) != "" {
		t.Errorf("processes outlived the case: %q", b)
	}
}

// The process init joins the jail's group with the submission, so it
// shares its pids limit: a program that keeps the group full (zombies
// it never reaps, refilled as they are freed) for seconds must not make
// the init (a Go program, which may need a thread of its own) fail,
// which would be a harness fault the submission chose. Traced (a build)
// and not.
func TestRunProcJailedInitSurvivesFullPids(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("the bomb is a perl program")
	}
	bomb := `my $end = time + 3; my $n = 0; while (time < $end) { my $p = fork; if (!defined $p) { $n++ } elsif ($p == 0) { sleep 1; exit 0 } } print "done $n\n"`
	for _, trace := range []bool{false, true} {
		m := jailWithCgroup(t, 512<<20, 64)
		dir, err := m.scratch("case")
		if err != nil {
			t.Fatal(err)
		}
		r := m.runProcTraced([]string{"perl", "-e", bomb}, dir, m.baseEnv(), nil, 30*time.Second, trace)
		if r.Err != nil || m.harness != "" || r.Exit != 0 || !strings.HasPrefix(string(r.Stdout), "done ") {
			t.Errorf("traced %v: exit %d, error %v, harness %q, stdout %q", trace, r.Exit, r.Err, m.harness, r.Stdout)
		}
		if c := m.jail().Cgroup.Counts(); c.PidsMax < 100 {
			t.Errorf("traced %v: counts %+v: the group was not kept full", trace, c)
		}
	}
}

// A process of the submission with --host as root learns no name of
// srb's cgroups (where srb runs, and keeps the stage run's group) nor of
// the stage run's group: its /proc/self/cgroup, a setsid child's and the
// cgroup mounts in /proc/self/mountinfo show the group as "/" (the root of
// its cgroup namespace) and what is above it as "/.." steps, and
// /sys/fs/cgroup, whose folders name every cgroup of the machine, is
// empty, in a jail with a group and in one without (rooted where srb
// runs). Before, it read 4:memory:/<srb's cgroup>/srb-kinds-test-… in
// full, and found every srb's groups by listing /sys/fs/cgroup.
func TestRunProcJailedCgroupPathHidden(t *testing.T) {
	withGroup := jailWithCgroup(t, 256<<20, 256)
	root := searchableTempDir(t)
	j, err := behavioural.NewJail(filepath.Join(root, "sandbox"), root, behavioural.SubmissionUID, behavioural.SubmissionGID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	without := &module{plan: &behavioural.Plan{Module: "m", Helper: []string{os.Args[0]}, Jail: j}}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 {
			for _, n := range strings.Split(parts[2], "/") {
				if n != "" {
					hidden = append(hidden, n)
				}
			}
		}
	}
	for _, d := range withGroup.jail().Cgroup.Dirs {
		hidden = append(hidden, filepath.Base(d))
	}
	for what, m := range map[string]*module{"with the stage's group": withGroup, "without one": without} {
		dir, err := m.scratch("case")
		if err != nil {
			t.Fatal(err)
		}
		script := `cat /proc/self/cgroup; setsid sh -c 'cat /proc/self/cgroup' </dev/null; grep cgroup /proc/self/mountinfo; find /sys/fs/cgroup -maxdepth 4 2>&1; true`
		r := m.runProc([]string{"sh", "-c", script}, dir, m.baseEnv(), nil, 30*time.Second)
		out := string(r.Stdout)
		if r.Err != nil || r.Exit != 0 || strings.Count(out, ":memory:/\n") != 2 {
			t.Fatalf("%s: exit %d, error %v, stdout %q, stderr %q", what, r.Exit, r.Err, out, r.Stderr)
		}
		for _, n := range hidden {
			if strings.Contains(out, n) {
				t.Errorf("%s: the submission's process saw %q:\n%s", what, n, out)
			}
		}
	}
}
