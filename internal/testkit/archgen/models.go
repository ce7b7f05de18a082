package archgen

import (
	"fmt"
	"math"
	"slices"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// Shapes shared by every model, as in shared/fixtures/archs.
const (
	nEmbd   = 64
	nHead   = 4
	nHeadKV = 2
	nCtx    = 256
)

// gemma3 shapes: head_dim 32 ≠ n_embd/n_head = 16, and six layers so that
// llama.cpp's default gemma3 pattern (period 6: layers 0–4 slide, layer 5
// is global) has both kinds of layer without a sliding_window_pattern key,
// which converted Gemma 3 files do not carry.
const (
	gemma3Layers  = 6
	gemma3HeadDim = 32
	gemma3FF      = 128
	gemma3Window  = 12
	// gemma3RopeBase is rope.freq_base, the global layers' base; the
	// sliding layers use llama.cpp's default freq_base_swa, 10000.
	gemma3RopeBase = 1e6
	// gemma3LinearFactor is rope.scaling.factor of gemma3-linear, as the
	// Gemma 3 4B/12B/27B files carry it (llama.cpp applies it to the global
	// layers only).
	gemma3LinearFactor = 8
)

// phi3 shapes: phi3's attn_output is n_embd × n_embd in llama.cpp, so
// head_dim is n_embd/n_head = 16; RoPE rotates 12 of the 16 dims (Phi-4-mini
// rotates 3/4 of each head).
const (
	phi3Layers  = 3
	phi3HeadDim = nEmbd / nHead
	phi3RopeDim = 12
	phi3FF      = 128
	// phi3Window is phi3.attention.sliding_window of the phi3 fixture.
	// llama.cpp reads the key but disables SWA for phi3 (it logs "Phi SWA is
	// currently disabled"), so its goldens are full causal attention.
	phi3Window = 12
	// phi3OrigCtx is rope.scaling.original_context_length of
	// phi3-longrope: below the 256-token context llama.cpp runs, so it
	// applies rope_factors_long.
	phi3OrigCtx = 64
)

// phi3AttnFactor is the LongRoPE magnitude scale convert_hf_to_gguf.py
// stores for Phi-3: sqrt(1 + ln(ctx/orig) / ln(orig)), with ctx/orig =
// 256/64 = 4 and ln 4 / ln 64 = 1/3.
func phi3AttnFactor() float32 { return float32(math.Sqrt(4.0 / 3)) }

// LongRoPE per-pair divisors of the RoPE angle (phi3RopeDim/2 = 6 pairs).
// The long set reaches the fast-rotating dims so that it matters at the
// golden prompts' short positions; the short set is close to 1.
var (
	phi3LongFactors  = []float32{1, 1.5, 2.5, 5, 10, 20}
	phi3ShortFactors = []float32{1, 1.05, 1.1, 1.2, 1.3, 1.5}
)

// Seeds of the weight streams, one per fixture family (F16 copies share
// their fixture's weights). Each was chosen among 20–40 tried for the
// largest smallest top-2 logit margin over the 128 greedy steps of the F32
// and F16 files (llama.cpp's own where it could be probed, the engine's
// elsewhere), so that no greedy step is a near tie that an implementation
// difference could flip (README: Margins).
const (
	gemma3Seed       = 33
	gemma3LinearSeed = 24
	phi3Seed         = 5
	phi3LongropeSeed = 110
)

// Standard deviations and ranges of the random weights. Small-std weights
// make attention nearly uniform and hide RoPE, norm and window mistakes;
// these are large enough that the ablations change the greedy ids early.
const (
	stdRare    = 0.02 // token_embd/output rows of rare tokens (rareToken)
	stdQK      = 0.2
	stdVO      = 0.15
	stdFFN     = 0.15
	stdEmbd    = 0.4
	stdEmbdGem = 0.15 // gemma multiplies the embedding by √n_embd = 8
	stdOutput  = 0.5
)

func fixtureEntries() []entry {
	var es []entry
	for _, f := range []struct {
		name, arch, about string
		build             func() *model
	}{
		{"gemma3", "gemma3", "gemma3 as Gemma 3 1B files are: embedding × √n_embd; RMSNorm weights stored as the full multiplier (1+w); " +
			"per-head q/k RMSNorm before RoPE; post-attention and post-FFN norms; GeGLU (tanh GELU); NEOX RoPE; query × 1/√key_length " +
			"with key_length 32 ≠ n_embd/n_head; 6 layers, llama.cpp's default period-6 pattern: layers 0–4 sliding (window 12, RoPE base 10000), " +
			"layer 5 global (rope.freq_base 1e6); no soft-capping; tied output; BOS added",
			func() *model { return gemma3Model(false) }},
		{"gemma3-linear", "gemma3", "gemma3 with the same weights plus rope.scaling.type linear, factor 8, as Gemma 3 4B/12B/27B files: " +
			"llama.cpp divides positions by 8 on the global layer only",
			func() *model { return gemma3Model(true) }},
		{"phi3", "phi3", "phi3 as Phi-3-mini files are: fused attn_qkv (Q, K, V rows) and fused ffn_up (gate rows, then up rows; SwiGLU); " +
			"partial NEOX RoPE (12 of 16 dims); untied output.weight; phi3.attention.sliding_window 12, which llama.cpp reads but does not apply; BOS added",
			func() *model { return phi3Model(false) }},
		{"phi3-longrope", "phi3", "phi3 as Phi-4-mini files are: LongRoPE (rope_factors_long/short, rope.scaling.original_context_length 64, " +
			"rope.scaling.attn_factor √(4/3)); at n_ctx 256 > 64 llama.cpp applies rope_factors_long and multiplies cos/sin by attn_factor; " +
			"partial rotary; sliding_window 0; tied output; no BOS",
			func() *model { return phi3Model(true) }},
	} {
		es = append(es,
			entry{Model{Name: f.name, Arch: f.arch, About: f.about}, f.build},
			entry{Model{Name: f.name + "-f16", Arch: f.arch, F16: true, About: "F16 copy of " + f.name + " (2-D weights F16, 1-D tensors F32)"}, f.build})
	}
	return es
}

// ablation is one deliberate change to a fixture: the file is named
// base + "-x-" + suffix.
type ablation struct {
	base, suffix, about string
	change              func(m *model)
}

func ablationEntries() []entry {
	list := []ablation{
		{"gemma3", "swa-period-2", "gemma3.attention.sliding_window_pattern = 2: layers 0, 2, 4 slide (gemma2's pattern instead of gemma3's period 6)",
			func(m *model) {
				m.set("gemma3.attention.sliding_window_pattern", gguf.Uint32(2), "gemma3.attention.sliding_window")
			}},
		{"gemma3", "no-window", "sliding_window 4096 > context: the window ignored (local layers keep RoPE base 10000)",
			func(m *model) { m.set("gemma3.attention.sliding_window", gguf.Uint32(4096), "") }},
		{"gemma3", "one-rope-base", "rope.freq_base_swa = 1e6: the local layers rotate with the global base",
			func(m *model) {
				m.set("gemma3.rope.freq_base_swa", gguf.Float32(gemma3RopeBase), "gemma3.rope.freq_base")
			}},
		{"gemma3", "global-base-10k", "rope.freq_base = 10000: the global layer rotates with the local base",
			func(m *model) { m.set("gemma3.rope.freq_base", gguf.Float32(10000), "") }},
		{"gemma3", "norms-plus-one", "every norm weight + 1: the stored (1+w) multipliers incremented again",
			func(m *model) {
				for _, t := range m.tensors {
					if len(t.dims) == 1 {
						for i := range t.data {
							t.data[i]++
						}
					}
				}
			}},
		{"gemma3", "query-scale-head", "attn_q_norm × √2: scores scaled by 1/√(n_embd/n_head) = 1/4 instead of 1/√key_length",
			func(m *model) {
				for l := range gemma3Layers {
					t := m.tensor(fmt.Sprintf("blk.%d.attn_q_norm.weight", l))
					for i := range t.data {
						t.data[i] = float32(float64(t.data[i]) * math.Sqrt2)
					}
				}
			}},
		{"gemma3", "no-embd-scale", "token_embd / 8 with the original as an untied output.weight: the embedding's √n_embd scale skipped",
			func(m *model) {
				e := m.tensor("token_embd.weight")
				out := &weight{name: "output.weight", dims: e.dims, data: append([]float32(nil), e.data...)}
				for i := range e.data {
					e.data[i] /= 8 // exact: a power of two
				}
				m.tensors = slices.Insert(m.tensors, 2, out) // after output_norm
			}},
		{"gemma3-linear", "unscaled", "rope.scaling keys removed (this is gemma3 under another general.name): linear scaling ignored",
			func(m *model) {
				m.unset("gemma3.rope.scaling.type")
				m.unset("gemma3.rope.scaling.factor")
			}},
		{"phi3", "full-rotary", "rope.dimension_count 16: every dim rotated (partial rotary ignored)",
			func(m *model) { m.set("phi3.rope.dimension_count", gguf.Uint32(phi3HeadDim), "") }},
		{"phi3", "kv-swapped", "K and V rows of attn_qkv exchanged: the fused tensor split as Q, V, K",
			func(m *model) {
				for l := range phi3Layers {
					t := m.tensor(fmt.Sprintf("blk.%d.attn_qkv.weight", l))
					kv := nHeadKV * phi3HeadDim * nEmbd
					k := t.data[nEmbd*nEmbd : nEmbd*nEmbd+kv]
					v := t.data[nEmbd*nEmbd+kv : nEmbd*nEmbd+2*kv]
					for i := range k {
						k[i], v[i] = v[i], k[i]
					}
				}
			}},
		{"phi3", "gate-up-swapped", "the two halves of ffn_up exchanged: the fused tensor read as up, then gate",
			func(m *model) {
				for l := range phi3Layers {
					t := m.tensor(fmt.Sprintf("blk.%d.ffn_up.weight", l))
					h := len(t.data) / 2
					for i := range h {
						t.data[i], t.data[h+i] = t.data[h+i], t.data[i]
					}
				}
			}},
		{"phi3", "no-window-key", "phi3.attention.sliding_window removed: no change expected, llama.cpp does not apply phi3's window",
			func(m *model) { m.unset("phi3.attention.sliding_window") }},
		{"phi3", "tied", "output.weight removed: logits from token_embd (an untied output ignored)",
			func(m *model) {
				m.tensors = deleteWeight(m.tensors, "output.weight")
			}},
		{"phi3-longrope", "short-ones", "rope_factors_short all 1: no change expected if llama.cpp applies the long set",
			func(m *model) { fill(m.tensor("rope_factors_short.weight").data, 1) }},
		{"phi3-longrope", "long-ones", "rope_factors_long all 1: LongRoPE's long factors ignored",
			func(m *model) { fill(m.tensor("rope_factors_long.weight").data, 1) }},
		{"phi3-longrope", "short-set", "original_context_length 256 = n_ctx: llama.cpp applies rope_factors_short instead",
			func(m *model) { m.set("phi3.rope.scaling.original_context_length", gguf.Uint32(nCtx), "") }},
		{"phi3-longrope", "no-attn-factor", "rope.scaling.attn_factor removed: the cos/sin magnitude scale ignored",
			func(m *model) { m.unset("phi3.rope.scaling.attn_factor") }},
	}
	return ablate(fixtureEntries(), list)
}

// ablate turns changes into entries, each built from its fixture in
// fixtures (with the fixture's storage types).
func ablate(fixtures []entry, list []ablation) []entry {
	es := make([]entry, 0, len(list))
	for _, a := range list {
		i := slices.IndexFunc(fixtures, func(e entry) bool { return e.Name == a.base })
		if i < 0 {
			panic("archgen: ablation of unknown fixture " + a.base)
		}
		base := fixtures[i]
		es = append(es, entry{
			Model: Model{Name: a.base + "-x-" + a.suffix, Arch: base.Arch, F16: base.F16, MXFP4: base.MXFP4, Base: a.base, About: a.about},
			build: func() *model {
				m := base.build()
				a.change(m)
				return m
			},
		})
	}
	return es
}

func deleteWeight(ws []*weight, name string) []*weight {
	for i, w := range ws {
		if w.name == name {
			return append(ws[:i:i], ws[i+1:]...)
		}
	}
	panic("archgen: no tensor " + name)
}

func fill(xs []float32, v float32) {
	for i := range xs {
		xs[i] = v
	}
}

// tokenizerKeys are the tokenizer.ggml.* keys for the shared vocabulary.
type tokenizerKeys struct {
	specials  [3]string
	bos, eos  int
	padding   int // -1: no key
	addBos    bool
	addEosKey bool // write add_eos_token = false, as Gemma files do
	pre       string
}

func (m *model) addTokenizer(t tokenizerKeys) {
	tokens, types := vocab(t.specials)
	m.add("tokenizer.ggml.model", gguf.String("gpt2"))
	m.add("tokenizer.ggml.pre", gguf.String(t.pre))
	m.add("tokenizer.ggml.tokens", gguf.Array(tokens))
	m.add("tokenizer.ggml.token_type", gguf.Array(types))
	m.add("tokenizer.ggml.merges", gguf.Array(merges[:]))
	m.add("tokenizer.ggml.bos_token_id", gguf.Uint32(uint32(t.bos)))
	m.add("tokenizer.ggml.eos_token_id", gguf.Uint32(uint32(t.eos)))
	if t.padding >= 0 {
		m.add("tokenizer.ggml.padding_token_id", gguf.Uint32(uint32(t.padding)))
	}
	m.add("tokenizer.ggml.add_bos_token", gguf.Bool(t.addBos))
	if t.addEosKey {
		m.add("tokenizer.ggml.add_eos_token", gguf.Bool(false))
	}
}

// gauss is a [in, out] matrix of normal weights.
func gauss(seed uint64, name string, in, out int, std float64) []float32 {
	return newRNG(seed, name).gauss(in*out, std)
}

// vocabMatrix is token_embd or output: one row per token, rare tokens'
// rows scaled down to stdRare.
func vocabMatrix(seed uint64, name string, std float64) []float32 {
	r := newRNG(seed, name)
	data := make([]float32, 0, nEmbd*nVocab)
	for id := range nVocab {
		s := std
		if rareToken(id) {
			s = stdRare
		}
		data = append(data, r.gauss(nEmbd, s)...)
	}
	return data
}

func uniform(seed uint64, name string, n int, lo, hi float64) []float32 {
	return newRNG(seed, name).between(n, lo, hi)
}

func gemma3Model(linear bool) *model {
	const a = "gemma3"
	name := "synthetic-gemma3"
	if linear {
		name += "-linear"
	}
	m := &model{}
	m.add("general.architecture", gguf.String(a))
	m.add("general.name", gguf.String(name))
	m.add("general.file_type", gguf.Uint32(0))
	m.add(a+".context_length", gguf.Uint32(nCtx))
	m.add(a+".embedding_length", gguf.Uint32(nEmbd))
	m.add(a+".block_count", gguf.Uint32(gemma3Layers))
	m.add(a+".feed_forward_length", gguf.Uint32(gemma3FF))
	m.add(a+".attention.head_count", gguf.Uint32(nHead))
	m.add(a+".attention.head_count_kv", gguf.Uint32(nHeadKV))
	m.add(a+".attention.key_length", gguf.Uint32(gemma3HeadDim))
	m.add(a+".attention.value_length", gguf.Uint32(gemma3HeadDim))
	m.add(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-6))
	m.add(a+".rope.freq_base", gguf.Float32(gemma3RopeBase))
	m.add(a+".attention.sliding_window", gguf.Uint32(gemma3Window))
	if linear {
		m.add(a+".rope.scaling.type", gguf.String("linear"))
		m.add(a+".rope.scaling.factor", gguf.Float32(gemma3LinearFactor))
	}
	m.addTokenizer(tokenizerKeys{
		specials: [3]string{"<bos>", "<eos>", "<end_of_turn>"},
		bos:      firstSpecial, eos: firstSpecial + 1, padding: -1,
		addBos: true, addEosKey: true, pre: "llama-bpe",
	})

	seed := uint64(gemma3Seed)
	if linear {
		seed = gemma3LinearSeed
	}
	q, kv := nHead*gemma3HeadDim, nHeadKV*gemma3HeadDim
	m.addTensor("token_embd.weight", vocabMatrix(seed, "token_embd.weight", stdEmbdGem), nEmbd, uint64(nVocab))
	m.addTensor("output_norm.weight", uniform(seed, "output_norm.weight", nEmbd, 2, 4), nEmbd)
	for l := range gemma3Layers {
		p := fmt.Sprintf("blk.%d.", l)
		m.addTensor(p+"attn_norm.weight", uniform(seed, p+"attn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"attn_q.weight", gauss(seed, p+"attn_q.weight", nEmbd, q, stdQK), nEmbd, uint64(q))
		m.addTensor(p+"attn_k.weight", gauss(seed, p+"attn_k.weight", nEmbd, kv, stdQK), nEmbd, uint64(kv))
		m.addTensor(p+"attn_v.weight", gauss(seed, p+"attn_v.weight", nEmbd, kv, stdVO), nEmbd, uint64(kv))
		m.addTensor(p+"attn_q_norm.weight", uniform(seed, p+"attn_q_norm.weight", gemma3HeadDim, 1, 3), gemma3HeadDim)
		m.addTensor(p+"attn_k_norm.weight", uniform(seed, p+"attn_k_norm.weight", gemma3HeadDim, 1, 3), gemma3HeadDim)
		m.addTensor(p+"attn_output.weight", gauss(seed, p+"attn_output.weight", q, nEmbd, stdVO), uint64(q), nEmbd)
		m.addTensor(p+"post_attention_norm.weight", uniform(seed, p+"post_attention_norm.weight", nEmbd, 2, 5), nEmbd)
		m.addTensor(p+"ffn_norm.weight", uniform(seed, p+"ffn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"ffn_gate.weight", gauss(seed, p+"ffn_gate.weight", nEmbd, gemma3FF, stdFFN), nEmbd, gemma3FF)
		m.addTensor(p+"ffn_up.weight", gauss(seed, p+"ffn_up.weight", nEmbd, gemma3FF, stdFFN), nEmbd, gemma3FF)
		m.addTensor(p+"ffn_down.weight", gauss(seed, p+"ffn_down.weight", gemma3FF, nEmbd, stdFFN), gemma3FF, nEmbd)
		m.addTensor(p+"post_ffw_norm.weight", uniform(seed, p+"post_ffw_norm.weight", nEmbd, 2, 5), nEmbd)
	}
	return m
}

func phi3Model(longrope bool) *model {
	const a = "phi3"
	// Not "phi3" or "phi-3": llama.cpp's vocabulary loader keys a
	// special-token whitespace hack on general.name containing either, and
	// aborts when the vocabulary lacks <unk>, <s>, </s> or <|endoftext|>.
	name, seed := "synthetic Phi 3 mini", uint64(phi3Seed)
	if longrope {
		name, seed = "synthetic Phi 4 mini longrope", phi3LongropeSeed
	}
	m := &model{}
	m.add("general.architecture", gguf.String(a))
	m.add("general.name", gguf.String(name))
	m.add("general.file_type", gguf.Uint32(0))
	m.add(a+".context_length", gguf.Uint32(nCtx))
	m.add(a+".embedding_length", gguf.Uint32(nEmbd))
	m.add(a+".block_count", gguf.Uint32(phi3Layers))
	m.add(a+".feed_forward_length", gguf.Uint32(phi3FF))
	m.add(a+".attention.head_count", gguf.Uint32(nHead))
	m.add(a+".attention.head_count_kv", gguf.Uint32(nHeadKV))
	m.add(a+".rope.dimension_count", gguf.Uint32(phi3RopeDim))
	m.add(a+".rope.freq_base", gguf.Float32(10000))
	m.add(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-5))
	window := uint32(phi3Window)
	if longrope {
		window = 0 // Phi-4-mini's converted files say 0: no window
	}
	m.add(a+".attention.sliding_window", gguf.Uint32(window))
	tok := tokenizerKeys{
		specials: [3]string{"<s>", "</s>", "<|end|>"},
		bos:      firstSpecial, eos: firstSpecial + 1, padding: -1,
		addBos: true, pre: "llama-bpe",
	}
	if longrope {
		m.add(a+".rope.scaling.original_context_length", gguf.Uint32(phi3OrigCtx))
		m.add(a+".rope.scaling.attn_factor", gguf.Float32(phi3AttnFactor()))
		// Phi-4-mini: <|endoftext|> is BOS, EOS and padding; no BOS added.
		tok = tokenizerKeys{
			specials: [3]string{"<|endoftext|>", "<|end|>", "<|user|>"},
			bos:      firstSpecial, eos: firstSpecial, padding: firstSpecial,
			addBos: false, pre: "llama-bpe",
		}
	}
	m.addTokenizer(tok)

	kv := nHeadKV * phi3HeadDim
	m.addTensor("token_embd.weight", vocabMatrix(seed, "token_embd.weight", stdEmbd), nEmbd, uint64(nVocab))
	m.addTensor("output_norm.weight", uniform(seed, "output_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
	if !longrope {
		m.addTensor("output.weight", vocabMatrix(seed, "output.weight", stdOutput), nEmbd, uint64(nVocab))
	} else {
		m.addTensor("rope_factors_long.weight", append([]float32(nil), phi3LongFactors...), phi3RopeDim/2)
		m.addTensor("rope_factors_short.weight", append([]float32(nil), phi3ShortFactors...), phi3RopeDim/2)
	}
	for l := range phi3Layers {
		p := fmt.Sprintf("blk.%d.", l)
		m.addTensor(p+"attn_norm.weight", uniform(seed, p+"attn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		// attn_qkv rows: Q (n_embd), then K, then V (n_head_kv·head_dim each).
		qkv := gauss(seed, p+"attn_qkv.weight.q", nEmbd, nEmbd, stdQK)
		qkv = append(qkv, gauss(seed, p+"attn_qkv.weight.k", nEmbd, kv, stdQK)...)
		qkv = append(qkv, gauss(seed, p+"attn_qkv.weight.v", nEmbd, kv, stdVO)...)
		m.addTensor(p+"attn_qkv.weight", qkv, nEmbd, uint64(nEmbd+2*kv))
		m.addTensor(p+"attn_output.weight", gauss(seed, p+"attn_output.weight", nEmbd, nEmbd, stdVO), nEmbd, nEmbd)
		m.addTensor(p+"ffn_norm.weight", uniform(seed, p+"ffn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		// ffn_up rows: gate (n_ff), then up (n_ff); llama.cpp's SwiGLU takes
		// silu of the first half times the second.
		up := gauss(seed, p+"ffn_up.weight.gate", nEmbd, phi3FF, stdFFN)
		up = append(up, gauss(seed, p+"ffn_up.weight.up", nEmbd, phi3FF, stdFFN)...)
		m.addTensor(p+"ffn_up.weight", up, nEmbd, 2*phi3FF)
		m.addTensor(p+"ffn_down.weight", gauss(seed, p+"ffn_down.weight", phi3FF, nEmbd, stdFFN), phi3FF, nEmbd)
	}
	return m
}
