package gguf

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestTruncatedPrefixes parses every prefix of a valid file. A prefix that
// cuts anything the file describes must fail with ErrTruncated; one that
// only drops the padding after the last tensor is still a valid file.
func TestTruncatedPrefixes(t *testing.T) {
	data := writeBytes(t, sampleWriter(t))
	full, err := Parse("full", data)
	if err != nil {
		t.Fatal(err)
	}
	var end uint64 // end of the last tensor's data, before its padding
	for _, ti := range full.Tensors {
		end = max(end, full.DataOffset+ti.Offset+ti.Size)
	}
	if end == uint64(len(data)) {
		t.Fatal("sample file has no trailing padding; the test would not cover it")
	}
	for n := range len(data) {
		// The three-index slice makes reading past n panic even though
		// the backing array goes on.
		_, err := Parse("prefix", data[:n:n])
		if uint64(n) >= end {
			if err != nil {
				t.Fatalf("prefix of %d bytes (tensors end at %d): %v", n, end, err)
			}
			continue
		}
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("prefix of %d of %d bytes: error %v, want ErrTruncated", n, len(data), err)
		}
	}
}

// kvFile is a file with no tensors and one metadata entry whose bytes after
// the key are given by value.
func kvFile(key string, value func(r *raw)) []byte {
	r := header(3, 0, 1).str(key)
	value(r)
	return r.b
}

// tensorFile is a file whose only metadata is an optional alignment and
// whose tensor infos are added by infos, followed by dataLen bytes of data.
func tensorFile(nTensors uint64, align uint32, infos func(r *raw), dataLen int) []byte {
	nKV := uint64(0)
	if align != 0 {
		nKV = 1
	}
	r := header(3, nTensors, nKV)
	if align != 0 {
		r.str(KeyAlignment).u32(uint32(TypeUint32)).u32(align)
	} else {
		align = DefaultAlignment
	}
	infos(r)
	return r.pad(int(align)).zeros(dataLen).b
}

