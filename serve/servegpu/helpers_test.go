package servegpu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/backend/cuda"
	"github.com/isagi-lab/isagi/engine/model"
)

// device is where a measurement's backends come from: the GPU, or the CPU
// for the tests that run the measurements' code here.
type device interface {
	NewBackend() (backend.Backend, error)
	Name() string
}

// gpu is a CUDA device as a device.
type gpu struct{ *cuda.Device }

func (g gpu) NewBackend() (backend.Backend, error) {
	b, err := g.Device.NewBackend()
	if err != nil {
		return nil, err
	}
	return b, nil
}

// cpuDevice gives CPU backends.
type cpuDevice struct{}

func (cpuDevice) NewBackend() (backend.Backend, error) { return cpu.New(nil), nil }
func (cpuDevice) Name() string                         { return "cpu" }

// gpuDevice opens the GPU for one test, closed when it ends. Without one
// the test skips, unless ISAGI_REQUIRE_GPU is set (scripts/device-check.sh
// sets it, so that a machine whose GPU cannot be used fails instead of
// passing by skipping), as engine/backend/cuda's GPU tests do.
func gpuDevice(tb testing.TB) gpu {
	tb.Helper()
	g, err := cuda.Open(cuda.Options{})
	if err != nil {
		if os.Getenv("ISAGI_REQUIRE_GPU") != "" {
			tb.Fatalf("ISAGI_REQUIRE_GPU is set and the GPU cannot be used: %v", err)
		}
		tb.Skipf("no GPU: %v", err)
	}
	tb.Cleanup(func() { g.Close() })
	return gpu{g}
}

// record appends one JSON record to ISAGI_DEVICE_OUT/name.
func record(tb testing.TB, name string, v any) {
	dir := os.Getenv("ISAGI_DEVICE_OUT")
	if dir == "" {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s\n", b); err != nil {
		tb.Fatal(err)
	}
}

// fixtureDir is where the fixtures are: ISAGI_FIXTURES (the device check
// sets it), or ../shared/fixtures beside the checkout.
func fixtureDir() string {
	if d := os.Getenv("ISAGI_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "fixtures")
}

// spread is a figure's rounds: median, least and most.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) spread {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: med, Min: s[0], Max: s[len(s)-1]}
}

func (s spread) String() string {
	return fmt.Sprintf("%.1f (%.1f…%.1f)", s.Median, s.Min, s.Max)
}

// decodeBytes is what a decode step reads of the weights: every matrix but
// the embedding table, of which one row is read — unless the classifier
// is tied to it, when it is read whole.
func decodeBytes(m *model.Model) int64 {
	f := m.File()
	_, untied := f.Tensor("output.weight")
	var n int64
	for _, ti := range f.Tensors {
		if len(ti.Dims) < 2 || (untied && ti.Name == "token_embd.weight") {
			continue
		}
		n += int64(ti.Size)
	}
	return n
}

// kvPosBytes is what one position of m's cache takes in kv, keys and
// values, every layer: what a token attending over it reads.
func kvPosBytes(m *model.Model, kv backend.KVType) int64 {
	c := &m.Config
	return int64(c.Layers) * 2 * int64(c.KVHeads) * int64(kv.RowBytes(c.HeadDim))
}

// splitLines are b's non-empty lines.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}
