// Package gpu holds the CUDA backend (build tag cuda) and NVML telemetry.
// The default build is pure CPU and never needs CUDA headers.
//
// Nothing is implemented yet; the CUDA and app issues build it.
package gpu
