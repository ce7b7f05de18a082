package cuda

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestCUDA3OnRecorder runs issue 55's device measurements
// (gpu_cuda3_test.go) on the recording driver, on a two-layer Q4_K_M
// model of a tiny llama shape at a shallow depth: every launch of the
// prefills, the deep and shallow decodes, the batched steps and the long
// runs must match its kernel and stay inside live allocations, and every
// measurement must write its records (a refused KV type included), so
// that the device check does not find its bugs for the first time on a
// GPU.
func TestCUDA3OnRecorder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny-q4_k_m.gguf")
	shape := synth.Shape{Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512, Vocab: 512}
	if err := synth.WriteWith(path, shape, tensor.Q4_K, synth.Options{Random: true, Mixed: true}); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"ISAGI_CUDA3_1B": path, "ISAGI_CUDA3_8B": path, "ISAGI_CUDA3_LONG_MODELS": path,
		"ISAGI_CUDA3_DEPTH": "300", "ISAGI_CUDA3_ROUNDS": "2", "ISAGI_CUDA3_KV": "", "ISAGI_DEVICE_OUT": dir,
	} {
		t.Setenv(k, v)
	}
	g, f := newFakeDevice(t)
	const bw = 1e12 // the recorder has no bandwidth: any positive figure
	prefillRounds(t, g, "ISAGI_CUDA3_1B", "1b", goalPrefill1B, bw)
	depthRounds(t, g, 300, bw)
	batchRounds(t, g, bw)
	memcheckLong(t, g, []string{path})
	decodeAllocs(t, g, []string{path})
	for _, e := range f.errs {
		t.Error(e)
	}

	b, err := os.ReadFile(filepath.Join(dir, "cuda3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Each measurement records f32, and f16 measured or refused (the GPU
	// gains f16 caches in issue 55).
	got := map[string]int{}
	for _, line := range splitLines(b) {
		var r struct{ Kind, What, KV string }
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		if r.Kind == "refused" {
			got[r.What+"/"+r.KV+"/refused"]++
		} else {
			got[r.Kind+"/"+r.KV]++
		}
	}
	for kind, n := range map[string]int{"prefill": 1, "depth": 1, "batch": 1, "memcheck_long": 1, "allocs": 2} {
		if got[kind+"/f32"] != n {
			t.Errorf("%d %s records of the f32 cache, want %d (all: %v)", got[kind+"/f32"], kind, n, got)
		}
		if f16, refused := got[kind+"/f16"], got[kind+"/f16/refused"]; !(f16 == n && refused == 0 || f16 == 0 && refused == 1) {
			t.Errorf("%d %s records of the f16 cache and %d refusals (all: %v)", f16, kind, refused, got)
		}
	}
	t.Logf("records: %v", got)
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}

// TestCUDA3Costs checks the roofline's arithmetic on a small model: a
// prefill's bytes and FLOPs, a decode step's bytes.
func TestCUDA3Costs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.gguf")
	shape := synth.Shape{Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512, Vocab: 512}
	if err := synth.WriteWith(path, shape, tensor.Q8_0, synth.Options{Random: true}); err != nil {
		t.Fatal(err)
	}
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Q8_0: 34 bytes a 32 values. A block: Q 256², K and V 256×128, O
	// 256², gate, up and down 256×512; tied classifier 512×256.
	layerParams := int64(2 * (256*256*2 + 256*128*2 + 3*256*512))
	w := weightsOf(m)
	if w.layerParams != layerParams || w.layers != layerParams/32*34 {
		t.Errorf("layers: %d params, %d bytes; want %d, %d", w.layerParams, w.layers, layerParams, layerParams/32*34)
	}
	if w.classifierParams != 512*256 || w.classifier != 512*256/32*34 {
		t.Errorf("classifier: %d params, %d bytes", w.classifierParams, w.classifier)
	}
	if got := decodeBytes(m); got != w.layers+w.classifier {
		t.Errorf("decodeBytes %d, weightsOf %d + %d", got, w.layers, w.classifier)
	}
	// A position: 2 layers × K and V × 2 heads × 64 values × 2 bytes (f16).
	if got := kvPosBytes(m, backend.KVF16); got != 2*2*2*64*2 {
		t.Errorf("kvPosBytes f16 = %d", got)
	}
	pb := float64(kvPosBytes(m, backend.KVF32))
	bytes, flops := prefillCost(m, backend.KVF32, 300, 256)
	wantBytes := 2*float64(w.layers) + pb*(256+256) + pb*(300+44) + float64(w.classifier)
	if bytes != wantBytes {
		t.Errorf("prefill bytes %g, want %g", bytes, wantBytes)
	}
	wantFlops := 2*float64(layerParams)*300 + 2*512*256 + 4*float64(2*4*64)*300*301/2
	if flops != wantFlops {
		t.Errorf("prefill flops %g, want %g", flops, wantFlops)
	}
	if s := spreadOf([]float64{3, 1, 2, 10}); s != (spread{Median: 2.5, Min: 1, Max: 10}) {
		t.Errorf("spreadOf: %+v", s)
	}
}
