package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exec is one program a traced command ran ([Spec.TraceExecs]): what the
// kernel executed, read by the init (root, the tracer) while the process
// was stopped at its exec, never anything the process says of itself.
type Exec struct {
	// Pid is the process's id in the containment.
	Pid int `json:"pid"`
	// Exe is the program the kernel executed: /proc/<pid>/exe at the exec
	// event (links resolved; an interpreter for a script).
	Exe string `json:"exe"`
	// Dev and Ino identify Exe's file (its device and inode), so a hard
	// link to a tool under another name is still that tool.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	// Dir is the process's working folder at the exec (/proc/<pid>/cwd).
	Dir string `json:"dir"`
	// Argv is the argument list the program got (/proc/<pid>/cmdline), at
	// most [ExecArgsLimit] arguments and [ExecArgBytesLimit] bytes.
	Argv []string `json:"argv"`
	// Files are the arguments (after "-flag=") that named an existing
	// regular file at the exec, as absolute paths (relative ones joined to
	// Dir), at most [ExecArgsLimit].
	Files []string `json:"files,omitempty"`
}

// Bounds of what the tracer keeps: a command that runs more programs, or
// longer argument lists, than a build needs cannot grow the grader.
const (
	// ExecArgsLimit bounds the arguments kept of one exec.
	ExecArgsLimit = 512
	// ExecArgBytesLimit bounds the bytes of one exec's argument list read.
	ExecArgBytesLimit = 64 << 10
	// ExecRecordLimit bounds the bytes of all execs of one command (their
	// JSON); past it, execs are counted in [Exit.ExecsDropped] only.
	ExecRecordLimit = 64 << 20
)

// ErrTracer is wrapped by [Exit.Err], or [Start]'s error, when the tracer
// itself failed ([Spec.TraceExecs]: a ptrace request the kernel refused, a
// /proc entry of a stopped tracee that could not be read, the seccomp
// filter not installed): the record is incomplete, or the command did not
// run, which is the grader's fault, never the command's.
var ErrTracer = errors.New("proc: the exec tracer failed")

// execLog is the tracer's record, in the init's memory.
type execLog struct {
	execs   []Exec
	bytes   int
	dropped int
}

func (l *execLog) add(e Exec, size int) {
	if l.bytes+size > ExecRecordLimit {
		l.dropped++
		return
	}
	l.bytes += size
	l.execs = append(l.execs, e)
}

// traceOptions: TRACESECCOMP for the filter's stop of an untraced clone
// (seccomp.go), the only call it stops.
const traceOptions = unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_EXITKILL | unix.PTRACE_O_TRACESECCOMP

// traceUntilMainExits is the init's wait loop when it traces: main was
// started with PTRACE_TRACEME from this goroutine's OS thread (locked),
// and every ptrace request is made from it. It follows every process and
// thread of the command (auto-attached at fork, vfork and clone),
// records each exec into log, passes every other signal on, and returns
// when main has ended: its status, or a tracer fault (after which
// everything is killed; the containment's sweep reaps it).
func traceUntilMainExits(main int, c containment, log *execLog) (code int, sig syscall.Signal, fault error) {
	code = -1
	started := false
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, unix.WALL, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if fault == nil {
				fault = fmt.Errorf("%w: wait: %v", ErrTracer, err)
			}
			return code, sig, fault
		}
		switch {
		case ws.Exited() || ws.Signaled():
			if pid == main {
				if ws.Signaled() {
					sig = ws.Signal()
				} else {
					code = ws.ExitStatus()
				}
				return code, sig, fault
			}
			continue
		case !ws.Stopped():
			continue
		}
		stop, inject := ws.StopSignal(), 0
		switch {
		case pid == main && !started && stop == syscall.SIGTRAP:
			// The first exec of main (PTRACE_TRACEME): set the options its
			// descendants inherit, and record it.
			started = true
			if err := syscall.PtraceSetOptions(pid, traceOptions); err != nil && fault == nil {
				fault = fmt.Errorf("%w: PTRACE_SETOPTIONS: %v", ErrTracer, err)
				c.signalAll(syscall.SIGKILL)
			}
			if fault == nil {
				fault = recordExec(pid, log)
			}
		case stop == syscall.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_EXEC:
			if fault == nil {
				if fault = recordExec(pid, log); fault != nil {
					c.signalAll(syscall.SIGKILL)
				}
			}
		case stop == syscall.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_SECCOMP:
			// A clone with CLONE_UNTRACED, stopped before the kernel ran
			// it: the flag is cleared and the clone followed. Let go
			// unchanged, the kernel would run it untraced (the filter's
			// second answer, after the tracer's stop, is an allow), so a
			// clone the tracer cannot change is killed first: a process
			// with SIGKILL pending skips the call.
			err := fault
			if err == nil {
				err = followUntraced(pid)
				if err != nil && err != syscall.ESRCH {
					fault = fmt.Errorf("%w: following an untraced clone of %d: %v", ErrTracer, pid, err)
					c.signalAll(syscall.SIGKILL)
				}
			}
			if err != nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		case stop == syscall.SIGTRAP && ws.TrapCause() > 0:
			// fork, vfork, clone: the new process or thread is attached
			// and stops with SIGSTOP, handled below.
		case stop == syscall.SIGSTOP:
			// The stop of a newly attached process or thread. A SIGSTOP
			// sent by the command is dropped too: a traced command cannot
			// stop itself, it runs on (a build has no use for job control).
		default:
			inject = int(stop)
		}
		if err := syscall.PtraceCont(pid, inject); err != nil && err != syscall.ESRCH && fault == nil {
			fault = fmt.Errorf("%w: PTRACE_CONT %d: %v", ErrTracer, pid, err)
			c.signalAll(syscall.SIGKILL)
		}
	}
}

