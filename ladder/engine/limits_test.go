package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestCgroupCounts(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// cgroup v1: one line per hierarchy.
	write(dir+"/v1", "9:name=systemd:/docker/abc\n8:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n")
	write(dir+"/root/pids/docker/abc/pids.events", "max 17\n")
	write(dir+"/root/memory/docker/abc/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
	write(dir+"/root/memory/docker/abc/memory.max_usage_in_bytes", "1000\n")
	write(dir+"/root/memory/docker/abc/memory.memsw.max_usage_in_bytes", "268435456\n")
	if oom, peak, pids := cgroupCounts(dir+"/v1", dir+"/root"); oom != 2 || peak != 268435456 || pids != 17 {
		t.Errorf("v1: oom kills %d, memory peak %d, pids max %d; want 2, 268435456 and 17", oom, peak, pids)
	}
	// Without swap accounting, the memory counter's peak.
	os.Remove(dir + "/root/memory/docker/abc/memory.memsw.max_usage_in_bytes")
	if _, peak, _ := cgroupCounts(dir+"/v1", dir+"/root"); peak != 1000 {
		t.Errorf("v1 without memsw: memory peak %d, want 1000", peak)
	}
	// cgroup v2: the unified line.
	write(dir+"/v2", "0::/system.slice/docker-abc.scope\n")
	write(dir+"/root2/system.slice/docker-abc.scope/pids.events", "max 0\n")
	write(dir+"/root2/system.slice/docker-abc.scope/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
	write(dir+"/root2/system.slice/docker-abc.scope/memory.peak", "4096\n")
	if oom, peak, pids := cgroupCounts(dir+"/v2", dir+"/root2"); oom != 1 || peak != 4096 || pids != 0 {
		t.Errorf("v2: oom kills %d, memory peak %d, pids max %d; want 1, 4096 and 0", oom, peak, pids)
	}
	// Nothing readable: unknown, not zero.
	if oom, mem, pids := cgroupCounts(dir+"/missing", dir+"/root"); oom != -1 || mem != -1 || pids != -1 {
		t.Errorf("missing: %d, %d, %d; want -1, -1, -1", oom, mem, pids)
	}
	h := LimitHits{OOMKills: 0, PidsMax: 3}
	if !h.Hit() || h.Note() != "the stage container reached its process limit (3 fork(s) failed)" {
		t.Errorf("hits %+v: note %q", h, h.Note())
	}
}

// A fork loop in a real pids cgroup (v1, as root): the failed forks are
// counted where a container's would be.
func TestCgroupCountsForkLoop(t *testing.T) {
	cg := "/sys/fs/cgroup/pids/srb-limits-test-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("no writable v1 pids cgroup: %v", err)
	}
	defer func() {
		// A cgroup stays busy a moment while its last task exits.
		for i := 0; i < 250 && os.Remove(cg) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if err := os.WriteFile(cg+"/pids.max", []byte("8"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The shell joins the cgroup, saves where it is, then tries to start
	// 20 sleepers at once.
	where := filepath.Join(t.TempDir(), "cgroup")
	script := `echo $$ > ` + cg + `/cgroup.procs; cat /proc/$$/cgroup > ` + where +
		`; i=0; while [ $i -lt 20 ]; do sleep 2 & i=$((i+1)); done 2>/dev/null; kill $(jobs -p) 2>/dev/null; wait`
	if out, err := exec.Command("/bin/sh", "-c", script).CombinedOutput(); err != nil {
		t.Logf("fork loop: %v %s", err, out)
	}
	if _, err := os.Stat(cg + "/pids.events"); err != nil {
		t.Skip("pids.events is not there on this kernel")
	}
	oom, _, pids := cgroupCounts(where, "/sys/fs/cgroup")
	if pids <= 0 || oom != -1 && oom != 0 {
		t.Errorf("pids max %d after 20 forks against a limit of 8, want > 0 (oom kills %d, want 0 or unknown)", pids, oom)
	}
}

// TestProcOptions: the superblock options of the /proc mount are read
// from the field after the separator's type and source, not from the
// per-mount options, and a line of another mount point is not taken.
func TestProcOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mountinfo")
	table := `881 880 0:80 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/a
882 881 0:83 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw,hidepid=invisible
883 882 0:84 / /proc/bus ro,nosuid - proc proc rw
884 881 0:85 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
`
	if err := os.WriteFile(file, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := procOptions(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"rw", "hidepid=invisible"}; !slices.Equal(got, want) {
		t.Errorf("options %q, want %q", got, want)
	}
	stacked := table + "885 882 0:86 / /proc rw,nosuid - proc proc rw,hidepid=invisible,gid=100000\n"
	if err := os.WriteFile(file, []byte(stacked), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := procOptions(file); err != nil || !slices.Equal(got, []string{"rw", "hidepid=invisible", "gid=100000"}) {
		t.Errorf("stacked mounts at /proc: options %q, %v, want the last (the one on top)", got, err)
	}
	if err := os.WriteFile(file, []byte("884 881 0:85 / /dev rw - tmpfs tmpfs rw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := procOptions(file); err == nil {
		t.Error("a table with no /proc mount gave options")
	}
}

// TestRootGroupIn: the machine's gid of a namespace's group 0, from its
// gid_map: 0 without remapping, the remapped base with userns-remap, an
// error when no line maps gid 0.
func TestRootGroupIn(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gid_map")
	for _, c := range []struct {
		table string
		want  int
		ok    bool
	}{
		{"         0          0 4294967295\n", 0, true},
		{"         0     100000      65536\n", 100000, true},
		{"      1000       1000          1\n         0     231072      65536\n", 231072, true},
		{"      1000       1000          1\n", 0, false},
		{"", 0, false},
	} {
		if err := os.WriteFile(file, []byte(c.table), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := rootGroupIn(file)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("gid_map %q: %d, %v; want %d (ok %v)", c.table, got, err, c.want, c.ok)
		}
	}
}
