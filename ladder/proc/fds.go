package proc

import (
	"errors"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInheritedOnExec marks every descriptor of this process from 3 up
// close-on-exec: close_range(2) with CLOSE_RANGE_CLOEXEC where the kernel
// has it (Linux 5.11), else each descriptor /proc/self/fd lists. A
// descriptor a process inherited without the flag (a lock wrapper's
// `9>lock`, a shell's or tool's pipe) otherwise reaches everything it
// executes; srb's process init does this before it starts a command, and
// srb itself at start, so no descriptor of the grader's caller reaches a
// graded process (issue 14, fixture hide-in-inherited-fd). What a child
// needs is passed explicitly (exec.Cmd's streams and ExtraFiles are
// duplicated for it whatever their flag). It errors only when the
// descriptors could not be marked: the caller must then not run graded
// code.
func CloseInheritedOnExec() error {
	err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return err
		}
	}
	return nil
}

// noNewPrivs sets no_new_privs on the calling thread, which every command
// it forks inherits and keeps across every exec: no setuid, setgid or
// file-capability program a command or its children execute gains a
// privilege, as in a stage container (no-new-privileges). It is set for
// every command, root's too (a root command loses nothing by it): a
// server's thread forks many commands, and a flag set for one would stay
// for the next, so setting it for some only would depend on the order.
// The caller's thread is locked.
func noNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("proc: no_new_privs for the command was refused: " + err.Error())
	}
	return nil
}
