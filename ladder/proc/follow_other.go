//go:build !amd64

package proc

// followUntraced is never reached here: the filter refuses an untraced
// clone with EPERM (arm64: its register is not rewritten until that is
// tested on such a machine) or no filter is written and a traced command
// does not run (seccomp.go).
func followUntraced(pid int, which uint) error { return errUnknownFollow }
