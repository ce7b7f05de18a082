package archgen

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/tensor"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// Mixture-of-experts shapes. Every MoE fixture keeps the shared n_embd 64,
// 4 query heads, 2 KV heads and the shared vocabulary.
const (
	// qwen3moe: head_dim 32 (attention.key_length) ≠ n_embd/n_head, 8
	// experts of which 4 run per token, expert FFN 32; feed_forward_length
	// 128 is the dense width converted Qwen3-MoE files also carry, unused
	// by a MoE layer (an engine must size experts by
	// expert_feed_forward_length).
	qwen3moeLayers   = 3
	qwen3moeHeadDim  = 32
	qwen3moeFF       = 128
	qwen3moeExperts  = 8
	qwen3moeUsed     = 4
	qwen3moeExpertFF = 32

	// mixtral: llama with experts; the expert FFN width is
	// feed_forward_length (llama.cpp's llama reads no
	// expert_feed_forward_length), head_dim n_embd/n_head = 16.
	mixtralLayers  = 3
	mixtralHeadDim = nEmbd / nHead
	mixtralExperts = 8
	mixtralUsed    = 2
	mixtralFF      = 32

	// gpt-oss: head_dim 32 ≠ n_embd/n_head; 16 experts, 4 per token,
	// expert FFN 32 (one MXFP4 block per down row); four layers so that
	// llama.cpp's period-2 pattern has two sliding and two full layers;
	// window 8; YaRN from an original context of 64 to 256 (factor 4).
	gptossLayers   = 4
	gptossHeadDim  = 32
	gptossExperts  = 16
	gptossUsed     = 4
	gptossFF       = 32
	gptossWindow   = 8
	gptossOrigCtx  = 64
	gptossYaRN     = 4
	gptossRopeBase = 10000
)

// Seeds of the MoE weight streams (F16 copies share their fixture's
// weights, mixtral-split shares mixtral's). Each was chosen among 24 tried
// for the largest smallest top-2 logit margin llama.cpp showed over the
// probed greedy steps, preferring seeds whose steps could all be probed
// (README: Margins).
const (
	qwen3moeSeed = 23
	mixtralSeed  = 20
	gptossSeed   = 5
)

// Weight scales of the MoE parts. The routers are wide enough that the
// chosen experts change from token to token and their weights differ; the
// gpt-oss gate/up projections are wide enough that SwiGLU-OAI's clamp at
// ±7 is reached on some tokens.
const (
	stdRouter      = 0.3
	stdRouterOA    = 0.6  // gpt-oss router
	stdExpGateUpOA = 0.25 // gpt-oss expert gate/up
	stdExpDownOA   = 0.05 // gpt-oss expert down
	stdRouterBias  = 0.5
	stdExpBias     = 0.3 // gpt-oss expert gate/up biases
	stdDownBias    = 0.1 // gpt-oss expert down and attention output biases
	stdQKBias      = 0.2
	stdVBias       = 0.1
)

