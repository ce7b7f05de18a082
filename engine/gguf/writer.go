package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Writer builds a GGUF version 3 file: add metadata and tensors, then call
// WriteTo. It validates everything as it is added, with the same rules
// Parse applies, so whatever it writes Parse accepts. The zero Writer is
// ready to use.
//
// Tensor data and array slices are kept by reference, not copied: they must
// not change until WriteTo returns.
type Writer struct {
	kv        []KV
	keys      map[string]int
	tensors   []TensorInfo // Offset unused: WriteTo packs them in order
	data      [][]byte
	names     map[string]bool
	alignment uint64 // 0 means DefaultAlignment
}

// AddKV appends a metadata entry. Keys must be non-empty UTF-8 and unique.
// Adding general.alignment sets the alignment, as SetAlignment does.
func (w *Writer) AddKV(key string, v Value) error {
	if key == "" || !utf8.ValidString(key) {
		return fmt.Errorf("gguf: writer: key %q: must be non-empty UTF-8", key)
	}
	if _, dup := w.keys[key]; dup {
		return fmt.Errorf("gguf: writer: key %q: already added", key)
	}
	if err := checkValue(v, 0); err != nil {
		return fmt.Errorf("gguf: writer: key %q: %w", key, err)
	}
	if key == KeyAlignment {
		a, err := alignmentOf(v)
		if err != nil {
			return fmt.Errorf("gguf: writer: key %q: %w", key, err)
		}
		w.alignment = a
	}
	if w.keys == nil {
		w.keys = make(map[string]int)
	}
	w.keys[key] = len(w.kv)
	w.kv = append(w.kv, KV{Key: key, Value: v})
	return nil
}

// SetAlignment sets the data alignment, writing or replacing the
// general.alignment entry. It must be a power of two.
func (w *Writer) SetAlignment(a uint32) error {
	v := Uint32(a)
	if _, err := alignmentOf(v); err != nil {
		return fmt.Errorf("gguf: writer: %w", err)
	}
	if i, ok := w.keys[KeyAlignment]; ok {
		w.kv[i].Value = v
		w.alignment = uint64(a)
		return nil
	}
	return w.AddKV(KeyAlignment, v)
}

