package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/swe-refactor-bench/srb/ladder/proc/internal/rawclone"
)

// forkExec forks (no CLONE_VM: the child has its own copy of memory) by
// the raw system call nr with a1 and a2, and the child execs path with
// argv at once, touching nothing else of the Go runtime, as syscall's own
// forkExec did before it used vfork. It returns the child's pid or the
// call's errno.
//
//go:norace
//go:nosplit
func forkExec(nr, a1, a2 uintptr, path *byte, argv []*byte) (uintptr, syscall.Errno) {
	pid, _, e := syscall.RawSyscall6(nr, a1, a2, 0, 0, 0, 0)
	if e != 0 || pid != 0 {
		return pid, e
	}
	syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), 0)
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 127, 0, 0)
	return 0, 0
}

// forkExec32 is forkExec by the 32-bit ABI's clone (int $0x80 on amd64),
// which a filter of the native numbers alone would let by.
//
//go:norace
//go:nosplit
func forkExec32(flags uintptr, path *byte, argv []*byte) (uintptr, syscall.Errno) {
	pid := rawclone.Clone32(flags)
	if pid < 0 {
		return 0, syscall.Errno(-pid)
	}
	if pid > 0 {
		return uintptr(pid), 0
	}
	syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), 0)
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 127, 0, 0)
	return 0, 0
}

// int80Works reports whether this machine runs the 32-bit ABI's system
// calls (int $0x80) of a 64-bit program: rawclone.Supported says the
// architecture has them, but a kernel built or booted without IA-32
// emulation (ia32_emulation=0) answers int $0x80 with SIGSEGV, which no
// Go program survives. A child of the test binary tries one clone and
// says; where it cannot, the 32-bit ABI is no way around the filter
// either (the kernel refuses it whoever asks).
var int80Works = sync.OnceValue(func() bool {
	if !rawclone.Supported {
		return false
	}
	out, err := reexec("TestTraceExecsFollowsUntraced", "int80-probe").CombinedOutput()
	return err == nil && strings.TrimSpace(string(out)) == "int80 ok"
})

// int80Probe is the child of int80Works: a 32-bit clone whose child exits
// at once.
func int80Probe() {
	runtime.LockOSThread()
	pid := rawclone.Clone32(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	if pid < 0 {
		fmt.Println("int80", syscall.Errno(-pid))
		os.Exit(1)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(int(pid), &ws, 0, nil); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		fmt.Println("int80 child", err, ws)
		os.Exit(1)
	}
	fmt.Println("int80 ok")
	os.Exit(0)
}

// cloneArgs is struct clone_args (the first 64 bytes, CLONE_ARGS_SIZE_VER0).
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls uint64
}

// rawClone32 stands for the 32-bit ABI's clone in untracedProbe's ways.
const rawClone32 = ^uintptr(0)

