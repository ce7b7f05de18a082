package model

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// ropeConfig reads the Config of a llama GGUF holding only the keys
// readConfig needs and extra (no tensors).
func ropeConfig(t testing.TB, extra map[string]gguf.Value) (Config, error) {
	t.Helper()
	var w gguf.Writer
	add := func(k string, v gguf.Value) {
		if err := w.AddKV(k, v); err != nil {
			t.Fatal(err)
		}
	}
	add("general.architecture", gguf.String("llama"))
	add("llama.embedding_length", gguf.Uint32(64))
	add("llama.block_count", gguf.Uint32(3))
	add("llama.feed_forward_length", gguf.Uint32(128))
	add("llama.attention.head_count", gguf.Uint32(4))
	add("llama.context_length", gguf.Uint32(131072))
	add("llama.rope.freq_base", gguf.Float32(150000))
	for k, v := range extra {
		add("llama."+k, v)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse("m.gguf", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return readConfig(f)
}

// mscale is llama.cpp's get_mscale in float64.
func mscale(f, m float64) float64 {
	if f <= 1 {
		return 1
	}
	return 1 + 0.1*m*math.Log(f)
}

// TestConfigYaRN: rope.scaling.type yarn gives the parameters llama.cpp
// passes ggml's rope_ext. For gpt-oss's (factor 32 from 4096 positions) the
// rotation's magnitude, AttnFactor·(1 + 0.1·ln 32) as rope_yarn applies it,
// is HF's YaRN attention factor 1 + 0.1·ln 32 = 1.3466; a log multiplier
// divides by get_mscale(f, L); rope.scaling.attn_factor multiplies; an
// ext_factor of 0 leaves yarn_attn_factor alone.
func TestConfigYaRN(t *testing.T) {
	f32 := gguf.Float32
	for _, c := range []struct {
		name            string
		keys            map[string]gguf.Value
		posScale        float32
		ext, fast, slow float32
		origCtx         int
		magnitude       float64 // AttnFactor times rope_yarn's own factor
		noYaRN          bool
	}{
		{"gpt-oss", map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(32), "rope.scaling.original_context_length": gguf.Uint32(4096)},
			1.0 / 32, 1, 32, 1, 4096, 1 + 0.1*math.Log(32), false},
		{"log multiplier", map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(40), "rope.scaling.original_context_length": gguf.Uint32(4096), "rope.scaling.yarn_log_multiplier": f32(0.1)},
			1.0 / 40, 1, 32, 1, 4096, mscale(40, 1) / mscale(40, 0.1), false},
		{"attn_factor and betas", map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(4), "rope.scaling.attn_factor": f32(0.5), "rope.scaling.yarn_beta_fast": f32(16), "rope.scaling.yarn_beta_slow": f32(2)},
			0.25, 1, 16, 2, 131072, 0.5 * mscale(4, 1), false},
		{"ext_factor 0", map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(4), "rope.scaling.yarn_ext_factor": f32(0), "rope.scaling.yarn_attn_factor": f32(1.25)},
			0.25, 0, 32, 1, 131072, 1.25, false},
		{"ext_factor unset (negative)", map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(4), "rope.scaling.yarn_ext_factor": f32(-1)},
			0.25, 1, 32, 1, 131072, mscale(4, 1), false},
		{"linear", map[string]gguf.Value{"rope.scaling.type": gguf.String("linear"), "rope.scaling.factor": f32(4)}, 0.25, 0, 0, 0, 0, 0, true},
		{"none ignores the factor", map[string]gguf.Value{"rope.scaling.type": gguf.String("none"), "rope.scaling.factor": f32(8)}, 1, 0, 0, 0, 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ropeConfig(t, c.keys)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RopePosScale != c.posScale {
				t.Errorf("RopePosScale %g, want %g", cfg.RopePosScale, c.posScale)
			}
			y := cfg.RopeYaRN
			if c.noYaRN {
				if y != nil {
					t.Errorf("YaRN %+v on a model without it", *y)
				}
				return
			}
			if y == nil {
				t.Fatal("no YaRN")
			}
			if y.ExtFactor != c.ext || y.BetaFast != c.fast || y.BetaSlow != c.slow || y.OrigCtx != c.origCtx {
				t.Errorf("YaRN %+v, want ext %g, betas %g and %g, original context %d", *y, c.ext, c.fast, c.slow, c.origCtx)
			}
			mag := float64(y.AttnFactor)
			if y.ExtFactor != 0 {
				mag *= 1 + 0.1*math.Log(1/float64(cfg.RopePosScale))
			}
			if math.Abs(mag-c.magnitude) > 1e-6 {
				t.Errorf("magnitude %.9g (AttnFactor %.9g), want %.9g", mag, y.AttnFactor, c.magnitude)
			}
			// Every layer carries it.
			m := &Model{Config: cfg, layers: make([]layer, cfg.Layers)}
			for l, r := range m.layerRuns(4096) {
				if r.rope.YaRN != y || r.rope.PosScale != c.posScale {
					t.Errorf("layer %d: rope %+v", l, r.rope)
				}
			}
		})
	}
}

