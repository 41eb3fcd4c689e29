package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// v1Cgroup makes a child of this process's cgroup in the cgroup v1
// hierarchy of controller ctl with its control file set to value (for
// the memory controller, memory.memsw.limit_in_bytes too where swap is
// accounted), removed after the test, and returns its folder; it skips
// where there is none to make (not root, cgroup v2 only).
func v1Cgroup(t *testing.T, ctl, file, value string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("moving a process into a cgroup needs root")
	}
	b, _ := os.ReadFile("/proc/self/cgroup")
	own := ""
	for _, line := range strings.Split(string(b), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && parts[1] == ctl {
			own = parts[2]
		}
	}
	if own == "" {
		t.Skipf("no cgroup v1 %s hierarchy here", ctl)
	}
	dir := filepath.Join("/sys/fs/cgroup", ctl, own, "srb-proctest-"+marker(t))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a %s cgroup: %v", ctl, err)
	}
	t.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			t.Errorf("the cgroup outlived its processes: %v", err)
		}
	})
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
		t.Fatal(err)
	}
	if ctl == "memory" {
		if err := os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte(value), 0); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return dir
}

// Spec.Cgroups: the init joins the cgroups before it starts the command,
// so the command, run as another user, and what it starts with setsid are
// born there (the group's cgroup.procs lists every one of them while they
// run; they read their group as "/", their cgroup namespace's root) and
// bound by its limit (a fork loop past pids.max fails, counted in
// pids.events), in both containments.
func TestCgroupsHoldTheCommand(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			dir := v1Cgroup(t, "pids", "pids.max", "24")
			m := marker(t)
			out := &lockedBuffer{}
			// The fork loop starts once the setsid child has read its
			// group (a fixed sleep was not enough on a loaded machine:
			// the loop took every pid first and the child's grep could
			// not start).
			seen, err := os.MkdirTemp("", "srb-cgroup-test-") // a folder uid 65534 reaches
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(seen) })
			if err := os.Chmod(seen, 0o777); err != nil {
				t.Fatal(err)
			}
			script := `grep pids /proc/self/cgroup; setsid sh -c 'grep pids /proc/self/cgroup; : >"$SEEN/child"; exec sleep 30' </dev/null &
n=0; while [ ! -e "$SEEN/child" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done
(i=0; while [ $i -lt 60 ]; do sleep 30 & i=$((i+1)); done) 2>/dev/null; echo ready; wait`
			p, err := Start(Spec{Argv: []string{"sh", "-c", script},
				Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m, "SEEN=" + seen}, Stdout: out, Stderr: out,
				Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}},
				Cgroups:    []string{filepath.Join(dir, "cgroup.procs")}})
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), "ready") && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			in := map[string]bool{}
			for _, pid := range strings.Fields(string(procs)) {
				in[pid] = true
			}
			running := survivors(m)
			if len(running) < 10 {
				t.Errorf("%d processes of the command running, want the init, the command, its setsid child and its sleeps (24 tasks, the init's threads among them)", len(running))
			}
			for _, pid := range running {
				if !in[strconv.Itoa(pid)] {
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
					t.Errorf("process %d of the command is not in the cgroup %s: %q", pid, dir, b)
				}
			}
			p.Kill()
			if e := p.Wait(); e.Err != nil {
				t.Fatalf("exit %+v, output %q", e, out.String())
			}
			if n := strings.Count(out.String(), ":pids:/\n"); n != 2 || strings.Count(out.String(), ":pids:") != 2 {
				t.Errorf("the command and its setsid child read %q, want their group as their cgroup namespace's root", out.String())
			}
			ev, _ := os.ReadFile(filepath.Join(dir, "pids.events"))
			if !strings.HasPrefix(string(ev), "max ") || strings.TrimSpace(string(ev)) == "max 0" {
				t.Errorf("pids.events %q: the fork loop past pids.max 24 was not bounded", ev)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v outlived the command", s)
			}
			procs, _ = os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if len(bytes.TrimSpace(procs)) > 0 {
				t.Errorf("processes %q are still in the cgroup after Run", procs)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A cgroup the init cannot join is a containment failure: the command
// does not run outside its bounds.
func TestCgroupRefusedStopsTheStart(t *testing.T) {
	var out bytes.Buffer
	e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo ran"}, Env: []string{"PATH=/usr/bin:/bin"},
		Stdout: &out, Stderr: &out, Cgroups: []string{filepath.Join(t.TempDir(), "no-such-cgroup", "cgroup.procs")}})
	if err == nil {
		err = e.Err
	}
	if err == nil || !strings.Contains(err.Error(), "outside its cgroup") || strings.Contains(out.String(), "ran") {
		t.Errorf("exit %+v, error %v, output %q: want a containment error and no run", e, err, out.String())
	}
}

// hasCapSysResource says whether this process may lower an OOM score
// (CAP_SYS_RESOURCE, which root lacks in some containers).
func hasCapSysResource() bool {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && n&(1<<24) != 0
		}
	}
	return false
}