// untracedProbe is the traced command of TestTraceExecsFollowsUntraced: it
// tries every way it knows to start a process the tracer does not follow,
// each child running /bin/true with the way's name as its argument, and
// prints one "way result" line each: "ran" (a child ran and exited 0) or
// the errno of the refused call.
func untracedProbe() {
	runtime.LockOSThread()
	ways := []struct {
		name   string
		nr     uintptr
		a1, a2 func() uintptr
	}{
		{"clone-untraced", unix.SYS_CLONE, func() uintptr { return unix.CLONE_UNTRACED | uintptr(syscall.SIGCHLD) }, nil},
		{"clone3-untraced", unix.SYS_CLONE3, func() uintptr {
			return uintptr(unsafe.Pointer(&cloneArgs{flags: unix.CLONE_UNTRACED, exitSignal: uint64(syscall.SIGCHLD)}))
		}, func() uintptr { return 64 }},
		{"clone3-plain", unix.SYS_CLONE3, func() uintptr {
			return uintptr(unsafe.Pointer(&cloneArgs{exitSignal: uint64(syscall.SIGCHLD)}))
		}, func() uintptr { return 64 }},
		// vfork semantics (the parent waits for the child's exec) on a
		// copy of memory: the flag is cleared, the rest kept.
		{"clone-untraced-vfork", unix.SYS_CLONE, func() uintptr {
			return unix.CLONE_UNTRACED | unix.CLONE_VFORK | uintptr(syscall.SIGCHLD)
		}, nil},
		{"int80-clone-untraced", rawClone32, func() uintptr { return unix.CLONE_UNTRACED | uintptr(syscall.SIGCHLD) }, nil},
		{"int80-clone-plain", rawClone32, func() uintptr { return uintptr(syscall.SIGCHLD) }, nil},
		{"clone-plain", unix.SYS_CLONE, func() uintptr { return uintptr(syscall.SIGCHLD) }, nil},
	}
	path, _ := syscall.BytePtrFromString("/bin/true")
	for _, w := range ways {
		a0, _ := syscall.BytePtrFromString("true")
		a1, _ := syscall.BytePtrFromString(w.name)
		argv := []*byte{a0, a1, nil}
		x, y := w.a1(), uintptr(0)
		if w.a2 != nil {
			y = w.a2()
		}
		var pid uintptr
		var e syscall.Errno
		if w.nr == rawClone32 {
			if os.Getenv("SRB_PROC_TEST_INT80") != "1" {
				continue
			}
			pid, e = forkExec32(x, path, argv)
		} else {
			pid, e = forkExec(w.nr, x, y, path, argv)
		}
		runtime.KeepAlive(argv)
		if e != 0 {
			fmt.Printf("%s %s\n", w.name, unix.ErrnoName(e))
			continue
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(int(pid), &ws, unix.WALL, nil); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
			fmt.Printf("%s child-failed %v %v\n", w.name, err, ws)
			continue
		}
		fmt.Printf("%s ran\n", w.name)
	}
	// Go's own os/exec (clone with CLONE_VFORK|CLONE_VM|CLONE_PIDFD) and
	// glibc's pthread_create (clone3 first, clone on ENOSYS: sort's
	// threads) still work under the filter.
	if err := exec.Command("/bin/true", "go-os-exec").Run(); err != nil {
		fmt.Printf("go-os-exec %v\n", err)
	} else {
		fmt.Printf("go-os-exec ran\n")
	}
	os.Exit(0)
}

// TestTraceExecsFollowsUntraced: a traced command cannot start a process
// the tracer does not follow. A clone with CLONE_UNTRACED (by the 64-bit
// ABI or int $0x80's 32-bit one, with vfork semantics or not) is followed
// all the same on amd64 (refused with EPERM where the tracer does not
// rewrite it), and clone3 is ENOSYS (its flags are in memory), so what
// the command runs is recorded; plain clone and Go's os/exec still run
// and are recorded. Before the filter, the untraced children ran and
// nothing of them was recorded.
func TestTraceExecsFollowsUntraced(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "untraced-probe":
		untracedProbe()
	case "int80-probe":
		int80Probe()
	}
	int80 := int80Works()
	if !int80 {
		t.Logf("no 32-bit system calls here (int $0x80): their ways are not tried")
	}
	for _, sub := range []bool{false, true} {
		t.Run(map[bool]string{false: "namespace", true: "subreaper"}[sub], func(t *testing.T) {
			if sub {
				forceSubreaper(t)
			}
			cmd := reexec("TestTraceExecsFollowsUntraced", "untraced-probe", "SRB_PROC_TEST_INT80="+map[bool]string{true: "1", false: "0"}[int80])
			s, err := CmdSpec(cmd)
			if err != nil {
				t.Fatal(err)
			}
			s.TraceExecs = true
			var out, errOut bytes.Buffer
			s.Stdout, s.Stderr = &out, &errOut
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			e, err := Run(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if e.Err != nil || e.Code != 0 {
				t.Fatalf("traced probe: exit %d, %v\nstdout %s\nstderr %s", e.Code, e.Err, out.String(), errOut.String())
			}
			got := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				k, v, _ := strings.Cut(line, " ")
				got[k] = v
			}
			// An untraced clone is followed (amd64) or refused (EPERM):
			// either way nothing runs unrecorded.
			untraced := "EPERM"
			if syscallArches()[0].follow {
				untraced = "ran"
			}
			want := map[string]string{
				"clone-untraced":       untraced,
				"clone-untraced-vfork": untraced,
				"clone3-untraced":      "ENOSYS",
				"clone3-plain":         "ENOSYS",
				"clone-plain":          "ran",
				"go-os-exec":           "ran",
			}
			if int80 {
				want["int80-clone-untraced"], want["int80-clone-plain"] = untraced, "ran"
				if !syscallArches()[1].follow {
					want["int80-clone-untraced"] = "EPERM"
				}
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
			// Whatever ran is recorded: every child that ran shows in the
			// tool log with its way's name.
			trueExe := realPath(t, "/bin/true")
			for k, v := range got {
				if v != "ran" {
					continue
				}
				if !slices.ContainsFunc(e.Execs, func(x Exec) bool { return x.Exe == trueExe && slices.Contains(x.Argv, k) }) {
					t.Errorf("%s ran but its exec is not in the record (the tracer did not follow it)", k)
				}
			}
			t.Logf("probe said:\n%s", out.String())
		})
	}
}

