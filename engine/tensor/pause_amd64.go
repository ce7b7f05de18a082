package tensor

// spinPause is one iteration's delay of a spin-wait loop (the PAUSE
// instruction).
func spinPause()
