#include "textflag.h"

// func clone(flags uintptr) uintptr
TEXT ·clone(SB),NOSPLIT,$0-16
	MOVQ	flags+0(FP), BX
	MOVQ	$120, AX
	XORQ	CX, CX
	XORQ	DX, DX
	XORQ	SI, SI
	XORQ	DI, DI
	INT	$0x80
	MOVQ	AX, ret+8(FP)
	RET
