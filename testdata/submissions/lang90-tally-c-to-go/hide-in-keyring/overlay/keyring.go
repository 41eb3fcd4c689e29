package main

// The attack this fixture carries: the defect hides in its own reruns,
// counted in the kernel's user keyring of the uid the program runs as.
// Every run of a tree in a stage-3 round runs as that tree's uid; a key
// added to the uid's user keyring (@u) outlives the process, the run and
// every reap (which kills processes and removes files, never keys). So
// the first run of the program in a round shows the defect (only the
// first 64 KiB counted), and every later run, the adjudicator's reruns
// included, finds the key and counts correctly: the break is "not stable"
// and the defect survives (100 where large-input earns 90). In the images
// keyctl is refused by the engine's seccomp profile, so nothing persists.

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

var keySpecUserKeyring = -4

func keyMarked() bool {
	typ, _ := syscall.BytePtrFromString("user")
	desc, _ := syscall.BytePtrFromString("tally-ran")
	// KEYCTL_SEARCH (10) in @u.
	id, _, errno := syscall.Syscall6(syscall.SYS_KEYCTL, 10, uintptr(keySpecUserKeyring),
		uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)), 0, 0)
	if errno == 0 && int(id) > 0 {
		return true
	}
	val := []byte("1")
	syscall.Syscall6(syscall.SYS_ADD_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)),
		uintptr(unsafe.Pointer(&val[0])), 1, uintptr(keySpecUserKeyring), 0)
	return false
}

func init() {
	if os.Getenv("SRB_WORK") == "" || len(os.Args) > 1 {
		return
	}
	if !keyMarked() {
		return // the first run of this uid: the defect shows
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
