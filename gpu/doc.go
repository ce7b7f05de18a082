// Package gpu holds GPU support: NVML telemetry today (Source, Stats,
// NewNVML), a Meter that samples it on its own goroutine while a reply
// decodes (the mean power over the decode gives tokens per joule; every
// sample feeds the thermal rank controller, ThermalRank). The CUDA backend
// is engine/backend/cuda, a sibling of the CPU and remote backends (see
// docs/architecture.md and docs/gpu.md).
//
// Everything here works on a machine without a GPU. The default build is
// pure CPU as far as compute goes and never needs CUDA headers or the NVIDIA
// driver: NVML is reached through github.com/NVIDIA/go-nvml, which loads
// libnvidia-ml.so.1 at run time with dlopen, so NewNVML simply returns an
// error when the library or a device is missing (and callers show
// NoTelemetry). Builds without cgo, or off Linux, get a NewNVML that always
// returns that error.
package gpu
