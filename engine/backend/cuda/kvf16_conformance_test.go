package cuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
)

// TestCPUKVF16Conformance is the measurement behind the GPU's default KV
// type, made on the CPU: a model with an f16 cache (the CPU backend's,
// whose rounding and reads the device kernels match) against the same
// model with an f32 cache, on every conformance fixture, with the
// tolerances and greedy rule TestGPUConformance applies to the GPU against
// the CPU. It reports and does not fail: f16 misses them on two quantised
// fixtures (the first logits of quants/qwen2-q4_k_m 3.1% of the largest
// apart, quants/llama-rope-freqs-q4_k_m 1.3%, against 1%), which is why the
// GPU keeps f32 as its default (docs/gpu.md).
func TestCPUKVF16Conformance(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 48 greedy steps of every conformance fixture twice")
	}
	found, held := 0, 0
	var missed []string
	for _, rel := range conformanceModels {
		path := filepath.Join(fixtureDir(), rel)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		found++
		t.Run(rel, func(t *testing.T) {
			m, err := model.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			hs, err := m.NewStateWith(256, cpu.New(nil), model.StateOptions{KV: backend.KVF16})
			if err != nil {
				t.Fatal(err)
			}
			defer hs.Close()
			fs, err := m.NewStateOn(256, cpu.New(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			tol := logitTolFloat
			if quantised(m) {
				tol = logitTolQuant
			}
			r := backendtest.Greedy(reportOnly{t}, hs, fs, 48, tol)
			if r.OK {
				held++
			} else {
				missed = append(missed, rel)
			}
			t.Logf("f16 against f32: %d steps equal, near-tie at %d, first logits |Δ| %.3g of %.3g (%.2g relative, tolerance %g), ok %v",
				r.Equal, r.NearTieAt, r.MaxLogit, r.LogitScale, r.MaxLogit/max(r.LogitScale, 1), tol, r.OK)
		})
	}
	if found == 0 {
		t.Skipf("no conformance models under %s", fixtureDir())
	}
	t.Logf("an f16 cache keeps the GPU's conformance tolerances on %d of %d fixtures; misses them on %v", held, found, missed)
}

// reportOnly is a test whose errors are logged: a measurement's.
type reportOnly struct{ testing.TB }

func (r reportOnly) Error(args ...any)                 { r.TB.Helper(); r.TB.Log(args...) }
func (r reportOnly) Errorf(format string, args ...any) { r.TB.Helper(); r.TB.Logf(format, args...) }
