package compat32

const supported = true

func clone(flags uintptr) uintptr
