package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLimitHitsInContainer: a fork loop past the pids limit and a shell
// that grows past the memory limit are both read back as hits.
func TestLimitHitsInContainer(t *testing.T) {
	_, s := startTools(t, Spec{Pids: 32, Memory: 64 << 20})
	h, err := s.LimitHits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Hit() {
		t.Fatalf("a fresh container reached its limits: %+v", h)
	}
	sh(t, s, `i=0; while [ $i -lt 80 ]; do sleep 3 & i=$((i+1)); done 2>/dev/null; kill $(jobs -p) 2>/dev/null; echo forked`)
	h, err = s.LimitHits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.PidsMax == -1 {
		t.Skip("the container's pids cgroup is not readable here")
	}
	if h.PidsMax <= 0 {
		t.Errorf("after 80 forks against a limit of 32: %+v", h)
	}
	// The shell gives up at its first failed fork and leaves the sleeps it
	// started running; until they end, no exec can start in the container
	// (runc: "read init-p: connection reset by peer", exit 126).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if r := sh(t, s, "true"); r.ExitCode == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the container's forked sleeps never ended")
		}
	}
	r := sh(t, s, `x=aaaaaaaaaaaaaaaa; while :; do x="$x$x"; done`)
	h, _ = s.LimitHits(t.Context())
	if !h.OOMKilled || h.OOMKills < 1 || r.ExitCode != 137 {
		t.Errorf("after growing past 64 MiB: exit %d, hits %+v; want 137 and an OOM kill", r.ExitCode, h)
	}
	if n := h.Note(); !strings.Contains(n, "memory limit") || !strings.Contains(n, "process limit") {
		t.Errorf("note %q", n)
	}
}

// TestProcInContainer runs ladder/proc's leak test inside a container (no
// CAP_SYS_ADMIN: the namespaces are refused and the init is a
// subreaper): nothing a setsid'd or double-forked process left survives
// there either.
func TestProcInContainer(t *testing.T) {
	_, s := startTools(t, Spec{})
	bin := filepath.Join(t.TempDir(), "proctest")
	build := exec.Command("go", "test", "-c", "-o", bin, "../../ladder/proc")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the proc tests: %v %s", err, out)
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid on this host")
	}
	for host, ctr := range map[string]string{bin: "/bin/proctest", setsid: "/bin/setsid"} {
		if err := s.CopyIn(t.Context(), host, ctr); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"/bin/proctest", "-test.v", "-test.run",
		"TestSetsidDoubleForkIsGone$|TestExitStatusAndStreams|TestTerminateAndKill"}, WorkDir: "/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(r.Stdout) + string(r.Stderr)
	if r.ExitCode != 0 || !strings.Contains(out, "containment subreaper") {
		t.Errorf("exit %d:\n%s", r.ExitCode, out)
	}
}

// TestCPULimitInContainer: Limits.CPUs reaches the container's CPU
// controller as that many CPUs of quota per period (cgroup v2 cpu.max,
// v1 cpu.cfs_quota_us over cpu.cfs_period_us).
func TestCPULimitInContainer(t *testing.T) {
	var spec Spec
	Limits{Pids: 1024, Memory: 256 << 20, CPUs: 1}.Apply(&spec)
	_, s := startTools(t, spec)
	r := sh(t, s, `if [ -r /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max; else echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"; fi`)
	f := strings.Fields(string(r.Stdout))
	if r.ExitCode != 0 || len(f) != 2 || f[0] != f[1] {
		t.Errorf("one CPU: the container's quota and period are %q (exit %d), want equal numbers", r.Stdout, r.ExitCode)
	}
}

// tcpHog is a program that opens 40 loopback connections, fills each
// until the kernel takes no more, never reads, and prints how many bytes
// the kernel queued.
const tcpHog = `package main

import (
	"fmt"
	"net"
	"syscall"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var keep []net.Conn
	total := 0
	chunk := make([]byte, 65536)
	for i := 0; i < 40; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		p, err := ln.Accept()
		if err != nil {
			break
		}
		keep = append(keep, c, p)
		raw, _ := c.(*net.TCPConn).SyscallConn()
		raw.Control(func(fd uintptr) {
			syscall.SetNonblock(int(fd), true)
			for {
				n, err := syscall.Write(int(fd), chunk)
				if err != nil || n <= 0 {
					return
				}
				total += n
			}
		})
	}
	fmt.Println(total)
	_ = keep
}
`

// On cgroup v1 Docker sets no TCP buffer limit, and v1 charges socket
// buffers to no limit without one: a container's processes could hold
// the machine's TCP memory (net.ipv4.tcp_mem) in buffers nobody reads,
// past the container's memory limit. Start sets the container's memory
// limit as its TCP limit (memory.kmem.tcp.limit_in_bytes), as
// engine.Local does for its sessions (TestLocalTCPBuffersBounded).
func TestContainerTCPBuffersBounded(t *testing.T) {
	const limit = 32 << 20
	_, s := startTools(t, Spec{Memory: limit, Pids: 64})
	if why := s.Hardening().TCPLimit; why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(tcpHog), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tcphog")
	build := exec.Command("go", "build", "-o", bin, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the TCP program: %v %s", err, out)
	}
	if err := s.CopyIn(t.Context(), bin, "/bin/tcphog"); err != nil {
		t.Fatal(err)
	}
	r, err := s.Exec(t.Context(), ExecSpec{Argv: []string{"/bin/tcphog"}, User: "65532"})
	if err != nil {
		t.Fatal(err)
	}
	queued, err := strconv.ParseInt(strings.TrimSpace(string(r.Stdout)), 10, 64)
	if err != nil {
		t.Fatalf("exit %d, %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	t.Logf("queued %d MiB in TCP buffers under a %d MiB limit", queued>>20, limit>>20)
	if queued > 2*limit {
		t.Errorf("a container with a %d MiB limit held %d MiB in TCP buffers", limit>>20, queued>>20)
	}
}

// An exec with OOMFirst starts its command at oom_score_adj 1000, the
// OOM killer's first choice, and any other at the container's; where
// Start could exempt the container's own processes (Hardening.OOMGuard
// ""), they read -1000.
func TestExecOOMFirst(t *testing.T) {
	_, s := startTools(t, Spec{Memory: 64 << 20})
	first := sh(t, s, "cat /proc/self/oom_score_adj", func(es *ExecSpec) { es.OOMFirst, es.User = true, "65532" })
	plain := sh(t, s, "cat /proc/self/oom_score_adj", func(es *ExecSpec) { es.User = "65532" })
	if got := strings.TrimSpace(string(first.Stdout)); first.ExitCode != 0 || got != "1000" || first.Unstarted {
		t.Errorf("OOMFirst: %q (exit %d)", got, first.ExitCode)
	}
	if got := strings.TrimSpace(string(plain.Stdout)); got == "1000" {
		t.Errorf("without OOMFirst: %q", got)
	}
	// The processes the guard exempts are the container's own, all of
	// them (docker-init and its sleep), whether or not it may here.
	c := s.c.(*dockerContainer)
	pid, _, err := c.localPID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := descendants(pid); len(got) != len(c.own) || len(got) != 2 {
		t.Errorf("the container's own processes on this machine: %v; it listed %v", got, c.own)
	}
	h := s.Hardening()
	t.Logf("hardening: %+v", h)
	if h.OOMGuard != "" {
		return
	}
	if got := strings.TrimSpace(string(sh(t, s, "cat /proc/1/oom_score_adj").Stdout)); got != "-1000" {
		t.Errorf("the container's init: %q, want -1000", got)
	}
}