// Many small processes past a memory cgroup's limit: the OOM killer
// chose the init (a Go program, the largest process there), whose death
// ended the containment, a fault of the grader that the command chose.
// With CAP_SYS_RESOURCE the init is exempt and reports how the command
// ended; without it an init the OOM killer ended is ErrInitKilled with
// SIGKILL, which engine.Local reads with its cgroup's OOM count.
func TestInitUnderMemoryPressure(t *testing.T) {
	dir := v1Cgroup(t, "memory", "memory.limit_in_bytes", strconv.Itoa(40<<20))
	m := marker(t)
	var out bytes.Buffer
	// Each shell holds about 2 MB; 60 of them are past 40 MiB.
	script := `i=0; while [ $i -lt 60 ]; do sh -c 'x=$(head -c 2000000 /dev/zero | tr "\\0" a); sleep 20' & i=$((i+1)); done; sleep 5; echo done`
	e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", script},
		Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}, Stdout: &out, Stderr: &out,
		Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}},
		Cgroups:    []string{filepath.Join(dir, "cgroup.procs")}})
	if err == nil {
		err = e.Err
	}
	switch {
	case err == nil:
	case hasCapSysResource():
		t.Errorf("the init was not exempt from the OOM killer: %v (exit %+v)", err, e)
	case !errors.Is(err, ErrInitKilled) || e.Signal != syscall.SIGKILL:
		t.Errorf("the containment failed otherwise than by its init's kill: %v (exit %+v)", err, e)
	}
	oc, _ := os.ReadFile(filepath.Join(dir, "memory.oom_control"))
	if !strings.Contains(string(oc), "oom_kill ") || strings.Contains(string(oc), "oom_kill 0") {
		t.Errorf("memory.oom_control %q: the command never reached the limit, so this proves nothing", oc)
	}
	if s := survivors(m); len(s) > 0 {
		t.Fatalf("%v outlived the command", s)
	}
}

// ownCgroupNames returns the names in this process's cgroup paths
// (/proc/self/cgroup: "process_api", "e01d…" for 4:memory:/process_api/e01d…):
// none may be seen by a command with a cgroup namespace of its own.
func ownCgroupNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 {
			for _, n := range strings.Split(parts[2], "/") {
				if n != "" && n != "." && n != ".." {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// A command that joins cgroups (Spec.Cgroups) reads "/" for each of them
// in /proc/self/cgroup, as a setsid child of it does: it runs in a cgroup
// namespace rooted at its groups, and learns no name of the cgroups above
// them (srb's own, where srb keeps its groups, and srb's parents). Before,
// it read 4:memory:/<srb's cgroup>/srb-… in full. Spec.CgroupNS alone
// does the same for a command that joins none (rooted where srb runs).
// Both containments.
func TestCgroupNamespaceHidesTheGrader(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			pids := v1Cgroup(t, "pids", "pids.max", "64")
			mem := v1Cgroup(t, "memory", "memory.limit_in_bytes", strconv.Itoa(256<<20))
			hidden := append(ownCgroupNames(t), filepath.Base(pids), filepath.Base(mem))
			script := `cat /proc/self/cgroup; setsid sh -c 'cat /proc/self/cgroup'; cat /proc/1/cgroup 2>/dev/null; grep cgroup /proc/self/mountinfo; true`
			for _, spec := range []Spec{
				{Cgroups: []string{filepath.Join(pids, "cgroup.procs"), filepath.Join(mem, "cgroup.procs")}},
				{CgroupNS: true},
			} {
				var out bytes.Buffer
				spec.Argv, spec.Env, spec.Stdout, spec.Stderr = []string{"sh", "-c", script}, []string{"PATH=/usr/bin:/bin"}, &out, &out
				spec.Credential = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
				e, err := Run(context.Background(), spec)
				if err == nil {
					err = e.Err
				}
				if err != nil || e.Code != 0 {
					t.Fatalf("cgroups %v: exit %+v, err %v, output %q", spec.Cgroups, e, err, out.String())
				}
				for _, n := range hidden {
					if strings.Contains(out.String(), n) {
						t.Errorf("cgroups %v: the command saw %q:\n%s", spec.Cgroups, n, out.String())
					}
				}
				for _, ctl := range []string{"pids", "memory"} {
					if got := strings.Count(out.String(), ":"+ctl+":/\n"); got < 2 {
						t.Errorf("cgroups %v: %d of the command's lines read %s:/, want its own and its setsid child's:\n%s", spec.Cgroups, got, ctl, out.String())
					}
				}
			}
		})
	}
}

// With a cgroup namespace and a mount namespace of its own (as root),
// the command finds /sys/fs/cgroup empty: its folders name every cgroup
// of the machine (srb's, its groups, other srb's groups), which a listing
// gave away whatever /proc/self/cgroup said. The machine's own mounts are
// untouched.
func TestCgroupFSHidden(t *testing.T) {
	mem := v1Cgroup(t, "memory", "memory.limit_in_bytes", strconv.Itoa(256<<20))
	hidden := append(ownCgroupNames(t), filepath.Base(mem))
	for _, spec := range []Spec{{Cgroups: []string{filepath.Join(mem, "cgroup.procs")}}, {CgroupNS: true}} {
		var out bytes.Buffer
		spec.Argv, spec.Env, spec.Stdout, spec.Stderr = []string{"sh", "-c", "find /sys/fs/cgroup 2>&1; echo end"}, []string{"PATH=/usr/bin:/bin"}, &out, &out
		spec.Credential = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
		e, err := Run(context.Background(), spec)
		if err == nil {
			err = e.Err
		}
		if err != nil || e.Code != 0 {
			t.Fatalf("exit %+v, err %v, output %q", e, err, out.String())
		}
		if !e.PrivateProc {
			t.Skip("no mount namespace of the command's own here")
		}
		if out.String() != "/sys/fs/cgroup\nend\n" {
			t.Errorf("cgroups %v: the command found in /sys/fs/cgroup:\n%s", spec.Cgroups, out.String())
		}
		for _, n := range hidden {
			if strings.Contains(out.String(), n) {
				t.Errorf("cgroups %v: the command saw %q", spec.Cgroups, n)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(mem, "cgroup.procs")); err != nil {
		t.Errorf("the machine's cgroup file system: %v", err)
	}
}
