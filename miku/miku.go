package miku

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
	"unicode/utf8"
)

// FormatVersion is the container format version this build writes, and
// the newest it reads. Version 2 added the conversation tree (a section
// of the session layer's); the container's layout is version 1's, and
// version 1 files read as they always did. Files with a higher version are refused with
// ErrNewerVersion (when their header verifies; otherwise the version field
// is taken for damage: ErrCorrupt).
const FormatVersion = 2

// Sentinel errors, for errors.Is. Every error Decode returns wraps exactly
// one of them.
var (
	// ErrNotMiku: the data does not start with the .miku magic.
	ErrNotMiku = errors.New("not a .miku file")
	// ErrNewerVersion: the file was written by a newer format version than
	// this build reads: its version field is higher and its header, which
	// every version keeps, verifies and agrees. The message carries both
	// version numbers.
	ErrNewerVersion = errors.New("newer .miku format")
	// ErrTruncated: the file ends early (its footer is missing or records
	// a longer file).
	ErrTruncated = errors.New("truncated .miku file")
	// ErrCorrupt: the file is complete but inconsistent: a checksum
	// mismatch, a malformed header, a section out of bounds. Errors about a
	// section name it.
	ErrCorrupt = errors.New("corrupt .miku file")
)

// magic is the first 8 bytes of every .miku file. The 0x00 stops C-string
// readers, CR LF catches a text-mode transfer rewriting line endings and
// 0x1A (Ctrl-Z) stops DOS-style "type".
var magic = [8]byte{'M', 'I', 'K', 'U', 0x00, 0x0D, 0x0A, 0x1A}

// footerTag opens the 16-byte footer; the uint64 total length follows.
var footerTag = [8]byte{'M', 'I', 'K', 'U', 'E', 'N', 'D', 0x00}

const (
	prefixLen = 24 // magic, version, flags, header length
	crcLen    = 4  // CRC32C of the JSON header
	footerLen = 16 // footerTag + total length
	align     = 8  // sections and the footer start on multiples of 8
)

// castagnoli is the CRC32C table. crc32.MakeTable caches it, so this is a
// read-only value, not mutable state.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ModelRef identifies the model a session was made with, so that
// model-bound state (KV cache, manifold) is not loaded into another model.
type ModelRef struct {
	// File is the model's file name (not the full path).
	File string `json:"file"`
	// SHA256 is the hex SHA-256 of the model file.
	SHA256 string `json:"sha256"`
	// Arch is the GGUF general.architecture, e.g. "llama".
	Arch string `json:"arch"`
	// Name is a display name, if any.
	Name string `json:"name,omitempty"`
}

// Header is the JSON header of a .miku file.
type Header struct {
	// FormatVersion is the container version. Encode always writes
	// FormatVersion (the constant), whatever the field holds; Decode checks
	// that it matches the binary version field.
	FormatVersion int `json:"format_version"`
	// AppVersion is the version of the ISAGI build that wrote the file.
	AppVersion string `json:"app_version"`
	// Created is when the session was first saved; Updated when it was
	// last saved. They are written as RFC 3339 with nanoseconds.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Model identifies the model the session belongs to.
	Model ModelRef `json:"model"`
	// Knobs holds the app's settings (sampler, rank, OGD α, Snipe
	// toggles…) as JSON; opaque to this package. It must be valid JSON if
	// set; Encode writes it compacted.
	Knobs json.RawMessage `json:"knobs,omitempty"`
	// Sections is the section table. Encode ignores the field on input and
	// writes the table it lays out (File.Sections decides what is in it);
	// Decode fills it with the table as read, in file order.
	Sections []SectionInfo `json:"sections"`
}

// SectionInfo is one entry of the section table.
type SectionInfo struct {
	// Name is the section's name, unique in the file.
	Name string `json:"name"`
	// Offset is where the section's data starts, from the start of the
	// file; always a multiple of 8.
	Offset uint64 `json:"offset"`
	// Length is the section's data length in bytes (padding excluded).
	Length uint64 `json:"length"`
	// CRC32C is the Castagnoli CRC-32 of the section's data.
	CRC32C uint32 `json:"crc32c"`
	// Required marks a section that a reader must not silently ignore: a
	// reader that does not know its name should refuse the file (see
	// File.Unknown).
	Required bool `json:"required"`
}

