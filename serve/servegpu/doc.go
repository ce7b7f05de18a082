// Package servegpu holds the device check's measurements of `isagi serve`
// on a GPU (issue 54's goals: aggregate decode at 4 and 32 streams, TTFT
// at 8, batched replies equal to lone ones), in its tests only. They
// drive serve's own code over a session on the CUDA backend, so they
// cannot live with the backend's tests: engine/ imports nothing above it,
// not even in tests (internal/layers). scripts/device-bundle.sh builds
// its test binary for the GPU machine.
package servegpu
