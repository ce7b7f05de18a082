package session

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Until archgen writes tiny mixture-of-experts models, the expert map's
// tests make one: the qwen3 arch fixture rewritten as a qwen3moe whose
// dense FFN (128 wide) is cut into moeExperts experts of moeFFN, with a
// random router. Its replies mean nothing; what the tests read is that
// the routing is recorded and that switching experts off changes it.
const (
	moeExperts = 4
	moeUsed    = 2
	moeFFN     = 32
)

// moeFixture writes that model into a temporary directory.
func moeFixture(t testing.TB) string {
	t.Helper()
	f, err := gguf.Open(fixture(t, "archs/qwen3.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w gguf.Writer
	for _, kv := range f.KV {
		key, v := kv.Key, kv.Value
		if key == "general.architecture" {
			v = gguf.String("qwen3moe")
		}
		key = strings.Replace(key, "qwen3.", "qwen3moe.", 1)
		if err := w.AddKV(key, v); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]uint32{"expert_count": moeExperts, "expert_used_count": moeUsed, "expert_feed_forward_length": moeFFN} {
		if err := w.AddKV("qwen3moe."+k, gguf.Uint32(v)); err != nil {
			t.Fatal(err)
		}
	}
	floats := func(ti *gguf.TensorInfo) []float32 {
		if ti.Type != tensor.F32 {
			t.Fatalf("%s is %v, not F32", ti.Name, ti.Type)
		}
		b := f.TensorData(ti)
		out := make([]float32, len(b)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	add := func(name string, xs []float32, dims ...uint64) {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		if err := w.AddTensor(name, tensor.F32, dims, b); err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(0x9e3779b97f4a7c15)
	gauss := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			seed = nextSeed(seed)
			u1 := (float64(seed>>11) + 0.5) * 0x1p-53
			seed = nextSeed(seed)
			u2 := float64(seed>>11) * 0x1p-53
			out[i] = float32(std * math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2))
		}
		return out
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		var blk int
		var kind string
		if n, _ := fmtSscan(ti.Name, &blk, &kind); n == 2 && (kind == "ffn_gate" || kind == "ffn_up" || kind == "ffn_down") {
			x := floats(ti)
			dim, ffn := int(ti.Dims[0]), int(ti.Dims[1]) // gate, up: [dim, ffn]
			if kind == "ffn_down" {
				ffn, dim = dim, ffn // down: [ffn, dim]
			}
			var e []float32
			switch kind {
			case "ffn_down": // expert j: the columns j·F…(j+1)·F of every row
				for j := range moeExperts {
					for r := range dim {
						e = append(e, x[r*ffn+j*moeFFN:][:moeFFN]...)
					}
				}
				add(strings.Replace(ti.Name, "ffn_down", "ffn_down_exps", 1), e, moeFFN, uint64(dim), moeExperts)
			default: // expert j: the rows j·F…(j+1)·F
				e = x[:moeExperts*moeFFN*dim]
				add(strings.Replace(ti.Name, kind, kind+"_exps", 1), e, uint64(dim), moeFFN, moeExperts)
			}
			if kind == "ffn_gate" {
				add(strings.Replace(ti.Name, "ffn_gate", "ffn_gate_inp", 1), gauss(dim*moeExperts, 1), uint64(dim), moeExperts)
			}
			continue
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, f.TensorData(ti)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "qwen3moe.gguf")
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := w.WriteTo(fh); err != nil {
		t.Fatal(err)
	}
	return out
}

// fmtSscan reads "blk.N.KIND.weight".
func fmtSscan(name string, blk *int, kind *string) (int, error) {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return 0, nil
	}
	num, rest, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, nil
	}
	k, suffix, ok := strings.Cut(rest, ".")
	if !ok || suffix != "weight" {
		return 0, nil
	}
	n := 0
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, nil
		}
		n = n*10 + int(c-'0')
	}
	*blk, *kind = n, k
	return 2, nil
}
