// Package gguf reads and writes GGUF files, the container llama.cpp and
// ggml use for model weights and their metadata.
//
// A reader must assume the file is hostile: every length and count in it is
// checked against the bytes that remain before anything is allocated, every
// tensor's type, shape, offset and size are validated, and a malformed file
// gives an error naming the file and the offending key or tensor, never a
// panic. Open maps the file read-only, so tensor data is never copied;
// metadata (keys, strings, arrays) is copied out and outlives Close.
//
// Only GGUF versions 2 and 3, little-endian, are supported. Version 1 used
// 32-bit counts and is long obsolete.
package gguf

import (
	"errors"
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Every error Parse and Open return for a bad file wraps exactly one of the
// first four sentinels; the getters wrap one of the last two. The error's
// text carries the detail.
var (
	// ErrNotGGUF: the file does not start with the GGUF magic.
	ErrNotGGUF = errors.New("not a GGUF file")
	// ErrUnsupportedVersion: a GGUF version other than 2 or 3, or a
	// big-endian file.
	ErrUnsupportedVersion = errors.New("unsupported GGUF version")
	// ErrTruncated: the file ends before something it promises, such as a
	// string, an array or a tensor's data.
	ErrTruncated = errors.New("truncated GGUF file")
	// ErrMalformed: the file is long enough but its contents are invalid.
	ErrMalformed = errors.New("malformed GGUF file")
	// ErrKeyNotFound: a metadata key a getter asked for is absent.
	ErrKeyNotFound = errors.New("metadata key not found")
	// ErrWrongType: a metadata value has a type (or, for integers, a value)
	// the getter cannot return.
	ErrWrongType = errors.New("metadata value has the wrong type")
)

// fileError keeps the detailed message while letting errors.Is find the
// sentinel, without the sentinel's text tacked onto every message.
type fileError struct {
	msg  string
	kind error
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.kind }

func newError(kind error, name, format string, args ...any) error {
	return &fileError{msg: "gguf: " + name + ": " + fmt.Sprintf(format, args...), kind: kind}
}

// DefaultAlignment is the data alignment of a file without general.alignment.
const DefaultAlignment = 32

// KeyAlignment is the metadata key that overrides DefaultAlignment. Its
// value must be a UINT32 power of two.
const KeyAlignment = "general.alignment"

// MaxAlignment is the largest general.alignment accepted. ggml only asks
// for a power of two; real files use 32 (sometimes 64 or a page), and a
// gigabyte alignment would make a writer emit a gigabyte of padding for a
// file a few bytes long — which the fuzzer found.
const MaxAlignment = 1 << 16

// alignmentOf validates a general.alignment value: a UINT32 power of two,
// as ggml requires, no larger than MaxAlignment.
func alignmentOf(v Value) (uint64, error) {
	if v.Type() != TypeUint32 {
		return 0, fmt.Errorf("alignment has type %s, want UINT32", describeType(v))
	}
	a, _ := v.Uint()
	if a == 0 || a&(a-1) != 0 {
		return 0, fmt.Errorf("alignment %d is not a power of two", a)
	}
	if a > MaxAlignment {
		return 0, fmt.Errorf("alignment %d exceeds %d", a, MaxAlignment)
	}
	return a, nil
}

// padTo rounds x up to a multiple of align, a power of two.
func padTo(x, align uint64) uint64 { return (x + align - 1) &^ (align - 1) }

// MaxDims is the largest number of dimensions a ggml tensor can have.
const MaxDims = 4

// maxArrayDepth bounds nesting of arrays of arrays, so a hostile file cannot
// drive the recursive decoder arbitrarily deep. Real files nest at most once.
const maxArrayDepth = 8

// KV is one metadata key and its value.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo describes one tensor stored in a file.
type TensorInfo struct {
	Name string
	// Dims are the sizes of each dimension, innermost (contiguous) first,
	// as ggml's ne: a PyTorch [out, in] matrix has Dims [in, out].
	Dims []uint64
	Type tensor.Type
	// Offset is where the data starts, relative to File.DataOffset.
	Offset uint64
	// Size is the data's length in bytes, computed from Type and Dims.
	Size uint64
}

// Elements returns the number of elements in the tensor. Parse has checked
// that it fits in an int64.
func (ti *TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range ti.Dims {
		n *= d
	}
	return n
}

// File is a parsed GGUF file. KV and Tensors are in file order; treat them
// as read-only, because Lookup and Tensor index them by position.
type File struct {
	// Path is the path given to Open, or the name given to Parse.
	Path string
	// Version is the GGUF version, 2 or 3.
	Version uint32
	// Alignment is the data alignment in bytes (general.alignment, or 32).
	Alignment uint64
	// DataOffset is the absolute file offset of the data section.
	DataOffset uint64
	KV         []KV
	Tensors    []TensorInfo

	data    []byte       // the whole file; nil after Close
	release func() error // unmaps data; nil when data is ordinary memory
	keys    map[string]int
	names   map[string]int
}

// Mapped reports whether the file's data is a memory mapping of the file
// (whose pages Evict may let go) rather than ordinary memory.
func (f *File) Mapped() bool { return f.release != nil }

// Close releases the file's mapping. Metadata stays valid; TensorData
// returns nil afterwards, and slices it returned earlier must no longer be
// used. Close is idempotent.
func (f *File) Close() error {
	f.data = nil
	if f.release == nil {
		return nil
	}
	release := f.release
	f.release = nil
	if err := release(); err != nil {
		return fmt.Errorf("gguf: %s: unmap: %w", f.Path, err)
	}
	return nil
}

// Lookup returns the value stored under key.
func (f *File) Lookup(key string) (Value, bool) {
	i, ok := f.keys[key]
	if !ok {
		return Value{}, false
	}
	return f.KV[i].Value, true
}

// Tensor returns the info of the tensor called name.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	i, ok := f.names[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}

// TensorData returns the bytes of a tensor of this file: a slice of the
// mapped file, which must not be modified and is valid until Close. It
// returns nil after Close or for a TensorInfo whose range is not inside the
// file.
func (f *File) TensorData(ti *TensorInfo) []byte {
	n := uint64(len(f.data))
	if ti == nil || f.DataOffset > n || ti.Offset > n-f.DataOffset || ti.Size > n-f.DataOffset-ti.Offset {
		return nil
	}
	start := f.DataOffset + ti.Offset
	end := start + ti.Size
	// Cap the slice so an append by the caller cannot write over the next tensor.
	return f.data[start:end:end]
}

// Architecture returns general.architecture, the name the model code is
// chosen by (e.g. "llama").
func (f *File) Architecture() (string, error) { return f.String("general.architecture") }

func (f *File) get(key string) (Value, error) {
	v, ok := f.Lookup(key)
	if !ok {
		return Value{}, newError(ErrKeyNotFound, f.Path, "key %q: not found", key)
	}
	return v, nil
}

func (f *File) wrongType(key string, v Value, want string) error {
	return newError(ErrWrongType, f.Path, "key %q: has type %s, want %s", key, describeType(v), want)
}

func describeType(v Value) string {
	if v.Type() == TypeArray {
		return "ARRAY of " + v.ArrayType().String()
	}
	return v.Type().String()
}

// String returns the STRING stored under key.
func (f *File) String(key string) (string, error) {
	v, err := f.get(key)
	if err != nil {
		return "", err
	}
	s, ok := v.Str()
	if !ok {
		return "", f.wrongType(key, v, "STRING")
	}
	return s, nil
}

// Bool returns the BOOL stored under key.
func (f *File) Bool(key string) (bool, error) {
	v, err := f.get(key)
	if err != nil {
		return false, err
	}
	b, ok := v.Bool()
	if !ok {
		return false, f.wrongType(key, v, "BOOL")
	}
	return b, nil
}

// Uint64 returns the integer stored under key. Any integer type is
// accepted as long as the value is not negative (see Value.Uint).
func (f *File) Uint64(key string) (uint64, error) {
	v, err := f.get(key)
	if err != nil {
		return 0, err
	}
	u, ok := v.Uint()
	if !ok {
		if _, isInt := v.Int(); isInt {
			return 0, newError(ErrWrongType, f.Path, "key %q: value %s is negative", key, v)
		}
		return 0, f.wrongType(key, v, "an integer")
	}
	return u, nil
}

// Uint32 returns the integer stored under key. Any integer type is
// accepted as long as the value fits in a uint32.
func (f *File) Uint32(key string) (uint32, error) {
	u, err := f.Uint64(key)
	if err != nil {
		return 0, err
	}
	if u > math.MaxUint32 {
		return 0, newError(ErrWrongType, f.Path, "key %q: value %d does not fit in 32 bits", key, u)
	}
	return uint32(u), nil
}

// Float32 returns the FLOAT32 stored under key. A FLOAT64 is accepted and
// rounded, since the two are interchangeable for hyperparameters.
func (f *File) Float32(key string) (float32, error) {
	v, err := f.get(key)
	if err != nil {
		return 0, err
	}
	x, ok := v.Float()
	if !ok {
		return 0, f.wrongType(key, v, "FLOAT32")
	}
	return float32(x), nil
}

// Strings returns the ARRAY of STRING stored under key. The slice is
// shared and must not be modified.
func (f *File) Strings(key string) ([]string, error) {
	return fileArray[string](f, key, "ARRAY of STRING")
}

// Float32s returns the ARRAY of FLOAT32 stored under key. The slice is
// shared and must not be modified.
func (f *File) Float32s(key string) ([]float32, error) {
	return fileArray[float32](f, key, "ARRAY of FLOAT32")
}

// Int32s returns the ARRAY of INT32 stored under key. The slice is shared
// and must not be modified.
func (f *File) Int32s(key string) ([]int32, error) {
	return fileArray[int32](f, key, "ARRAY of INT32")
}

func fileArray[T Elem](f *File, key, want string) ([]T, error) {
	v, err := f.get(key)
	if err != nil {
		return nil, err
	}
	xs, ok := Elems[T](v)
	if !ok {
		return nil, f.wrongType(key, v, want)
	}
	return xs, nil
}
