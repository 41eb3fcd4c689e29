package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// cgroupSession starts a Local session with spec's limits in a cgroup of
// its own, or skips where this machine cannot give it one.
func cgroupSession(t *testing.T, spec Spec) (*Local, *Session) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the Local backend makes cgroups only as root")
	}
	l := &Local{}
	if how, why := l.CgroupLimits(); how == "" {
		t.Skipf("no cgroup for a session here: %s", why)
	}
	return l, startSession(t, l, spec)
}

// On --host a session's processes together are bounded as a container's
// are: a program past the session's memory is ended by the OOM killer, a
// fork loop past its pids fails, both counted by LimitHits; processes
// started with setsid are in the same cgroup; the cgroups are gone with
// the session. (Without them a stage-3 candidate or the submission's
// program on --host could take all of this machine's memory.)
func TestLocalCgroupLimits(t *testing.T) {
	_, s := cgroupSession(t, Spec{Memory: 64 << 20, Pids: 40})
	before, err := s.LimitHits(t.Context())
	if err != nil || before.OOMKills != 0 || before.PidsMax != 0 || before.Hit() {
		t.Fatalf("a fresh session's limit hits %+v, %v: want zero counts", before, err)
	}
	c := s.c.(*localContainer)
	if c.cg == nil || len(c.cg.Dirs) == 0 {
		t.Fatal("the session has no cgroup")
	}
	dirs := c.cg.Dirs

	r := sh(t, s, `setsid sh -c 'cat /proc/self/cgroup' </dev/null`)
	for _, d := range dirs {
		// The command's cgroup namespace is rooted at the session's
		// cgroups (the init joined them, then made it): a process in
		// them reads "N:<controller>:/", one anywhere else would read
		// a path.
		ctl, _, _ := strings.Cut(strings.TrimPrefix(d, cgroup.Root+"/"), "/")
		if !strings.Contains(string(r.Stdout), ":"+ctl+":/\n") {
			t.Errorf("a setsid process is in %q, not in the session's cgroup %s", r.Stdout, d)
		}
	}

	r = sh(t, s, `perl -e '$x = "a" x (256 << 20); print "survived\n"'`)
	if r.ExitCode == 0 || strings.Contains(string(r.Stdout), "survived") {
		t.Errorf("a program past the session's 64 MiB: exit %d, %q", r.ExitCode, r.Stdout)
	}
	h, _ := s.LimitHits(t.Context())
	if !h.OOMKilled || h.OOMKills < 1 {
		t.Errorf("after a program past the memory limit: %+v, want an OOM kill counted", h)
	}

	r = sh(t, s, `i=0; while [ $i -lt 80 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null`)
	h, _ = s.LimitHits(t.Context())
	if h.PidsMax < 1 {
		t.Errorf("after a fork loop past 40 tasks (exit %d): %+v, want refused forks counted", r.ExitCode, h)
	}

	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the session's cgroup %s outlived it: %v", d, err)
		}
	}
}

// A session with no limit gets no cgroup, and its limit hits are
// unknown, never a zero that reads as "bounded, not reached".
func TestLocalNoLimitsNoCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the Local backend makes cgroups only as root")
	}
	s := startSession(t, &Local{}, Spec{})
	if c := s.c.(*localContainer); c.cg != nil {
		t.Errorf("a session without limits has cgroups %v", c.cg.Dirs)
	}
	if h, _ := s.LimitHits(t.Context()); h.OOMKills != -1 || h.PidsMax != -1 {
		t.Errorf("limit hits %+v, want -1 (not enforced)", h)
	}
}

// A command of many small processes past the session's memory: whatever
// the OOM killer chose (the command's init among them, where srb cannot
// exempt it), the Exec is the command's result, killed (exit 137 or its
// own status), the limit hit counted, never an error of the grader.
func TestLocalMemoryBombIsTheCommands(t *testing.T) {
	_, s := cgroupSession(t, Spec{Memory: 40 << 20, Pids: 1024})
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"sh", "-c",
		`i=0; while [ $i -lt 60 ]; do sh -c 'x=$(head -c 2000000 /dev/zero | tr "\\0" a); sleep 20' & i=$((i+1)); done; sleep 5; echo done`}})
	if err != nil {
		t.Fatalf("a memory bomb was an error of the grader: %v", err)
	}
	h, _ := s.LimitHits(t.Context())
	if h.OOMKills < 1 {
		t.Errorf("exit %d, limit hits %+v: want OOM kills counted", r.ExitCode, h)
	}
}

// Sessions of one fixed root folder (Local.Root, stage 1's run tool) in
// two srb processes at once: each gets cgroups of its own.
func TestLocalCgroupsOfAFixedRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the Local backend makes cgroups only as root")
	}
	if how, why := (&Local{}).CgroupLimits(); how == "" {
		t.Skipf("no cgroup for a session here: %s", why)
	}
	open := func() string { // t.TempDir's folder is closed to others
		dir, err := os.MkdirTemp("/tmp", "srb-test-root-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o711)
		return filepath.Join(dir, "root")
	}
	a := startSession(t, &Local{Root: open()}, Spec{Pids: 64})
	b := startSession(t, &Local{Root: open()}, Spec{Pids: 64})
	ca, cb := a.c.(*localContainer).cg, b.c.(*localContainer).cg
	if ca == nil || cb == nil || ca.Dirs[0] == cb.Dirs[0] {
		t.Fatalf("two sessions named root: cgroups %v and %v", ca, cb)
	}
}

// cgroupNames returns the names in the cgroup paths of /proc/self/cgroup
// ("process_api", "e01d…" for 4:memory:/process_api/e01d…).
func cgroupNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 {
			for _, n := range strings.Split(parts[2], "/") {
				if n != "" {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// A session's command on --host as root learns no name of srb's cgroups
// (where srb runs, and so where it keeps its groups) nor of its session's
// group: its /proc/self/cgroup, a setsid child's, its init's
// (/proc/1/cgroup) and the cgroup mounts in /proc/self/mountinfo show
// the session's cgroups as "/" (the root of the command's cgroup
// namespace) and what is above them as "/.." steps, and /sys/fs/cgroup,
// whose folders name every cgroup of the machine, is empty. So too a
// session without limits, rooted where srb runs. Before, the command read
// 4:memory:/<srb's cgroup>/srb-session-… in full, and found every srb's
// groups by listing /sys/fs/cgroup.
func TestLocalCgroupPathHidden(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a cgroup namespace per command is made as root")
	}
	_, limited := cgroupSession(t, Spec{Memory: 64 << 20, Pids: 40})
	free := startSession(t, &Local{}, Spec{})
	hidden := cgroupNames(t)
	for _, d := range limited.c.(*localContainer).cg.Dirs {
		hidden = append(hidden, filepath.Base(d))
	}
	for what, s := range map[string]*Session{"a session with limits": limited, "a session without": free} {
		r := sh(t, s, `cat /proc/self/cgroup; setsid sh -c 'cat /proc/self/cgroup' </dev/null; cat /proc/1/cgroup; grep cgroup /proc/self/mountinfo; find /sys/fs/cgroup -maxdepth 4 2>&1; true`)
		out := string(r.Stdout)
		if r.ExitCode != 0 || !strings.Contains(out, ":memory:/\n") {
			t.Fatalf("%s: exit %d, %q %q", what, r.ExitCode, out, r.Stderr)
		}
		for _, n := range hidden {
			if strings.Contains(out, n) {
				t.Errorf("%s: the command saw %q:\n%s", what, n, out)
			}
		}
	}
}
