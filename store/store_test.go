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

func TestDirs(t *testing.T) {
	data, config := isolate(t)
	for _, tc := range []struct {
		f    func() (string, error)
		want string
	}{
		{DataDir, filepath.Join(data, "isagi")},
		{ConfigDir, filepath.Join(config, "isagi")},
		{ModelsDir, filepath.Join(data, "isagi", "models")},
		{ConfigPath, filepath.Join(config, "isagi", "config.json")},
	} {
		if got, err := tc.f(); err != nil || got != tc.want {
			t.Errorf("got %q, %v; want %q", got, err, tc.want)
		}
	}
	// Unset (or relative, which the XDG spec says to ignore): defaults
	// under $HOME, read at call time.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	if got, _ := ModelsDir(); got != filepath.Join(home, ".local", "share", "isagi", "models") {
		t.Errorf("default ModelsDir %q", got)
	}
	if got, _ := ConfigDir(); got != filepath.Join(home, ".config", "isagi") {
		t.Errorf("default ConfigDir %q", got)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	isolate(t)
	c, err := LoadConfig()
	if err != nil || c.Model != "" || c.Extra != nil {
		t.Fatalf("missing config: %+v, %v", c, err)
	}
	p, _ := ConfigPath()
	// Unknown keys survive a load/save cycle.
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"model": "old", "theme": {"dark": true}, "temperature": 0.7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig()
	if err != nil || c.Model != "old" {
		t.Fatalf("load: %+v, %v", c, err)
	}
	c.Model = "smollm2-135m-instruct"
	if err := SaveConfig(c); err != nil {
		t.Fatal(err)
	}
	c2, err := LoadConfig()
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
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), p) {
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
	dir, _ := ModelsDir()
	tmp := t.TempDir()
	flagFile := filepath.Join(tmp, "flag.gguf")
	writeFile(t, flagFile, []byte("x"))
	writeFile(t, filepath.Join(dir, "env-model.gguf"), []byte("x"))
	writeFile(t, filepath.Join(dir, "Config-Model.gguf"), []byte("x"))
	if err := SaveConfig(Config{Model: "config-model"}); err != nil { // case-insensitive match
		t.Fatal(err)
	}

	check := func(flag, want string) {
		t.Helper()
		got, err := Resolve(flag)
		if err != nil || got != want {
			t.Fatalf("Resolve(%q) = %q, %v; want %q", flag, got, err, want)
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
	_, err := Resolve("")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "$ISAGI_MODEL") || !strings.Contains(err.Error(), "no-such-model.gguf") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("bad env model: %v", err)
	}
	if _, err := Resolve(tmp); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("a directory as model: %v", err)
	}
}

func TestResolveShortNameAndHFRef(t *testing.T) {
	isolate(t)
	dir, _ := ModelsDir()
	ref, _ := hub.Lookup("qwen2.5-0.5b-instruct")
	want := filepath.Join(dir, ref.File)
	writeFile(t, want, []byte("x"))
	for _, v := range []string{"qwen2.5-0.5b-instruct", ref.File, strings.TrimSuffix(ref.File, ".gguf"), ref.String()} {
		if got, err := Resolve(v); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	// A known short name that is not installed says how to pull it.
	_, err := Resolve("llama-3.2-1b-instruct")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "isagi pull llama-3.2-1b-instruct") {
		t.Fatalf("uninstalled short name: %v", err)
	}
}

func TestResolveNothingSet(t *testing.T) {
	isolate(t)
	_, err := Resolve("")
	if !errors.Is(err, ErrNoModel) {
		t.Fatalf("want ErrNoModel, got %v", err)
	}
	for _, want := range []string{"--model", "$ISAGI_MODEL", "config.json", "isagi pull", "--demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	dir, _ := ModelsDir()
	writeFile(t, filepath.Join(dir, "a.gguf"), []byte("x"))
	if _, err := Resolve(""); err == nil || !strings.Contains(err.Error(), "a.gguf") {
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
	if ms, err := List(); err != nil || len(ms) != 0 {
		t.Fatalf("no models dir: %v, %v", ms, err)
	}
	dir, _ := ModelsDir()
	ft := uint32(15)
	writeFile(t, filepath.Join(dir, "tagged.gguf"), tinyGGUF(t, &ft))
	writeFile(t, filepath.Join(dir, "untagged.gguf"), tinyGGUF(t, nil))
	writeFile(t, filepath.Join(dir, "big-Q4_K_M.gguf.part"), make([]byte, 1234))
	writeFile(t, filepath.Join(dir, "broken.gguf"), []byte("not a model"))
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("ignored"))

	ms, err := List()
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