// Section is one named blob of data in a File.
type Section struct {
	// Name is the section's name: non-empty, valid UTF-8, unique in the
	// file. Names are the app's business ("conversation", "cog", "kv"…).
	Name string
	// Required marks a section an older reader must not ignore.
	Required bool
	// Data is the section's content. After Decode it aliases the decoded
	// buffer (capacity clipped, so appending copies).
	Data []byte
}

// File is a decoded .miku file: its header and its sections, in file order.
type File struct {
	Header   Header
	Sections []Section
}

// Section returns the section named name, if the file has one.
func (f *File) Section(name string) (Section, bool) {
	for _, s := range f.Sections {
		if s.Name == name {
			return s, true
		}
	}
	return Section{}, false
}

// Unknown lists the file's sections whose names are not in known, in file
// order, split into those that may be skipped and those marked Required,
// which a reader that does not understand them must refuse to load.
func (f *File) Unknown(known ...string) (skippable, required []string) {
	have := make(map[string]bool, len(known))
	for _, k := range known {
		have[k] = true
	}
	for _, s := range f.Sections {
		if have[s.Name] {
			continue
		}
		if s.Required {
			required = append(required, s.Name)
		} else {
			skippable = append(skippable, s.Name)
		}
	}
	return skippable, required
}

// alignUp rounds n up to a multiple of align. Callers keep n far below
// 2^64 (it is a sum of in-memory lengths).
func alignUp(n uint64) uint64 { return (n + align - 1) &^ (align - 1) }

// layout is everything Encode computes before writing a byte.
type layout struct {
	header []byte // JSON header
	dataAt uint64 // first byte after the header CRC and its padding
	table  []SectionInfo
	total  uint64
}

// plan validates f and lays it out. The header's length depends on the
// offsets in its own section table and the offsets on the header's length,
// so it iterates to the fixed point; the length never shrinks from one
// round to the next, so this ends within a few rounds.
func plan(f *File) (*layout, error) {
	seen := make(map[string]bool, len(f.Sections))
	table := make([]SectionInfo, len(f.Sections))
	for i, s := range f.Sections {
		switch {
		case s.Name == "":
			return nil, fmt.Errorf("section %d has no name", i)
		case !utf8.ValidString(s.Name):
			return nil, fmt.Errorf("section %d: name %q is not valid UTF-8", i, s.Name)
		case seen[s.Name]:
			return nil, fmt.Errorf("two sections named %q", s.Name)
		}
		seen[s.Name] = true
		table[i] = SectionInfo{
			Name:     s.Name,
			Length:   uint64(len(s.Data)),
			CRC32C:   crc32.Checksum(s.Data, castagnoli),
			Required: s.Required,
		}
	}
	h := f.Header
	h.FormatVersion = FormatVersion
	h.Sections = table
	var prevLen = -1
	for range 64 {
		hdr, err := json.Marshal(&h)
		if err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
		dataAt := alignUp(prefixLen + uint64(len(hdr)) + crcLen)
		at := dataAt
		for i := range table {
			table[i].Offset = at
			at = alignUp(at + table[i].Length)
		}
		if len(hdr) == prevLen {
			return &layout{header: hdr, dataAt: dataAt, table: table, total: at + footerLen}, nil
		}
		prevLen = len(hdr)
	}
	return nil, errors.New("header layout did not settle") // unreachable in practice
}

var zeros [align]byte

