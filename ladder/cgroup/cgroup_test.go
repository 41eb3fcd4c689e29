package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PlanFor: cgroup v1's memory and pids hierarchies are used under
// srb's own cgroup; cgroup v2 needs a delegated parent, and says so.
func TestPlanFor(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("plans cgroups only as root")
	}
	root := t.TempDir()
	for _, d := range []string{"memory/a/b", "pids/c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "cgroup.procs"), nil, 0o644)
	}
	p := PlanFor("9:name=systemd:/\n8:pids:/c\n4:memory:/a/b\n0::/\n", root, "")
	if p.Why != "" || p.V1["memory"] != filepath.Join(root, "memory/a/b") || p.V1["pids"] != filepath.Join(root, "pids/c") {
		t.Errorf("cgroup v1 plan %+v", p)
	}
	v2 := t.TempDir()
	os.WriteFile(filepath.Join(v2, "cgroup.controllers"), []byte("memory pids"), 0o644)
	if p := PlanFor("0::/user.slice\n", v2, ""); p.Why == "" || !strings.Contains(p.Why, ParentEnv) {
		t.Errorf("cgroup v2 without a parent: %+v, want why naming %s", p, ParentEnv)
	}
	if p := PlanFor("0::/user.slice\n", v2, "/sys/fs/cgroup/srb"); p.Why != "" || p.V2 != "/sys/fs/cgroup/srb" {
		t.Errorf("cgroup v2 with a parent: %+v", p)
	}
	if p := PlanFor("0::/\n", t.TempDir(), ""); p.Why == "" {
		t.Errorf("no cgroup file system: %+v, want why", p)
	}
}
