#include "textflag.h"

// func Lines(addrs *uintptr, n int)
TEXT ·Lines(SB), NOSPLIT, $0-16
	MOVQ addrs+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE done
loop:
	MOVQ (AX), DX
	PREFETCHT0 (DX)
	ADDQ $8, AX
	DECQ CX
	JNZ loop
done:
	RET
