package model

import (
	"errors"
	"fmt"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// ErrMissingTensor is wrapped by Load when a required weight is absent.
var ErrMissingTensor = errors.New("missing tensor")

// layer holds one transformer block's weights. Matrices stay in their GGUF
// encoding (they alias the memory-mapped file); vectors are widened to f32.
type layer struct {
	attnNorm     []float32      // [Dim]
	wq, wk, wv   *tensor.Matrix // [QDim×Dim], [KVDim×Dim], [KVDim×Dim]
	bq, bk, bv   []float32      // optional biases (qwen2)
	qNorm, kNorm []float32      // [HeadDim] (qwen3)
	wo           *tensor.Matrix // [Dim×QDim]
	ffnNorm      []float32      // [Dim]
	gate, up     *tensor.Matrix // [FFN×Dim]
	down         *tensor.Matrix // [Dim×FFN]
	// postAttnNorm and postFFNNorm norm the attention and FFN outputs
	// (gemma).
	postAttnNorm, postFFNNorm []float32 // [Dim]
	// moe is the mixture-of-experts block that replaces gate, up and
	// down (nil for a dense layer).
	moe *moeWeights
}

// Model is a loaded model: its config and weights. It is read-only once
// loaded, so several States (conversations) can share one Model.
type Model struct {
	Config
	arch      arch
	file      *gguf.File
	tokEmbd   *tensor.Matrix // [Vocab×Dim]
	output    *tensor.Matrix // [Vocab×Dim]; tokEmbd when tied
	outNorm   []float32      // [Dim]
	ropeFreqs []float32      // optional per-pair divisors (Llama 3.1)
	// ropeLong and ropeShort are LongRoPE's per-pair divisors (phi3),
	// chosen per State by its window (Config.RopeOrigCtx).
	ropeLong, ropeShort []float32
	layers              []layer
	// binds are the weights bound per backend domain, shared by the
	// States of each.
	binds bindings
}

// File is the GGUF file the weights are mapped from (for metadata such as
// the tokenizer's); it stays open until Close.
func (m *Model) File() *gguf.File { return m.file }

// Close unmaps the weights and forgets their bindings on backends (which
// free device copies when they are closed). The Model and its States must
// not be used after.
func (m *Model) Close() error {
	m.binds.mu.Lock()
	// A device keeps the weights bound on it until told: the model lets go
	// of its matrices on every domain whose backend can release, so that
	// loading another model does not leave this one in device memory.
	for _, w := range m.binds.by {
		w.release()
	}
	m.binds.by = nil
	m.binds.mu.Unlock()
	return m.file.Close()
}

// Open opens a GGUF file and loads the model in it.
func Open(path string) (*Model, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := Load(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

// Load builds a Model over an open GGUF file, checking every tensor's
// presence, type and shape against the config before anything runs.
// On success the Model owns f (Close closes it).
func Load(f *gguf.File) (*Model, error) {
	cfg, err := readConfig(f)
	if err != nil {
		return nil, err
	}
	spec, _ := lookupArch(cfg.Arch)
	l := loader{f: f}
	m := &Model{Config: cfg, arch: spec, file: f}

	m.tokEmbd = l.matrix("token_embd.weight", -1, cfg.Dim)
	if m.tokEmbd != nil {
		m.Vocab = m.tokEmbd.Rows
	}
	m.outNorm = l.vector("output_norm.weight", cfg.Dim)
	// gemma always classifies with the token embedding (llama.cpp ignores
	// an output.weight there).
	if _, ok := f.Tensor("output.weight"); ok && !spec.gemma {
		m.output = l.matrix("output.weight", m.Vocab, cfg.Dim)
	} else {
		m.output, m.TiedEmbed = m.tokEmbd, true
	}
	if _, ok := f.Tensor("rope_freqs.weight"); ok {
		m.ropeFreqs = l.vector("rope_freqs.weight", cfg.RopeDim/2)
	}
	m.ropeLong = l.optVector("rope_factors_long.weight", cfg.RopeDim/2)
	m.ropeShort = l.optVector("rope_factors_short.weight", cfg.RopeDim/2)
	qd, kvd := cfg.QDim(), cfg.KVDim()
	m.layers = make([]layer, cfg.Layers)
	for i := range m.layers {
		p := fmt.Sprintf("blk.%d.", i)
		b := &m.layers[i]
		b.attnNorm = l.vector(p+"attn_norm.weight", cfg.Dim)
		if _, ok := f.Tensor(p + "attn_qkv.weight"); ok && spec.fused {
			qkv := l.split(p+"attn_qkv.weight", cfg.Dim, qd, kvd, kvd)
			b.wq, b.wk, b.wv = qkv[0], qkv[1], qkv[2]
		} else {
			b.wq = l.matrix(p+"attn_q.weight", qd, cfg.Dim)
			b.wk = l.matrix(p+"attn_k.weight", kvd, cfg.Dim)
			b.wv = l.matrix(p+"attn_v.weight", kvd, cfg.Dim)
		}
		b.bq = l.optVector(p+"attn_q.bias", qd)
		b.bk = l.optVector(p+"attn_k.bias", kvd)
		b.bv = l.optVector(p+"attn_v.bias", kvd)
		if spec.qkNorm {
			b.qNorm = l.vector(p+"attn_q_norm.weight", cfg.HeadDim)
			b.kNorm = l.vector(p+"attn_k_norm.weight", cfg.HeadDim)
		}
		b.wo = l.matrix(p+"attn_output.weight", cfg.Dim, qd)
		b.ffnNorm = l.vector(p+"ffn_norm.weight", cfg.Dim)
		switch {
		case cfg.MoELayer(i):
			b.moe = l.loadMoE(&cfg, p)
		case spec.fused:
			gu := l.split(p+"ffn_up.weight", cfg.Dim, cfg.FFN, cfg.FFN)
			b.gate, b.up = gu[0], gu[1]
			b.down = l.matrix(p+"ffn_down.weight", cfg.Dim, cfg.FFN)
		default:
			b.gate = l.matrix(p+"ffn_gate.weight", cfg.FFN, cfg.Dim)
			b.up = l.matrix(p+"ffn_up.weight", cfg.FFN, cfg.Dim)
			b.down = l.matrix(p+"ffn_down.weight", cfg.Dim, cfg.FFN)
		}
		if spec.postNorms {
			b.postAttnNorm = l.vector(p+"post_attention_norm.weight", cfg.Dim)
			b.postFFNNorm = l.vector(p+"post_ffw_norm.weight", cfg.Dim)
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return m, nil
}

// loader collects the first error so Load reads as a list of tensors.
type loader struct {
	f   *gguf.File
	err error
}

func (l *loader) fail(name, format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf("model: %s: tensor %q: %s", l.f.Path, name, fmt.Sprintf(format, args...))
	}
}

// matrix maps a 2-D weight of rows×cols (rows < 0: any number of rows).
func (l *loader) matrix(name string, rows, cols int) *tensor.Matrix {
	if l.err != nil {
		return nil
	}
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.err = fmt.Errorf("model: %s: %w %q", l.f.Path, ErrMissingTensor, name)
		return nil
	}
	if len(ti.Dims) != 2 || ti.Dims[0] != uint64(cols) || (rows >= 0 && ti.Dims[1] != uint64(rows)) {
		l.fail(name, "shape %v, want [%d, %d]", ti.Dims, cols, rows)
		return nil
	}
	if !ti.Type.Computable() {
		// Name what would load, so the user knows which quantisation to get.
		l.fail(name, "weight type %s is not supported by this build (supported: %s)", ti.Type, tensor.ComputableNames())
		return nil
	}
	m, err := tensor.NewMatrix(ti.Type, int(ti.Dims[1]), cols, l.f.TensorData(ti))
	if err != nil {
		l.fail(name, "%v", err)
		return nil
	}
	// A packed copy (tensor.Kernels.Pack) lets the file's pages go. A file
	// read into ordinary memory has none to let go, and Pack makes no
	// plain copies of its matrices.
	if l.f.Mapped() {
		m.SetEvict(l.f.Evict)
	}
	return m
}

// split maps a fused 2-D weight of cols columns whose rows are the given
// matrices one after another (phi3's attn_qkv: Q, K, V; its ffn_up: gate,
// up) as one view per part, sharing the file's bytes: the rest of the
// engine sees separate matrices and nothing is copied.
func (l *loader) split(name string, cols int, rows ...int) []*tensor.Matrix {
	total := 0
	for _, r := range rows {
		total += r
	}
	whole := l.matrix(name, total, cols)
	if whole == nil {
		return make([]*tensor.Matrix, len(rows))
	}
	out := make([]*tensor.Matrix, len(rows))
	at := 0
	for i, r := range rows {
		m, err := tensor.NewMatrix(whole.Type, r, cols, whole.Data[at*whole.RowBytes():(at+r)*whole.RowBytes()])
		if err != nil {
			l.fail(name, "part %d: %v", i, err)
			return make([]*tensor.Matrix, len(rows))
		}
		if l.f.Mapped() {
			m.SetEvict(l.f.Evict)
		}
		out[i] = m
		at += r
	}
	return out
}

// vector reads a 1-D tensor of n elements, widened to f32.
func (l *loader) vector(name string, n int) []float32 {
	if l.err != nil {
		return nil
	}
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.err = fmt.Errorf("model: %s: %w %q", l.f.Path, ErrMissingTensor, name)
		return nil
	}
	if len(ti.Dims) != 1 || ti.Dims[0] != uint64(n) {
		l.fail(name, "shape %v, want [%d]", ti.Dims, n)
		return nil
	}
	v := make([]float32, n)
	if err := tensor.Dequantize(ti.Type, v, l.f.TensorData(ti)); err != nil {
		l.fail(name, "%v", err)
		return nil
	}
	return v
}

func (l *loader) optVector(name string, n int) []float32 {
	if _, ok := l.f.Tensor(name); !ok {
		return nil
	}
	return l.vector(name, n)
}

// WeightBytes is the bytes of weights one decoded token streams: every
// layer's matrices and the classifier (the embedding row is negligible);
// of a mixture-of-experts block, the router and the experts a token runs
// (ExpertsUsed of Experts, counted at the average expert's size). Decode
// speed divided into memory bandwidth is bounded by this.
func (m *Model) WeightBytes() int64 {
	var n int64
	for i := range m.layers {
		L := &m.layers[i]
		for _, w := range L.matrices() {
			if w != nil {
				n += int64(len(w.Data))
			}
		}
		if M := L.moe; M != nil {
			n += int64(len(M.router.Data))
			var all int64
			for _, w := range M.all() {
				all += int64(len(w.Data))
			}
			n += all * int64(m.ExpertsUsed) / int64(m.Experts)
		}
	}
	return n + int64(len(m.output.Data))
}

// matrices are the layer's attention and dense feed-forward matrices
// (gate, up and down nil in a mixture-of-experts layer).
func (L *layer) matrices() []*tensor.Matrix {
	return []*tensor.Matrix{L.wq, L.wk, L.wv, L.wo, L.gate, L.up, L.down}
}

// all are every expert's gate, up and down matrices.
func (w *moeWeights) all() []*tensor.Matrix {
	out := make([]*tensor.Matrix, 0, 3*len(w.gate))
	out = append(out, w.gate...)
	out = append(out, w.up...)
	return append(out, w.down...)
}

// WeightType names the type most of the weight bytes are stored in, such as
// "Q4_K", for reports.
func (m *Model) WeightType() string {
	bytes := map[tensor.Type]int{}
	for i := range m.layers {
		L := &m.layers[i]
		ws := L.matrices()
		if L.moe != nil {
			ws = append(ws, L.moe.all()...)
		}
		for _, w := range ws {
			if w != nil {
				bytes[w.Type] += len(w.Data)
			}
		}
	}
	var best tensor.Type
	for t, n := range bytes {
		if n > bytes[best] || (n == bytes[best] && t < best) {
			best = t
		}
	}
	return best.String()
}
