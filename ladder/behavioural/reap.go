package behavioural

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultGrace is how long a module's processes have between SIGTERM and
// SIGKILL when its deadline passes (HARNESS.md §4.2, reap_group). The
// module runs contained by ladder/proc, which ends every process it
// started, setsid and double-forked ones included, before its result is
// read.
const DefaultGrace = 5 * time.Second

// descendantHasUID reports whether a live descendant of process pid runs
// as uid (its real uid, /proc/PID/status). The submission's processes are
// the helper's children in process groups of their own, so the module's
// group alone does not hold them.
func descendantHasUID(pid, uid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	parent := map[int]int{}
	for _, e := range ents {
		p, perr := strconv.Atoi(e.Name())
		if perr != nil {
			continue
		}
		b, serr := os.ReadFile("/proc/" + e.Name() + "/stat")
		if serr != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
	}
	for p := range parent {
		below := false
		for q, n := parent[p], 0; q > 1 && n < 4096; q, n = parent[q], n+1 {
			if q == pid {
				below = true
				break
			}
		}
		if below && realUID(p) == uid {
			return true
		}
	}
	return false
}

// realUID returns the real uid of process pid, or -1.
func realUID(pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(st), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if fs := strings.Fields(rest); len(fs) > 0 {
				if u, err := strconv.Atoi(fs[0]); err == nil {
					return u
				}
			}
		}
	}
	return -1
}
