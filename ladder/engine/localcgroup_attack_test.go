package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-refactor-bench/srb/ladder/cgroup"
)

// A session's cgroup counters outlive each of its runs (the memory
// high-water mark, page-ins, refused forks): a program that read them
// could count its runs on --host (the images start each run in a fresh
// container for that), and they are the other tree's too, so a run
// could watch the other tree's runs. No process of a session reads its
// own cgroups' files, nor another session's; escaping them (moving
// itself elsewhere, a cgroup of its own below) is refused as before.
func TestLocalCgroupCountersHidden(t *testing.T) {
	_, a := cgroupSession(t, Spec{Memory: 64 << 20, Pids: 40})
	_, b := cgroupSession(t, Spec{Memory: 64 << 20, Pids: 40})
	ca := a.c.(*localContainer).cg
	var files []string
	for _, d := range ca.Dirs {
		for _, f := range []string{"memory.max_usage_in_bytes", "memory.stat", "memory.failcnt", "pids.events", "pids.current", "cgroup.procs"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				files = append(files, filepath.Join(d, f))
			}
		}
	}
	if len(files) == 0 {
		t.Fatalf("no counter in the session's cgroups %v", ca.Dirs)
	}
	// The first run leaves a mark: 20 MiB touched.
	sh(t, a, `head -c 20000000 /dev/zero | tr '\0' a >/dev/null; x=$(head -c 20000000 /dev/zero | tr '\0' a); true`)
	for who, s := range map[string]*Session{"the session itself": a, "the other session": b} {
		for _, f := range files {
			r := sh(t, s, `cat "$1" && echo READ`, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", f) })
			if strings.Contains(string(r.Stdout), "READ") {
				t.Errorf("%s reads %s: %q", who, f, r.Stdout)
			}
		}
		for _, d := range ca.Dirs {
			r := sh(t, s, `ls "$1" && echo LISTED`, func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", d) })
			if strings.Contains(string(r.Stdout), "LISTED") {
				t.Errorf("%s lists %s", who, d)
			}
		}
	}
	// Escapes, refused before the change and after.
	for _, d := range ca.Dirs {
		ctlRoot := filepath.Join(cgroup.Root, strings.SplitN(strings.TrimPrefix(d, cgroup.Root+"/"), "/", 2)[0])
		r := sh(t, a, `echo $$ > "$1/cgroup.procs" && echo MOVED; mkdir "$2/sub" && echo MADE; cat /proc/self/cgroup`,
			func(es *ExecSpec) { es.Argv = append(es.Argv, "sh", ctlRoot, d) })
		if strings.Contains(string(r.Stdout), "MOVED") || strings.Contains(string(r.Stdout), "MADE") {
			t.Errorf("a session's process left its cgroup %s: %q", d, r.Stdout)
		}
	}
	// The limits still hold (the init joined as root).
	if h, _ := a.LimitHits(t.Context()); h.OOMKills < 0 || h.PidsMax < 0 {
		t.Errorf("limit hits %+v unknown", h)
	}
}

// On cgroup v1 TCP buffers are charged to no memory limit unless the
// cgroup has a TCP limit of its own: a session with the network held
// loopback connections whose buffers nobody read, 150 MB past a 32 MiB
// limit (net.ipv4.tcp_mem, GiBs on a large machine, is the machine's,
// and every process's TCP stalls at it). A session's TCP buffers are
// bounded by its memory limit.
func TestLocalTCPBuffersBounded(t *testing.T) {
	const limit = 32 << 20
	_, s := cgroupSession(t, Spec{Memory: limit, Pids: 40, Network: "bridge"})
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	r := sh(t, s, `/usr/bin/python3 -c '
import socket
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(128)
keep, total, chunk = [], 0, b"x" * 65536
for i in range(40):
    c = socket.create_connection(("127.0.0.1", ls.getsockname()[1]), timeout=5)
    p, _ = ls.accept()
    c.setblocking(False)
    try:
        while True:
            total += c.send(chunk)
    except (BlockingIOError, OSError):
        pass
    keep.append((c, p))
print(total)
'`)
	queued, err := strconv.ParseInt(strings.TrimSpace(string(r.Stdout)), 10, 64)
	if err != nil {
		t.Fatalf("exit %d, %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if queued > 2*limit {
		t.Errorf("a session with a %d MiB limit held %d MiB in TCP buffers", limit>>20, queued>>20)
	}
}