func moeFixtureEntries() []entry {
	return []entry{
		{Model{Name: "qwen3moe", Arch: "qwen3moe", About: "qwen3moe as Qwen3-30B-A3B files are: per-head q/k RMSNorm before NEOX RoPE; head_dim 32 " +
			"(key_length) ≠ n_embd/n_head; every layer MoE: router ffn_gate_inp [64, 8], softmax over the 8 experts, top 4, weights renormalised " +
			"to sum 1 (llama.cpp's norm_w true), SwiGLU experts of width expert_feed_forward_length 32 (feed_forward_length 128 present, unused); " +
			"3 layers; untied output; no BOS"}, func() *model { return qwen3moeModel() }},
		{Model{Name: "qwen3moe-f16", Arch: "qwen3moe", F16: true, About: "F16 copy of qwen3moe (2-D and 3-D weights F16, 1-D tensors F32)"},
			func() *model { return qwen3moeModel() }},
		{Model{Name: "mixtral", Arch: "llama", About: "Mixtral as llama with llama.expert_count 8, expert_used_count 2: adjacent-pair (non-NEOX) RoPE, " +
			"router softmax, top 2, renormalised; stacked expert tensors ffn_{gate,up,down}_exps of width feed_forward_length 32; 3 layers; " +
			"untied output; BOS added"}, func() *model { return mixtralModel(false) }},
		{Model{Name: "mixtral-split", Arch: "llama", SameAs: "mixtral", About: "mixtral's weights with the old per-expert tensor names " +
			"blk.N.ffn_{gate,up,down}.E.weight (2-D each) instead of the stacked ffn_*_exps: early Mixtral GGUFs; llama.cpp build 10257 " +
			"no longer loads them, the engine must give mixtral's outputs"}, func() *model { return mixtralModel(true) }},
		{Model{Name: "gpt-oss", Arch: "gpt-oss", MXFP4: true, About: "gpt-oss as gpt-oss-20b files are: q/k/v and output biases; attention " +
			"sinks (attn_sinks, one logit per head); head_dim 32 ≠ n_embd/n_head; sliding window 8 on layers 0 and 2 (llama.cpp's period-2 " +
			"pattern), full attention on 1 and 3; YaRN RoPE (NEOX, factor 4 from original context 64); post_attention_norm as the FFN norm; " +
			"router with bias, top 4 of 16 experts then softmax over the 4; experts with biases, SwiGLU-OAI (alpha 1.702, limit 7); " +
			"expert matrices MXFP4, other weights F32; untied output; no BOS"}, func() *model { return gptossModel() }},
		{Model{Name: "gpt-oss-f16", Arch: "gpt-oss", MXFP4: true, F16: true, About: "gpt-oss with its other 2-D weights F16 " +
			"(expert matrices MXFP4, biases and norms F32)"}, func() *model { return gptossModel() }},
		{Model{Name: "gpt-oss-dequant", Arch: "gpt-oss", About: "gpt-oss with every weight F32, the expert matrices holding exactly " +
			"the values gpt-oss's MXFP4 blocks decode to: the same model, but llama.cpp multiplies the experts in f32 instead of " +
			"quantising activations to Q8_0 for MXFP4; the gap between the two goldens is that quantisation's effect"},
			func() *model {
				m := gptossModel()
				for _, t := range m.tensors {
					if expertMatrix(t.name) {
						t.data = mxfp4RoundTrip(t.data)
					}
				}
				return m
			}},
	}
}

