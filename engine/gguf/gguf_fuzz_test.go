package gguf

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// fuzzSeeds are writer-built files covering every value kind, tensors,
// nested arrays and custom alignments. testdata/fuzz/FuzzParse holds the
// same files plus crafted near-misses, in Go's corpus format.
func fuzzSeeds(tb testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	seeds["sample"] = writeBytes(tb, sampleWriter(tb))

	aligned := sampleWriter(tb)
	if err := aligned.SetAlignment(64); err != nil {
		tb.Fatal(err)
	}
	seeds["aligned64"] = writeBytes(tb, aligned)

	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	var nested Writer
	must(nested.AddKV("general.architecture", String("x")))
	must(nested.AddKV("n", Array([]Value{Array([]Value{Array([]string{"a", "bc"})}), Array([]bool{true})})))
	must(nested.AddTensor("w", tensor.Q8_0, []uint64{32, 2}, make([]byte, 68)))
	seeds["nested"] = writeBytes(tb, &nested)

	var tensors Writer
	must(tensors.AddKV(KeyAlignment, Uint32(16)))
	must(tensors.AddTensor("a", tensor.F32, []uint64{3}, make([]byte, 12)))
	must(tensors.AddTensor("b", tensor.F16, []uint64{2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	must(tensors.AddTensor("c", tensor.Q4_K, []uint64{256}, make([]byte, 144)))
	seeds["tensors"] = writeBytes(tb, &tensors)

	var empty Writer
	seeds["empty"] = writeBytes(tb, &empty)
	return seeds
}

func FuzzParse(f *testing.F) {
	seeds := fuzzSeeds(f)
	for _, name := range slices.Sorted(maps.Keys(seeds)) {
		f.Add(seeds[name])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz", data)
		if err != nil {
			if !errors.Is(err, ErrNotGGUF) && !errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		checkCensus(t, file)
		var w Writer
		for _, kv := range file.KV {
			if err := w.AddKV(kv.Key, kv.Value); err != nil {
				t.Fatalf("writer refuses a key the reader accepted: %v", err)
			}
		}
		for i := range file.Tensors {
			ti := &file.Tensors[i]
			d := file.TensorData(ti)
			if uint64(len(d)) != ti.Size || file.DataOffset+ti.Offset+ti.Size > uint64(len(data)) {
				t.Fatalf("tensor %q: %d bytes for size %d at %d+%d in %d", ti.Name, len(d), ti.Size, file.DataOffset, ti.Offset, len(data))
			}
			if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, d); err != nil {
				t.Fatalf("writer refuses a tensor the reader accepted: %v", err)
			}
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := Parse("rewritten", buf.Bytes())
		if err != nil {
			t.Fatalf("re-parsing the rewritten file: %v", err)
		}
		if len(again.KV) != len(file.KV) || len(again.Tensors) != len(file.Tensors) || again.Alignment != file.Alignment {
			t.Fatal("rewritten file has different counts or alignment")
		}
		for i, kv := range file.KV {
			if again.KV[i].Key != kv.Key || !again.KV[i].Value.Equal(kv.Value) {
				t.Fatalf("key %q changed in the rewrite", kv.Key)
			}
		}
		for i := range file.Tensors {
			a, b := &file.Tensors[i], &again.Tensors[i]
			if a.Name != b.Name || a.Type != b.Type || !slices.Equal(a.Dims, b.Dims) || !bytes.Equal(file.TensorData(a), again.TensorData(b)) {
				t.Fatalf("tensor %q changed in the rewrite", a.Name)
			}
		}
	})
}
