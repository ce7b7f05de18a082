package cog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// EncodingVersion is the manifold encoding version this build writes and
// the newest it reads.
// Version 1 had no keys: its trajectories decode with Key "". Versions 1
// and 2 had no contexts: their trajectories decode as Uncontexted.
const EncodingVersion = 3

// Decoding errors, for errors.Is. Every error UnmarshalBinary and Decode
// return wraps exactly one of them.
var (
	// ErrTruncated: the data ends before the encoding does.
	ErrTruncated = errors.New("cog: truncated manifold encoding")
	// ErrCorrupt: the data is not a valid manifold encoding (bad magic,
	// out-of-range field, non-finite number, a metric that is not
	// positive definite, duplicate ids, trailing bytes…).
	ErrCorrupt = errors.New("cog: corrupt manifold encoding")
	// ErrVersion: the encoding is from a newer version of this package.
	ErrVersion = errors.New("cog: newer manifold encoding")
)

// encMagic opens every encoding.
var encMagic = [4]byte{'C', 'O', 'G', 'M'}

const (
	headerLen = 4 + 2 + 4 + 4 + 8 + 8 + 8 + 4
	// fixedRecordLen is a trajectory's size without its embedding and
	// strings: id, cluster, tier, uses, two (seconds, nanoseconds) times,
	// two string lengths (version 1), the key's length (version 2), and
	// the context's length and portability (version 3).
	fixedRecordLen1 = 8 + 8 + 1 + 8 + 2*(8+4) + 2*4
	fixedRecordLen2 = fixedRecordLen1 + 4
	fixedRecordLen  = fixedRecordLen2 + 4 + 1
)

// MarshalBinary encodes the whole manifold: parameters, M and every
// trajectory in storage order. Layout (version 3, little-endian):
//
//	"COGM" u16 version, u32 k, u32 capacity, f64 η, u64 next id,
//	u64 next cluster, u32 n, f64×k(k+1)/2 upper triangle of M by rows,
//	then n × { u64 id, u64 cluster, u8 tier, u64 uses,
//	           i64 s + u32 ns time, i64 s + u32 ns last used,
//	           f64×k embedding, u32 len + prompt, u32 len + answer,
//	           u32 len + key, u32 len + context ID, u8 portable (0 or 1) }
//
// Version 2 is the same without the context, version 1 without the key
// as well; Decode reads all three.
//
// Times keep their instant, not their location or monotonic reading
// (they decode as UTC). The cached quadratic forms are not stored: decoding
// recomputes them from M, so they can never disagree with it. There is no
// checksum; the .miku container adds its own.
func (m *Manifold) MarshalBinary() ([]byte, error) {
	k := m.metric.k
	if k == 0 {
		return nil, errors.New("cog: marshal: zero Manifold (use New)")
	}
	size := headerLen + 8*k*(k+1)/2
	for i := range m.entries {
		e := &m.entries[i]
		size += fixedRecordLen + 8*k + len(e.prompt) + len(e.answer) + len(e.key) + len(e.ctx.ID)
	}
	b := make([]byte, 0, size)
	b = append(b, encMagic[:]...)
	b = binary.LittleEndian.AppendUint16(b, EncodingVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(k))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.capacity))
	b = appendF64(b, m.eta)
	b = binary.LittleEndian.AppendUint64(b, m.nextID)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.nextCluster))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.entries)))
	for i := range k {
		for j := i; j < k; j++ {
			b = appendF64(b, m.metric.m[i*k+j])
		}
	}
	for i := range m.entries {
		e := &m.entries[i]
		b = binary.LittleEndian.AppendUint64(b, e.id)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.cluster))
		b = append(b, byte(e.tier))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.uses))
		b = appendTime(b, e.time)
		b = appendTime(b, e.lastUsed)
		for _, x := range m.emb[i*k : (i+1)*k] {
			b = appendF64(b, x)
		}
		b = appendString(b, e.prompt)
		b = appendString(b, e.answer)
		b = appendString(b, e.key)
		b = appendString(b, e.ctx.ID)
		portable := byte(0)
		if e.ctx.Portable {
			portable = 1
		}
		b = append(b, portable)
	}
	return b, nil
}

