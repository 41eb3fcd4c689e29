// Package compat32 makes a 32-bit system call from a 64-bit program, for
// ladder/proc's tests of its seccomp filter (a filter that looks at the
// native system call numbers only is passed by the same call made through
// the 32-bit ABI). Only tests import it.
package compat32

// Supported reports whether Clone works on this machine's architecture.
const Supported = supported

// Clone is the 32-bit ABI's clone(flags, 0, 0, 0, 0) (int $0x80, number
// 120 on i386): without CLONE_VM, the child returns 0 on a copy of the
// caller's memory. It returns the child's pid, or a negated errno.
func Clone(flags uintptr) int32 { return int32(clone(flags)) }
