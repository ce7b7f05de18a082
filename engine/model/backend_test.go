package model

import (
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
)

// testBackend is what the golden and behaviour tests of this package run
// on: the CPU. The device backends are not checked here. Their
// conformance is engine/backend/backendtest, which runs every operation
// on a backend against the CPU backend, and their own tests decode the
// fixture models greedily beside the CPU engine (cuda's
// TestGPUConformance, remote's TestConformance).
func testBackend() backend.Backend { return cpu.New(nil) }
