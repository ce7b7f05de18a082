package miku

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchFile is the measuring point: a 1,000-turn conversation
// (JSON, ~1 MB) and a 10,000-trajectory × 64 float32 manifold (2.5 MB).
func benchFile(tb testing.TB) *File {
	type turn struct {
		Role string `json:"role"`
		Text string `json:"text"`
	}
	turns := make([]turn, 1000)
	for i := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		turns[i] = turn{Role: role, Text: fmt.Sprintf("turn %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 37))}
	}
	conv, err := json.Marshal(turns)
	if err != nil {
		tb.Fatal(err)
	}
	cog := make([]byte, 10000*64*4)
	for i := 0; i < 10000*64; i++ {
		binary.LittleEndian.PutUint32(cog[4*i:], math.Float32bits(float32(math.Sin(float64(i)))))
	}
	return &File{
		Header: Header{
			AppVersion: "bench", Created: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Updated: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC),
			Model: ModelRef{File: "m.gguf", SHA256: strings.Repeat("0", 64), Arch: "llama"},
			Knobs: json.RawMessage(`{"rank":8}`),
		},
		Sections: []Section{{Name: "conversation", Data: conv}, {Name: "cog", Required: true, Data: cog}},
	}
}

// BenchmarkEncodeDecode: save is Write (encode, temp file, fsync, rename,
// fsync dir); load is Read (read, verify every checksum). file-bytes is
// the size on disk.
func BenchmarkEncodeDecode(b *testing.B) {
	f := benchFile(b)
	path := filepath.Join(b.TempDir(), "bench.miku")
	if err := Write(path, f); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	b.Run("save", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if err := Write(path, f); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(size), "file-bytes")
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Read(path); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(size), "file-bytes")
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Marshal(f); err != nil {
				b.Fatal(err)
			}
		}
	})
	data, err := Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
