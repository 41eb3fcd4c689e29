package behavioural

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultGrace is how long a module's process group has between SIGTERM
// and SIGKILL (HARNESS.md §4.2, reap_group).
const DefaultGrace = 5 * time.Second

// reapGroup ends every process left in the process group pgid: SIGTERM,
// up to grace for the group to empty, then SIGKILL and up to grace again.
// It returns the signal names it sent (none when the group was already
// empty, which costs one kill(2) and no waiting).
func reapGroup(pgid int, grace time.Duration) []string {
	if pgid <= 0 || !groupAlive(pgid) {
		return nil
	}
	var sent []string
	if syscall.Kill(-pgid, syscall.SIGTERM) == nil {
		sent = append(sent, "SIGTERM")
	}
	if waitGroupGone(pgid, grace) {
		return sent
	}
	if syscall.Kill(-pgid, syscall.SIGKILL) == nil {
		sent = append(sent, "SIGKILL")
	}
	waitGroupGone(pgid, grace)
	return sent
}

// groupAlive reports whether any live process is left in group pgid. A
// zombie is not alive: an orphan whose new parent never reaps it (a
// container's init that does not reap) has already stopped running.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	ents, rerr := os.ReadDir("/proc")
	if rerr != nil {
		return true
	}
	for _, e := range ents {
		pid, perr := strconv.Atoi(e.Name())
		if perr != nil {
			continue
		}
		b, serr := os.ReadFile("/proc/" + e.Name() + "/stat")
		if serr != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid && f[0] != "Z" && f[0] != "X" {
			_ = pid
			return true
		}
	}
	return false
}

func waitGroupGone(pgid int, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	step := 5 * time.Millisecond
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(step)
		if step < 100*time.Millisecond {
			step *= 2
		}
	}
	return true
}