// TestConfigYaRNErrors: a YaRN key out of range, or a scaling type this
// engine does not run, is refused in one sentence naming the key or type.
func TestConfigYaRNErrors(t *testing.T) {
	f32 := gguf.Float32
	yarn := func(k string, v gguf.Value) map[string]gguf.Value {
		return map[string]gguf.Value{"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": f32(32), k: v}
	}
	for _, c := range []struct {
		keys map[string]gguf.Value
		want string
	}{
		{yarn("rope.scaling.yarn_beta_fast", f32(-1)), "llama.rope.scaling.yarn_beta_fast = -1 is out of range"},
		{yarn("rope.scaling.yarn_beta_slow", f32(float32(math.NaN()))), "llama.rope.scaling.yarn_beta_slow = NaN is out of range"},
		{yarn("rope.scaling.yarn_ext_factor", f32(2)), "llama.rope.scaling.yarn_ext_factor = 2 is out of range"},
		{yarn("rope.scaling.yarn_log_multiplier", f32(float32(math.Inf(1)))), "llama.rope.scaling.yarn_log_multiplier = +Inf is out of range"},
		{yarn("rope.scaling.yarn_attn_factor", f32(0)), "llama.rope.scaling.yarn_attn_factor = 0 is out of range"},
		{yarn("rope.scaling.factor", f32(-2)), "llama.rope.scaling.factor = -2 is out of range"},
		{yarn("rope.scaling.factor", f32(0.5)), "llama.rope.scaling.factor = 0.5 is below 1, which YaRN cannot use"},
		{yarn("rope.scaling.original_context_length", gguf.Uint32(0)), "llama.rope.scaling.original_context_length = 0 is out of range"},
		{map[string]gguf.Value{"rope.scaling.type": gguf.String("dynamic"), "rope.scaling.factor": f32(2)}, `RoPE scaling "dynamic" is not supported (linear and yarn are)`},
		{yarn("rope.scaling.yarn_beta_fast", gguf.String("fast")), "rope.scaling.yarn_beta_fast"},
	} {
		_, err := ropeConfig(t, c.keys)
		if err == nil {
			t.Errorf("%v: accepted", c.keys)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: %q, want one sentence with %q", c.keys, msg, c.want)
		}
	}
}

// FuzzConfigYaRN: any YaRN values are either refused or give finite
// parameters with a positive magnitude, without a panic.
func FuzzConfigYaRN(f *testing.F) {
	f.Add(float32(32), float32(-1), float32(32), float32(1), float32(0), float32(1), uint32(4096))
	f.Add(float32(0), float32(0), float32(1e-30), float32(1e30), float32(99), float32(1e-3), uint32(1))
	f.Add(float32(1e-6), float32(1), float32(32), float32(1), float32(0), float32(1), uint32(4096))
	f.Fuzz(func(t *testing.T, factor, ext, fast, slow, logMul, attn float32, orig uint32) {
		c, err := ropeConfig(t, map[string]gguf.Value{
			"rope.scaling.type": gguf.String("yarn"), "rope.scaling.factor": gguf.Float32(factor),
			"rope.scaling.yarn_ext_factor": gguf.Float32(ext), "rope.scaling.yarn_beta_fast": gguf.Float32(fast),
			"rope.scaling.yarn_beta_slow": gguf.Float32(slow), "rope.scaling.yarn_log_multiplier": gguf.Float32(logMul),
			"rope.scaling.attn_factor": gguf.Float32(attn), "rope.scaling.original_context_length": gguf.Uint32(orig),
		})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a refusal of more than one line: %q", err)
			}
			return
		}
		y := c.RopeYaRN
		for _, v := range []float32{y.ExtFactor, y.AttnFactor, y.BetaFast, y.BetaSlow, c.RopePosScale} {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("accepted values give %+v, pos scale %g", *y, c.RopePosScale)
			}
		}
		if !(y.AttnFactor > 0) || y.OrigCtx <= 0 {
			t.Fatalf("accepted values give %+v", *y)
		}
	})
}