// Encode writes f to w as a .miku file. The bytes depend only on f: the
// sections appear in the order given, the header JSON has a fixed field
// order, padding is zero. f is not modified (its Header.Sections and
// Header.FormatVersion are ignored; see Header). All validation happens
// before the first byte is written, so an error from a bad File leaves w
// untouched.
func Encode(w io.Writer, f *File) error {
	if f == nil {
		return errors.New("miku: encode: nil File")
	}
	l, err := plan(f)
	if err != nil {
		return fmt.Errorf("miku: encode: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var prefix [prefixLen]byte
	copy(prefix[:], magic[:])
	binary.LittleEndian.PutUint32(prefix[8:], FormatVersion)
	binary.LittleEndian.PutUint32(prefix[12:], 0) // flags
	binary.LittleEndian.PutUint64(prefix[16:], uint64(len(l.header)))
	bw.Write(prefix[:])
	bw.Write(l.header)
	var crc [crcLen]byte
	binary.LittleEndian.PutUint32(crc[:], crc32.Checksum(l.header, castagnoli))
	bw.Write(crc[:])
	pos := uint64(prefixLen + len(l.header) + crcLen)
	bw.Write(zeros[:l.dataAt-pos])
	pos = l.dataAt
	for _, s := range f.Sections {
		bw.Write(s.Data)
		pos += uint64(len(s.Data))
		end := alignUp(pos)
		bw.Write(zeros[:end-pos])
		pos = end
	}
	var foot [footerLen]byte
	copy(foot[:], footerTag[:])
	binary.LittleEndian.PutUint64(foot[8:], l.total)
	bw.Write(foot[:])
	// bufio.Writer keeps the first error and returns it from every later
	// call, Flush included.
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("miku: encode: %w", err)
	}
	return nil
}

// Marshal returns f encoded as a .miku file (see Encode).
func Marshal(f *File) ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode parses and verifies a .miku file held in data. It checks the
// magic, the format version (a newer one is refused with ErrNewerVersion
// when its header verifies, see newerOrDamaged; a damaged version field is
// ErrCorrupt),
// the footer and total length (ErrTruncated), the header's checksum and
// JSON, and every section's bounds, padding and checksum (ErrCorrupt, naming the
// section) before it returns anything. It never panics and allocates
// nothing sized by a length field: every length is checked against
// len(data) first. The returned sections' Data alias data.
func Decode(data []byte) (*File, error) {
	f, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("miku: %w", err)
	}
	return f, nil
}

func decode(data []byte) (*File, error) {
	n := uint64(len(data))
	// Magic.
	if n < uint64(len(magic)) {
		if n == 0 {
			return nil, fmt.Errorf("%w: empty file", ErrTruncated)
		}
		if bytes.Equal(data, magic[:n]) {
			return nil, fmt.Errorf("%w: %d bytes, shorter than the magic", ErrTruncated, n)
		}
		return nil, fmt.Errorf("%w (it does not begin with the .miku signature)", ErrNotMiku)
	}
	if !bytes.Equal(data[:len(magic)], magic[:]) {
		if bytes.Equal(data[:4], magic[:4]) {
			return nil, fmt.Errorf("%w: its signature reads % x (mangled by a text-mode transfer?)", ErrNotMiku, data[:len(magic)])
		}
		return nil, fmt.Errorf("%w (it does not begin with the .miku signature)", ErrNotMiku)
	}
	// Version and flags.
	if n < 16 {
		return nil, fmt.Errorf("%w: %d bytes, ends inside the fixed header", ErrTruncated, n)
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version > FormatVersion {
		return nil, newerOrDamaged(data, version)
	}
	if version == 0 {
		return nil, fmt.Errorf("%w: damaged: the format version field reads 0, which no .miku file has", ErrCorrupt)
	}
	if flags := binary.LittleEndian.Uint32(data[12:]); flags != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x for format version %d", ErrCorrupt, flags, version)
	}
	// Footer: cheap truncation check before anything else is trusted.
	if n < prefixLen+crcLen+footerLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the smallest file", ErrTruncated, n)
	}
	foot := data[n-footerLen:]
	if !bytes.Equal(foot[:8], footerTag[:]) {
		return nil, fmt.Errorf("%w: no footer at the end of %d bytes", ErrTruncated, n)
	}
	total := binary.LittleEndian.Uint64(foot[8:])
	if total > n {
		return nil, fmt.Errorf("%w: %d bytes of %d", ErrTruncated, n, total)
	}
	if total < n {
		return nil, fmt.Errorf("%w: footer records %d bytes but the file has %d", ErrCorrupt, total, n)
	}
	end := n - footerLen // where section data must end
	// Header.
	hlen := binary.LittleEndian.Uint64(data[16:])
	if hlen > end-prefixLen-crcLen { // no overflow: end >= prefixLen+crcLen
		return nil, fmt.Errorf("%w: header length %d does not fit in %d bytes", ErrCorrupt, hlen, n)
	}
	hdr := data[prefixLen : prefixLen+hlen]
	stored := binary.LittleEndian.Uint32(data[prefixLen+hlen:])
	if got := crc32.Checksum(hdr, castagnoli); got != stored {
		return nil, fmt.Errorf("%w: header checksum mismatch (stored %08x, computed %08x)", ErrCorrupt, stored, got)
	}
	var h Header
	if err := json.Unmarshal(hdr, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if h.FormatVersion != int(version) {
		return nil, fmt.Errorf("%w: header says format version %d, the file %d", ErrCorrupt, h.FormatVersion, version)
	}
	// Sections: in order, aligned, disjoint, inside [the header's end,
	// the footer), zero padding in the gaps, checksums.
	at := prefixLen + hlen + crcLen
	seen := make(map[string]bool)
	var secs []Section
	for i, si := range h.Sections {
		switch {
		case si.Name == "":
			return nil, fmt.Errorf("%w: section %d has no name", ErrCorrupt, i)
		case seen[si.Name]:
			return nil, fmt.Errorf("%w: two sections named %q", ErrCorrupt, si.Name)
		case si.Offset%align != 0:
			return nil, fmt.Errorf("%w: section %q: offset %d is not a multiple of %d", ErrCorrupt, si.Name, si.Offset, align)
		case si.Offset < at:
			return nil, fmt.Errorf("%w: section %q: offset %d overlaps what precedes it (ends at %d)", ErrCorrupt, si.Name, si.Offset, at)
		case si.Offset > end || si.Length > end-si.Offset:
			return nil, fmt.Errorf("%w: section %q: %d bytes at offset %d run past the data end %d", ErrCorrupt, si.Name, si.Length, si.Offset, end)
		}
		if !allZero(data[at:si.Offset]) {
			return nil, fmt.Errorf("%w: nonzero padding before section %q", ErrCorrupt, si.Name)
		}
		seen[si.Name] = true
		d := data[si.Offset : si.Offset+si.Length : si.Offset+si.Length]
		if got := crc32.Checksum(d, castagnoli); got != si.CRC32C {
			return nil, fmt.Errorf("%w: section %q: checksum mismatch (stored %08x, computed %08x)", ErrCorrupt, si.Name, si.CRC32C, got)
		}
		secs = append(secs, Section{Name: si.Name, Required: si.Required, Data: d})
		at = si.Offset + si.Length
	}
	if !allZero(data[at:end]) {
		return nil, fmt.Errorf("%w: nonzero padding before the footer", ErrCorrupt)
	}
	return &File{Header: h, Sections: secs}, nil
}

