package rawclone

const supported = true

func clone32(flags uintptr) uintptr

func cloneThreadExec(flags, stack uintptr, path *byte, argv **byte) uintptr
