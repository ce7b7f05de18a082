package backendtest_test

import (
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestCPU runs the suite on the CPU backend itself, on a pool of two
// threads where the reference runs serially: a cheap run that keeps the
// suite honest (its float64 references check the CPU's products and
// embedding rows) and checks the capabilities only the CPU implements
// (Compactor, HeadProjector) through the same code a device would meet.
func TestCPU(t *testing.T) {
	backendtest.Run(t, cpu.New(tensor.NewKernels(tensor.NewPool(2))), backendtest.Config{Tol: backendtest.DefaultTolerances(), SinksYaRN: true})
}
