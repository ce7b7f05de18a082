// Package engine is ISAGI's inference engine. Its sub-packages are:
//
//   - gguf: the GGUF model-file reader (memory-mapped, fully validated) and writer;
//   - tensor: ggml's tensor types with their exact block layouts, and the CPU
//     kernels (dequantise, matrix×vector, matrix×matrix) on a worker pool.
//
// The forward pass, KV cache, sampler, tokenizers and generation API with
// residual-stream hooks are built on these by later issues.
package engine
