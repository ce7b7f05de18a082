package gguf

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// TestOpenAndReadFallback opens the same files through Open (a mapping on
// Unix) and through the read-whole-file fallback, which must agree.
func TestOpenAndReadFallback(t *testing.T) {
	sample := filepath.Join(t.TempDir(), "sample.gguf")
	if err := os.WriteFile(sample, writeBytes(t, sampleWriter(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{sample, fixture(t, "kjv/kjv-q4_k_m.gguf")} {
		mapped, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		read, err := openRead(path)
		if err != nil {
			t.Fatal(err)
		}
		if read.release != nil {
			t.Error("openRead set a release function")
		}
		if mapped.Path != path || read.Path != path || mapped.DataOffset != read.DataOffset || len(mapped.KV) != len(read.KV) || len(mapped.Tensors) != len(read.Tensors) {
			t.Fatalf("%s: Open and openRead disagree", path)
		}
		for i := range mapped.KV {
			if mapped.KV[i].Key != read.KV[i].Key || !mapped.KV[i].Value.Equal(read.KV[i].Value) {
				t.Errorf("%s: key %d differs", path, i)
			}
		}
		for i := range mapped.Tensors {
			a, b := mapped.TensorData(&mapped.Tensors[i]), read.TensorData(&read.Tensors[i])
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: tensor %s data differs", path, mapped.Tensors[i].Name)
			}
		}

		// Metadata must outlive the mapping: it was copied, not sliced.
		// (Had it been sliced, reading it after munmap would fault.)
		var strs []string
		for _, kv := range mapped.KV {
			if s, ok := kv.Value.Str(); ok {
				strs = append(strs, s)
			}
			if ss, ok := kv.Value.Strings(); ok {
				strs = append(strs, ss...)
			}
		}
		if len(strs) < 4 {
			t.Fatalf("%s: only %d strings to check", path, len(strs))
		}
		before := strings.Join(strs, "\x00")
		for _, f := range []*File{mapped, read} {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if len(f.Tensors) > 0 && f.TensorData(&f.Tensors[0]) != nil {
				t.Error("TensorData after Close returned data")
			}
		}
		if strings.Join(strs, "\x00") != before {
			t.Error("string metadata changed after Close")
		}
		if _, err := mapped.String("general.architecture"); err != nil {
			t.Errorf("metadata lookup after Close: %v", err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing.gguf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := openRead(filepath.Join(dir, "missing.gguf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file (read): %v", err)
	}
	empty := filepath.Join(dir, "empty.gguf")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Open(empty); !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, world"), 0o644)
	if _, err := Open(text); !errors.Is(err, ErrNotGGUF) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("text file: %v", err)
	}
	if _, err := Open(dir); err == nil {
		t.Error("opening a directory succeeded")
	}
}

func TestTensorDataBounds(t *testing.T) {
	f, err := Parse("sample", writeBytes(t, sampleWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range []*TensorInfo{nil, {Offset: 1 << 62, Size: 4}, {Offset: 0, Size: 1 << 62}, {Offset: ^uint64(0), Size: 2}} {
		if f.TensorData(ti) != nil {
			t.Errorf("TensorData(%+v) returned data outside the file", ti)
		}
	}
	ti := &f.Tensors[0]
	d := f.TensorData(ti)
	if cap(d) != len(d) {
		t.Errorf("TensorData capacity %d > length %d: an append would overwrite the next tensor", cap(d), len(d))
	}
}

// TestOpenRefusesSpecialFiles: a device never reaches end of file and a
// FIFO blocks its reader, so Open and the read fallback must refuse them
// (and directories) before reading, promptly, in one sentence.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			want := c.Path + " is not a regular file (" + c.Kind + "): give the path of a .gguf model file"
			for name, open := range map[string]func(string) (*File, error){"Open": Open, "openRead": openRead} {
				err := specialfile.Within(t, func() error {
					f, err := open(c.Path)
					if err == nil {
						f.Close()
					}
					return err
				})
				if err == nil || err.Error() != want {
					t.Errorf("%s: got %v, want %q", name, err, want)
				}
			}
		})
	}
}
