package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// fixture returns the path of a shared fixture, failing the test (never
// skipping it) when the shared checkout is missing.
func fixture(tb testing.TB, rel string) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	// The package is engine/gguf; shared/ sits beside the repository root.
	p := filepath.Join(wd, "..", "..", "..", "shared", "fixtures", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("fixture %s missing (tests need the shared checkout at ../shared next to the repository): %v", p, err)
	}
	return p
}

// raw assembles GGUF bytes field by field, for files the Writer refuses to
// produce.
type raw struct{ b []byte }

func header(version uint32, nTensors, nKV uint64) *raw {
	r := &raw{b: []byte("GGUF")}
	return r.u32(version).u64(nTensors).u64(nKV)
}

func (r *raw) u8(x uint8) *raw   { r.b = append(r.b, x); return r }
func (r *raw) u32(x uint32) *raw { r.b = binary.LittleEndian.AppendUint32(r.b, x); return r }
func (r *raw) u64(x uint64) *raw { r.b = binary.LittleEndian.AppendUint64(r.b, x); return r }
func (r *raw) str(s string) *raw { return r.u64(uint64(len(s))).raw(s) }
func (r *raw) raw(s string) *raw { r.b = append(r.b, s...); return r }

// tensor appends a tensor info.
func (r *raw) tensor(name string, typ tensor.Type, offset uint64, dims ...uint64) *raw {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	return r.u32(uint32(typ)).u64(offset)
}

// pad zero-fills to a multiple of align, where the data section begins.
func (r *raw) pad(align int) *raw {
	for len(r.b)%align != 0 {
		r.b = append(r.b, 0)
	}
	return r
}

func (r *raw) zeros(n int) *raw { r.b = append(r.b, make([]byte, n)...); return r }

// sampleKVs has one entry of every kind the format can hold, including the
// edge cases (empty string, empty arrays, nested and doubly nested arrays,
// extreme integers, NaN and negative zero).
func sampleKVs() []KV {
	return []KV{
		{"general.architecture", String("llama")},
		{"t.u8", Uint8(math.MaxUint8)},
		{"t.i8", Int8(math.MinInt8)},
		{"t.u16", Uint16(math.MaxUint16)},
		{"t.i16", Int16(-12345)},
		{"t.u32", Uint32(math.MaxUint32)},
		{"t.i32", Int32(math.MinInt32)},
		{"t.f32", Float32(-1.5e-7)},
		{"t.bool_true", Bool(true)},
		{"t.bool_false", Bool(false)},
		{"t.string", String("héllo ▁world\x00\n")},
		{"t.empty_string", String("")},
		{"t.u64", Uint64(math.MaxUint64)},
		{"t.i64", Int64(math.MinInt64)},
		{"t.f64", Float64(math.Pi)},
		{"t.f32_nan", Float32(float32(math.NaN()))},
		{"t.f64_negzero", Float64(math.Copysign(0, -1))},
		{"t.arr_u8", Array([]uint8{0, 1, 255})},
		{"t.arr_i8", Array([]int8{-128, 0, 127})},
		{"t.arr_u16", Array([]uint16{1, 65535})},
		{"t.arr_i16", Array([]int16{-32768, 32767})},
		{"t.arr_u32", Array([]uint32{7, 1 << 31})},
		{"t.arr_i32", Array([]int32{-1, 2, -3})},
		{"t.arr_f32", Array([]float32{0.5, -2, float32(math.Inf(1))})},
		{"t.arr_bool", Array([]bool{true, false, true})},
		{"t.arr_string", Array([]string{"a", "", "<0x0A>", "日本語"})},
		{"t.arr_u64", Array([]uint64{1 << 63, 0})},
		{"t.arr_i64", Array([]int64{math.MinInt64, math.MaxInt64})},
		{"t.arr_f64", Array([]float64{1e300, -1e-300})},
		{"t.arr_empty_u32", Array([]uint32{})},
		{"t.arr_empty_string", Array[string](nil)},
		{"t.arr_nested", Array([]Value{
			Array([]string{"x", "y"}),
			Array([]int32{1, 2, 3}),
			Array([]Value{Array([]float32{4})}),
			Array([]Value{}),
		})},
		{"t.arr_empty_nested", Array([]Value{})},
	}
}

// sampleTensors are small tensors of plain, legacy, K-quant and MXFP4 types with
// recognisable, distinct bytes.
type sampleTensor struct {
	name string
	typ  tensor.Type
	dims []uint64
}

var sampleTensorSpecs = []sampleTensor{
	{"token_embd.weight", tensor.F16, []uint64{8, 3}},
	{"blk.0.attn_norm.weight", tensor.F32, []uint64{5}},
	{"blk.0.attn_q.weight", tensor.Q8_0, []uint64{64, 2}},
	{"blk.0.ffn_down.weight", tensor.Q4_K, []uint64{256, 1, 1, 2}},
	// An expert stack as gpt-oss ships it: MXFP4, 17-byte blocks of 32,
	// [cols, rows, experts]; 204 bytes, so the next tensor is padded.
	{"blk.0.ffn_gate_exps.weight", tensor.MXFP4, []uint64{64, 3, 2}},
	{"output.weight", tensor.F32, []uint64{1, 1, 3}},
}

func sampleData(t tensor.Type, dims []uint64, seed byte) []byte {
	n, err := t.TensorBytes(dims)
	if err != nil {
		panic(err) // the specs above are fixed and valid
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// sampleWriter returns a Writer holding sampleKVs and sampleTensorSpecs.
func sampleWriter(tb testing.TB) *Writer {
	tb.Helper()
	var w Writer
	for _, kv := range sampleKVs() {
		if err := w.AddKV(kv.Key, kv.Value); err != nil {
			tb.Fatal(err)
		}
	}
	for i, s := range sampleTensorSpecs {
		if err := w.AddTensor(s.name, s.typ, s.dims, sampleData(s.typ, s.dims, byte(i*31+1))); err != nil {
			tb.Fatal(err)
		}
	}
	return &w
}

func writeBytes(tb testing.TB, w *Writer) []byte {
	tb.Helper()
	var buf bytes.Buffer
	n, err := w.WriteTo(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	if n != int64(buf.Len()) {
		tb.Fatalf("WriteTo reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}