func moeAblationEntries() []entry {
	layerTensors := func(m *model, layers int, suffix string, f func(t *weight)) {
		for l := range layers {
			f(m.tensor(fmt.Sprintf("blk.%d.%s", l, suffix)))
		}
	}
	// rotateExperts moves expert e's slab of a stacked [.., .., n_expert]
	// tensor to slot e+1 (the last to 0), leaving the router alone.
	rotateExperts := func(t *weight) {
		n := int(t.dims[2])
		per := len(t.data) / n
		t.data = append(t.data[(n-1)*per:], t.data[:(n-1)*per]...)
	}
	swapGateUp := func(m *model, layers int) {
		for l := range layers {
			g := m.tensor(fmt.Sprintf("blk.%d.ffn_gate_exps.weight", l))
			u := m.tensor(fmt.Sprintf("blk.%d.ffn_up_exps.weight", l))
			g.data, u.data = u.data, g.data
		}
	}
	list := []ablation{
		{"qwen3moe", "top2", "expert_used_count 2 instead of 4: the wrong number of experts per token",
			func(m *model) { m.set("qwen3moe.expert_used_count", gguf.Uint32(2), "") }},
		{"qwen3moe", "experts-rotated", "the expert axis of ffn_{gate,up,down}_exps rotated by one (router unchanged): router index e run on expert e−1, an expert-stride or offset mistake",
			func(m *model) {
				for _, s := range []string{"ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight"} {
					layerTensors(m, qwen3moeLayers, s, rotateExperts)
				}
			}},
		{"qwen3moe", "gate-up-swapped", "ffn_gate_exps and ffn_up_exps exchanged: silu applied to the up projection",
			func(m *model) { swapGateUp(m, qwen3moeLayers) }},
		{"mixtral", "top1", "expert_used_count 1 instead of 2: the wrong number of experts per token",
			func(m *model) { m.set("llama.expert_used_count", gguf.Uint32(1), "") }},
		{"mixtral", "gate-up-swapped", "ffn_gate_exps and ffn_up_exps exchanged: silu applied to the up projection",
			func(m *model) { swapGateUp(m, mixtralLayers) }},
		{"gpt-oss", "no-sinks", "attn_sinks all −1e4 (exp underflows to 0): the sinks ignored",
			func(m *model) {
				layerTensors(m, gptossLayers, "attn_sinks.weight", func(t *weight) { fill(t.data, -1e4) })
			}},
		{"gpt-oss", "swa-all", "sliding_window_pattern 0: every layer slides (the full-attention layers windowed too)",
			func(m *model) {
				m.set("gpt-oss.attention.sliding_window_pattern", gguf.Uint32(0), "gpt-oss.attention.sliding_window")
			}},
		{"gpt-oss", "swa-period-4", "sliding_window_pattern 4: layers 0–2 slide, layer 3 full (the wrong period)",
			func(m *model) {
				m.set("gpt-oss.attention.sliding_window_pattern", gguf.Uint32(4), "gpt-oss.attention.sliding_window")
			}},
		// sliding_window_pattern 1 (no layer slides) aborts llama.cpp: its
		// gpt-oss cache requires a sliding layer. A window wider than the
		// context stands for "window ignored" instead.
		{"gpt-oss", "no-window", "sliding_window 4096 > context: the window ignored on the sliding layers",
			func(m *model) { m.set("gpt-oss.attention.sliding_window", gguf.Uint32(4096), "") }},
		{"gpt-oss", "window-9", "sliding_window 9: the window one wider (an off-by-one in the mask: a query sees itself and 8, not 7, previous positions)",
			func(m *model) { m.set("gpt-oss.attention.sliding_window", gguf.Uint32(gptossWindow+1), "") }},
		{"gpt-oss", "no-yarn", "rope.scaling keys removed: plain RoPE, YaRN's ramp and its cos/sin magnitude scale ignored",
			func(m *model) {
				m.unset("gpt-oss.rope.scaling.type")
				m.unset("gpt-oss.rope.scaling.factor")
				m.unset("gpt-oss.rope.scaling.original_context_length")
			}},
		{"gpt-oss", "yarn-as-linear", "rope.scaling.type linear (factor 4): every dim interpolated, no ramp, no magnitude scale",
			func(m *model) { m.set("gpt-oss.rope.scaling.type", gguf.String("linear"), "") }},
		{"gpt-oss", "no-router-bias", "ffn_gate_inp.bias all 0: the router bias ignored",
			func(m *model) {
				layerTensors(m, gptossLayers, "ffn_gate_inp.bias", func(t *weight) { fill(t.data, 0) })
			}},
		{"gpt-oss", "no-expert-bias", "ffn_{gate,up,down}_exps.bias all 0: the expert biases ignored",
			func(m *model) {
				for _, s := range []string{"ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"} {
					layerTensors(m, gptossLayers, s, func(t *weight) { fill(t.data, 0) })
				}
			}},
		{"gpt-oss", "gate-up-swapped", "ffn_gate_exps and ffn_up_exps (weights and biases) exchanged: the SwiGLU-OAI halves confused",
			func(m *model) {
				swapGateUp(m, gptossLayers)
				for l := range gptossLayers {
					g := m.tensor(fmt.Sprintf("blk.%d.ffn_gate_exps.bias", l))
					u := m.tensor(fmt.Sprintf("blk.%d.ffn_up_exps.bias", l))
					g.data, u.data = u.data, g.data
				}
			}},
	}
	return ablate(moeFixtureEntries(), list)
}

// moeCommon adds the keys every MoE fixture has, in converter order.
func (m *model) moeCommon(arch, name string, layers, ff int) {
	m.add("general.architecture", gguf.String(arch))
	m.add("general.name", gguf.String(name))
	m.add("general.file_type", gguf.Uint32(0))
	m.add(arch+".context_length", gguf.Uint32(nCtx))
	m.add(arch+".embedding_length", gguf.Uint32(nEmbd))
	m.add(arch+".block_count", gguf.Uint32(uint32(layers)))
	m.add(arch+".feed_forward_length", gguf.Uint32(uint32(ff)))
	m.add(arch+".attention.head_count", gguf.Uint32(nHead))
	m.add(arch+".attention.head_count_kv", gguf.Uint32(nHeadKV))
}