// newerOrDamaged tells a file from a newer format version (ErrNewerVersion)
// from a damaged one whose version field happens to read higher than
// FormatVersion. The version field is outside every checksum, so it is
// believed only when the header it introduces verifies: the header length
// fits, its CRC32C matches and its JSON format_version agrees. That makes
// the 24-byte prefix, the JSON header and its checksum the part of the
// layout every format version keeps; what follows the header (sections,
// footer) and the flags may change, so they are not checked here.
func newerOrDamaged(data []byte, version uint32) error {
	n := uint64(len(data))
	if n < prefixLen+crcLen {
		return fmt.Errorf("%w: %d bytes, ends inside the fixed header", ErrTruncated, n)
	}
	hlen := binary.LittleEndian.Uint64(data[16:])
	if hlen > n-prefixLen-crcLen {
		return fmt.Errorf("%w: %d bytes, ends inside the header (%d bytes, format version %d)", ErrTruncated, n, hlen, version)
	}
	damaged := func(why string) error {
		return fmt.Errorf("%w: damaged: the format version field reads %d, but %s", ErrCorrupt, version, why)
	}
	hdr := data[prefixLen : prefixLen+hlen]
	if crc32.Checksum(hdr, castagnoli) != binary.LittleEndian.Uint32(data[prefixLen+hlen:]) {
		return damaged("the header checksum does not match")
	}
	var h struct {
		FormatVersion int64 `json:"format_version"`
	}
	if err := json.Unmarshal(hdr, &h); err != nil {
		return damaged(fmt.Sprintf("the header is not valid (%v)", err))
	}
	if h.FormatVersion != int64(version) {
		return damaged(fmt.Sprintf("the header says format version %d", h.FormatVersion))
	}
	return fmt.Errorf("%w: written by format version %d; this build reads up to %d — update ISAGI",
		ErrNewerVersion, version, FormatVersion)
}

// allZero reports whether b is all zero bytes (padding must be).
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
