package model

import (
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
)

// testBackend is what the golden and behaviour tests of this package run
// on. They are the backends' conformance suite: a device backend is
// checked by returning it here (behind its build tag) and running the same
// tests — stories260K, kjv, the K-quants, the archs goldens, GRC and hooks.
func testBackend() backend.Backend { return cpu.New(nil) }