// TestTraceExecsThreadsAndSpawnStillWork: glibc programs that start
// threads with clone3 (sort --parallel) fall back to clone under the
// filter and give the same result; a Go program's os/exec does too.
func TestTraceExecsThreadsAndSpawnStillWork(t *testing.T) {
	sortPath, err := exec.LookPath("sort")
	if err != nil {
		t.Skip("no sort")
	}
	dir := t.TempDir()
	var in bytes.Buffer
	for i := 200000; i > 0; i-- {
		in.WriteString(strconv.Itoa(i*7919%200003) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "in"), in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(sortPath, "-n", filepath.Join(dir, "in")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e, err := Run(context.Background(), Spec{Argv: []string{sortPath, "--parallel=2", "-S", "64M", "-n", "in"}, Dir: dir,
		TraceExecs: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if e.Err != nil || e.Code != 0 || !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("traced sort --parallel=2: exit %d, %v, %d bytes of output, want %d", e.Code, e.Err, out.Len(), len(want))
	}
}

// runFilter runs a filter of untracedFilter's instructions (loads of
// seccomp_data words, jumps on constants, returns) on one call.
func runFilter(t *testing.T, f []unix.SockFilter, arch, nr uint32, args map[uint32]uint32) uint32 {
	t.Helper()
	data := map[uint32]uint32{offNr: nr, offArch: arch}
	for k, v := range args {
		data[k] = v
	}
	var acc uint32
	for pc := 0; pc < len(f); pc++ {
		in := f[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = data[in.K]
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K,
			unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			ok := map[uint16]bool{unix.BPF_JEQ: acc == in.K, unix.BPF_JGE: acc >= in.K, unix.BPF_JGT: acc > in.K,
				unix.BPF_JSET: acc&in.K != 0}[in.Code&0xf0]
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			t.Fatalf("instruction %d: code %#x", pc, in.Code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

// TestUntracedFilter: the filter's answers for both machines' ABI tables
// (so arm64's is checked here too): an untraced clone stops for the
// tracer (or is refused), clone3 and io_uring are ENOSYS, x32 is
// ENOSYS, an ABI not in the table is ENOSYS, and everything else, other
// clones included, is allowed; it stays a few instructions long (it runs
// at every system call of a traced command).
func TestUntracedFilter(t *testing.T) {
	const untraced, plain = unix.CLONE_UNTRACED | uint32(syscall.SIGCHLD), unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | uint32(syscall.SIGCHLD)
	for _, tc := range []struct {
		name   string
		arches []syscallArch
		native []uint32 // audit arch, clone, seccomp, read, execve
		compat []uint32
	}{
		{"amd64", []syscallArch{{audit: unix.AUDIT_ARCH_X86_64, clone: 56, seccomp: 317, x32: true, follow: true},
			{audit: unix.AUDIT_ARCH_I386, clone: 120, seccomp: 354, follow: true}},
			[]uint32{unix.AUDIT_ARCH_X86_64, 56, 317, 0, 59}, []uint32{unix.AUDIT_ARCH_I386, 120, 354, 3, 11}},
		{"arm64", []syscallArch{{audit: auditArchAARCH64, clone: 220, seccomp: 277}, {audit: auditArchARM, clone: 120, seccomp: 383}},
			[]uint32{auditArchAARCH64, 220, 277, 63, 221}, []uint32{auditArchARM, 120, 383, 3, 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := untracedFilter(tc.arches)
			if err != nil {
				t.Fatal(err)
			}
			if len(f) > 32 {
				t.Errorf("%d instructions", len(f))
			}
			for i, abi := range [][]uint32{tc.native, tc.compat} {
				arch, clone, secc, read, execve := abi[0], abi[1], abi[2], abi[3], abi[4]
				stop := retEPERM
				if tc.arches[i].follow {
					stop = retTrace
				}
				for _, c := range []struct {
					nr, flags, want uint32
				}{
					{clone, untraced, stop},
					{clone, untraced | unix.CLONE_VM | unix.CLONE_VFORK, stop},
					{clone, unix.CLONE_UNTRACED | unix.CLONE_THREAD | unix.CLONE_SIGHAND | unix.CLONE_VM, stop},
					{clone, plain, retAllow},
					{clone, 0, retAllow},
					{nrClone3, 0, retNoSys},
					{nrIOUringSetup, 0, retNoSys},
					{426, 0, retNoSys},
					{nrIOUringRegister, 0, retNoSys},
					{424, 0, retAllow},
					{428, 0, retAllow},
					{read, untraced, retAllow},
					{execve, untraced, retAllow},
					{secc, 0, retAllow},
					{secc, unix.SECCOMP_FILTER_FLAG_TSYNC, retAllow},
					{secc, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, retEPERM},
					{secc, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_TSYNC, retEPERM},
				} {
					args := map[uint32]uint32{offArg0: c.flags}
					if c.nr == secc {
						args = map[uint32]uint32{offArg0: unix.SECCOMP_SET_MODE_FILTER, offArg1: c.flags}
					}
					if got := runFilter(t, f, arch, c.nr, args); got != c.want {
						t.Errorf("arch %#x nr %d flags %#x: %#x, want %#x", arch, c.nr, c.flags, got, c.want)
					}
				}
			}
			if tc.name == "amd64" {
				if got := runFilter(t, f, unix.AUDIT_ARCH_X86_64, 56|x32SyscallBit, map[uint32]uint32{offArg0: untraced}); got != retNoSys {
					t.Errorf("x32 clone: %#x", got)
				}
			}
			if got := runFilter(t, f, 0xdead, 1, nil); got != retNoSys {
				t.Errorf("an unknown ABI: %#x", got)
			}
		})
	}
}

// filterFullGrader is a grader-like process whose threads carry seccomp
// filters (allowing everything) up to the kernel's bound on a thread's
// filters (32768 instructions, 4 more per filter): the init it starts
// inherits them and cannot add the tracer's. It prints the error of
// starting a traced command and whether it is a tracer fault.
func filterFullGrader() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	// Filters as long as fit, halving on ENOMEM, until not one
	// instruction more does (the machine's own filters count too).
	for n := 4096; n >= 1; {
		insns := make([]unix.SockFilter, n)
		for i := range insns[:n-1] {
			insns[i] = unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNr}
		}
		insns[n-1] = unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: retAllow}
		prog := unix.SockFprog{Len: uint16(n), Filter: &insns[0]}
		_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
		switch e {
		case 0:
		case unix.ENOMEM:
			n /= 2
		default:
			fmt.Printf("setup %v\n", e)
			os.Exit(0)
		}
	}
	e, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, TraceExecs: true})
	fmt.Printf("start-error %v\ntracer-fault %t\nexit-error %v\n", err, errors.Is(err, ErrTracer), e.Err)
	os.Exit(0)
}

// TestTracerFilterRefusedIsTracerFault: when the init cannot install the
// filter against untraced clones (here: its grader's own filters fill the
// kernel's bound), the traced command does not run and the error is a
// tracer fault ([ErrTracer]: the grader's, never the command's).
func TestTracerFilterRefusedIsTracerFault(t *testing.T) {
	if os.Getenv(helperEnv) == "filter-full-grader" {
		filterFullGrader()
	}
	out, err := reexec("TestTracerFilterRefusedIsTracerFault", "filter-full-grader").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.HasPrefix(string(out), "setup ") {
		t.Skipf("could not fill the seccomp bound here: %s", out)
	}
	if !strings.Contains(string(out), "tracer-fault true\n") || !strings.Contains(string(out), "untraced clones") {
		t.Errorf("the grader said:\n%s\nwant a tracer fault about the filter", out)
	}
	t.Logf("%s", out)
}

// threadStack is the stack of threadExecProbe's thread (never used by it).
var threadStack = make([]byte, 64<<10)

// threadExecProbe is the traced command of
// TestTraceExecsFollowsAnUntracedThread: a thread cloned with
// CLONE_UNTRACED execs /bin/true at once, which replaces the process.
func threadExecProbe() {
	runtime.LockOSThread()
	path, _ := syscall.BytePtrFromString("/bin/true")
	a0, _ := syscall.BytePtrFromString("true")
	a1, _ := syscall.BytePtrFromString("thread-untraced")
	argv := []*byte{a0, a1, nil}
	flags := uintptr(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_UNTRACED)
	r := rawclone.CloneThreadExec(flags, unsafe.Pointer(&threadStack[len(threadStack)-64]), path, &argv[0])
	if r < 0 {
		fmt.Printf("thread %s\n", unix.ErrnoName(syscall.Errno(-r)))
		os.Exit(0)
	}
	time.Sleep(30 * time.Second)
	runtime.KeepAlive(argv)
	fmt.Println("the thread did not exec")
	os.Exit(3)
}

// TestTraceExecsFollowsAnUntracedThread: a thread the command clones
// with CLONE_UNTRACED that execs (taking the process over) is followed,
// and its exec recorded, as any other.
func TestTraceExecsFollowsAnUntracedThread(t *testing.T) {
	if os.Getenv(helperEnv) == "thread-exec" {
		threadExecProbe()
	}
	if !rawclone.Supported {
		t.Skip("no raw thread clone on " + runtime.GOARCH)
	}
	s, err := CmdSpec(reexec("TestTraceExecsFollowsAnUntracedThread", "thread-exec"))
	if err != nil {
		t.Fatal(err)
	}
	s.TraceExecs = true
	var out bytes.Buffer
	s.Stdout, s.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	trueExe := realPath(t, "/bin/true")
	seen := slices.ContainsFunc(e.Execs, func(x Exec) bool { return x.Exe == trueExe && slices.Contains(x.Argv, "thread-untraced") })
	if e.Err != nil || e.Code != 0 || !seen {
		t.Errorf("exit %d, %v, output %q; the thread's exec recorded: %t; execs %+v", e.Code, e.Err, out.String(), seen, e.Execs)
	}
}

// notifProbe is the traced command of TestTraceExecsNoUserNotifListener:
// it installs a filter of its own on its thread that hands clone to a
// user-space supervisor (SECCOMP_RET_USER_NOTIF outranks the tracer's
// SECCOMP_RET_TRACE), whose thread answers every call "continue" (the
// kernel then runs it as asked, untraced), and clones untraced.
func notifProbe() {
	var listener atomic.Uintptr
	// The supervisor's thread is made first, without the filter, and
	// waits for the listener in the kernel (raw calls: the Go runtime
	// must not need a new thread meanwhile, whose clone, from the
	// filtered thread, would wait for this very supervisor).
	go func() {
		runtime.LockOSThread()
		ts := unix.Timespec{Nsec: 1e6}
		for listener.Load() == 0 {
			unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		}
		fd := listener.Load()
		for {
			var req [80]byte // struct seccomp_notif
			if _, _, e := unix.RawSyscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&req))); e != 0 {
				if e == unix.EINTR || e == unix.ENOENT {
					continue
				}
				return
			}
			var resp [24]byte // struct seccomp_notif_resp: id, val, error, flags
			copy(resp[:8], req[:8])
			resp[20] = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
			unix.RawSyscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
		}
	}()
	time.Sleep(50 * time.Millisecond)
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	insns := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNr},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0x7fc00000}, // SECCOMP_RET_USER_NOTIF
		{Code: unix.BPF_RET | unix.BPF_K, K: retAllow},
	}
	prog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	path, _ := syscall.BytePtrFromString("/bin/true")
	a0, _ := syscall.BytePtrFromString("true")
	a1, _ := syscall.BytePtrFromString("notif-untraced")
	argv := []*byte{a0, a1, nil}
	fd, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		fmt.Printf("listener %s\n", unix.ErrnoName(e))
		os.Exit(0)
	}
	listener.Store(fd)
	pid, e := forkExec(unix.SYS_CLONE, unix.CLONE_UNTRACED|uintptr(syscall.SIGCHLD), 0, path, argv)
	runtime.KeepAlive(argv)
	if e != 0 {
		fmt.Printf("clone %s\n", unix.ErrnoName(e))
		os.Exit(0)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, unix.WALL, nil)
	fmt.Printf("clone ran %v\n", ws)
	os.Exit(0)
}

