package gguf

import (
	"fmt"
	"math"
	"strconv"
)

// ValueType is the type tag GGUF stores before every metadata value. The
// numeric values are the ones on disk, so they must never change.
type ValueType uint32

// Metadata value types, as numbered by the GGUF specification.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7 // one byte, 0 or 1
	TypeString  ValueType = 8 // uint64 length + UTF-8 bytes, no terminator
	TypeArray   ValueType = 9 // uint32 element type + uint64 count + elements
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// typeInvalid is what the zero Value reports, so that a Value nobody filled
// in can never pass for a real UINT8 zero.
const typeInvalid ValueType = math.MaxUint32

var valueTypeNames = [...]string{
	"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
	"BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64",
}

// String returns the specification's name for t, or "ValueType(N)".
func (t ValueType) String() string {
	if t.valid() {
		return valueTypeNames[t]
	}
	if t == typeInvalid {
		return "invalid"
	}
	return fmt.Sprintf("ValueType(%d)", uint32(t))
}

func (t ValueType) valid() bool { return t <= TypeFloat64 }

// size is the encoded size of a scalar of type t; 0 for STRING and ARRAY,
// whose size depends on their contents.
func (t ValueType) size() uint64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// Value is one typed GGUF metadata value: a scalar, a string, or an array.
//
// Arrays are held as one typed Go slice ([]string, []float32, []int32, …)
// rather than a slice of Values, so a 150 000-entry vocabulary costs one
// allocation per array, not one per element. An array of arrays is held as
// []Value. The zero Value is invalid: its Type is none of the constants and
// every accessor reports false.
//
// Values are immutable; slices returned by the accessors share the Value's
// storage and must not be modified.
type Value struct {
	typ  ValueType
	set  bool      // false only for the zero Value
	num  uint64    // scalar payload: the raw little-endian bits, zero-extended
	str  string    // TypeString payload
	elem ValueType // TypeArray: the element type
	n    int       // TypeArray: number of elements
	arr  any       // TypeArray: []uint8 … []float64, []bool, []string or []Value
}

// Type returns the value's type.
func (v Value) Type() ValueType {
	if !v.set {
		return typeInvalid
	}
	return v.typ
}

// ArrayType returns the element type of an array; for anything else it
// returns an invalid type.
func (v Value) ArrayType() ValueType {
	if v.Type() != TypeArray {
		return typeInvalid
	}
	return v.elem
}

// Len returns the number of elements of an array, and 0 for anything else.
func (v Value) Len() int {
	if v.Type() != TypeArray {
		return 0
	}
	return v.n
}

func scalar(t ValueType, bits uint64) Value { return Value{typ: t, set: true, num: bits} }

// Uint8 returns a UINT8 value.
func Uint8(x uint8) Value { return scalar(TypeUint8, uint64(x)) }

// Int8 returns an INT8 value.
func Int8(x int8) Value { return scalar(TypeInt8, uint64(uint8(x))) }

// Uint16 returns a UINT16 value.
func Uint16(x uint16) Value { return scalar(TypeUint16, uint64(x)) }

// Int16 returns an INT16 value.
func Int16(x int16) Value { return scalar(TypeInt16, uint64(uint16(x))) }

// Uint32 returns a UINT32 value.
func Uint32(x uint32) Value { return scalar(TypeUint32, uint64(x)) }

// Int32 returns an INT32 value.
func Int32(x int32) Value { return scalar(TypeInt32, uint64(uint32(x))) }

// Uint64 returns a UINT64 value.
func Uint64(x uint64) Value { return scalar(TypeUint64, x) }

// Int64 returns an INT64 value.
func Int64(x int64) Value { return scalar(TypeInt64, uint64(x)) }

// Float32 returns a FLOAT32 value.
func Float32(x float32) Value { return scalar(TypeFloat32, uint64(math.Float32bits(x))) }

// Float64 returns a FLOAT64 value.
func Float64(x float64) Value { return scalar(TypeFloat64, math.Float64bits(x)) }

// Bool returns a BOOL value.
func Bool(x bool) Value {
	if x {
		return scalar(TypeBool, 1)
	}
	return scalar(TypeBool, 0)
}

// String returns a STRING value.
func String(s string) Value { return Value{typ: TypeString, set: true, str: s} }

// Elem is the set of Go types an ARRAY value can hold. []Value is an array
// of arrays: each element must itself be an ARRAY value.
type Elem interface {
	uint8 | int8 | uint16 | int16 | uint32 | int32 | float32 | bool | string |
		uint64 | int64 | float64 | Value
}

// elemType maps an array's Go slice type to its GGUF element type.
func elemType(arr any) ValueType {
	switch arr.(type) {
	case []uint8:
		return TypeUint8
	case []int8:
		return TypeInt8
	case []uint16:
		return TypeUint16
	case []int16:
		return TypeInt16
	case []uint32:
		return TypeUint32
	case []int32:
		return TypeInt32
	case []float32:
		return TypeFloat32
	case []bool:
		return TypeBool
	case []string:
		return TypeString
	case []uint64:
		return TypeUint64
	case []int64:
		return TypeInt64
	case []float64:
		return TypeFloat64
	case []Value:
		return TypeArray
	}
	return typeInvalid
}

