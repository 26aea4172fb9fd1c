#include "textflag.h"

// func Lines(addrs *uintptr, n int)
TEXT ·Lines(SB), NOSPLIT, $0-16
	MOVD addrs+0(FP), R0
	MOVD n+8(FP), R1
	CBZ R1, done
loop:
	MOVD.P 8(R0), R2
	PRFM (R2), PLDL1KEEP
	SUB $1, R1, R1
	CBNZ R1, loop
done:
	RET
