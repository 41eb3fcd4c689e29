//go:build !amd64

package rawclone

const supported = false

func clone32(flags uintptr) uintptr { panic("rawclone: not on this architecture") }

func cloneThreadExec(flags, stack uintptr, path *byte, argv **byte) uintptr {
	panic("rawclone: not on this architecture")
}
