package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "fixtures", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s missing (tests read ../shared/fixtures from the repo root): %v", rel, err)
	}
	return p
}

func TestInspectShowsModel(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"inspect", "--tensors", fixture(t, "kjv/kjv-q4_k_m.gguf")}, &out, &errb); err != nil {
		t.Fatalf("inspect: %v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		`general.architecture`, `"llama"`,
		"tensors  56,",
		"Q4_K   38 tensors", "Q6_K   5 tensors", "F32    13 tensors",
		"blk.0.attn_q.weight",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, s)
		}
	}
}

func TestInspectRejectsNonGGUF(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notes.gguf")
	if err := os.WriteFile(bad, []byte("hello, this is not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run([]string{"inspect", bad}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "notes.gguf") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"frobnicate"}, &out, &errb); err == nil {
		t.Fatal("unknown command accepted")
	}
	if !strings.Contains(errb.String(), "Usage:") {
		t.Fatalf("unknown command should print usage, got %q", errb.String())
	}
}
