package base

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// llama.cpp's two-word flags become one word each; everything else,
// and everything after "--", is left as it is.
func TestJoinLlamaArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--control-vector-scaled", "a.gguf", "0.5"}, []string{"--control-vector-scaled=a.gguf:0.5"}},
		{[]string{"-control-vector-scaled", "a.gguf", "-0.5", "--json"}, []string{"--control-vector-scaled=a.gguf:-0.5", "--json"}},
		{[]string{"--control-vector-scaled", "a.gguf:0.5", "--json"}, []string{"--control-vector-scaled", "a.gguf:0.5", "--json"}},
		{[]string{"--control-vector-scaled", "a.gguf:0.5", "3"}, []string{"--control-vector-scaled", "a.gguf:0.5", "3"}},
		{[]string{"--control-vector-layer-range", "2", "5", "--json"}, []string{"--control-vector-layer-range=2 5", "--json"}},
		{[]string{"--control-vector-layer-range", "2-5"}, []string{"--control-vector-layer-range", "2-5"}},
		{[]string{"--control-vector-layer-range=2", "5", "6"}, []string{"--control-vector-layer-range=2", "5", "6"}},
		{[]string{"--", "--control-vector-layer-range", "2", "5"}, []string{"--", "--control-vector-layer-range", "2", "5"}},
		{[]string{"--model", "m.gguf", "--control-vector", "v.gguf"}, []string{"--model", "m.gguf", "--control-vector", "v.gguf"}},
	} {
		if got := joinLlamaArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("joinLlamaArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSteerFlagValues: the flags' values as llama.cpp writes them, and
// their mistakes.
func TestSteerFlagValues(t *testing.T) {
	parse := func(args ...string) (*SteerFlags, error) {
		var sf SteerFlags
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		sf.Register(fs)
		return &sf, ParseFlags(fs, args, io.Discard)
	}
	sf, err := parse("--control-vector", "a.gguf,b", "--control-vector-scaled", "dir/c d.gguf:-2,e.gguf 1e-1",
		"--control-vector-scaled", "f.gguf", "0.5", "--control-vector-layer-range", "2", "5")
	if err != nil {
		t.Fatal(err)
	}
	want := []session.SteerUse{{Vector: "a.gguf", Scale: 1}, {Vector: "b", Scale: 1}, {Vector: "dir/c d.gguf", Scale: -2},
		{Vector: "e.gguf", Scale: 0.1}, {Vector: "f.gguf", Scale: 0.5}}
	if !slices.Equal(sf.uses, want) || sf.start != 2 || sf.end != 5 {
		t.Fatalf("read %+v, %d–%d", sf.uses, sf.start, sf.end)
	}
	if got := sf.Spec(); got != "a.gguf@2-5,b@2-5,dir/c d.gguf:-2@2-5,e.gguf:0.1@2-5,f.gguf:0.5@2-5" {
		t.Errorf("spec %q", got)
	}
	for _, r := range []string{"2-5", "2,5", "3 3"} {
		if _, err := parse("--control-vector", "a", "--control-vector-layer-range", r); err != nil {
			t.Errorf("layer range %q: %v", r, err)
		}
	}
	for _, bad := range [][]string{
		{"--control-vector-layer-range", "5-2"}, {"--control-vector-layer-range", "x"}, {"--control-vector-layer-range", "1 2 3"},
		{"--control-vector-scaled", "a.gguf"}, {"--control-vector-scaled", "a.gguf:x"}, {"--control-vector-scaled", "a.gguf:NaN"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if sf, err := parse("--control-vector-layer-range", "1", "2"); err != nil || sf.Check() == nil {
		t.Errorf("a range without a vector: %v, %v", err, sf.Check())
	}
}
