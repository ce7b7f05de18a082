package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/isagi-lab/isagi/engine/tensor"
)

var magic = [4]byte{'G', 'G', 'U', 'F'}

// Minimum encoded sizes, used to reject a count before allocating for it:
// a count larger than the remaining bytes divided by the smallest possible
// element cannot be honest.
const (
	minKVBytes     = 8 + 1 + 4 + 1         // key length, 1-byte key, type, UINT8
	minTensorBytes = 8 + 1 + 4 + 8 + 4 + 8 // name length, 1-byte name, n_dims, one ne, type, offset
	minArrayBytes  = 4 + 8                 // element type + count of an empty array
)

// Parse parses a GGUF image held in memory. name identifies the file in
// error messages. The returned File refers to data for tensor contents, so
// data must stay unchanged while the File is used; metadata is copied.
func Parse(name string, data []byte) (*File, error) {
	d := &decoder{name: name, data: data}
	f, err := d.file()
	if err != nil {
		return nil, err
	}
	f.data = data
	return f, nil
}

// decoder walks the image front to back. Every read checks the remaining
// length first, so no read can go out of bounds.
type decoder struct {
	name string
	data []byte
	pos  uint64
}

func (d *decoder) rest() uint64 { return uint64(len(d.data)) - d.pos }

func (d *decoder) bytes(what string, n uint64) ([]byte, error) {
	if n > d.rest() {
		return nil, newError(ErrTruncated, d.name, "%s at offset %d: need %d bytes, only %d left", what, d.pos, n, d.rest())
	}
	return d.take(n), nil
}

