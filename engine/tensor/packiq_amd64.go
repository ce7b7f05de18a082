package tensor

import "golang.org/x/sys/cpu"

// hasIQZ reports what the packed IQ1/IQ2/IQ3 kernels (packiq*_amd64.s) may
// use besides the packed VNNI kernels' ZMM instructions: VPGATHERDD/DQ
// (AVX512F) for the codebook entries of sixteen rows at once, and the
// byte and bit instructions of AVX512_VBMI (VPERMB, VPMULTISHIFTQB) and
// AVX512_BITALG (VPSHUFBITQMB, VPOPCNTB) and GFNI for the sign masks and
// codes. Without them those types are not packed and keep their
// GGUF-layout kernels.
var hasIQZ = hasTQZ && cpu.X86.HasAVX512BITALG && cpu.X86.HasAVX512VBMI