// addExperts adds a layer's stacked SwiGLU experts: gate and up [n_embd,
// ff, n], down [ff, n_embd, n]; expert e is the e-th contiguous slab. With
// split, each expert is written as its own 2-D tensors
// blk.N.ffn_{gate,up,down}.E.weight holding the same values.
func (m *model) addExperts(seed uint64, p string, ff, n int, stdGateUp, stdDown float64, split bool) {
	gate := gauss(seed, p+"ffn_gate_exps.weight", nEmbd, ff*n, stdGateUp)
	up := gauss(seed, p+"ffn_up_exps.weight", nEmbd, ff*n, stdGateUp)
	down := gauss(seed, p+"ffn_down_exps.weight", ff, nEmbd*n, stdDown)
	if !split {
		m.addTensor(p+"ffn_gate_exps.weight", gate, nEmbd, uint64(ff), uint64(n))
		m.addTensor(p+"ffn_down_exps.weight", down, uint64(ff), nEmbd, uint64(n))
		m.addTensor(p+"ffn_up_exps.weight", up, nEmbd, uint64(ff), uint64(n))
		return
	}
	per := nEmbd * ff
	for e := range n {
		s := gate[e*per : (e+1)*per]
		m.addTensor(fmt.Sprintf("%sffn_gate.%d.weight", p, e), s, nEmbd, uint64(ff))
		m.addTensor(fmt.Sprintf("%sffn_down.%d.weight", p, e), down[e*per:(e+1)*per], uint64(ff), nEmbd)
		m.addTensor(fmt.Sprintf("%sffn_up.%d.weight", p, e), up[e*per:(e+1)*per], nEmbd, uint64(ff))
	}
}