// take returns the next n bytes, which the caller has already bounds-checked.
func (d *decoder) take(n uint64) []byte {
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.bytes(what, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b, err := d.bytes(what, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a length-prefixed string and copies it, so it outlives an mmap.
func (d *decoder) str(what string) (string, error) {
	at := d.pos
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > d.rest() {
		return "", newError(ErrTruncated, d.name, "%s at offset %d: length %d exceeds the %d bytes left", what, at, n, d.rest())
	}
	return string(d.take(n)), nil
}

// ident reads a key or tensor name, which must be non-empty UTF-8 so that
// error messages and lookups by Go string are unambiguous.
func (d *decoder) ident(what string) (string, error) {
	at := d.pos
	s, err := d.str(what)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", newError(ErrMalformed, d.name, "%s at offset %d is empty", what, at)
	}
	if !utf8.ValidString(s) {
		return "", newError(ErrMalformed, d.name, "%s %q at offset %d is not valid UTF-8", what, s, at)
	}
	return s, nil
}

// header reads magic, version and the two counts, and checks the counts
// against the file's length.
func (d *decoder) header() (version uint32, nTensors, nKV uint64, err error) {
	if len(d.data) < len(magic) {
		if string(d.data) == string(magic[:len(d.data)]) {
			return 0, 0, 0, newError(ErrTruncated, d.name, "file is %d bytes, too short for a GGUF header", len(d.data))
		}
		return 0, 0, 0, newError(ErrNotGGUF, d.name, "file does not start with GGUF magic")
	}
	if [4]byte(d.data[:4]) != magic {
		return 0, 0, 0, newError(ErrNotGGUF, d.name, "file starts with %q, not GGUF magic", d.data[:4])
	}
	d.pos = 4
	if version, err = d.u32("version"); err != nil {
		return 0, 0, 0, err
	}
	switch {
	case version == 2 || version == 3:
	case version == 1:
		return 0, 0, 0, newError(ErrUnsupportedVersion, d.name, "GGUF version 1 (32-bit counts) is not supported; re-convert the model")
	case version != 0 && bits.ReverseBytes32(version) <= 3:
		// The magic reads the same either way, but a big-endian writer
		// byte-swaps the version, so 3 shows up as 0x03000000.
		return 0, 0, 0, newError(ErrUnsupportedVersion, d.name, "file is big-endian (version field %#08x); only little-endian GGUF is supported", version)
	default:
		return 0, 0, 0, newError(ErrUnsupportedVersion, d.name, "GGUF version %d is not supported (want 2 or 3)", version)
	}
	if nTensors, err = d.u64("tensor count"); err != nil {
		return 0, 0, 0, err
	}
	if nKV, err = d.u64("metadata count"); err != nil {
		return 0, 0, 0, err
	}
	// Both lists follow, so together they must fit in what is left.
	if nKV > d.rest()/minKVBytes || nTensors > d.rest()/minTensorBytes ||
		nKV*minKVBytes+nTensors*minTensorBytes > d.rest() {
		return 0, 0, 0, newError(ErrTruncated, d.name, "%d metadata entries and %d tensors cannot fit in the %d bytes left", nKV, nTensors, d.rest())
	}
	return version, nTensors, nKV, nil
}

func (d *decoder) file() (*File, error) {
	version, nTensors, nKV, err := d.header()
	if err != nil {
		return nil, err
	}
	f := &File{
		Path:      d.name,
		Version:   version,
		Alignment: DefaultAlignment,
		keys:      make(map[string]int, min(nKV, 256)),
		names:     make(map[string]int, min(nTensors, 1024)),
	}
	// Capacities are capped: the counts are plausible but not yet proven,
	// and append grows the slices as entries actually parse.
	f.KV = make([]KV, 0, min(nKV, 256))
	for range nKV {
		kv, err := d.kv()
		if err != nil {
			return nil, err
		}
		if _, dup := f.keys[kv.Key]; dup {
			return nil, newError(ErrMalformed, d.name, "key %q: appears twice", kv.Key)
		}
		f.keys[kv.Key] = len(f.KV)
		f.KV = append(f.KV, kv)
	}
	if v, ok := f.Lookup(KeyAlignment); ok {
		if f.Alignment, err = alignmentOf(v); err != nil {
			return nil, newError(ErrMalformed, d.name, "key %q: %v", KeyAlignment, err)
		}
	}

	f.Tensors = make([]TensorInfo, 0, min(nTensors, 1024))
	for range nTensors {
		ti, err := d.tensorInfo(f.Alignment)
		if err != nil {
			return nil, err
		}
		if _, dup := f.names[ti.Name]; dup {
			return nil, newError(ErrMalformed, d.name, "tensor %q: appears twice", ti.Name)
		}
		f.names[ti.Name] = len(f.Tensors)
		f.Tensors = append(f.Tensors, ti)
	}

	// The data section starts at the next multiple of the alignment; the
	// position is below 2^63 (it indexes a slice), so this cannot overflow.
	f.DataOffset = padTo(d.pos, f.Alignment)
	if err := d.checkData(f); err != nil {
		return nil, err
	}
	return f, nil
}

func (d *decoder) kv() (KV, error) {
	key, err := d.ident("key")
	if err != nil {
		return KV{}, err
	}
	t, err := d.u32("key " + quote(key) + " type")
	if err != nil {
		return KV{}, err
	}
	v, err := d.value(key, ValueType(t), 0)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: v}, nil
}

// quote quotes a key for a message, escaped, so that a hostile key with a
// newline or control characters still makes one line.
func quote(s string) string { return strconv.Quote(s) }

// value decodes one value of type t. depth counts the arrays enclosing it.
func (d *decoder) value(key string, t ValueType, depth int) (Value, error) {
	what := "key " + quote(key)
	switch t {
	case TypeString:
		s, err := d.str(what + " string")
		return String(s), err
	case TypeArray:
		return d.array(key, depth+1)
	case TypeBool:
		b, err := d.bytes(what+" value", 1)
		if err != nil {
			return Value{}, err
		}
		if b[0] > 1 {
			return Value{}, newError(ErrMalformed, d.name, "%s: BOOL byte is %d, not 0 or 1", what, b[0])
		}
		return scalar(TypeBool, uint64(b[0])), nil
	}
	n := t.size()
	if n == 0 {
		return Value{}, newError(ErrMalformed, d.name, "%s: unknown value type %d", what, uint32(t))
	}
	b, err := d.bytes(what+" value", n)
	if err != nil {
		return Value{}, err
	}
	var x uint64
	for i := n; i > 0; i-- {
		x = x<<8 | uint64(b[i-1])
	}
	return scalar(t, x), nil
}

func (d *decoder) array(key string, depth int) (Value, error) {
	what := "key " + quote(key)
	if depth > maxArrayDepth {
		return Value{}, newError(ErrMalformed, d.name, "%s: arrays nested deeper than %d", what, maxArrayDepth)
	}
	et32, err := d.u32(what + " array type")
	if err != nil {
		return Value{}, err
	}
	et := ValueType(et32)
	n, err := d.u64(what + " array length")
	if err != nil {
		return Value{}, err
	}
	var least uint64 // encoded size of the smallest possible element
	switch {
	case et == TypeString:
		least = 8
	case et == TypeArray:
		least = minArrayBytes
	case et.size() > 0:
		least = et.size()
	default:
		return Value{}, newError(ErrMalformed, d.name, "%s: unknown array element type %d", what, et32)
	}
	if n > d.rest()/least {
		return Value{}, newError(ErrTruncated, d.name, "%s: array of %d %s needs at least %d bytes each, only %d left", what, n, et, least, d.rest())
	}
	var arr any
	switch et {
	case TypeString:
		arr, err = d.strings(what, n)
	case TypeArray:
		// Grow by append: each inner array may preallocate for its own
		// count, and preallocating here too would multiply the two.
		vs := make([]Value, 0, min(n, 64))
		for range n {
			var v Value
			if v, err = d.value(key, TypeArray, depth); err != nil {
				break
			}
			vs = append(vs, v)
		}
		arr = vs
	case TypeBool:
		b := d.take(n)
		bs := make([]bool, n)
		for i, x := range b {
			if x > 1 {
				return Value{}, newError(ErrMalformed, d.name, "%s: BOOL element %d is %d, not 0 or 1", what, i, x)
			}
			bs[i] = x == 1
		}
		arr = bs
	default:
		arr = decodeNumbers(et, d.take(n*least))
	}
	if err != nil {
		return Value{}, err
	}
	return Value{typ: TypeArray, set: true, elem: et, n: int(n), arr: arr}, nil
}

// strings decodes n length-prefixed strings. It copies the whole run once
// and slices every string out of that copy: one allocation instead of one
// per string, which is most of the cost of loading a large vocabulary.
func (d *decoder) strings(what string, n uint64) ([]string, error) {
	start := d.pos
	for i := range n {
		if d.rest() < 8 {
			return nil, newError(ErrTruncated, d.name, "%s: string %d of %d: length at offset %d: only %d bytes left", what, i, n, d.pos, d.rest())
		}
		l := binary.LittleEndian.Uint64(d.take(8))
		if l > d.rest() {
			return nil, newError(ErrTruncated, d.name, "%s: string %d of %d: %d bytes at offset %d: only %d left", what, i, n, l, d.pos, d.rest())
		}
		d.pos += l
	}
	run := string(d.data[start:d.pos])
	ss := make([]string, n)
	for i := range ss {
		// The lengths were validated above; read them from the original.
		l := binary.LittleEndian.Uint64(d.data[start:])
		ss[i] = run[8 : 8+l]
		run = run[8+l:]
		start += 8 + l
	}
	return ss, nil
}

// decodeNumbers decodes len(b)/size(t) little-endian numbers of type t.
func decodeNumbers(t ValueType, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return slices.Clone(b)
	case TypeInt8:
		xs := make([]int8, len(b))
		for i, x := range b {
			xs[i] = int8(x)
		}
		return xs
	case TypeUint16:
		return decodeEach(b, 2, func(b []byte) uint16 { return le.Uint16(b) })
	case TypeInt16:
		return decodeEach(b, 2, func(b []byte) int16 { return int16(le.Uint16(b)) })
	case TypeUint32:
		return decodeEach(b, 4, le.Uint32)
	case TypeInt32:
		return decodeEach(b, 4, func(b []byte) int32 { return int32(le.Uint32(b)) })
	case TypeFloat32:
		return decodeEach(b, 4, func(b []byte) float32 { return math.Float32frombits(le.Uint32(b)) })
	case TypeUint64:
		return decodeEach(b, 8, le.Uint64)
	case TypeInt64:
		return decodeEach(b, 8, func(b []byte) int64 { return int64(le.Uint64(b)) })
	case TypeFloat64:
		return decodeEach(b, 8, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) })
	}
	return nil
}