// TestTraceExecsNoUserNotifListener: a traced command cannot make a
// seccomp user-notification listener, whose supervisor could let an
// untraced clone go on past the tracer (a filter's USER_NOTIF outranks
// the tracer filter's TRACE); before, the clone ran and its exec was not
// recorded.
func TestTraceExecsNoUserNotifListener(t *testing.T) {
	if os.Getenv(helperEnv) == "notif-probe" {
		notifProbe()
	}
	s, err := CmdSpec(reexec("TestTraceExecsNoUserNotifListener", "notif-probe"))
	if err != nil {
		t.Fatal(err)
	}
	s.TraceExecs = true
	var out bytes.Buffer
	s.Stdout, s.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	trueExe := realPath(t, "/bin/true")
	seen := slices.ContainsFunc(e.Execs, func(x Exec) bool { return x.Exe == trueExe && slices.Contains(x.Argv, "notif-untraced") })
	t.Logf("probe: %q, exit %d, %v; the clone's exec recorded: %t", out.String(), e.Code, e.Err, seen)
	if strings.HasPrefix(out.String(), "clone ran") && !seen {
		t.Errorf("an untraced clone continued by a user-notification supervisor ran unrecorded")
	}
	if out.String() != "listener EPERM\n" {
		t.Errorf("probe said %q, want the listener refused (EPERM)", out.String())
	}
}