// recordExec reads what pid, stopped at its exec, now runs. A tracee that
// is gone (killed meanwhile) is skipped; anything else that cannot be
// read is a tracer fault.
func recordExec(pid int, log *execLog) error {
	base := "/proc/" + strconv.Itoa(pid)
	exe, err := os.Readlink(base + "/exe")
	if err != nil {
		if gone(err) {
			return nil
		}
		return fmt.Errorf("%w: %s/exe: %v (the tracer needs CAP_SYS_PTRACE to read what another user's process runs)", ErrTracer, base, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(base+"/exe", &st); err != nil {
		if gone(err) {
			return nil
		}
		return fmt.Errorf("%w: stat %s/exe: %v", ErrTracer, base, err)
	}
	dir, err := os.Readlink(base + "/cwd")
	if err != nil {
		if gone(err) {
			return nil
		}
		return fmt.Errorf("%w: %s/cwd: %v", ErrTracer, base, err)
	}
	argv, err := readCmdline(base + "/cmdline")
	if err != nil {
		if gone(err) {
			return nil
		}
		return fmt.Errorf("%w: %s/cmdline: %v", ErrTracer, base, err)
	}
	e := Exec{Pid: pid, Exe: exe, Dev: uint64(st.Dev), Ino: st.Ino, Dir: dir, Argv: argv}
	for i, a := range argv {
		if i == 0 || len(e.Files) >= ExecArgsLimit {
			continue
		}
		if p, ok := argFile(base, dir, a); ok {
			e.Files = append(e.Files, p)
		}
	}
	size := len(exe) + len(dir) + 64
	for _, a := range argv {
		size += len(a) + 4
	}
	for _, f := range e.Files {
		size += len(f) + 4
	}
	log.add(e, size)
	return nil
}

// gone reports whether err says the process no longer exists.
func gone(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH)
}

// readCmdline reads a NUL-separated argument list, bounded.
func readCmdline(p string) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, ExecArgBytesLimit)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	b := bytes.TrimSuffix(buf[:n], []byte{0})
	if len(b) == 0 {
		return []string{}, nil
	}
	parts := strings.Split(string(b), "\x00")
	if len(parts) > ExecArgsLimit {
		parts = parts[:ExecArgsLimit]
	}
	return parts, nil
}

// argFile returns the absolute path an argument names when it is an
// existing regular file in the tracee's view: a "-flag" alone names
// none, "-flag=value" is value. The file is looked at through
// /proc/<pid>/cwd or /proc/<pid>/root, so through the tracee's mounts.
func argFile(base, dir, a string) (string, bool) {
	if strings.HasPrefix(a, "-") {
		_, v, ok := strings.Cut(a, "=")
		if !ok {
			return "", false
		}
		a = v
	}
	if a == "" {
		return "", false
	}
	var via, abs string
	if filepath.IsAbs(a) {
		via, abs = base+"/root"+a, filepath.Clean(a)
	} else {
		via, abs = base+"/cwd/"+a, filepath.Join(dir, a)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(via, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return "", false
	}
	return abs, true
}
