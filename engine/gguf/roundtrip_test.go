package gguf

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

func TestRoundTrip(t *testing.T) {
	data := writeBytes(t, sampleWriter(t))
	f, err := Parse("sample.gguf", data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != DefaultAlignment || f.Path != "sample.gguf" {
		t.Errorf("version %d alignment %d path %q, want 3, 32, sample.gguf", f.Version, f.Alignment, f.Path)
	}
	if f.DataOffset%32 != 0 || len(data)%32 != 0 {
		t.Errorf("data offset %d / file size %d not multiples of 32", f.DataOffset, len(data))
	}

	want := sampleKVs()
	if len(f.KV) != len(want) {
		t.Fatalf("%d keys, want %d", len(f.KV), len(want))
	}
	for i, kv := range want {
		got := f.KV[i]
		if got.Key != kv.Key {
			t.Errorf("key %d is %q, want %q (file order lost)", i, got.Key, kv.Key)
		}
		if !got.Value.Equal(kv.Value) {
			t.Errorf("key %q: got %v, want %v", kv.Key, got.Value, kv.Value)
		}
		if v, ok := f.Lookup(kv.Key); !ok || !v.Equal(kv.Value) {
			t.Errorf("Lookup(%q) = %v, %v", kv.Key, v, ok)
		}
	}

	// Spot-check through the typed accessors, not only Equal.
	check := func(name string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("%s: accessor gave the wrong value", name)
		}
	}
	lookup := func(k string) Value { v, _ := f.Lookup(k); return v }
	u, ok := lookup("t.u64").Uint()
	check("t.u64", ok && u == math.MaxUint64)
	i, ok := lookup("t.i8").Int()
	check("t.i8", ok && i == math.MinInt8)
	i, ok = lookup("t.i64").Int()
	check("t.i64", ok && i == math.MinInt64)
	x, ok := lookup("t.f32").Float()
	check("t.f32", ok && float32(x) == float32(-1.5e-7))
	x, ok = lookup("t.f32_nan").Float()
	check("t.f32_nan", ok && math.IsNaN(x))
	x, ok = lookup("t.f64_negzero").Float()
	check("t.f64_negzero", ok && x == 0 && math.Signbit(x))
	b, ok := lookup("t.bool_true").Bool()
	check("t.bool_true", ok && b)
	s, ok := lookup("t.string").Str()
	check("t.string", ok && s == "héllo ▁world\x00\n")
	s, ok = lookup("t.empty_string").Str()
	check("t.empty_string", ok && s == "")
	ss, ok := lookup("t.arr_string").Strings()
	check("t.arr_string", ok && slices.Equal(ss, []string{"a", "", "<0x0A>", "日本語"}))
	fs, ok := lookup("t.arr_f32").Float32s()
	check("t.arr_f32", ok && slices.Equal(fs, []float32{0.5, -2, float32(math.Inf(1))}))
	is, ok := lookup("t.arr_i32").Int32s()
	check("t.arr_i32", ok && slices.Equal(is, []int32{-1, 2, -3}))
	bs, ok := Elems[bool](lookup("t.arr_bool"))
	check("t.arr_bool", ok && slices.Equal(bs, []bool{true, false, true}))
	e, ok := Elems[uint32](lookup("t.arr_empty_u32"))
	check("t.arr_empty_u32", ok && len(e) == 0 && lookup("t.arr_empty_u32").ArrayType() == TypeUint32)
	es, ok := lookup("t.arr_empty_string").Strings()
	check("t.arr_empty_string", ok && len(es) == 0)

	nested := lookup("t.arr_nested")
	check("t.arr_nested type", nested.ArrayType() == TypeArray && nested.Len() == 4)
	inner, ok := Elems[Value](nested)
	check("t.arr_nested elems", ok && len(inner) == 4)
	if len(inner) == 4 {
		xs, _ := inner[0].Strings()
		check("nested[0]", slices.Equal(xs, []string{"x", "y"}))
		ys, _ := inner[1].Int32s()
		check("nested[1]", slices.Equal(ys, []int32{1, 2, 3}))
		deep, _ := Elems[Value](inner[2])
		check("nested[2]", len(deep) == 1 && deep[0].ArrayType() == TypeFloat32 && deep[0].Len() == 1)
		check("nested[3]", inner[3].ArrayType() == TypeArray && inner[3].Len() == 0)
	}

	if len(f.Tensors) != len(sampleTensorSpecs) {
		t.Fatalf("%d tensors, want %d", len(f.Tensors), len(sampleTensorSpecs))
	}
	for i, spec := range sampleTensorSpecs {
		ti := &f.Tensors[i]
		if ti.Name != spec.name || ti.Type != spec.typ || !slices.Equal(ti.Dims, spec.dims) {
			t.Errorf("tensor %d = %s %v %v, want %s %v %v", i, ti.Name, ti.Type, ti.Dims, spec.name, spec.typ, spec.dims)
		}
		if ti.Offset%32 != 0 {
			t.Errorf("tensor %s offset %d not aligned", ti.Name, ti.Offset)
		}
		wantData := sampleData(spec.typ, spec.dims, byte(i*31+1))
		if ti.Size != uint64(len(wantData)) || !bytes.Equal(f.TensorData(ti), wantData) {
			t.Errorf("tensor %s: data differs (size %d, want %d)", ti.Name, ti.Size, len(wantData))
		}
		if byName, ok := f.Tensor(spec.name); !ok || byName != ti {
			t.Errorf("Tensor(%q) = %v, %v", spec.name, byName, ok)
		}
	}
	if _, ok := f.Tensor("missing"); ok {
		t.Error("Tensor(missing) found something")
	}
	if got := f.Tensors[3].Elements(); got != 512 {
		t.Errorf("Elements = %d, want 512", got)
	}
	// MXFP4: two 17-byte blocks a row, 3 rows, 2 experts.
	if ti, ok := f.Tensor("blk.0.ffn_gate_exps.weight"); !ok || ti.Size != 2*17*3*2 || ti.Elements() != 384 {
		t.Errorf("MXFP4 expert stack: %v", ti)
	}
}

