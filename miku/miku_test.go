package miku

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sample is a small file with sections of awkward lengths (0, 1, 7, 8, 9…)
// so padding is exercised.
func sample() *File {
	return &File{
		Header: Header{
			AppVersion: "v0.3.0-test",
			Created:    time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
			Updated:    time.Date(2025, 3, 2, 8, 30, 15, 123456789, time.FixedZone("JST", 9*3600)),
			Model:      ModelRef{File: "qwen2-0.5b.Q4_K_M.gguf", SHA256: strings.Repeat("ab", 32), Arch: "qwen2", Name: "Qwen2 0.5B"},
			Knobs:      json.RawMessage(`{"rank":8,"sampler":{"temp":0.7,"top_p":0.9},"ogd_alpha":0.01,"snipe":true}`),
		},
		Sections: []Section{
			{Name: "conversation", Data: []byte(`[{"role":"user","text":"hello"},{"role":"assistant","text":"hi"}]`)},
			{Name: "empty", Data: nil},
			{Name: "one", Data: []byte{0x42}},
			{Name: "cog", Required: true, Data: bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 9)},
			{Name: "eight", Data: []byte("12345678")},
			{Name: "kv", Data: []byte("nine byte")},
		},
	}
}

func mustMarshal(t testing.TB, f *File) []byte {
	t.Helper()
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameContent compares two files' headers (Sections table excluded) and
// sections.
func sameContent(t testing.TB, want, got *File) {
	t.Helper()
	wh, gh := want.Header, got.Header
	if !wh.Created.Equal(gh.Created) || !wh.Updated.Equal(gh.Updated) {
		t.Errorf("times: got %v/%v, want %v/%v", gh.Created, gh.Updated, wh.Created, wh.Updated)
	}
	if wh.AppVersion != gh.AppVersion || wh.Model != gh.Model || !bytes.Equal(wh.Knobs, gh.Knobs) {
		t.Errorf("header: got %+v, want %+v", gh, wh)
	}
	if gh.FormatVersion != FormatVersion {
		t.Errorf("format_version %d", gh.FormatVersion)
	}
	if len(want.Sections) != len(got.Sections) {
		t.Fatalf("%d sections, want %d", len(got.Sections), len(want.Sections))
	}
	for i := range want.Sections {
		w, g := want.Sections[i], got.Sections[i]
		if w.Name != g.Name || w.Required != g.Required || !bytes.Equal(w.Data, g.Data) {
			t.Errorf("section %d: got %q/%v/%d bytes, want %q/%v/%d bytes", i, g.Name, g.Required, len(g.Data), w.Name, w.Required, len(w.Data))
		}
	}
}

func TestRoundTripByteIdentical(t *testing.T) {
	in := sample()
	b1 := mustMarshal(t, in)
	f, err := Decode(b1)
	if err != nil {
		t.Fatal(err)
	}
	sameContent(t, in, f)
	b2 := mustMarshal(t, f)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("encode → decode → encode differs:\n%q\n%q", b1, b2)
	}
	// Encode does not depend on what the caller left in Header.Sections.
	f.Header.Sections = []SectionInfo{{Name: "junk", Offset: 3}}
	f.Header.FormatVersion = 99
	if b3 := mustMarshal(t, f); !bytes.Equal(b1, b3) {
		t.Fatal("Encode used Header.Sections/FormatVersion from its input")
	}
	if f.Header.FormatVersion != 99 || f.Header.Sections[0].Name != "junk" {
		t.Fatal("Encode modified its input")
	}
}

