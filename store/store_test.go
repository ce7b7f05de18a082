package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/hub"
)

// isolate points every XDG directory and ISAGI_MODEL at a fresh temp dir.
func isolate(t *testing.T) (data, config string) {
	t.Helper()
	root := t.TempDir()
	data, config = filepath.Join(root, "data"), filepath.Join(root, "config")
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv(EnvModel, "")
	return data, config
}

// defaultPaths is DefaultPaths for an isolated test, which has every base
// directory.
func defaultPaths(t *testing.T) Paths {
	t.Helper()
	p, err := DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPaths: the layout under $XDG_DATA_HOME and $XDG_CONFIG_HOME, read when
// DefaultPaths is called; the defaults under $HOME when they are unset or
// relative; and, without a home directory, the half whose base is known.
func TestPaths(t *testing.T) {
	data, config := isolate(t)
	want := Paths{
		Data:     filepath.Join(data, "isagi"),
		Models:   filepath.Join(data, "isagi", "models"),
		Sessions: filepath.Join(data, "isagi", "sessions"),
		GRCCache: filepath.Join(data, "isagi", "geometry"),
		Profiles: filepath.Join(data, "isagi", "profiles"),
		Steer:    filepath.Join(data, "isagi", "steer"),
		Config:   filepath.Join(config, "isagi", "config.json"),
	}
	if got := defaultPaths(t); got != want {
		t.Errorf("under XDG:\n got %+v\nwant %+v", got, want)
	}
	if got := NewPaths(filepath.Join(data, "isagi"), filepath.Join(config, "isagi")); got != want {
		t.Errorf("NewPaths:\n got %+v\nwant %+v", got, want)
	}

	// Unset (or relative, which the XDG spec says to ignore): defaults
	// under $HOME, read at call time.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	share := filepath.Join(home, ".local", "share", "isagi")
	want = Paths{
		Data:     share,
		Models:   filepath.Join(share, "models"),
		Sessions: filepath.Join(share, "sessions"),
		GRCCache: filepath.Join(share, "geometry"),
		Profiles: filepath.Join(share, "profiles"),
		Steer:    filepath.Join(share, "steer"),
		Config:   filepath.Join(home, ".config", "isagi", "config.json"),
	}
	if got := defaultPaths(t); got != want {
		t.Errorf("under HOME:\n got %+v\nwant %+v", got, want)
	}

	// No home directory: the data half still comes from $XDG_DATA_HOME;
	// the config half is empty, and what needs it says why.
	t.Setenv("HOME", "")
	t.Setenv("XDG_DATA_HOME", data)
	p, err := DefaultPaths()
	if err == nil || !strings.Contains(err.Error(), "$XDG_CONFIG_HOME") || strings.Contains(err.Error(), "$XDG_DATA_HOME") {
		t.Errorf("no home, no XDG_CONFIG_HOME: %v", err)
	}
	if p.Models != filepath.Join(data, "isagi", "models") || p.Config != "" {
		t.Errorf("no home: %+v", p)
	}
	if _, err := p.LoadConfig(); err == nil || !strings.Contains(err.Error(), "$XDG_CONFIG_HOME is unset") {
		t.Errorf("LoadConfig without a config directory: %v", err)
	}
	flagFile := filepath.Join(t.TempDir(), "m.gguf")
	writeFile(t, flagFile, []byte("x"))
	if got, err := p.Resolve(flagFile); err != nil || got != flagFile {
		t.Errorf("--model FILE without a config directory: %q, %v", got, err)
	}
	if _, err := (Paths{}).Resolve(flagFile); err == nil || !strings.Contains(err.Error(), "$XDG_DATA_HOME is unset") {
		t.Errorf("Resolve without a data directory: %v", err)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	isolate(t)
	c, err := defaultPaths(t).LoadConfig()
	if err != nil || c.Model != "" || c.Extra != nil {
		t.Fatalf("missing config: %+v, %v", c, err)
	}
	p := defaultPaths(t).Config
	// Unknown keys survive a load/save cycle.
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"model": "old", "theme": {"dark": true}, "temperature": 0.7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = defaultPaths(t).LoadConfig()
	if err != nil || c.Model != "old" {
		t.Fatalf("load: %+v, %v", c, err)
	}
	c.Model = "smollm2-135m-instruct"
	if err := defaultPaths(t).SaveConfig(c); err != nil {
		t.Fatal(err)
	}
	c2, err := defaultPaths(t).LoadConfig()
	if err != nil || c2.Model != "smollm2-135m-instruct" {
		t.Fatalf("reload: %+v, %v", c2, err)
	}
	raw, _ := os.ReadFile(p)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["temperature"] != 0.7 || m["theme"].(map[string]any)["dark"] != true || m["model"] != "smollm2-135m-instruct" {
		t.Fatalf("saved config lost keys: %s", raw)
	}
	// No temporary files are left beside it.
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Fatalf("config dir holds %d entries, want only config.json", len(ents))
	}
	// A malformed file is an error naming it.
	os.WriteFile(p, []byte(`{"model": 3}`), 0o644)
	if _, err := defaultPaths(t).LoadConfig(); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("malformed config: %v", err)
	}
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveOrder(t *testing.T) {
	isolate(t)
	dir := defaultPaths(t).Models
	tmp := t.TempDir()
	flagFile := filepath.Join(tmp, "flag.gguf")
	writeFile(t, flagFile, []byte("x"))
	writeFile(t, filepath.Join(dir, "env-model.gguf"), []byte("x"))
	writeFile(t, filepath.Join(dir, "Config-Model.gguf"), []byte("x"))
	if err := defaultPaths(t).SaveConfig(Config{Model: "config-model"}); err != nil { // case-insensitive match
		t.Fatal(err)
	}

	check := func(flag, want string) {
		t.Helper()
		got, err := defaultPaths(t).Resolve(flag)
		if err != nil || got != want {
			t.Fatalf("defaultPaths(t).Resolve(%q) = %q, %v; want %q", flag, got, err, want)
		}
	}
	t.Setenv(EnvModel, "env-model")
	check(flagFile, flagFile)                       // flag wins
	check("", filepath.Join(dir, "env-model.gguf")) // then the environment
	t.Setenv(EnvModel, "")
	check("", filepath.Join(dir, "Config-Model.gguf")) // then the config file

	// A set source that names nothing is an error; later sources are not
	// consulted behind the user's back.
	t.Setenv(EnvModel, "no-such-model")
	_, err := defaultPaths(t).Resolve("")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "$ISAGI_MODEL") || !strings.Contains(err.Error(), "no-such-model.gguf") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("bad env model: %v", err)
	}
	if _, err := defaultPaths(t).Resolve(tmp); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("a directory as model: %v", err)
	}
}

