package proc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// pidsCgroup makes a child of this process's cgroup v1 pids cgroup with
// pids.max n, removed after the test, and returns its folder; it skips
// where there is none to make (not root, cgroup v2 only).
func pidsCgroup(t *testing.T, n string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("moving a process into a cgroup needs root")
	}
	b, _ := os.ReadFile("/proc/self/cgroup")
	own := ""
	for _, line := range strings.Split(string(b), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && parts[1] == "pids" {
			own = parts[2]
		}
	}
	root := "/sys/fs/cgroup/pids"
	if own == "" {
		t.Skip("no cgroup v1 pids hierarchy here")
	}
	dir := filepath.Join(root, own, "srb-proctest-"+marker(t))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a pids cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			t.Errorf("the cgroup outlived its processes: %v", err)
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(n), 0); err != nil {
		t.Fatal(err)
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
			dir := pidsCgroup(t, "24")
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