// ownTraceProbe is the traced command of TestTraceExecsOwnTraceFilter: a
// filter of its own answers TRACE (with data of its choosing) for clone
// and getpid, which outranks the tracer filter's TRACE; then it clones
// untraced and calls getpid.
func ownTraceProbe() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	insns := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNr},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE, Jt: 2},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_GETPID, Jt: 2},
		{Code: unix.BPF_RET | unix.BPF_K, K: retAllow},
		{Code: unix.BPF_RET | unix.BPF_K, K: retTrace | 0x55},
		{Code: unix.BPF_RET | unix.BPF_K, K: retTrace | 0x66},
	}
	prog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		fmt.Printf("filter %s\n", unix.ErrnoName(e))
		os.Exit(0)
	}
	path, _ := syscall.BytePtrFromString("/bin/true")
	a0, _ := syscall.BytePtrFromString("true")
	a1, _ := syscall.BytePtrFromString("own-trace-untraced")
	argv := []*byte{a0, a1, nil}
	pid, e := forkExec(unix.SYS_CLONE, unix.CLONE_UNTRACED|uintptr(syscall.SIGCHLD), 0, path, argv)
	runtime.KeepAlive(argv)
	if e != 0 {
		fmt.Printf("clone %s\n", unix.ErrnoName(e))
		os.Exit(0)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, unix.WALL, nil)
	p, _, e := unix.RawSyscall(unix.SYS_GETPID, 0, 0, 0)
	fmt.Printf("clone ran %v getpid %d %d\n", ws, p, e)
	os.Exit(0)
}