func TestResolveShortNameAndHFRef(t *testing.T) {
	isolate(t)
	dir := defaultPaths(t).Models
	ref, _ := hub.Lookup("qwen2.5-0.5b-instruct")
	want := filepath.Join(dir, ref.File)
	writeFile(t, want, []byte("x"))
	for _, v := range []string{"qwen2.5-0.5b-instruct", ref.File, strings.TrimSuffix(ref.File, ".gguf"), ref.String()} {
		if got, err := defaultPaths(t).Resolve(v); err != nil || got != want {
			t.Errorf("defaultPaths(t).Resolve(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	// A known short name that is not installed says how to pull it.
	_, err := defaultPaths(t).Resolve("llama-3.2-1b-instruct")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "isagi pull llama-3.2-1b-instruct") {
		t.Fatalf("uninstalled short name: %v", err)
	}
}

func TestResolveNothingSet(t *testing.T) {
	isolate(t)
	_, err := defaultPaths(t).Resolve("")
	if !errors.Is(err, ErrNoModel) {
		t.Fatalf("want ErrNoModel, got %v", err)
	}
	for _, want := range []string{"--model", "$ISAGI_MODEL", "config.json", "isagi pull", "--demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	dir := defaultPaths(t).Models
	writeFile(t, filepath.Join(dir, "a.gguf"), []byte("x"))
	if _, err := defaultPaths(t).Resolve(""); err == nil || !strings.Contains(err.Error(), "a.gguf") {
		t.Fatalf("with a model installed the error should name it: %v", err)
	}
}

// tinyGGUF is a small valid GGUF file with two Q8_0 matrices and one F32
// vector.
func tinyGGUF(t *testing.T, fileType *uint32) []byte {
	t.Helper()
	var w gguf.Writer
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.AddKV("general.architecture", gguf.String("llama")))
	if fileType != nil {
		must(w.AddKV("general.file_type", gguf.Uint32(*fileType)))
	}
	q8 := make([]byte, 34*2*4) // 4 rows of 64: 2 blocks of 34 bytes each
	must(w.AddTensor("blk.0.attn_q.weight", tensor.Q8_0, []uint64{64, 4}, q8))
	must(w.AddTensor("blk.0.ffn_up.weight", tensor.Q8_0, []uint64{64, 4}, q8))
	must(w.AddTensor("output_norm.weight", tensor.F32, []uint64{64}, make([]byte, 64*4)))
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestList(t *testing.T) {
	isolate(t)
	if ms, err := defaultPaths(t).List(); err != nil || len(ms) != 0 {
		t.Fatalf("no models dir: %v, %v", ms, err)
	}
	dir := defaultPaths(t).Models
	ft := uint32(15)
	writeFile(t, filepath.Join(dir, "tagged.gguf"), tinyGGUF(t, &ft))
	writeFile(t, filepath.Join(dir, "untagged.gguf"), tinyGGUF(t, nil))
	writeFile(t, filepath.Join(dir, "big-Q4_K_M.gguf.part"), make([]byte, 1234))
	writeFile(t, filepath.Join(dir, "broken.gguf"), []byte("not a model"))
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("ignored"))

	ms, err := defaultPaths(t).List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "big-Q4_K_M,broken,tagged,untagged" {
		t.Fatalf("names %v", names)
	}
	part, broken, tagged, untagged := ms[0], ms[1], ms[2], ms[3]
	if !part.Incomplete || part.Size != 1234 || part.Arch != "" || part.File != "big-Q4_K_M.gguf.part" {
		t.Errorf("partial download: %+v", part)
	}
	if broken.Err == "" || broken.Incomplete {
		t.Errorf("broken file: %+v", broken)
	}
	wantParams := uint64(64*4*2 + 64)
	if tagged.Arch != "llama" || tagged.Quant != "Q4_K_M" || tagged.Params != wantParams || tagged.Err != "" || tagged.Incomplete {
		t.Errorf("tagged: %+v", tagged)
	}
	if st, _ := os.Stat(tagged.Path); tagged.Size != st.Size() || tagged.Path != filepath.Join(dir, "tagged.gguf") {
		t.Errorf("tagged size/path: %+v", tagged)
	}
	// Without general.file_type: the type of most weight elements (the F32
	// norm is 1-D and does not count).
	if untagged.Quant != "Q8_0" || untagged.Params != wantParams {
		t.Errorf("untagged: %+v", untagged)
	}
}

func TestHumanFormats(t *testing.T) {
	if got := HumanBytes(145 << 20); got != "145.00 MiB" {
		t.Errorf("HumanBytes = %q", got)
	}
	if got := HumanParams(134_515_008); got != "135M" {
		t.Errorf("HumanParams = %q", got)
	}
	if got := HumanParams(1_235_814_432); got != "1.24B" {
		t.Errorf("HumanParams = %q", got)
	}
}