func appendF64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// UnmarshalBinary replaces m with the manifold encoded in data (see
// MarshalBinary). On error m is left unchanged.
func (m *Manifold) UnmarshalBinary(data []byte) error {
	d, err := Decode(data)
	if err != nil {
		return err
	}
	*m = *d
	return nil
}

// Decode decodes a manifold written by MarshalBinary (versions 1 to 3; a
// version 1 trajectory has no key, and one of version 1 or 2 no context:
// it decodes as Uncontexted). Every length and
// count is checked against the bytes that remain before anything is
// allocated from it, so hostile input costs at most its own size in
// memory; every field is range-checked and M must be symmetric positive
// definite. Errors wrap ErrTruncated, ErrCorrupt or ErrVersion.
func Decode(data []byte) (*Manifold, error) {
	r := reader{b: data}
	var magic [4]byte
	copy(magic[:], r.bytes(4))
	ver := r.u16()
	if r.short {
		return nil, fmt.Errorf("%w: %d-byte header", ErrTruncated, len(data))
	}
	if magic != encMagic {
		return nil, fmt.Errorf("%w: bad magic %q", ErrCorrupt, magic[:])
	}
	if ver > EncodingVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads up to %d", ErrVersion, ver, EncodingVersion)
	}
	if ver == 0 {
		return nil, fmt.Errorf("%w: version 0", ErrCorrupt)
	}
	k64, capacity, eta := uint64(r.u32()), uint64(r.u32()), r.f64()
	nextID, nextCluster, n := r.u64(), r.u64(), uint64(r.u32())
	if r.short {
		return nil, fmt.Errorf("%w: header", ErrTruncated)
	}
	switch {
	case k64 < 1 || k64 > MaxDim:
		return nil, fmt.Errorf("%w: dimension %d outside 1…%d", ErrCorrupt, k64, MaxDim)
	case capacity < 1 || capacity > MaxCapacity:
		return nil, fmt.Errorf("%w: capacity %d outside 1…%d", ErrCorrupt, capacity, MaxCapacity)
	case !(eta > 0) || math.IsInf(eta, 0):
		return nil, fmt.Errorf("%w: learning rate %v", ErrCorrupt, eta)
	case nextCluster > math.MaxInt:
		return nil, fmt.Errorf("%w: next cluster %d", ErrCorrupt, nextCluster)
	case n > capacity:
		return nil, fmt.Errorf("%w: %d trajectories over capacity %d", ErrCorrupt, n, capacity)
	case n > nextID:
		return nil, fmt.Errorf("%w: %d trajectories but next id %d", ErrCorrupt, n, nextID)
	}
	k := int(k64)
	tri := k * (k + 1) / 2
	if r.left() < 8*tri {
		return nil, fmt.Errorf("%w: metric needs %d bytes, %d left", ErrTruncated, 8*tri, r.left())
	}
	met := Metric{k: k, m: make([]float64, k*k)}
	for i := range k {
		for j := i; j < k; j++ {
			x := r.f64()
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: metric entry (%d,%d) is %v", ErrCorrupt, i, j, x)
			}
			met.m[i*k+j] = x
		}
	}
	met.symmetrise()
	if !met.minEigAbove(0) {
		return nil, fmt.Errorf("%w: metric is not positive definite", ErrCorrupt)
	}
	recLen := fixedRecordLen1 + 8*k
	switch {
	case ver >= 3:
		recLen = fixedRecordLen + 8*k
	case ver == 2:
		recLen = fixedRecordLen2 + 8*k
	}
	if uint64(r.left())/uint64(recLen) < n {
		return nil, fmt.Errorf("%w: %d trajectories of at least %d bytes, %d left", ErrTruncated, n, recLen, r.left())
	}
	out := &Manifold{
		metric:      met,
		eta:         eta,
		capacity:    int(capacity),
		nextID:      nextID,
		nextCluster: int(nextCluster),
		entries:     make([]entry, 0, n),
		emb:         make([]float64, 0, int(n)*k),
		quad:        make([]float64, 0, n),
		inv:         make([]float64, 0, n),
		norm2:       make([]float64, 0, n),
		byID:        make(map[uint64]int, n),
		members:     make(map[int]int),
	}
	q := make([]float64, k)
	for i := range int(n) {
		var e entry
		e.id = r.u64()
		cluster := r.u64()
		tier := r.u8()
		uses := r.u64()
		e.time = r.time()
		e.lastUsed = r.time()
		for j := range q {
			q[j] = r.f64()
		}
		e.prompt = r.str()
		e.answer = r.str()
		if ver >= 2 {
			e.key = r.str()
		}
		e.ctx = Uncontexted()
		if ver >= 3 {
			e.ctx.ID = r.str()
			switch p := r.u8(); p {
			case 0, 1:
				e.ctx.Portable = p == 1
			default:
				if r.bad == "" {
					r.bad = fmt.Sprintf("portable flag %d", p)
				}
			}
		}
		if r.short {
			return nil, fmt.Errorf("%w: trajectory %d of %d", ErrTruncated, i, n)
		}
		switch {
		case r.bad != "":
			return nil, fmt.Errorf("%w: trajectory %d: %s", ErrCorrupt, i, r.bad)
		case e.id >= nextID:
			return nil, fmt.Errorf("%w: trajectory %d: id %d not below next id %d", ErrCorrupt, i, e.id, nextID)
		case cluster >= nextCluster:
			return nil, fmt.Errorf("%w: trajectory %d: cluster %d not below next cluster %d", ErrCorrupt, i, cluster, nextCluster)
		case tier >= NumTiers:
			return nil, fmt.Errorf("%w: trajectory %d: tier %d", ErrCorrupt, i, tier)
		case uses > math.MaxInt:
			return nil, fmt.Errorf("%w: trajectory %d: uses %d", ErrCorrupt, i, uses)
		}
		if _, dup := out.byID[e.id]; dup {
			return nil, fmt.Errorf("%w: trajectory %d: duplicate id %d", ErrCorrupt, i, e.id)
		}
		for j, x := range q {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: trajectory %d: embedding[%d] is %v", ErrCorrupt, i, j, x)
			}
		}
		e.cluster, e.tier, e.uses = int(cluster), Tier(tier), int(uses)
		out.add(e, q)
	}
	if r.left() != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, r.left())
	}
	return out, nil
}

// reader consumes little-endian fields. Reading past the end sets short
// and yields zeros, so a decoder can read a whole record and check once;
// bad records the first malformed field.
type reader struct {
	b     []byte
	off   int
	short bool
	bad   string
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) bytes(n int) []byte {
	if n < 0 || r.short || r.left() < n {
		r.short = true
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8 {
	if s := r.bytes(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if s := r.bytes(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if s := r.bytes(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if s := r.bytes(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// time reads seconds and nanoseconds; nanoseconds must be below 1e9 so
// that the encoding of an instant is unique.
func (r *reader) time() time.Time {
	sec, ns := int64(r.u64()), r.u32()
	if ns >= 1e9 && r.bad == "" {
		r.bad = fmt.Sprintf("nanoseconds %d", ns)
	}
	if r.short || r.bad != "" {
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).UTC()
}

// str reads a length-prefixed string; the length is checked against the
// remaining bytes (by bytes) before the string is made.
func (r *reader) str() string {
	n := r.u32()
	if uint64(n) > uint64(r.left()) {
		r.short = true
		return ""
	}
	return string(r.bytes(int(n)))
}