// TestLayout checks the bytes against docs/miku.md.
func TestLayout(t *testing.T) {
	in := sample()
	b := mustMarshal(t, in)
	if !bytes.Equal(b[:8], []byte("MIKU\x00\r\n\x1a")) {
		t.Fatalf("magic % x", b[:8])
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != FormatVersion {
		t.Fatalf("version %d", v)
	}
	if fl := binary.LittleEndian.Uint32(b[12:]); fl != 0 {
		t.Fatalf("flags %d", fl)
	}
	h := binary.LittleEndian.Uint64(b[16:])
	hdr := b[24 : 24+h]
	if got, want := binary.LittleEndian.Uint32(b[24+h:]), crc32.Checksum(hdr, crc32.MakeTable(crc32.Castagnoli)); got != want {
		t.Fatalf("header crc %08x, want %08x", got, want)
	}
	if !bytes.HasPrefix(hdr, []byte(`{"format_version":2,"app_version":"v0.3.0-test","created":"2025-03-01T12:00:00Z",`)) {
		t.Fatalf("header JSON field order: %s", hdr)
	}
	var hh Header
	if err := json.Unmarshal(hdr, &hh); err != nil {
		t.Fatal(err)
	}
	next := (24 + h + 4 + 7) &^ 7
	for i, si := range hh.Sections {
		if si.Offset != next {
			t.Fatalf("section %q at %d, want %d", si.Name, si.Offset, next)
		}
		if !bytes.Equal(b[si.Offset:si.Offset+si.Length], in.Sections[i].Data) {
			t.Fatalf("section %q data", si.Name)
		}
		if si.CRC32C != crc32.Checksum(in.Sections[i].Data, crc32.MakeTable(crc32.Castagnoli)) {
			t.Fatalf("section %q crc", si.Name)
		}
		next = (si.Offset + si.Length + 7) &^ 7
	}
	if uint64(len(b)) != next+16 || len(b)%8 != 0 {
		t.Fatalf("length %d, footer expected at %d", len(b), next)
	}
	if !bytes.Equal(b[next:next+8], []byte("MIKUEND\x00")) || binary.LittleEndian.Uint64(b[next+8:]) != uint64(len(b)) {
		t.Fatalf("footer % x", b[next:])
	}
}

func TestEmptyFile(t *testing.T) {
	b := mustMarshal(t, &File{})
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 0 {
		t.Fatal(f.Sections)
	}
	if b2 := mustMarshal(t, f); !bytes.Equal(b, b2) {
		t.Fatal("not byte-identical")
	}
}

func TestEncodeRejects(t *testing.T) {
	for name, f := range map[string]*File{
		"empty name": {Sections: []Section{{Name: ""}}},
		"duplicate":  {Sections: []Section{{Name: "a"}, {Name: "a"}}},
		"bad utf8":   {Sections: []Section{{Name: "a\xff"}}},
		"bad knobs":  {Header: Header{Knobs: json.RawMessage(`{"rank":`)}},
		"nil":        nil,
	} {
		var buf bytes.Buffer
		if err := Encode(&buf, f); err == nil {
			t.Errorf("%s: no error", name)
		} else if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before failing", name, buf.Len())
		}
	}
}

func TestSectionAndUnknown(t *testing.T) {
	f := sample()
	s, ok := f.Section("cog")
	if !ok || !s.Required || len(s.Data) != 63 {
		t.Fatalf("Section(cog) = %+v, %v", s, ok)
	}
	if _, ok := f.Section("nope"); ok {
		t.Fatal("found a missing section")
	}
	skip, req := f.Unknown("conversation", "empty", "one")
	if fmt.Sprint(skip) != "[eight kv]" || fmt.Sprint(req) != "[cog]" {
		t.Fatalf("Unknown = %v, %v", skip, req)
	}
	if skip, req := f.Unknown("conversation", "empty", "one", "cog", "eight", "kv"); skip != nil || req != nil {
		t.Fatalf("Unknown(all) = %v, %v", skip, req)
	}
}

func TestDecodedDataIsClipped(t *testing.T) {
	b := mustMarshal(t, sample())
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Section("one")
	_ = append(s.Data, 0xEE)
	if _, err := Decode(b); err != nil {
		t.Fatalf("append to a decoded section wrote into the buffer: %v", err)
	}
}

func TestTruncatedEveryPrefix(t *testing.T) {
	b := mustMarshal(t, sample())
	for n := 0; n < len(b); n++ {
		_, err := Decode(b[:n])
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix %d of %d: %v", n, len(b), err)
		}
	}
}

// TestReadShortPrefixes: Read of a file holding a prefix of a .miku says
// truncated, as Decode of the same bytes does, also below the 8 bytes of
// the magic (Read once decoded an unread header buffer for those).
func TestReadShortPrefixes(t *testing.T) {
	b := mustMarshal(t, sample())
	dir := t.TempDir()
	for _, n := range []int{1, 2, 4, 7, 8, 9, 40, len(b) - 1} {
		path := filepath.Join(dir, fmt.Sprintf("p%d.miku", n))
		if err := os.WriteFile(path, b[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path)
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
			t.Errorf("Read of a %d-byte prefix: %v, want truncated", n, err)
		}
		if errors.Is(err, ErrNotMiku) {
			t.Errorf("Read of a %d-byte prefix calls it not a .miku file: %v", n, err)
		}
	}
}

