//go:build !amd64

package compat32

const supported = false

func clone(flags uintptr) uintptr { panic("compat32: no 32-bit ABI here") }