func TestRoundTripAlignment(t *testing.T) {
	w := sampleWriter(t)
	if err := w.SetAlignment(128); err != nil {
		t.Fatal(err)
	}
	if err := w.SetAlignment(64); err != nil { // replaces, does not duplicate
		t.Fatal(err)
	}
	data := writeBytes(t, w)
	f, err := Parse("aligned.gguf", data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Alignment != 64 {
		t.Fatalf("alignment %d, want 64", f.Alignment)
	}
	if a, err := f.Uint32(KeyAlignment); err != nil || a != 64 {
		t.Errorf("general.alignment = %d, %v", a, err)
	}
	if f.DataOffset%64 != 0 || len(data)%64 != 0 {
		t.Errorf("data offset %d / size %d not multiples of 64", f.DataOffset, len(data))
	}
	for _, ti := range f.Tensors {
		if ti.Offset%64 != 0 {
			t.Errorf("tensor %s offset %d not a multiple of 64", ti.Name, ti.Offset)
		}
	}
	if f.Tensors[1].Offset != 64 { // token_embd is 48 bytes, so the next one is at 64
		t.Errorf("second tensor at %d, want 64", f.Tensors[1].Offset)
	}
	n := 0
	for _, kv := range f.KV {
		if kv.Key == KeyAlignment {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d general.alignment entries, want 1", n)
	}
}

func TestWriterNoTensors(t *testing.T) {
	var w Writer
	if err := w.AddKV("a", Uint8(1)); err != nil {
		t.Fatal(err)
	}
	data := writeBytes(t, &w)
	f, err := Parse("kv-only", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tensors) != 0 || len(f.KV) != 1 || f.DataOffset != uint64(len(data)) {
		t.Errorf("tensors %d kv %d data offset %d size %d", len(f.Tensors), len(f.KV), f.DataOffset, len(data))
	}
}

func TestWriterRejects(t *testing.T) {
	ok := make([]byte, 4)
	cases := []struct {
		name string
		add  func(w *Writer) error
		want string
	}{
		{"empty key", func(w *Writer) error { return w.AddKV("", Uint8(0)) }, "non-empty"},
		{"invalid UTF-8 key", func(w *Writer) error { return w.AddKV("a\xff", Uint8(0)) }, "UTF-8"},
		{"duplicate key", func(w *Writer) error { w.AddKV("k", Uint8(0)); return w.AddKV("k", Uint8(1)) }, "already added"},
		{"zero value", func(w *Writer) error { return w.AddKV("k", Value{}) }, "invalid"},
		{"scalar in array of arrays", func(w *Writer) error { return w.AddKV("k", Array([]Value{Uint8(1)})) }, "element 0"},
		{"nested too deep", func(w *Writer) error { return w.AddKV("k", nest(maxArrayDepth+1)) }, "deeper"},
		{"alignment zero", func(w *Writer) error { return w.SetAlignment(0) }, "power of two"},
		{"alignment 48", func(w *Writer) error { return w.AddKV(KeyAlignment, Uint32(48)) }, "power of two"},
		{"alignment wrong type", func(w *Writer) error { return w.AddKV(KeyAlignment, Uint64(32)) }, "UINT32"},
		{"empty tensor name", func(w *Writer) error { return w.AddTensor("", tensor.F32, []uint64{1}, ok) }, "non-empty"},
		{"duplicate tensor", func(w *Writer) error {
			w.AddTensor("t", tensor.F32, []uint64{1}, ok)
			return w.AddTensor("t", tensor.F32, []uint64{1}, ok)
		}, "already added"},
		{"size mismatch", func(w *Writer) error { return w.AddTensor("t", tensor.F32, []uint64{2}, ok) }, "needs 8"},
		{"unknown type", func(w *Writer) error { return w.AddTensor("t", tensor.Type(4), []uint64{1}, ok) }, "unknown ggml type"},
		{"five dims", func(w *Writer) error { return w.AddTensor("t", tensor.F32, []uint64{1, 1, 1, 1, 1}, ok) }, "dimensions"},
		{"zero dims", func(w *Writer) error { return w.AddTensor("t", tensor.F32, nil, ok) }, "dimensions"},
		{"zero-sized dim", func(w *Writer) error { return w.AddTensor("t", tensor.F32, []uint64{1, 0}, nil) }, "size 0"},
		{"partial block", func(w *Writer) error { return w.AddTensor("t", tensor.Q8_0, []uint64{16}, ok) }, "multiple"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w Writer
			err := c.add(&w)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// nest returns an array nested depth levels deep.
func nest(depth int) Value {
	v := Array([]uint8{1})
	for range depth - 1 {
		v = Array([]Value{v})
	}
	return v
}

func TestNestingLimit(t *testing.T) {
	var w Writer
	if err := w.AddKV("deep", nest(maxArrayDepth)); err != nil {
		t.Fatalf("depth %d rejected: %v", maxArrayDepth, err)
	}
	f, err := Parse("deep", writeBytes(t, &w))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Lookup("deep"); !v.Equal(nest(maxArrayDepth)) {
		t.Error("nested value changed in the round trip")
	}
}

func TestValueAccessors(t *testing.T) {
	var zero Value
	if zero.Type().valid() || zero.String() != "invalid" || zero.Len() != 0 || zero.Equal(Uint8(0)) {
		t.Errorf("zero Value looks valid: %v", zero.Type())
	}
	if _, ok := zero.Uint(); ok {
		t.Error("zero Value has a Uint")
	}
	if _, ok := Int32(-1).Uint(); ok {
		t.Error("Uint accepted a negative INT32")
	}
	if u, ok := Int16(7).Uint(); !ok || u != 7 {
		t.Errorf("Uint(INT16 7) = %d, %v", u, ok)
	}
	if _, ok := Uint64(math.MaxUint64).Int(); ok {
		t.Error("Int accepted a UINT64 above MaxInt64")
	}
	if _, ok := Uint32(1).Float(); ok {
		t.Error("Float accepted an integer")
	}
	if _, ok := Bool(true).Uint(); ok {
		t.Error("Uint accepted a BOOL")
	}
	if _, ok := String("x").Strings(); ok {
		t.Error("Strings accepted a STRING")
	}
	if _, ok := Array([]int32{1}).Float32s(); ok {
		t.Error("Float32s accepted an INT32 array")
	}
	if String("x").ArrayType().valid() {
		t.Error("ArrayType of a STRING is valid")
	}
	if Float32(1).Equal(Float64(1)) || Array([]int32{1}).Equal(Array([]uint32{1})) || Array([]int32{1}).Equal(Array([]int32{2})) {
		t.Error("Equal ignored a difference")
	}
	for v, want := range map[string]string{
		Uint32(5).String():                 "UINT32 5",
		Int8(-3).String():                  "INT8 -3",
		Float32(0.5).String():              "FLOAT32 0.5",
		String("a").String():               `"a"`,
		Array([]string{"a", "b"}).String(): "[STRING × 2]",
		ValueType(42).String():             "ValueType(42)",
	} {
		if v != want {
			t.Errorf("String() = %q, want %q", v, want)
		}
	}
}

func TestGetters(t *testing.T) {
	var w Writer
	for _, kv := range []KV{
		{"s", String("llama")}, {"u8", Uint8(9)}, {"big", Uint64(1 << 40)}, {"neg", Int32(-2)},
		{"f32", Float32(0.25)}, {"f64", Float64(0.5)}, {"b", Bool(true)},
		{"strs", Array([]string{"a"})}, {"f32s", Array([]float32{1})}, {"i32s", Array([]int32{-1})},
	} {
		if err := w.AddKV(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Parse("getters.gguf", writeBytes(t, &w))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Architecture(); !errors.Is(err, ErrKeyNotFound) || !strings.Contains(err.Error(), `getters.gguf: key "general.architecture": not found`) {
		t.Errorf("Architecture on a file without it: %v", err)
	}
	if s, err := f.String("s"); s != "llama" || err != nil {
		t.Errorf("String = %q, %v", s, err)
	}
	if u, err := f.Uint32("u8"); u != 9 || err != nil {
		t.Errorf("Uint32(u8) = %d, %v", u, err)
	}
	if u, err := f.Uint64("big"); u != 1<<40 || err != nil {
		t.Errorf("Uint64(big) = %d, %v", u, err)
	}
	if x, err := f.Float32("f32"); x != 0.25 || err != nil {
		t.Errorf("Float32(f32) = %v, %v", x, err)
	}
	if x, err := f.Float32("f64"); x != 0.5 || err != nil {
		t.Errorf("Float32(f64) = %v, %v", x, err)
	}
	if b, err := f.Bool("b"); !b || err != nil {
		t.Errorf("Bool = %v, %v", b, err)
	}
	if xs, err := f.Strings("strs"); len(xs) != 1 || err != nil {
		t.Errorf("Strings = %v, %v", xs, err)
	}
	if xs, err := f.Float32s("f32s"); len(xs) != 1 || err != nil {
		t.Errorf("Float32s = %v, %v", xs, err)
	}
	if xs, err := f.Int32s("i32s"); len(xs) != 1 || xs[0] != -1 || err != nil {
		t.Errorf("Int32s = %v, %v", xs, err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(f.Uint32("big")), `key "big": value 1099511627776 does not fit in 32 bits`},
		{second(f.Uint32("neg")), `key "neg": value INT32 -2 is negative`},
		{second(f.Uint32("s")), `key "s": has type STRING, want an integer`},
		{second(f.String("u8")), `key "u8": has type UINT8, want STRING`},
		{second(f.Float32("u8")), `want FLOAT32`},
		{second(f.Bool("s")), `want BOOL`},
		{second(f.Strings("f32s")), `key "f32s": has type ARRAY of FLOAT32, want ARRAY of STRING`},
		{second(f.Int32s("strs")), `want ARRAY of INT32`},
		{second(f.Float32s("s")), `want ARRAY of FLOAT32`},
	} {
		if !errors.Is(c.err, ErrWrongType) || !strings.Contains(c.err.Error(), c.want) || !strings.HasPrefix(c.err.Error(), "gguf: getters.gguf: ") {
			t.Errorf("error %v, want ErrWrongType containing %q", c.err, c.want)
		}
	}
	if _, err := f.Float32s("missing"); !errors.Is(err, ErrKeyNotFound) {
		t.Errorf("missing key: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