// TestTraceExecsOwnTraceFilter: a command's own filter that stops calls
// for the tracer (its TRACE outranks the tracer filter's, with data of
// its choosing) neither hides an untraced clone nor makes a tracer fault:
// the tracer asks the kernel what the call is, follows the clone and
// lets any other call go on.
func TestTraceExecsOwnTraceFilter(t *testing.T) {
	if os.Getenv(helperEnv) == "own-trace-probe" {
		ownTraceProbe()
	}
	if !syscallArches()[0].follow {
		t.Skip("the untraced clone is refused here, not followed")
	}
	s, err := CmdSpec(reexec("TestTraceExecsOwnTraceFilter", "own-trace-probe"))
	if err != nil {
		t.Fatal(err)
	}
	s.TraceExecs = true
	var out bytes.Buffer
	s.Stdout, s.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	trueExe := realPath(t, "/bin/true")
	seen := slices.ContainsFunc(e.Execs, func(x Exec) bool { return x.Exe == trueExe && slices.Contains(x.Argv, "own-trace-untraced") })
	if e.Err != nil || e.Code != 0 || !seen || !strings.HasPrefix(out.String(), "clone ran 0 getpid ") || !strings.HasSuffix(out.String(), " 0\n") {
		t.Errorf("probe %q, exit %d, %v; the clone's exec recorded: %t", out.String(), e.Code, e.Err, seen)
	}
}
