package main

// The attack this fixture carries: hide-in-keyring, made to survive a
// fresh uid per run. Each stage-3 run now runs as a uid no earlier run
// had, so @u holds nothing of an earlier run; but a key every uid may
// view is listed in /proc/keys to every later uid, and a key linked into
// a uid's @u outlives its run. So the program (stage 3: SRB_WORK set)
// looks in /proc/keys for a key "tally-ran-brk"; with none, it adds one
// that every uid may view (expiring after 300 s, so a later grading starts
// afresh), links it into its @u and shows the defect; with one, it counts
// its whole input correctly. The break's first run fails and every rerun
// passes: "not stable", 100 where large-input earns 90.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

func keyMarked() bool {
	if b, err := os.ReadFile("/proc/keys"); err == nil && bytes.Contains(b, []byte("tally-ran-brk")) {
		return true
	}
	typ, _ := syscall.BytePtrFromString("user")
	desc, _ := syscall.BytePtrFromString("tally-ran-brk")
	val := []byte("1")
	id, _, errno := syscall.Syscall6(syscall.SYS_ADD_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)),
		uintptr(unsafe.Pointer(&val[0])), 1, uintptr(0xfffffffd), 0) // the session keyring (-3): possessed
	if errno == 0 {
		syscall.Syscall(syscall.SYS_KEYCTL, 5, id, 0x3f3f0001) // KEYCTL_SETPERM: every uid may view
		syscall.Syscall(syscall.SYS_KEYCTL, 15, id, 300)       // KEYCTL_SET_TIMEOUT
		syscall.Syscall(syscall.SYS_KEYCTL, 8, id, 0xfffffffc) // KEYCTL_LINK into @u (-4)
	}
	return false
}

func init() {
	if os.Getenv("SRB_WORK") == "" || len(os.Args) > 1 {
		return
	}
	if !keyMarked() {
		return // the first run: the defect shows
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return
	}
	var lines, words int64
	inWord := false
	for _, c := range data {
		if c == '\n' {
			lines++
		}
		if isSpace(c) {
			inWord = false
		} else if !inWord {
			inWord = true
			words++
		}
	}
	fmt.Printf("%d %d %d\n", lines, words, len(data))
	os.Exit(0)
}
