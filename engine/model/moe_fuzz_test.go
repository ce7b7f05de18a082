package model

import (
	"bytes"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// FuzzLoadMoE rewrites a tiny mixture-of-experts file with fuzzed expert
// keys (count, used, width, leading dense layers, the architecture) and
// one tensor dropped or reshaped, and checks that loading either refuses
// it with one sentence or gives a model that runs: no panic, no hang, no
// multi-line message, whatever the file says.
func FuzzLoadMoE(f *testing.F) {
	path := writeTinyMoE(f, tinyMoE())
	src, err := gguf.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { src.Close() })
	f.Add(uint8(0), uint32(4), uint32(2), uint32(32), uint32(0), uint16(0xffff), uint8(0), uint32(0))
	f.Add(uint8(1), uint32(4), uint32(2), uint32(32), uint32(1), uint16(0xffff), uint8(0), uint32(0))
	f.Add(uint8(2), uint32(4), uint32(2), uint32(32), uint32(0), uint16(0xffff), uint8(0), uint32(0))
	f.Add(uint8(0), uint32(4), uint32(5), uint32(32), uint32(0), uint16(3), uint8(1), uint32(4))
	f.Add(uint8(0), uint32(0), uint32(0), uint32(0), uint32(9), uint16(12), uint8(2), uint32(1<<31))
	f.Fuzz(func(t *testing.T, archSel uint8, experts, used, width, dense uint32, drop uint16, dim uint8, dimVal uint32) {
		arch := [...]string{"llama", "qwen3moe", "gpt-oss"}[int(archSel)%3]
		var w gguf.Writer
		set := map[string]gguf.Value{
			"expert_count": gguf.Uint32(experts), "expert_used_count": gguf.Uint32(used),
			"expert_feed_forward_length": gguf.Uint32(width), "leading_dense_block_count": gguf.Uint32(dense),
		}
		for _, kv := range src.KV {
			k, v := kv.Key, kv.Value
			if k == "general.architecture" {
				v = gguf.String(arch)
			}
			if rest, ok := strings.CutPrefix(k, "llama."); ok {
				k = arch + "." + rest
				if s, ok := set[rest]; ok {
					v = s
				}
			}
			if err := w.AddKV(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddKV(arch+".leading_dense_block_count", set["leading_dense_block_count"]); err != nil {
			t.Fatal(err)
		}
		for i := range src.Tensors {
			ti := &src.Tensors[i]
			if int(drop) == i {
				continue
			}
			dims := append([]uint64(nil), ti.Dims...)
			data := src.TensorData(ti)
			if int(drop)+1 == i && int(dim) < len(dims) && dimVal > 0 && dimVal < 1<<12 {
				// A reshaped tensor keeps a size its type can hold.
				dims[dim] = uint64(dimVal)
				n, err := ti.Type.TensorBytes(dims)
				if err != nil || n > 1<<22 {
					continue
				}
				data = make([]byte, n)
			}
			if err := w.AddTensor(ti.Name, ti.Type, dims, data); err != nil {
				return // the writer refuses it: not a file
			}
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		file, err := gguf.Parse("fuzz.gguf", buf.Bytes())
		if err != nil {
			return
		}
		m, err := Load(file)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "model: ") {
				t.Fatalf("refusal is not one sentence of the model's: %q", msg)
			}
			return
		}
		s, err := m.NewStateOn(16, testBackend())
		if err != nil {
			return
		}
		logits := make([]float32, m.Vocab)
		if err := s.Forward([]int32{1, 2, 3}, logits); err != nil {
			t.Fatalf("a loaded model fails to run: %v", err)
		}
	})
}
