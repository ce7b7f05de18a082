// Package miku reads and writes .miku session files: a versioned,
// checksummed container of named binary sections behind a JSON header,
// written atomically. It knows nothing of what the sections hold (that is
// the app's business) and imports nothing from the engine or the TUI.
//
// The byte layout is specified in docs/miku.md. In short: an 8-byte magic,
// uint32 format version, uint32 flags, uint64 header length, the JSON
// header, its CRC32C, then 8-byte-aligned sections (each described in the
// header's section table by name, offset, length, CRC32C and a required
// bit) and a 16-byte footer carrying the total file length. All integers
// are little-endian.
//
// Decode verifies everything (magic, version, footer, header checksum,
// every section's bounds and checksum) before it returns anything, never
// panics on any input, and never allocates from a length field. Write
// replaces a file atomically: a crash leaves the previous complete file or
// the new complete one, never a mix.
//
// Several processes may save one file (two TUIs, looping scripts). Read a
// file with ReadStamped and save it with WriteIfUnchanged, which refuses
// (ErrChanged) to overwrite a file someone else has saved since; a caller
// that reads, works and saves as one step holds Lock throughout and saves
// through the FileLock. Plain Write overwrites whatever is there.
package miku