func decodeEach[T any](b []byte, size int, conv func([]byte) T) []T {
	xs := make([]T, len(b)/size)
	for i := range xs {
		xs[i] = conv(b[i*size : i*size+size])
	}
	return xs
}

func (d *decoder) tensorInfo(alignment uint64) (TensorInfo, error) {
	name, err := d.ident("tensor name")
	if err != nil {
		return TensorInfo{}, err
	}
	what := "tensor " + quote(name)
	nDims, err := d.u32(what + " n_dims")
	if err != nil {
		return TensorInfo{}, err
	}
	if nDims == 0 || nDims > MaxDims {
		return TensorInfo{}, newError(ErrMalformed, d.name, "%s: %d dimensions, want 1 to %d", what, nDims, MaxDims)
	}
	dims := make([]uint64, nDims)
	for i := range dims {
		if dims[i], err = d.u64(what + " dimension"); err != nil {
			return TensorInfo{}, err
		}
	}
	typ, err := d.u32(what + " type")
	if err != nil {
		return TensorInfo{}, err
	}
	off, err := d.u64(what + " offset")
	if err != nil {
		return TensorInfo{}, err
	}
	ti := TensorInfo{Name: name, Dims: dims, Type: tensor.Type(typ), Offset: off}
	if ti.Size, err = checkShape(ti.Type, dims); err != nil {
		return TensorInfo{}, newError(ErrMalformed, d.name, "%s: %v", what, err)
	}
	if off%alignment != 0 {
		return TensorInfo{}, newError(ErrMalformed, d.name, "%s: offset %d is not a multiple of the alignment %d", what, off, alignment)
	}
	return ti, nil
}

