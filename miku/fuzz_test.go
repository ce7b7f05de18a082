package miku

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzDecode: Decode never panics, classifies every error under one of
// the sentinels, and whatever it accepts re-encodes to a file that decodes
// to the same content and is itself a fixed point of decode → encode.
// Seeds: testdata/fuzz/FuzzDecode (valid files and corruptions of them)
// plus the ones added here.
func FuzzDecode(f *testing.F) {
	valid, err := Marshal(sample())
	if err != nil {
		f.Fatal(err)
	}
	empty, err := Marshal(&File{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(empty)
	f.Add(valid[:len(valid)/2])
	newer := bytes.Clone(valid)
	binary.LittleEndian.PutUint32(newer[8:], 2)
	f.Add(newer)
	f.Add(newerFile(f, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		f1, err := Decode(data)
		if !bytes.Equal(in, data) {
			t.Fatal("Decode modified its input")
		}
		if err != nil {
			if f1 != nil {
				t.Fatal("a File and an error")
			}
			if !errors.Is(err, ErrNotMiku) && !errors.Is(err, ErrNewerVersion) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		b1, err := Marshal(f1)
		if err != nil {
			t.Fatalf("a decoded file does not re-encode: %v", err)
		}
		f2, err := Decode(b1)
		if err != nil {
			t.Fatalf("a re-encoded file does not decode: %v", err)
		}
		sameContent(t, f1, f2)
		b2, err := Marshal(f2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatal("decode → encode is not a fixed point")
		}
	})
}

// FuzzDecodeFramed fuzzes past the checksums: it frames an arbitrary JSON
// header and body with a correct header CRC and footer, so the section
// table's bounds, order and padding checks see hostile values (random
// mutation of a whole file rarely survives the header CRC).
func FuzzDecodeFramed(f *testing.F) {
	valid, err := Marshal(sample())
	if err != nil {
		f.Fatal(err)
	}
	h := binary.LittleEndian.Uint64(valid[16:])
	f.Add(valid[24:24+h], valid[(24+h+4+7)&^7:len(valid)-16], uint64(0))
	f.Add([]byte(`{"format_version":1,"sections":[{"name":"a","offset":64,"length":8,"crc32c":0}]}`), make([]byte, 16), uint64(0))
	f.Fuzz(func(t *testing.T, hdr, body []byte, hlenDelta uint64) {
		data := build(hdr, uint64(len(hdr))+hlenDelta, body)
		fd, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrNotMiku) && !errors.Is(err, ErrNewerVersion) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		b1, err := Marshal(fd)
		if err != nil {
			t.Fatalf("a decoded file does not re-encode: %v", err)
		}
		f2, err := Decode(b1)
		if err != nil {
			t.Fatalf("a re-encoded file does not decode: %v", err)
		}
		sameContent(t, fd, f2)
	})
}