func TestMalformed(t *testing.T) {
	f32 := func(name string, offset uint64, dims ...uint64) func(r *raw) {
		return func(r *raw) { r.tensor(name, tensor.F32, offset, dims...) }
	}
	cases := []struct {
		name string
		data []byte
		kind error
		want string
	}{
		{"empty file", nil, ErrTruncated, "0 bytes"},
		{"not gguf", []byte("GGML\x03\x00\x00\x00"), ErrNotGGUF, `starts with "GGML"`},
		{"short not gguf", []byte("GX"), ErrNotGGUF, "magic"},
		{"version 1", header(1, 0, 0).b, ErrUnsupportedVersion, "version 1 (32-bit counts)"},
		{"version 4", header(4, 0, 0).b, ErrUnsupportedVersion, "version 4 is not supported"},
		{"version 0", header(0, 0, 0).b, ErrUnsupportedVersion, "version 0"},
		{"big-endian v3", (&raw{b: []byte("GGUF\x00\x00\x00\x03")}).zeros(16).b, ErrUnsupportedVersion, "big-endian"},
		{"huge tensor count", header(3, 1<<60, 0).b, ErrTruncated, "1152921504606846976 tensors"},
		{"huge kv count", header(3, 0, math.MaxUint64).b, ErrTruncated, "18446744073709551615 metadata entries"},
		{"counts together too many", header(3, 1, 1).zeros(40).b, ErrTruncated, "cannot fit"},
		{"huge key length", header(3, 0, 1).u64(math.MaxUint64).zeros(8).b, ErrTruncated, "key at offset 24"},
		{"empty key", kvFile("", func(r *raw) { r.u32(0).u8(1).zeros(8) }), ErrMalformed, "key at offset 24 is empty"},
		{"key not UTF-8", kvFile("a\xffb", func(r *raw) { r.u32(0).u8(1) }), ErrMalformed, "not valid UTF-8"},
		{"duplicate key", header(3, 0, 2).str("k").u32(0).u8(1).str("k").u32(0).u8(2).b, ErrMalformed, `key "k": appears twice`},
		{"unknown value type", kvFile("k", func(r *raw) { r.u32(13).zeros(8) }), ErrMalformed, `key "k": unknown value type 13`},
		{"bool 2", kvFile("k", func(r *raw) { r.u32(uint32(TypeBool)).u8(2) }), ErrMalformed, "BOOL byte is 2"},
		{"huge string length", kvFile("k", func(r *raw) { r.u32(uint32(TypeString)).u64(1 << 62).raw("abc") }), ErrTruncated, `key "k" string`},
		{"truncated scalar", kvFile("k", func(r *raw) { r.u32(uint32(TypeUint64)).zeros(7) }), ErrTruncated, `key "k" value`},
		{"huge u32 array", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeUint32)).u64(1 << 61).zeros(16) }), ErrTruncated, "array of 2305843009213693952 UINT32"},
		{"huge string array", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(math.MaxUint64).zeros(16) }), ErrTruncated, "STRING"},
		{"string array element past end", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(2).str("ab").u64(100) }), ErrTruncated, "string 1 of 2: 100 bytes"},
		{"huge nested array", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(1 << 40).zeros(24) }), ErrTruncated, "ARRAY"},
		{"huge inner array", kvFile("k", func(r *raw) {
			r.u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(1).u32(uint32(TypeFloat64)).u64(1 << 59).zeros(64)
		}), ErrTruncated, "FLOAT64"},
		{"unknown array element type", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(99).u64(0) }), ErrMalformed, "unknown array element type 99"},
		{"array nested too deep", kvFile("k", func(r *raw) {
			r.u32(uint32(TypeArray))
			for range maxArrayDepth {
				r.u32(uint32(TypeArray)).u64(1)
			}
			r.u32(uint32(TypeUint8)).u64(0)
		}), ErrMalformed, "nested deeper than 8"},
		{"bool array element 7", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeBool)).u64(3).u8(1).u8(0).u8(7) }), ErrMalformed, "BOOL element 2 is 7"},
		{"alignment 3", kvFile(KeyAlignment, func(r *raw) { r.u32(uint32(TypeUint32)).u32(3) }), ErrMalformed, "3 is not a power of two"},
		{"alignment zero", kvFile(KeyAlignment, func(r *raw) { r.u32(uint32(TypeUint32)).u32(0) }), ErrMalformed, "0 is not a power of two"},
		{"alignment as UINT64", kvFile(KeyAlignment, func(r *raw) { r.u32(uint32(TypeUint64)).u64(32) }), ErrMalformed, "has type UINT64, want UINT32"},
		{"alignment as string", kvFile(KeyAlignment, func(r *raw) { r.u32(uint32(TypeString)).str("32") }), ErrMalformed, "has type STRING"},
		{"n_dims 0", tensorFile(1, 0, f32("t", 0), 32), ErrMalformed, `tensor "t": 0 dimensions, want 1 to 4`},
		{"n_dims 5", tensorFile(1, 0, f32("t", 0, 1, 1, 1, 1, 1), 32), ErrMalformed, `tensor "t": 5 dimensions`},
		{"huge n_dims", tensorFile(1, 0, func(r *raw) { r.str("t").u32(math.MaxUint32) }, 64), ErrMalformed, "4294967295 dimensions"},
		{"dimension 0", tensorFile(1, 0, f32("t", 0, 4, 0), 32), ErrMalformed, "dimension of size 0"},
		{"element count overflow", tensorFile(1, 0, f32("t", 0, 1<<32, 1<<32), 32), ErrMalformed, "element count overflows"},
		{"byte size overflow", tensorFile(1, 0, f32("t", 0, 1<<62), 32), ErrMalformed, "overflows 64 bits"},
		{"partial block", tensorFile(1, 0, func(r *raw) { r.tensor("t", tensor.Q4_K, 0, 100) }, 256), ErrMalformed, "not a multiple of the Q4_K block size 256"},
		{"retired ggml type", tensorFile(1, 0, func(r *raw) { r.tensor("t", tensor.Type(4), 0, 1) }, 32), ErrMalformed, "unknown ggml type 4"},
		{"unknown ggml type", tensorFile(1, 0, func(r *raw) { r.tensor("t", tensor.Type(1000), 0, 1) }, 32), ErrMalformed, "unknown ggml type 1000"},
		{"empty tensor name", tensorFile(1, 0, f32("", 0, 1), 32), ErrMalformed, "tensor name at offset 24 is empty"},
		{"tensor name not UTF-8", tensorFile(1, 0, f32("\xc0", 0, 1), 32), ErrMalformed, "not valid UTF-8"},
		{"duplicate tensor", tensorFile(2, 0, func(r *raw) { f32("t", 0, 1)(r); f32("t", 32, 1)(r) }, 64), ErrMalformed, `tensor "t": appears twice`},
		{"misaligned offset", tensorFile(1, 0, f32("t", 4, 1), 64), ErrMalformed, "offset 4 is not a multiple of the alignment 32"},
		{"misaligned for custom alignment", tensorFile(1, 64, f32("t", 32, 1), 128), ErrMalformed, "alignment 64"},
		{"data past end", tensorFile(1, 0, f32("blk.0.attn_q.weight", 0, 32, 32), 4095), ErrTruncated, `tensor "blk.0.attn_q.weight": data [offset 0, +4096) extends past end of file`},
		{"offset past end", tensorFile(1, 0, f32("t", 1<<20, 1), 32), ErrTruncated, "[offset 1048576, +4) extends past end"},
		{"offset near 2^64", tensorFile(1, 0, f32("t", math.MaxUint64-31, 8), 32), ErrTruncated, "extends past end"},
		{"overlap", tensorFile(2, 0, func(r *raw) { f32("a", 0, 16)(r); f32("b", 32, 4)(r) }, 64), ErrMalformed, `tensor "b": data [offset 32, +16) overlaps tensor "a" [offset 0, +64)`},
		{"same offset", tensorFile(2, 0, func(r *raw) { f32("b", 0, 1)(r); f32("a", 0, 1)(r) }, 32), ErrMalformed, "overlaps"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.gguf", c.data)
			if !errors.Is(err, c.kind) {
				t.Fatalf("error %v, want %v", err, c.kind)
			}
			if !strings.HasPrefix(err.Error(), "gguf: bad.gguf: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to name the file and contain %q", err, c.want)
			}
		})
	}
}