func TestFlipSectionBytes(t *testing.T) {
	in := sample()
	b := mustMarshal(t, in)
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range f.Header.Sections {
		for i := si.Offset; i < si.Offset+si.Length; i++ {
			c := bytes.Clone(b)
			c[i] ^= 0x20
			_, err := Decode(c)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("section %q", si.Name)) {
				t.Fatalf("flip byte %d of section %q: %v", i-si.Offset, si.Name, err)
			}
		}
	}
}

func TestFlipHeaderBytes(t *testing.T) {
	b := mustMarshal(t, sample())
	h := binary.LittleEndian.Uint64(b[16:])
	for i := uint64(24); i < 24+h+4; i++ {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		if _, err := Decode(c); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flip header byte %d: %v", i, err)
		}
	}
}

// Every byte of the file is covered: magic, fields, checksums, padding,
// footer. No single flipped bit decodes.
func TestFlipAnyByte(t *testing.T) {
	b := mustMarshal(t, sample())
	for i := range b {
		for _, bit := range []byte{0x01, 0x80} {
			c := bytes.Clone(b)
			c[i] ^= bit
			_, err := Decode(c)
			if err == nil {
				t.Fatalf("flip %#x at byte %d: decoded", bit, i)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNotMiku) && !errors.Is(err, ErrNewerVersion) {
				t.Fatalf("flip at %d: unclassified error %v", i, err)
			}
		}
	}
}

// newerFile is sample() as a genuinely newer format would write it (same
// layout): version field and header format_version both v, header CRC
// recomputed.
func newerFile(t testing.TB, v uint32) []byte {
	t.Helper()
	b := mustMarshal(t, sample())
	h := binary.LittleEndian.Uint64(b[16:])
	hdr := b[24 : 24+h]
	old := []byte(fmt.Sprintf(`"format_version":%d,`, FormatVersion))
	nv := []byte(fmt.Sprintf(`"format_version":%d,`, v))
	if !bytes.HasPrefix(hdr[1:], old) || len(nv) != len(old) {
		t.Fatalf("unexpected header %.40s", hdr)
	}
	copy(hdr[1:], nv)
	binary.LittleEndian.PutUint32(b[24+h:], crc32.Checksum(hdr, crc32.MakeTable(crc32.Castagnoli)))
	binary.LittleEndian.PutUint32(b[8:], v)
	return b
}

func TestNewerVersion(t *testing.T) {
	b := newerFile(t, 3)
	_, err := Decode(b)
	if !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "written by format version 3; this build reads up to 2 — update ISAGI") {
		t.Fatalf("message: %v", err)
	}
	// Refused on the version and the header alone: a newer layout may
	// differ after the header, in its flags and footer.
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[12:], 5)
	c[len(c)-1] ^= 0xff
	if _, err := Decode(c); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("newer file with other flags and footer: %v", err)
	}
	// Cut inside the header, it cannot be told from damage: truncated.
	if _, err := Decode(b[:40]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("short newer file: %v", err)
	}
	binary.LittleEndian.PutUint32(b[8:], 0)
	if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("version 0: %v", err)
	}
}

// TestFlipVersionBits: the version field is outside every checksum, so a
// flipped bit there must read as damage, never as "update ISAGI".
func TestFlipVersionBits(t *testing.T) {
	b := mustMarshal(t, sample())
	for bit := range 32 {
		c := bytes.Clone(b)
		c[8+bit/8] ^= 1 << (bit % 8)
		_, err := Decode(c)
		if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNewerVersion) {
			t.Errorf("flip bit %d of the version field (reads %d): %v", bit, binary.LittleEndian.Uint32(c[8:]), err)
		} else if bit > 0 && !strings.Contains(err.Error(), "damaged") {
			t.Errorf("flip bit %d: message %q does not say the file is damaged", bit, err)
		}
	}
	// The same for a newer file's own version field: flipped, it no
	// longer matches its header.
	b = newerFile(t, FormatVersion+1)
	for bit := range 32 {
		c := bytes.Clone(b)
		c[8+bit/8] ^= 1 << (bit % 8)
		if v := binary.LittleEndian.Uint32(c[8:]); v <= FormatVersion {
			continue // reads as this version: the header disagrees, checked elsewhere
		}
		if _, err := Decode(c); !errors.Is(err, ErrCorrupt) {
			t.Errorf("newer file, flip bit %d: %v", bit, err)
		}
	}
}