// checkShape validates a tensor's type and dimensions and returns its size
// in bytes. Every dimension must be at least 1: ggml tolerates empty
// tensors, but no model needs one, and allowing them would let zero-length
// ranges sit anywhere, overlapping others.
func checkShape(t tensor.Type, dims []uint64) (uint64, error) {
	if len(dims) == 0 || len(dims) > MaxDims {
		return 0, fmt.Errorf("%d dimensions, want 1 to %d", len(dims), MaxDims)
	}
	if !t.Known() {
		return 0, fmt.Errorf("unknown ggml type %d", uint32(t))
	}
	elems := uint64(1)
	for _, n := range dims {
		if n == 0 {
			return 0, fmt.Errorf("shape %v has a dimension of size 0", dims)
		}
		hi, lo := bits.Mul64(elems, n)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("shape %v: element count overflows int64", dims)
		}
		elems = lo
	}
	return t.TensorBytes(dims)
}

// checkData checks that every tensor lies inside the file and that no two
// tensors share bytes.
func (d *decoder) checkData(f *File) error {
	size := uint64(len(d.data))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if f.DataOffset > size || ti.Offset > size-f.DataOffset || ti.Size > size-f.DataOffset-ti.Offset {
			return newError(ErrTruncated, d.name, "tensor %q: data [offset %d, +%d) extends past end of file (data section at %d, file size %d)",
				ti.Name, ti.Offset, ti.Size, f.DataOffset, size)
		}
	}
	order := make([]int, len(f.Tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		oa, ob := f.Tensors[a].Offset, f.Tensors[b].Offset
		switch {
		case oa < ob:
			return -1
		case oa > ob:
			return 1
		}
		return a - b
	})
	for i := 1; i < len(order); i++ {
		prev, cur := &f.Tensors[order[i-1]], &f.Tensors[order[i]]
		// Sizes are ≥ 1 and both ranges are inside the file, so no overflow.
		if prev.Offset+prev.Size > cur.Offset {
			return newError(ErrMalformed, d.name, "tensor %q: data [offset %d, +%d) overlaps tensor %q [offset %d, +%d)",
				cur.Name, cur.Offset, cur.Size, prev.Name, prev.Offset, prev.Size)
		}
	}
	return nil
}
