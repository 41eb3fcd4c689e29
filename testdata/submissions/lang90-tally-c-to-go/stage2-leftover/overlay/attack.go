package main

// The attack this fixture carries: what stage 2's processes leave in the
// machine's shared folders outlives the stage. Run by stage 2 (no
// SRB_WORK), the program leaves a file in /tmp, /var/tmp and /dev/shm and
// a key in its uid's user keyring, viewable by every uid. With --host as
// root nothing removes them after the stage (stage 3's sessions clear
// their users' files in the shared folders; stage 2's jail user is never
// cleared, and no reap removes keys): a submission can fill the machine's
// disk or memory (/dev/shm) for every later stage and submission, or
// leave what another graded party reads. Otherwise it is go-port.

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"unsafe"
)

func init() {
	if os.Getenv("SRB_WORK") != "" {
		return
	}
	name := "srb-brk-stage2-leftover." + strconv.Itoa(os.Getuid())
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		os.WriteFile(filepath.Join(d, name), []byte("left by stage 2\n"), 0o644)
	}
	typ, _ := syscall.BytePtrFromString("user")
	desc, _ := syscall.BytePtrFromString(name)
	val := []byte("1")
	spec := -3 // the session keyring: possessed, so its permissions can be set
	id, _, errno := syscall.Syscall6(syscall.SYS_ADD_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)),
		uintptr(unsafe.Pointer(&val[0])), 1, uintptr(spec), 0)
	if errno == 0 {
		syscall.Syscall(syscall.SYS_KEYCTL, 5, id, 0x3f3f0001) // KEYCTL_SETPERM: every uid may view
		user := -4
		syscall.Syscall(syscall.SYS_KEYCTL, 8, id, uintptr(user)) // KEYCTL_LINK into @u: it outlives the run
	}
}