func TestNotMiku(t *testing.T) {
	b := mustMarshal(t, sample())
	c := bytes.Clone(b)
	c[0] = 'N'
	if _, err := Decode(c); !errors.Is(err, ErrNotMiku) {
		t.Fatalf("bad magic: %v", err)
	}
	// A text-mode transfer turning CR LF into LF.
	c = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if _, err := Decode(c); !errors.Is(err, ErrNotMiku) || !strings.Contains(err.Error(), "text-mode") {
		t.Fatalf("CRLF→LF: %v", err)
	}
	for _, s := range []string{"{}", "GGUF\x03\x00\x00\x00 a model", "hello, world\n", "MIKX"} {
		if _, err := Decode([]byte(s)); !errors.Is(err, ErrNotMiku) {
			t.Fatalf("%q: %v", s, err)
		}
	}
}

func TestFooterLengthMismatch(t *testing.T) {
	b := mustMarshal(t, sample())
	n := len(b)
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[n-8:], uint64(n)+8)
	if _, err := Decode(c); !errors.Is(err, ErrTruncated) {
		t.Fatalf("footer says longer: %v", err)
	}
	binary.LittleEndian.PutUint64(c[n-8:], uint64(n)-8)
	if _, err := Decode(c); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("footer says shorter: %v", err)
	}
}

// build assembles a file around an arbitrary header JSON and body (placed
// at the first aligned offset after the header), with correct checksum and
// footer, so later checks can be reached with hostile values.
func build(hdr []byte, hlen uint64, body []byte) []byte {
	var b []byte
	b = append(b, magic[:]...)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, hlen)
	b = append(b, hdr...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(hdr, crc32.MakeTable(crc32.Castagnoli)))
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	b = append(b, body...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	b = append(b, footerTag[:]...)
	return binary.LittleEndian.AppendUint64(b, uint64(len(b)+8))
}

func TestHugeLengthsDoNotAllocate(t *testing.T) {
	body := make([]byte, 1024)
	sec := func(off, length uint64) []byte {
		h := fmt.Sprintf(`{"format_version":1,"sections":[{"name":"kv","offset":%d,"length":%d,"crc32c":0,"required":false}]}`, off, length)
		return []byte(h)
	}
	hdr := sec(128, 1<<60)
	cases := map[string][]byte{
		"header length 2^60":    build(hdr, 1<<60, body),
		"header length 2^64-1":  build(hdr, ^uint64(0), body),
		"section length 2^60":   build(hdr, uint64(len(hdr)), body),
		"section offset 2^60":   build(sec(1<<60, 8), uint64(len(sec(1<<60, 8))), body),
		"offset+length wraps":   build(sec(^uint64(0)-7, 16), uint64(len(sec(^uint64(0)-7, 16))), body),
		"length wraps to small": build(sec(128, ^uint64(0)-63), uint64(len(sec(128, ^uint64(0)-63))), body),
	}
	for name, b := range cases {
		if len(b) > 1300 {
			t.Fatalf("%s: input %d bytes", name, len(b))
		}
		var err error
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 10 {
			_, err = Decode(b)
		}
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
		if d := (after.TotalAlloc - before.TotalAlloc) / 10; d > 1<<20 {
			t.Errorf("%s: %d bytes allocated per Decode of a %d-byte input", name, d, len(b))
		}
	}
}