// Array returns an ARRAY value whose element type follows from T. The slice
// is kept, not copied: the caller must not modify it afterwards.
func Array[T Elem](xs []T) Value {
	if xs == nil {
		xs = []T{} // so that Elems of an empty array still reports ok
	}
	return Value{typ: TypeArray, set: true, elem: elemType(any(xs)), n: len(xs), arr: any(xs)}
}

// Elems returns the elements of an ARRAY value if its element type is the
// one T maps to (T = Value for an array of arrays). The slice is the Value's
// own storage and must not be modified.
func Elems[T Elem](v Value) ([]T, bool) {
	if v.Type() != TypeArray {
		return nil, false
	}
	xs, ok := v.arr.([]T)
	return xs, ok
}

// Strings returns the elements of an array of STRING.
func (v Value) Strings() ([]string, bool) { return Elems[string](v) }

// Float32s returns the elements of an array of FLOAT32.
func (v Value) Float32s() ([]float32, bool) { return Elems[float32](v) }

// Int32s returns the elements of an array of INT32.
func (v Value) Int32s() ([]int32, bool) { return Elems[int32](v) }

// Uint returns an integer value as uint64. It accepts every unsigned type,
// and the signed types when the value is not negative, because writers
// disagree on the signedness of counts and ids.
func (v Value) Uint() (uint64, bool) {
	switch v.Type() {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return v.num, true
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		if i, _ := v.Int(); i >= 0 {
			return uint64(i), true
		}
	}
	return 0, false
}

// Int returns an integer value as int64. It accepts every signed type, and
// the unsigned types when the value fits in an int64.
func (v Value) Int() (int64, bool) {
	switch v.Type() {
	case TypeInt8:
		return int64(int8(v.num)), true
	case TypeInt16:
		return int64(int16(v.num)), true
	case TypeInt32:
		return int64(int32(v.num)), true
	case TypeInt64:
		return int64(v.num), true
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		if v.num <= math.MaxInt64 {
			return int64(v.num), true
		}
	}
	return 0, false
}

// Float returns a FLOAT32 or FLOAT64 value as float64. Integers are not
// converted: a float key stored as an integer is a malformed file.
func (v Value) Float() (float64, bool) {
	switch v.Type() {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(v.num))), true
	case TypeFloat64:
		return math.Float64frombits(v.num), true
	}
	return 0, false
}

// Bool returns a BOOL value.
func (v Value) Bool() (bool, bool) {
	if v.Type() != TypeBool {
		return false, false
	}
	return v.num != 0, true
}

// Str returns a STRING value. (String, by contrast, formats any value for
// people to read.)
func (v Value) Str() (string, bool) {
	if v.Type() != TypeString {
		return "", false
	}
	return v.str, true
}

// String formats the value for diagnostics: scalars in full, strings
// quoted, arrays as their element type and length.
func (v Value) String() string {
	switch t := v.Type(); t {
	case TypeString:
		return fmt.Sprintf("%q", v.str)
	case TypeBool:
		return fmt.Sprint(v.num != 0)
	case TypeFloat32:
		// Shortest text that reads back as the same float32: 1e-05, not
		// the float64 widening 9.999999747378752e-06.
		f, _ := v.Float()
		return fmt.Sprintf("%s %s", t, strconv.FormatFloat(f, 'g', -1, 32))
	case TypeFloat64:
		f, _ := v.Float()
		return fmt.Sprintf("%s %s", t, strconv.FormatFloat(f, 'g', -1, 64))
	case TypeArray:
		return fmt.Sprintf("[%s × %d]", v.elem, v.n)
	case typeInvalid:
		return "invalid"
	default:
		if u, ok := v.Uint(); ok {
			return fmt.Sprintf("%s %d", t, u)
		}
		i, _ := v.Int()
		return fmt.Sprintf("%s %d", t, i)
	}
}

// Equal reports whether v and w have the same type and contents. Floats are
// compared bit for bit, so a NaN equals itself and -0 differs from +0: the
// question is whether the stored values are identical, not numerically equal.
func (v Value) Equal(w Value) bool {
	if v.Type() != w.Type() {
		return false
	}
	switch v.Type() {
	case TypeString:
		return v.str == w.str
	case TypeArray:
		return v.elem == w.elem && v.n == w.n && arraysEqual(v.arr, w.arr)
	default:
		return v.num == w.num
	}
}

func arraysEqual(a, b any) bool {
	switch a := a.(type) {
	case []uint8:
		return sliceEqual(a, b.([]uint8))
	case []int8:
		return sliceEqual(a, b.([]int8))
	case []uint16:
		return sliceEqual(a, b.([]uint16))
	case []int16:
		return sliceEqual(a, b.([]int16))
	case []uint32:
		return sliceEqual(a, b.([]uint32))
	case []int32:
		return sliceEqual(a, b.([]int32))
	case []bool:
		return sliceEqual(a, b.([]bool))
	case []string:
		return sliceEqual(a, b.([]string))
	case []uint64:
		return sliceEqual(a, b.([]uint64))
	case []int64:
		return sliceEqual(a, b.([]int64))
	case []float32:
		bb := b.([]float32)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(bb[i]) {
				return false
			}
		}
		return true
	case []float64:
		bb := b.([]float64)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(bb[i]) {
				return false
			}
		}
		return true
	case []Value:
		bb := b.([]Value)
		for i := range a {
			if !a[i].Equal(bb[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// sliceEqual is called only after the element types and lengths matched.
func sliceEqual[T comparable](a, b []T) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