// checkValue rejects what cannot be encoded: the zero Value and arrays of
// arrays whose elements are not arrays or nest deeper than Parse allows.
func checkValue(v Value, depth int) error {
	if !v.Type().valid() {
		return errors.New("invalid (zero) Value")
	}
	if v.Type() != TypeArray {
		return nil
	}
	if depth+1 > maxArrayDepth {
		return fmt.Errorf("arrays nested deeper than %d", maxArrayDepth)
	}
	inner, ok := Elems[Value](v)
	if !ok {
		return nil
	}
	for i, e := range inner {
		if e.Type() != TypeArray {
			return fmt.Errorf("element %d of an array of arrays is %s", i, describeType(e))
		}
		if err := checkValue(e, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// AddTensor appends a tensor. dims are ggml's ne, innermost first; data
// must be exactly the size that type and dims call for.
func (w *Writer) AddTensor(name string, typ tensor.Type, dims []uint64, data []byte) error {
	if name == "" || !utf8.ValidString(name) {
		return fmt.Errorf("gguf: writer: tensor %q: name must be non-empty UTF-8", name)
	}
	if w.names[name] {
		return fmt.Errorf("gguf: writer: tensor %q: already added", name)
	}
	size, err := checkShape(typ, dims)
	if err != nil {
		return fmt.Errorf("gguf: writer: tensor %q: %w", name, err)
	}
	if uint64(len(data)) != size {
		return fmt.Errorf("gguf: writer: tensor %q: %d bytes of data, %s %v needs %d", name, len(data), typ, dims, size)
	}
	if w.names == nil {
		w.names = make(map[string]bool)
	}
	w.names[name] = true
	w.tensors = append(w.tensors, TensorInfo{Name: name, Dims: slices.Clone(dims), Type: typ, Size: size})
	w.data = append(w.data, data)
	return nil
}

// WriteTo writes the file to out: header, metadata, tensor infos, padding
// to the alignment, then each tensor's data padded to the alignment (the
// last one too, as ggml does). It returns the number of bytes written.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	align := w.alignment
	if align == 0 {
		align = DefaultAlignment
	}
	b := make([]byte, 0, 4096)
	b = append(b, magic[:]...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.kv)))
	for _, kv := range w.kv {
		b = appendString(b, kv.Key)
		b = binary.LittleEndian.AppendUint32(b, uint32(kv.Value.Type()))
		b = appendValue(b, kv.Value)
	}
	offset := uint64(0) // tensors are packed in the order they were added
	for _, ti := range w.tensors {
		b = appendString(b, ti.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ti.Dims)))
		for _, d := range ti.Dims {
			b = binary.LittleEndian.AppendUint64(b, d)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(ti.Type))
		b = binary.LittleEndian.AppendUint64(b, offset)
		offset = padTo(offset+ti.Size, align)
	}
	b = append(b, make([]byte, padTo(uint64(len(b)), align)-uint64(len(b)))...)

	n, err := out.Write(b)
	total := int64(n)
	if err != nil {
		return total, err
	}
	zeros := make([]byte, min(align, 4096))
	for i, ti := range w.tensors {
		n, err := out.Write(w.data[i])
		total += int64(n)
		if err != nil {
			return total, err
		}
		for pad := padTo(ti.Size, align) - ti.Size; pad > 0; {
			n, err := out.Write(zeros[:min(pad, uint64(len(zeros)))])
			total += int64(n)
			pad -= uint64(n)
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// appendValue appends v's payload, without its type tag.
func appendValue(b []byte, v Value) []byte {
	switch t := v.Type(); t {
	case TypeString:
		return appendString(b, v.str)
	case TypeArray:
		b = binary.LittleEndian.AppendUint32(b, uint32(v.elem))
		b = binary.LittleEndian.AppendUint64(b, uint64(v.n))
		return appendArray(b, v.arr)
	default:
		for i := range t.size() {
			b = append(b, byte(v.num>>(8*i)))
		}
		return b
	}
}

func appendArray(b []byte, arr any) []byte {
	le := binary.LittleEndian
	switch xs := arr.(type) {
	case []uint8:
		return append(b, xs...)
	case []int8:
		return appendEach(b, xs, func(b []byte, x int8) []byte { return append(b, byte(x)) })
	case []bool:
		return appendEach(b, xs, func(b []byte, x bool) []byte {
			if x {
				return append(b, 1)
			}
			return append(b, 0)
		})
	case []uint16:
		return appendEach(b, xs, le.AppendUint16)
	case []int16:
		return appendEach(b, xs, func(b []byte, x int16) []byte { return le.AppendUint16(b, uint16(x)) })
	case []uint32:
		return appendEach(b, xs, le.AppendUint32)
	case []int32:
		return appendEach(b, xs, func(b []byte, x int32) []byte { return le.AppendUint32(b, uint32(x)) })
	case []float32:
		return appendEach(b, xs, func(b []byte, x float32) []byte { return le.AppendUint32(b, math.Float32bits(x)) })
	case []uint64:
		return appendEach(b, xs, le.AppendUint64)
	case []int64:
		return appendEach(b, xs, func(b []byte, x int64) []byte { return le.AppendUint64(b, uint64(x)) })
	case []float64:
		return appendEach(b, xs, func(b []byte, x float64) []byte { return le.AppendUint64(b, math.Float64bits(x)) })
	case []string:
		return appendEach(b, xs, appendString)
	case []Value:
		return appendEach(b, xs, appendValue)
	}
	return b
}

func appendEach[T any](b []byte, xs []T, add func([]byte, T) []byte) []byte {
	for _, x := range xs {
		b = add(b, x)
	}
	return b
}
