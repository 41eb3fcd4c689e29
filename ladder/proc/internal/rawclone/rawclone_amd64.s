#include "textflag.h"

// func clone32(flags uintptr) uintptr
TEXT ·clone32(SB),NOSPLIT,$0-16
	MOVQ	flags+0(FP), BX
	MOVQ	$120, AX
	XORQ	CX, CX
	XORQ	DX, DX
	XORQ	SI, SI
	XORQ	DI, DI
	INT	$0x80
	MOVQ	AX, ret+8(FP)
	RET

// func cloneThreadExec(flags, stack uintptr, path *byte, argv **byte) uintptr
// The new thread touches neither its stack nor Go's: the kernel keeps
// every register but AX, CX and R11 across SYSCALL, so it finds path and
// argv in R12 and R13.
TEXT ·cloneThreadExec(SB),NOSPLIT,$0-40
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	MOVQ	path+16(FP), R12
	MOVQ	argv+24(FP), R13
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	MOVQ	$56, AX
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, ret+32(FP)
	RET
child:
	MOVQ	R12, DI
	MOVQ	R13, SI
	XORQ	DX, DX
	MOVQ	$59, AX
	SYSCALL
	MOVQ	$127, DI
	MOVQ	$60, AX
	SYSCALL
	INT	$3
