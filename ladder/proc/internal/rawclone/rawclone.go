// Package rawclone makes clone system calls the Go runtime cannot make for
// ladder/proc's tests of its seccomp filter and tracer: by the 32-bit ABI
// from a 64-bit program (a filter that looks at the native system call
// numbers only is passed by it), and a thread that execs at once. Only
// tests import it.
package rawclone

import "unsafe"

// Supported reports whether this machine's architecture has the calls.
const Supported = supported

// Clone32 is the 32-bit ABI's clone(flags, 0, 0, 0, 0) (int $0x80, number
// 120 on i386): without CLONE_VM, the child returns 0 on a copy of the
// caller's memory. It returns the child's pid, or a negated errno.
func Clone32(flags uintptr) int32 { return int32(clone32(flags)) }

// CloneThreadExec clones a thread with flags (CLONE_VM|CLONE_SIGHAND|
// CLONE_THREAD and more) on stack (its top; the thread does not use it)
// that at once calls execve(path, argv, NULL), which replaces the whole
// process, and exits if that fails. It returns the thread's id, or a
// negated errno.
func CloneThreadExec(flags uintptr, stack unsafe.Pointer, path *byte, argv **byte) int64 {
	return int64(cloneThreadExec(flags, uintptr(stack), path, argv))
}