// TestValidEdgeFiles checks that the checks in TestMalformed are not
// simply rejecting everything near them.
func TestValidEdgeFiles(t *testing.T) {
	f32 := func(name string, offset uint64, dims ...uint64) func(r *raw) {
		return func(r *raw) { r.tensor(name, tensor.F32, offset, dims...) }
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"version 2", header(2, 0, 0).b},
		{"four dims", tensorFile(1, 0, f32("t", 0, 1, 2, 1, 2), 32)},
		{"adjacent tensors", tensorFile(2, 0, func(r *raw) { f32("a", 0, 8)(r); f32("b", 32, 8)(r) }, 64)},
		{"out-of-order offsets", tensorFile(2, 0, func(r *raw) { f32("a", 32, 8)(r); f32("b", 0, 8)(r) }, 64)},
		{"data ends exactly at EOF", tensorFile(1, 0, f32("t", 0, 3), 12)},
		{"alignment 1", tensorFile(1, 1, f32("t", 3, 1), 7)},
		{"empty-ish array of arrays", kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(0) })},
	} {
		if _, err := Parse(c.name, c.data); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestHugeCountsAllocateLittle makes sure a lying count is rejected before
// anything proportional to it is allocated.
func TestHugeCountsAllocateLittle(t *testing.T) {
	files := map[string][]byte{
		"kv count":      header(3, 0, 1<<40).zeros(1 << 16).b,
		"tensor count":  header(3, 1<<40, 0).zeros(1 << 16).b,
		"string array":  kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(1 << 50).zeros(1 << 10) }),
		"u8 array":      kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeUint8)).u64(1 << 50).zeros(1 << 10) }),
		"nested arrays": kvFile("k", func(r *raw) { r.u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(1 << 50).zeros(1 << 10) }),
	}
	for name, data := range files {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Parse(name, data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: parsed", name)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte file", name, got, len(data))
		}
	}
}
