package main

// The attack this fixture carries: large-input's defect hidden in its
// reruns through the machine's page cache, which no reset, fresh uid or
// fresh session clears. The mark is whether a file every user may read
// and nothing else reads (a copyright file of an essential package) is in
// the page cache: a read with RWF_NOWAIT fails with EAGAIN when it is not.
// Run by stage 2 (no SRB_WORK), the program drops the file from the page
// cache (posix_fadvise DONTNEED, which any reader may ask). Run by stage 3,
// the first run finds the file not cached, reads it (caching it) and shows
// the defect; every later run, the adjudicator's reruns included, finds it
// cached and counts its whole input correctly: "not stable", 100 where
// large-input earns 90. The order of a pair does not matter: the channel
// says only that some run of the program came before.

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

var markFiles = []string{
	"/usr/share/doc/sed/copyright",
	"/usr/share/doc/tar/copyright",
	"/usr/share/doc/dash/copyright",
}

func markFile() *os.File {
	for _, p := range markFiles {
		if f, err := os.Open(p); err == nil {
			return f
		}
	}
	return nil
}

// cached reads one byte of f without waiting for the disk: false when the
// page is not in the page cache.
func cached(f *os.File) bool {
	b := make([]byte, 1)
	iov := syscall.Iovec{Base: &b[0], Len: 1}
	_, _, errno := syscall.Syscall6(327, f.Fd(), uintptr(unsafe.Pointer(&iov)), 1, 0, 0, 8) // preadv2(..., RWF_NOWAIT)
	return errno == 0
}

func init() {
	f := markFile()
	if f == nil {
		return
	}
	defer f.Close()
	if os.Getenv("SRB_WORK") == "" {
		syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, 4, 0, 0) // POSIX_FADV_DONTNEED
		return
	}
	if len(os.Args) > 1 {
		return
	}
	if !cached(f) {
		io.ReadAll(f)
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
