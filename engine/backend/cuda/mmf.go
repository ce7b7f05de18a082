package cuda

// mmfTile is the mmf_ kernels' tile (kernels/mmf.cu): weight rows and
// tokens a block. productOf runs the products of many rows (n > 1) with
// F16 and BF16 weights on them, unless a test asked for the float kernels
// (Device.floatBatch): TF32 tensor-core products of the activations split
// into two parts, which keep the CPU's unrounded float32 activations to
// 2⁻²² of each value (kernels/mmf.cuh).
const mmfTile = 64