func qwen3moeModel() *model {
	const a = "qwen3moe"
	m := &model{}
	m.moeCommon(a, "synthetic qwen3moe", qwen3moeLayers, qwen3moeFF)
	m.add(a+".attention.key_length", gguf.Uint32(qwen3moeHeadDim))
	m.add(a+".attention.value_length", gguf.Uint32(qwen3moeHeadDim))
	m.add(a+".rope.freq_base", gguf.Float32(1e6))
	m.add(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-6))
	m.add(a+".expert_count", gguf.Uint32(qwen3moeExperts))
	m.add(a+".expert_used_count", gguf.Uint32(qwen3moeUsed))
	m.add(a+".expert_feed_forward_length", gguf.Uint32(qwen3moeExpertFF))
	// Qwen files: <|endoftext|> is BOS and padding, <|im_end|> EOS; no BOS added.
	m.addTokenizer(tokenizerKeys{
		specials: [3]string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"},
		bos:      firstSpecial, eos: firstSpecial + 2, padding: firstSpecial,
		addBos: false, pre: "llama-bpe",
	})

	seed := uint64(qwen3moeSeed)
	q, kv := nHead*qwen3moeHeadDim, nHeadKV*qwen3moeHeadDim
	m.addTensor("token_embd.weight", vocabMatrix(seed, "token_embd.weight", stdEmbd), nEmbd, uint64(nVocab))
	m.addTensor("output_norm.weight", uniform(seed, "output_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
	m.addTensor("output.weight", vocabMatrix(seed, "output.weight", stdOutput), nEmbd, uint64(nVocab))
	for l := range qwen3moeLayers {
		p := fmt.Sprintf("blk.%d.", l)
		m.addTensor(p+"attn_norm.weight", uniform(seed, p+"attn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"attn_q.weight", gauss(seed, p+"attn_q.weight", nEmbd, q, stdQK), nEmbd, uint64(q))
		m.addTensor(p+"attn_k.weight", gauss(seed, p+"attn_k.weight", nEmbd, kv, stdQK), nEmbd, uint64(kv))
		m.addTensor(p+"attn_v.weight", gauss(seed, p+"attn_v.weight", nEmbd, kv, stdVO), nEmbd, uint64(kv))
		m.addTensor(p+"attn_q_norm.weight", uniform(seed, p+"attn_q_norm.weight", qwen3moeHeadDim, 1, 3), qwen3moeHeadDim)
		m.addTensor(p+"attn_k_norm.weight", uniform(seed, p+"attn_k_norm.weight", qwen3moeHeadDim, 1, 3), qwen3moeHeadDim)
		m.addTensor(p+"attn_output.weight", gauss(seed, p+"attn_output.weight", q, nEmbd, stdVO), uint64(q), nEmbd)
		m.addTensor(p+"ffn_norm.weight", uniform(seed, p+"ffn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"ffn_gate_inp.weight", gauss(seed, p+"ffn_gate_inp.weight", nEmbd, qwen3moeExperts, stdRouter), nEmbd, qwen3moeExperts)
		m.addExperts(seed, p, qwen3moeExpertFF, qwen3moeExperts, stdFFN, stdFFN, false)
	}
	return m
}

func mixtralModel(split bool) *model {
	const a = "llama"
	m := &model{}
	m.moeCommon(a, "synthetic mixtral", mixtralLayers, mixtralFF)
	m.add(a+".rope.dimension_count", gguf.Uint32(mixtralHeadDim))
	m.add(a+".rope.freq_base", gguf.Float32(1e6))
	m.add(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-5))
	m.add(a+".expert_count", gguf.Uint32(mixtralExperts))
	m.add(a+".expert_used_count", gguf.Uint32(mixtralUsed))
	m.addTokenizer(tokenizerKeys{
		specials: [3]string{"<s>", "</s>", "<unk>"},
		bos:      firstSpecial, eos: firstSpecial + 1, padding: -1,
		addBos: true, pre: "llama-bpe",
	})

	seed := uint64(mixtralSeed)
	kv := nHeadKV * mixtralHeadDim
	m.addTensor("token_embd.weight", vocabMatrix(seed, "token_embd.weight", stdEmbd), nEmbd, uint64(nVocab))
	m.addTensor("output_norm.weight", uniform(seed, "output_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
	m.addTensor("output.weight", vocabMatrix(seed, "output.weight", stdOutput), nEmbd, uint64(nVocab))
	for l := range mixtralLayers {
		p := fmt.Sprintf("blk.%d.", l)
		m.addTensor(p+"attn_norm.weight", uniform(seed, p+"attn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"attn_q.weight", gauss(seed, p+"attn_q.weight", nEmbd, nEmbd, stdQK), nEmbd, nEmbd)
		m.addTensor(p+"attn_k.weight", gauss(seed, p+"attn_k.weight", nEmbd, kv, stdQK), nEmbd, uint64(kv))
		m.addTensor(p+"attn_v.weight", gauss(seed, p+"attn_v.weight", nEmbd, kv, stdVO), nEmbd, uint64(kv))
		m.addTensor(p+"attn_output.weight", gauss(seed, p+"attn_output.weight", nEmbd, nEmbd, stdVO), nEmbd, nEmbd)
		m.addTensor(p+"ffn_norm.weight", uniform(seed, p+"ffn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"ffn_gate_inp.weight", gauss(seed, p+"ffn_gate_inp.weight", nEmbd, mixtralExperts, stdRouter), nEmbd, mixtralExperts)
		m.addExperts(seed, p, mixtralFF, mixtralExperts, stdFFN, stdFFN, split)
	}
	return m
}

func gptossModel() *model {
	const a = "gpt-oss"
	m := &model{}
	m.moeCommon(a, "synthetic gpt-oss", gptossLayers, gptossFF)
	m.add(a+".attention.key_length", gguf.Uint32(gptossHeadDim))
	m.add(a+".attention.value_length", gguf.Uint32(gptossHeadDim))
	m.add(a+".rope.freq_base", gguf.Float32(gptossRopeBase))
	m.add(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-5))
	m.add(a+".attention.sliding_window", gguf.Uint32(gptossWindow))
	m.add(a+".expert_count", gguf.Uint32(gptossExperts))
	m.add(a+".expert_used_count", gguf.Uint32(gptossUsed))
	m.add(a+".expert_feed_forward_length", gguf.Uint32(gptossFF))
	m.add(a+".rope.scaling.type", gguf.String("yarn"))
	m.add(a+".rope.scaling.factor", gguf.Float32(gptossYaRN))
	m.add(a+".rope.scaling.original_context_length", gguf.Uint32(gptossOrigCtx))
	// gpt-oss files: <|startoftext|> BOS, <|return|> EOS, <|endoftext|>
	// padding; no BOS added.
	m.addTokenizer(tokenizerKeys{
		specials: [3]string{"<|startoftext|>", "<|return|>", "<|endoftext|>"},
		bos:      firstSpecial, eos: firstSpecial + 1, padding: firstSpecial + 2,
		addBos: false, pre: "llama-bpe",
	})

	seed := uint64(gptossSeed)
	q, kv := nHead*gptossHeadDim, nHeadKV*gptossHeadDim
	m.addTensor("token_embd.weight", vocabMatrix(seed, "token_embd.weight", stdEmbd), nEmbd, uint64(nVocab))
	m.addTensor("output_norm.weight", uniform(seed, "output_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
	m.addTensor("output.weight", vocabMatrix(seed, "output.weight", stdOutput), nEmbd, uint64(nVocab))
	for l := range gptossLayers {
		p := fmt.Sprintf("blk.%d.", l)
		m.addTensor(p+"attn_norm.weight", uniform(seed, p+"attn_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"attn_q.weight", gauss(seed, p+"attn_q.weight", nEmbd, q, stdQK), nEmbd, uint64(q))
		m.addTensor(p+"attn_q.bias", gauss(seed, p+"attn_q.bias", q, 1, stdQKBias), uint64(q))
		m.addTensor(p+"attn_k.weight", gauss(seed, p+"attn_k.weight", nEmbd, kv, stdQK), nEmbd, uint64(kv))
		m.addTensor(p+"attn_k.bias", gauss(seed, p+"attn_k.bias", kv, 1, stdQKBias), uint64(kv))
		m.addTensor(p+"attn_v.weight", gauss(seed, p+"attn_v.weight", nEmbd, kv, stdVO), nEmbd, uint64(kv))
		m.addTensor(p+"attn_v.bias", gauss(seed, p+"attn_v.bias", kv, 1, stdVBias), uint64(kv))
		m.addTensor(p+"attn_output.weight", gauss(seed, p+"attn_output.weight", q, nEmbd, stdVO), uint64(q), nEmbd)
		m.addTensor(p+"attn_output.bias", gauss(seed, p+"attn_output.bias", nEmbd, 1, stdDownBias), nEmbd)
		m.addTensor(p+"attn_sinks.weight", uniform(seed, p+"attn_sinks.weight", nHead, 0, 3), nHead)
		m.addTensor(p+"post_attention_norm.weight", uniform(seed, p+"post_attention_norm.weight", nEmbd, 0.5, 1.5), nEmbd)
		m.addTensor(p+"ffn_gate_inp.weight", gauss(seed, p+"ffn_gate_inp.weight", nEmbd, gptossExperts, stdRouterOA), nEmbd, gptossExperts)
		m.addTensor(p+"ffn_gate_inp.bias", gauss(seed, p+"ffn_gate_inp.bias", gptossExperts, 1, stdRouterBias), gptossExperts)
		m.addExperts(seed, p, gptossFF, gptossExperts, stdExpGateUpOA, stdExpDownOA, false)
		m.addTensor(p+"ffn_gate_exps.bias", gauss(seed, p+"ffn_gate_exps.bias", gptossFF, gptossExperts, stdExpBias), gptossFF, gptossExperts)
		m.addTensor(p+"ffn_up_exps.bias", gauss(seed, p+"ffn_up_exps.bias", gptossFF, gptossExperts, stdExpBias), gptossFF, gptossExperts)
		m.addTensor(p+"ffn_down_exps.bias", gauss(seed, p+"ffn_down_exps.bias", nEmbd, gptossExperts, stdDownBias), nEmbd, gptossExperts)
	}
	return m
}

// mxfp4RoundTrip returns the values xs quantise to as MXFP4 and decode
// back to: what an MXFP4 file holds, as F32.
func mxfp4RoundTrip(xs []float32) []float32 {
	n, err := tensor.MXFP4.RowBytes(uint64(len(xs)))
	if err != nil {
		panic("archgen: " + err.Error())
	}
	raw := make([]byte, n)
	if err := tensor.Quantize(tensor.MXFP4, raw, xs); err != nil {
		panic("archgen: " + err.Error())
	}
	out := make([]float32, len(xs))
	if err := tensor.Dequantize(tensor.MXFP4, out, raw); err != nil {
		panic("archgen: " + err.Error())
	}
	return out
}
