// Package tensor holds ggml's tensor element types with their exact block
// layouts, conversions between them and float32, and the CPU kernels
// (dequantise, matrix×vector, matrix×matrix) the forward pass runs on.
package tensor

import (
	"fmt"
	"math/bits"
)

// Type is a ggml tensor element type. The numeric values are the ones stored
// in GGUF tensor infos (ggml's enum ggml_type), so they must never change.
type Type uint32

// ggml type ids. Gaps are ids ggml has retired; files never contain them.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
	MXFP4   Type = 39
)

// QK is the number of weights in one block of a legacy quant (Q4_0, Q8_0, …).
const QK = 32

// QKK is the number of weights in one K-quant super-block (Q4_K, Q5_K, Q6_K, …).
const QKK = 256

// traits describes how a type is laid out: blockLen elements are stored in
// blockBytes bytes. computed marks the types this package can dequantise and
// multiply; the others are known only so a reader can size and skip them.
type traits struct {
	name       string
	blockLen   int
	blockBytes int
	computed   bool
}

// typeTable is indexed by Type. It is a fixed array, never written after
// compilation, so it is not mutable package state.
var typeTable = [...]traits{
	F32:     {"F32", 1, 4, true},
	F16:     {"F16", 1, 2, true},
	Q4_0:    {"Q4_0", 32, 18, true},
	Q4_1:    {"Q4_1", 32, 20, true},
	Q5_0:    {"Q5_0", 32, 22, true},
	Q5_1:    {"Q5_1", 32, 24, true},
	Q8_0:    {"Q8_0", 32, 34, true},
	Q8_1:    {"Q8_1", 32, 36, false},
	Q2_K:    {"Q2_K", 256, 84, true},
	Q3_K:    {"Q3_K", 256, 110, true},
	Q4_K:    {"Q4_K", 256, 144, true},
	Q5_K:    {"Q5_K", 256, 176, true},
	Q6_K:    {"Q6_K", 256, 210, true},
	Q8_K:    {"Q8_K", 256, 292, false},
	IQ2_XXS: {"IQ2_XXS", 256, 66, true},
	IQ2_XS:  {"IQ2_XS", 256, 74, true},
	IQ3_XXS: {"IQ3_XXS", 256, 98, true},
	IQ1_S:   {"IQ1_S", 256, 50, true},
	IQ4_NL:  {"IQ4_NL", 32, 18, true},
	IQ3_S:   {"IQ3_S", 256, 110, true},
	IQ2_S:   {"IQ2_S", 256, 82, true},
	IQ4_XS:  {"IQ4_XS", 256, 136, true},
	I8:      {"I8", 1, 1, false},
	I16:     {"I16", 1, 2, false},
	I32:     {"I32", 1, 4, false},
	I64:     {"I64", 1, 8, false},
	F64:     {"F64", 1, 8, false},
	IQ1_M:   {"IQ1_M", 256, 56, true},
	BF16:    {"BF16", 1, 2, true},
	TQ1_0:   {"TQ1_0", 256, 54, true},
	TQ2_0:   {"TQ2_0", 256, 66, true},
	MXFP4:   {"MXFP4", 32, 17, true},
}

func (t Type) traits() (traits, bool) {
	if int(t) >= len(typeTable) || typeTable[t].blockLen == 0 {
		return traits{}, false
	}
	return typeTable[t], true
}

// Known reports whether t is a ggml type whose block layout this package knows,
// so a tensor of that type can be sized, even if it cannot be computed with.
func (t Type) Known() bool {
	_, ok := t.traits()
	return ok
}

// Computable reports whether this package can dequantise and multiply t.
func (t Type) Computable() bool {
	tr, ok := t.traits()
	return ok && tr.computed
}

// String returns ggml's name for t, or "type(N)" for an unknown id.
func (t Type) String() string {
	if tr, ok := t.traits(); ok {
		return tr.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockLen is the number of elements in one block of t (1 for plain types).
// It is 0 for an unknown type.
func (t Type) BlockLen() int {
	tr, _ := t.traits()
	return tr.blockLen
}

// BlockBytes is the size in bytes of one block of t. It is 0 for an unknown type.
func (t Type) BlockBytes() int {
	tr, _ := t.traits()
	return tr.blockBytes
}

// RowBytes returns the bytes taken by a row of n elements of type t. It fails
// when t is unknown, when n is not a whole number of blocks, or on overflow,
// because a reader must never trust a size it cannot compute exactly.
func (t Type) RowBytes(n uint64) (uint64, error) {
	tr, ok := t.traits()
	if !ok {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t))
	}
	bl := uint64(tr.blockLen)
	if n%bl != 0 {
		return 0, fmt.Errorf("row of %d elements is not a multiple of the %s block size %d", n, tr.name, bl)
	}
	hi, lo := bits.Mul64(n/bl, uint64(tr.blockBytes))
	if hi != 0 {
		return 0, fmt.Errorf("row of %d %s elements overflows 64 bits", n, tr.name)
	}
	return lo, nil
}

// TensorBytes returns the size in bytes of a tensor of type t with dimensions
// ne (innermost first, as GGUF stores them), checking every step for overflow.
func (t Type) TensorBytes(ne []uint64) (uint64, error) {
	if len(ne) == 0 {
		return 0, fmt.Errorf("tensor has no dimensions")
	}
	size, err := t.RowBytes(ne[0])
	if err != nil {
		return 0, err
	}
	for _, d := range ne[1:] {
		hi, lo := bits.Mul64(size, d)
		if hi != 0 {
			return 0, fmt.Errorf("%s tensor of shape %v overflows 64 bits", t, ne)
		}
		size = lo
	}
	return size, nil
}