func TestSectionTableChecks(t *testing.T) {
	body := bytes.Repeat([]byte{0}, 64)
	mk := func(sections string) []byte {
		h := []byte(`{"format_version":1,"sections":[` + sections + `]}`)
		return build(h, uint64(len(h)), body)
	}
	crc0 := crc32.Checksum(make([]byte, 8), crc32.MakeTable(crc32.Castagnoli))
	for name, secs := range map[string]string{
		"unaligned":  `{"name":"a","offset":%[1]d,"length":8,"crc32c":%[2]d}`,
		"overlap":    `{"name":"a","offset":%[1]d,"length":16,"crc32c":0},{"name":"b","offset":%[1]d,"length":8,"crc32c":%[2]d}`,
		"duplicate":  `{"name":"a","offset":%[1]d,"length":8,"crc32c":%[2]d},{"name":"a","offset":%[1]d,"length":8,"crc32c":%[2]d}`,
		"no name":    `{"name":"","offset":%[1]d,"length":8,"crc32c":%[2]d}`,
		"in header":  `{"name":"a","offset":0,"length":8,"crc32c":%[2]d}`,
		"in footer":  `{"name":"a","offset":%[1]d,"length":4096,"crc32c":%[2]d}`,
		"bad crc":    `{"name":"a","offset":%[1]d,"length":8,"crc32c":1}`,
		"version 3":  `{"name":"a","offset":%[1]d,"length":8,"crc32c":%[2]d}],"format_version":3,"x":[`,
		"not object": `1`,
	} {
		// The header's length moves the data start; compute offsets for
		// the real header, which is at most a few bytes longer than the
		// placeholder.
		var b []byte
		off := uint64(0)
		for range 4 {
			s := fmt.Sprintf(secs, off+map[bool]uint64{true: 4, false: 0}[name == "unaligned"], crc0)
			b = mk(s)
			off = (24 + binary.LittleEndian.Uint64(b[16:]) + 4 + 7) &^ 7
		}
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The same machinery accepts a well-formed table (the test can pass).
	var b []byte
	off := uint64(0)
	for range 4 {
		b = mk(fmt.Sprintf(`{"name":"a","offset":%d,"length":8,"crc32c":%d}`, off, crc0))
		off = (24 + binary.LittleEndian.Uint64(b[16:]) + 4 + 7) &^ 7
	}
	if _, err := Decode(b); err != nil {
		t.Fatalf("well-formed: %v", err)
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	in := sample()
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	sameContent(t, in, got)
	onDisk, _ := os.ReadFile(path)
	if !bytes.Equal(onDisk, mustMarshal(t, in)) {
		t.Fatal("Write wrote other bytes than Encode")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v", st.Mode())
	}
	// Overwrite keeps the mode and leaves no temporary file.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	in.Sections = in.Sections[:2]
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	if got, err = Read(path); err != nil || len(got.Sections) != 2 {
		t.Fatalf("after overwrite: %v, %v", got, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Fatalf("overwrite changed mode to %v", st.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want 1", len(ents))
	}
}

func TestWriteFailureLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	bad := sample()
	bad.Sections = append(bad.Sections, Section{Name: "kv"})
	err := Write(path, bad)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("duplicate section: %v", err)
	}
	now, _ := os.ReadFile(path)
	if !bytes.Equal(old, now) {
		t.Fatal("failed Write changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("failed Write left %d entries", len(ents))
	}
	// A directory in the way of the rename: the temp file must go.
	dpath := filepath.Join(dir, "d.miku")
	if err := os.MkdirAll(filepath.Join(dpath, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(dpath, sample()); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("failed rename left %d entries", len(ents))
	}
	// Errors name the file.
	missing := filepath.Join(dir, "nope", "s.miku")
	if err := Write(missing, sample()); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := Read(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Read missing: %v", err)
	}
	c := bytes.Clone(old)
	c[len(c)-20] ^= 1
	if err := os.WriteFile(path, c, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Read corrupt: %v", err)
	}
}

// TestReadNotMikuFile: a file that is not a .miku (a model given by
// mistake, a short text) is refused by its first bytes, naming the file.
func TestReadNotMikuFile(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"model.gguf": "GGUF\x03\x00\x00\x00" + strings.Repeat("\x00", 4096),
		"short.txt":  "hi",
		"empty":      "",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %v", name, err)
		}
		want := ErrNotMiku
		if content == "" {
			want = ErrTruncated
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
}

// TestReadsVersion1: files written before the conversation tree (format
// version 1, the same layout) still read.
func TestReadsVersion1(t *testing.T) {
	f, err := Decode(newerFile(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.FormatVersion != 1 || len(f.Sections) != len(sample().Sections) {
		t.Fatalf("read version %d with %d sections", f.Header.FormatVersion, len(f.Sections))
	}
}
