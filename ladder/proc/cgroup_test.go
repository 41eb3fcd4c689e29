package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
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
// born there and bound by its limit (a fork loop past pids.max fails,
// counted in pids.events), in both containments.
func TestCgroupsHoldTheCommand(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			dir := v1Cgroup(t, "pids", "pids.max", "24")
			m := marker(t)
			var out bytes.Buffer
			script := `grep pids /proc/self/cgroup; setsid sh -c 'grep pids /proc/self/cgroup'
i=0; while [ $i -lt 60 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null`
			e, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", script},
				Env: []string{"PATH=/usr/bin:/bin", "MARK=" + m}, Stdout: &out, Stderr: &out,
				Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}},
				Cgroups:    []string{filepath.Join(dir, "cgroup.procs")}})
			// The shell exits 2 when a fork fails.
			if err != nil || e.Err != nil {
				t.Fatalf("exit %+v, err %v, output %q", e, err, out.String())
			}
			want := strings.TrimPrefix(dir, "/sys/fs/cgroup/pids")
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) < 2 || !strings.HasSuffix(lines[0], ":pids:"+want) || !strings.HasSuffix(lines[1], ":pids:"+want) {
				t.Errorf("the command and its setsid child are in %q, want the cgroup %s", lines, want)
			}
			ev, _ := os.ReadFile(filepath.Join(dir, "pids.events"))
			if !strings.HasPrefix(string(ev), "max ") || strings.TrimSpace(string(ev)) == "max 0" {
				t.Errorf("pids.events %q: the fork loop past pids.max 24 was not bounded", ev)
			}
			if s := survivors(m); len(s) > 0 {
				t.Fatalf("%v outlived the command", s)
			}
			procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if len(bytes.TrimSpace(procs)) > 0 {
				t.Errorf("processes %q are still in the cgroup after Run", procs)
			}
		})
	}
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
