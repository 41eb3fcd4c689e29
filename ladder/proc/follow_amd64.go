package proc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// followUntraced clears CLONE_UNTRACED from the flags of pid's clone,
// stopped by the filter (seccomp.go) before the kernel ran it; the kernel
// runs the filter again when pid goes on, and the clone, now an ordinary
// one, is followed. which is the stop's data: the flags are the first
// argument, in rdi by the 64-bit ABI and in ebx by the 32-bit one (a
// 64-bit tracer sees a 32-bit tracee's registers in the 64-bit layout).
func followUntraced(pid int, which uint) error {
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
		return err
	}
	switch which {
	case followNative:
		regs.Rdi &^= unix.CLONE_UNTRACED
	case followCompat:
		regs.Rbx &^= unix.CLONE_UNTRACED
	default:
		return errUnknownFollow
	}
	return syscall.PtraceSetRegs(pid, &regs)
}
