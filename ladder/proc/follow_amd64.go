package proc

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// syscallInfo is struct ptrace_syscall_info for a seccomp stop.
type syscallInfo struct {
	Op      uint8
	_       [3]uint8
	Arch    uint32
	IP, SP  uint64
	Nr      uint64
	Args    [6]uint64
	RetData uint32
	_       uint32
}

// followUntraced clears CLONE_UNTRACED from the flags of pid's clone,
// stopped by a seccomp filter before the kernel ran it; the kernel runs
// the filters again when pid goes on, and the clone, now an ordinary one,
// is followed. What the call is, and by which ABI, the kernel says
// (PTRACE_GET_SYSCALL_INFO), not the stop's data: a filter of the
// command's own may stop a call for the tracer too, and outranks the
// tracer's filter when both answer TRACE (such a stop of any other call
// goes on unchanged). The flags are the first argument: in rdi by the
// 64-bit ABI, in ebx by the 32-bit one (a 64-bit tracer sees a 32-bit
// tracee's registers in the 64-bit layout).
func followUntraced(pid int) error {
	var info syscallInfo
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PTRACE, unix.PTRACE_GET_SYSCALL_INFO, uintptr(pid),
		unsafe.Sizeof(info), uintptr(unsafe.Pointer(&info)), 0, 0); e != 0 {
		return e
	}
	if info.Op != unix.PTRACE_SYSCALL_INFO_SECCOMP || info.Args[0]&unix.CLONE_UNTRACED == 0 {
		return nil
	}
	var regs syscall.PtraceRegs
	switch {
	case info.Arch == unix.AUDIT_ARCH_X86_64 && info.Nr == unix.SYS_CLONE:
		if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
			return err
		}
		regs.Rdi &^= unix.CLONE_UNTRACED
	case info.Arch == unix.AUDIT_ARCH_I386 && info.Nr == 120:
		if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
			return err
		}
		regs.Rbx &^= unix.CLONE_UNTRACED
	default:
		return nil
	}
	return syscall.PtraceSetRegs(pid, &regs)
}
