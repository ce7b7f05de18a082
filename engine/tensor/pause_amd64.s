#include "textflag.h"

// func spinPause()
// PAUSE tells the core this is a spin-wait loop: it saves power and, on an
// SMT core, gives the sibling thread the execution units meanwhile.
TEXT ·spinPause(SB), NOSPLIT, $0-0
	PAUSE
	RET
