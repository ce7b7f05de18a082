// Package backend is the compute seam of the engine: the coarse operations
// a transformer's forward pass is made of, over buffers the backend owns.
// engine/model writes its forward pass once against Backend, and three
// siblings implement it: cpu (the host, with the tensor kernels), cuda
// (device memory on an NVIDIA GPU) and remote (ggml rpc-servers).
//
// The operations are coarse on purpose — a whole RMSNorm over a batch, a
// whole attention over every head — so that a device backend issues one
// launch per operation and the host never touches activations except where
// it asks to: the rows a registered hook reads (Host, Sync) and the logits
// (Logits). Everything else stays on the device.
//
// Shapes: a Buffer holds rows of a fixed width (one row per token);
// operations take n, the number of rows of the batch they act on, from the
// first row. Weights are [out × in] matrices in their GGUF type; a product
// writes n rows of out values from n rows of in values.
package backend

import (
	"fmt"
	"strings"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Buffer is a backend's array of float32 activations: Rows rows of Width
// values. Its memory belongs to the backend that allocated it.
type Buffer interface {
	Rows() int
	Width() int
}

// Matrix is a weight matrix on the backend, kept in its GGUF type
// (quantised weights are dequantised inside the products).
type Matrix interface {
	Shape() (rows, cols int)
}

// Vector is a float32 vector on the backend: a norm's weights, a bias.
type Vector interface {
	Len() int
}

// KV is one conversation's key/value cache on the backend: for every
// layer and KV head, ctx positions of headDim keys and values.
type KV interface {
	// Cap is the number of positions the cache holds.
	Cap() int
}

// LinearOp is one product of a fused group (Linears): Dst = W·x.
type LinearOp struct {
	Dst Buffer
	W   Matrix
}

// Rope describes a model's rotary position embedding.
type Rope struct {
	Base float64 // θ base
	Dim  int     // rotated dimensions per head (the first Dim)
	// Freqs are optional per-pair divisors (Llama 3.1's rope_freqs), Dim/2
	// of them, or nil.
	Freqs []float32
	// Neox pairs x[i] with x[i+Dim/2] (qwen2/qwen3); otherwise adjacent
	// pairs (llama).
	Neox bool
	// Scale multiplies the rotated pairs (cos and sin alike); 0 means 1.
	// LongRoPE models (phi3) store it as rope.scaling.attn_factor.
	Scale float32
	// PosScale multiplies every angle, 0 meaning 1: linear RoPE scaling
	// (1/rope.scaling.factor; gemma3's global layers).
	PosScale float32
	// YaRN, when non-nil, stretches the rotation by YaRN (ggml's
	// rope_yarn): PosScale is then the interpolation's freq_scale
	// (1/factor), and each pair's angle mixes the interpolated and the
	// original one by a ramp over the correction dimensions.
	YaRN *YaRN
}

// YaRN is the YaRN extension of a Rope, as llama.cpp applies it
// (ggml_rope_ext with ext_factor, attn_factor, beta_fast, beta_slow and
// n_ctx_orig; the correction dimensions from ggml_rope_yarn_corr_dims):
//
//	corr = [max(0, ⌊d(BetaFast)⌋), min(Dim−1, ⌈d(BetaSlow)⌉)],
//	       d(β) = Dim·ln(OrigCtx/(β·2π)) / (2·ln Base)
//	θ_e  = p·Base^(−2i/Dim)/freq_i            (the extrapolated angle)
//	θ_i  = PosScale·θ_e                       (the interpolated angle)
//	mix  = ExtFactor·(1 − clamp((i − corr₀)/max(0.001, corr₁ − corr₀), 0, 1))
//	θ    = θ_i·(1 − mix) + θ_e·mix
//	m    = AttnFactor·(1 + 0.1·ln(1/PosScale)) when ExtFactor ≠ 0, else AttnFactor
//	cos, sin = m·cos θ, m·sin θ
//
// with i the pair's index (0…Dim/2−1). Rope.Scale is not applied on top:
// AttnFactor is the whole magnitude factor.
type YaRN struct {
	ExtFactor, AttnFactor float32
	BetaFast, BetaSlow    float32
	OrigCtx               int
}

// Attention describes a model's attention heads, and how its KV cache
// stores them.
type Attention struct {
	Heads, KVHeads, HeadDim int
	// KV is the element type of the cache's keys and values; the zero
	// value is KVF32. A backend that cannot store a type refuses it in
	// NewKV rather than store another.
	KV KVType
}

// KVType is how a KV cache stores its keys and values: llama.cpp's
// cache types (-ctk/-ctv), one type for both. The attention reads the
// stored type directly; only the rounding of what is stored differs.
type KVType uint8

const (
	// KVF32 stores float32: the reference, 4 bytes a value.
	KVF32 KVType = iota
	// KVF16 stores IEEE binary16, rounded to nearest even: 2 bytes a value.
	KVF16
	// KVQ8_0 stores each head's row in llama.cpp's Q8_0 blocks: 32 values
	// as one f16 scale d = max|x|/127 and 32 int8 codes round(x/d), 34
	// bytes per 32 values. The head size must be a multiple of 32.
	KVQ8_0
)

// String is the type's name: f32, f16 or q8_0.
func (t KVType) String() string {
	switch t {
	case KVF32:
		return "f32"
	case KVF16:
		return "f16"
	case KVQ8_0:
		return "q8_0"
	}
	return fmt.Sprintf("KVType(%d)", uint8(t))
}

// KVTypes are the types, in the order of their names in messages.
func KVTypes() []KVType { return []KVType{KVF32, KVF16, KVQ8_0} }

// ParseKVType reads a type's name (f32, f16 or q8_0; case does not matter).
func ParseKVType(s string) (KVType, error) {
	for _, t := range KVTypes() {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("KV cache type %q: want f32, f16 or q8_0", s)
}

// CheckHeadDim says why t cannot store heads of headDim values, or nil:
// Q8_0 blocks are 32 values, so its heads are a multiple of 32.
func (t KVType) CheckHeadDim(headDim int) error {
	switch {
	case t > KVQ8_0:
		return fmt.Errorf("unknown KV cache type %d", uint8(t))
	case headDim <= 0:
		return fmt.Errorf("KV heads of %d values", headDim)
	case t == KVQ8_0 && headDim%32 != 0:
		return fmt.Errorf("a q8_0 KV cache stores heads in blocks of 32 values, and these heads hold %d: use f16 or f32", headDim)
	}
	return nil
}

// RowBytes is the bytes one cached key (or value) of a head of headDim
// values takes: 4·headDim for f32, 2·headDim for f16, 34·headDim/32 for
// q8_0 (headDim a multiple of 32, see CheckHeadDim).
func (t KVType) RowBytes(headDim int) int {
	switch t {
	case KVF16:
		return 2 * headDim
	case KVQ8_0:
		return (headDim + 31) / 32 * 34
	}
	return 4 * headDim
}

// AttendOptions are one layer's variations on plain causal attention.
// The zero value is plain attention: scores q·k/√HeadDim, every earlier
// position visible.
type AttendOptions struct {
	// Scale multiplies the scores q·k; 0 means 1/√HeadDim.
	Scale float32
	// SoftCap, when positive, bounds the scaled scores smoothly to
	// ±SoftCap: s ← SoftCap·tanh(s/SoftCap) (gemma2).
	SoftCap float32
	// Window, when positive, limits a query at position p to the keys at
	// p−Window+1…p (sliding-window layers); 0 sees every position.
	Window int
	// Sinks, when non-nil, holds one logit per query head (Heads values)
	// that joins each of that head's softmaxes as a column with no value:
	// p_j = e^{s_j}/(e^{sink} + Σ_k e^{s_k}) (gpt-oss's attention sinks,
	// ggml_soft_max_add_sinks). The output is Σ_j p_j·v_j, so the sink
	// only takes probability away.
	Sinks Vector
}

// Backend runs the forward pass's operations. A Backend is used by one
// goroutine at a time (one State's Forward); States that are never used at
// the same time may share one, and States that run concurrently each get
// their own from Share.
//
// Weights and their owners: Matrix and Vector bind host weights to the
// backend. Backends that report the same Domain (one backend and the ones
// Share made from it) accept each other's Matrix and Vector values, so a
// model binds its dense weights once per domain and every State of that
// domain reads the same binding (engine/model keeps them until the Model
// is closed, and never releases them). Weights a State binds for itself
// (the projected matrices of a compression) are that State's: it releases
// them (Releaser) when it replaces them and when it is closed.
type Backend interface {
	// Name says what runs the operations, e.g. "cpu avx2 × 2 threads".
	Name() string
	// BatchSize is the most rows one operation takes: the model runs a
	// longer prompt in steps of at most this many tokens and sizes its
	// activations for it. It is at least 1.
	BatchSize() int
	// Share returns a backend for another State that can run concurrently
	// with this one (on another goroutine), on the same device, sharing
	// the weights bound on this one: it reports the same Domain, and
	// Matrix and Vector values made by either are valid on both. Buffers
	// and KV caches are not shared: each belongs to the backend that
	// allocated it. A shared backend lives no longer than the one it was
	// shared from.
	Share() (Backend, error)
	// Domain identifies the backend's weight bindings: backends with equal
	// Domain values (a backend and its Shares) accept each other's Matrix
	// and Vector values. It is a comparable value (a pointer to the
	// device's shared context, or a constant for the host).
	Domain() any

	// Matrix makes m available to the products. m's bytes stay valid for
	// the backend's lifetime (they alias the mapped model file); a host
	// backend wraps them, a device backend uploads them once.
	Matrix(m *tensor.Matrix) (Matrix, error)
	// Vector makes v available (copied or uploaded; v may be reused).
	Vector(v []float32) (Vector, error)
	// Alloc returns a zeroed buffer of rows × width.
	Alloc(rows, width int) (Buffer, error)
	// NewKV allocates a key/value cache of ctx positions for layers layers
	// of a.KVHeads heads, stored as a.KV, and the attention's scratch for
	// a.Heads heads. A backend that cannot store a.KV (or a.HeadDim in it)
	// fails, saying so.
	NewKV(layers, ctx int, a Attention) (KV, error)

	// Embed writes the rows of table (a [vocab × width] matrix) for tokens
	// into the first len(tokens) rows of dst.
	Embed(dst Buffer, table Matrix, tokens []int32) error
	// RMSNorm writes x/√(mean(x²)+eps)·w to dst, row by row, for n rows
	// (dst may be x). The sum of squares is accumulated in float64.
	RMSNorm(dst, x Buffer, w Vector, n int, eps float32)
	// HeadRMSNorm is RMSNorm over each head's slice of every row: heads
	// slices of width w.Len() from the start of each of n rows (qwen3's
	// Q/K norms).
	HeadRMSNorm(x Buffer, w Vector, n, heads int, eps float32)
	// Linear writes dst = W·x for n rows. The rows are packed at W's
	// shape (dst's at W's rows, x's at its columns), which is the buffers'
	// width except for a scratch buffer shared by products of several
	// widths (a compressed slot's x̃, as wide as the widest rank).
	Linear(dst Buffer, w Matrix, x Buffer, n int)
	// Linears runs several products of one input, in one dispatch when it
	// can (decode's Q, K and V; gate and up).
	Linears(x Buffer, n int, ops ...LinearOp)
	// AddBias adds b to each of n rows of x.
	AddBias(x Buffer, b Vector, n int)
	// SwiGLU writes silu(g)·u into g for n rows.
	SwiGLU(g, u Buffer, n int)
	// GeGLU writes gelu(g)·u into g for n rows, with GELU's tanh form
	// 0.5·g·(1+tanh(√(2/π)·(g+0.044715·g³))) (gemma).
	GeGLU(g, u Buffer, n int)
	// Scale multiplies n rows of x by c (gemma's embedding scale).
	Scale(x Buffer, n int, c float32)
	// RoPE rotates the first heads heads of n rows of x (head width
	// headDim), row i being position pos0+i.
	RoPE(x Buffer, n, heads, headDim, pos0 int, r Rope)
	// StoreKV writes n rows of keys and values (width KVHeads·HeadDim) into
	// layer's cache at slots slot0…slot0+n−1. A slot is the position until
	// the cache is compacted (Compactor); after, the rows stored are the
	// positions that follow the last one cached.
	StoreKV(kv KV, layer, slot0, n int, k, v Buffer)
	// Attend runs causal attention for layer: row i of q (slot slot0+i)
	// attends to the cached slots 0…slot0+i (those of the last o.Window
	// positions when o.Window > 0); the heads' outputs go to out (width
	// Heads·HeadDim).
	Attend(out, q Buffer, kv KV, layer, slot0, n int, o AttendOptions)
	// Add adds n rows of src into dst.
	Add(dst, src Buffer, n int)
	// Project applies a rank-k update to rows row0…row0+n−1 of x:
	// x ← x + alpha·Bᵀ(B·x) for each row, where basis B is a k × x's width
	// matrix (bound with Matrix from an F32 tensor.Matrix). With B's rows
	// orthonormal, alpha = −1 removes their span (x ← x − BᵀBx) and
	// alpha = −s removes a share s of it.
	Project(x Buffer, row0, n int, basis Matrix, alpha float32)

	// Host returns rows row0…row0+n−1 of b as host memory, for a hook or
	// the caller to read and modify. A host backend returns b's own
	// memory; a device backend copies the rows back. After modifying them,
	// call Sync.
	Host(b Buffer, row0, n int) []float32
	// Sync makes b's rows row0… equal to rows, which Host returned (a host
	// backend has nothing to do).
	Sync(b Buffer, row0 int, rows []float32)
	// Write copies host rows into b from row0 (inputs such as stored states
	// to rescore).
	Write(b Buffer, row0 int, rows []float32)
	// Logits writes W·x for n rows of x into host memory dst (n × W's rows):
	// the classifier, whose output the sampler reads on the host.
	Logits(dst []float32, w Matrix, x Buffer, row0, n int)
}

// Releaser is optionally implemented by a backend whose weights hold
// resources until told otherwise (device memory). Release frees m, which
// this backend (or one of its domain) made with Matrix; m must not be used
// after. A backend without it frees nothing early: its weights go with it.
type Releaser interface {
	Release(m Matrix)
}

// VectorWriter is optionally implemented by a backend whose vectors can be
// rewritten and freed one by one: a steering direction (engine/model's
// SetSteering) changes between requests and lives as long as its State,
// not as long as the device. WriteVector copies data, v.Len() values, into
// v; ReleaseVector frees v, which must not be used after. A backend
// without it makes a new vector for each change and frees them all when
// it closes.
type VectorWriter interface {
	WriteVector(v Vector, data []float32) error
	ReleaseVector(v Vector)
}

// Affiner is optionally implemented by a backend that applies an affine
// map to rows in its own memory, so that a hook steering the residual
// stream by one (Snipe's projector, a Safe OGD step) costs no copy of the
// rows to the host and back. For each row x of rows row0…row0+n−1 of x:
//
//	w = (x − μ) + s·v,  s = alpha·‖x − μ‖
//	x ← μ + w − Bᵀ(B·w)
//
// with basis B a k × x's width F32 matrix (bound with Matrix; nil for
// k = 0), mu the centre μ and dir the direction v (both of x's width;
// dir is not read, and may be nil, when alpha is 0). With alpha = 0 and
// B's rows orthonormal it removes B's span from the offset from μ,
// x ← x − BᵀB(x − μ); with alpha > 0 it first steps along v by a share
// alpha of the offset's norm. The coefficients B·w of a row are computed
// from the row as it was, before any of it is written.
type Affiner interface {
	Affine(x Buffer, row0, n int, basis Matrix, mu, dir Vector, alpha float32)
}

// Failer is optionally implemented by a backend whose operations can fail
// after they return (a device runs them later, and its errors surface at
// the next copy back): Err is the first failure, after which the backend
// does nothing. The model checks it after every step of Forward.
type Failer interface {
	Err() error
}

// Compactor is optionally implemented by a backend whose KV cache can drop
// single entries (token-level eviction, engine/kvpress). Entries keep the
// positions they were computed at — their keys already carry the rotation
// of those positions — so after a compaction a cache slot is no longer its
// position: each layer and KV head keeps its own entries, moved down to
// slots 0…m−1 in position order, and the rows stored after them continue
// at the next positions. Attention reads only the slots kept (plus the new
// ones); its window (AttendOptions.Window) is measured in positions.
type Compactor interface {
	// Keys returns layer's cached keys of KV head head at slots 0…n−1:
	// n·HeadDim values of host memory, to read before the next operation
	// on kv (a host backend returns the cache itself when it stores f32,
	// and the keys decoded into scratch of its own for another KVType).
	Keys(kv KV, layer, head, n int) []float32
	// Positions writes the positions of layer's KV head head at slots
	// 0…len(dst)−1 into dst.
	Positions(kv KV, layer, head int, dst []int32)
	// Compact keeps, of the first n slots of every layer l and KV head h,
	// the slots keep[l·KVHeads+h] — ascending, all lists of one length m —
	// and moves them to slots 0…m−1 in order; the other entries are gone.
	// It fails, changing nothing, on lists that break those rules.
	Compact(kv KV, n int, keep [][]int32) error
	// Uncompact makes slot and position equal again, for a cache emptied
	// back to position 0.
	Uncompact(kv KV)
	// CopyKV makes dst's first n slots (and their positions) those of
	// src, a cache of the same shape: one context read once and then
	// evicted several ways (isagi eval kv).
	CopyKV(dst, src KV, n int) error
}

// KVReader is optionally implemented by a backend that can copy a cached
// position back to the host: tests and tools compare caches with it (a
// speculative verifier's cache after a rollback against a fresh prefill).
type KVReader interface {
	// ReadKV copies the keys and values of layer at slot (KVHeads·HeadDim
	// each, heads in order) into k and v, decoded from the cache's KVType;
	// a slot is the position unless the cache was compacted (Compactor).
	ReadKV(kv KV, layer, slot int, k, v []float32)
}

// HeadProjector is optionally implemented by a backend that can map every
// attention head of a batch through a small per-head matrix: a State whose
// KV cache is stored in a rank-r basis per KV head (engine/model's
// KVProjection) projects its queries, keys and values into that basis
// before the cache and the attention, and expands the attention's output
// back to the head size before O. A backend without it cannot run such a
// state; the model refuses the projection.
type HeadProjector interface {
	// HeadProject maps each of the heads heads of n rows of src through its
	// group's block of m, into dst. m (bound with Matrix from an F32
	// tensor.Matrix) stacks G = heads/perHead blocks of r×w, block g being
	// rows g·r…(g+1)·r−1; head h uses block h/perHead, so that one matrix
	// serves the query heads grouped onto their KV head (perHead =
	// Heads/KVHeads) and the KV heads themselves (perHead = 1). r is m's
	// rows over G and w its columns.
	//
	// Without transpose, src rows hold heads slices of w values and dst
	// rows heads slices of r:
	//
	//	dst[i, h·r:(h+1)·r] = M_{h/perHead} · src[i, h·w:(h+1)·w]
	//
	// With transpose the blocks run backwards (w×r), from slices of r to
	// slices of w:
	//
	//	dst[i, h·w:(h+1)·w] = M_{h/perHead}ᵀ · src[i, h·r:(h+1)·r]
	//
	// dst and src are distinct buffers. Rows are packed at heads·r and
	// heads·w values from the start of each buffer row.
	HeadProject(dst, src Buffer, n, heads, perHead int, m Matrix, transpose bool)
}

// GLU is a gated linear unit's activation: g ← act(g)·u.
type GLU int

const (
	// GLUSiLU is SwiGLU's act (Backend.SwiGLU).
	GLUSiLU GLU = iota
	// GLUGELU is GeGLU's (Backend.GeGLU).
	GLUGELU
)

// Gated is optionally implemented by a backend that runs a dense gated
// feed-forward's two products and its activation in fewer launches than
// Linears and SwiGLU or GeGLU (the CUDA backend's decode). Gated writes
// u = Wu·x and g = act(Wg·x)·u for n rows, what Linears into g and u and
// then the activation write, bit for bit; it returns false, having done
// nothing, where it does not take the call, and the caller runs those.
type Gated interface {
	Gated(g, u Buffer, wg, wu Matrix, x Buffer, n int, act GLU) bool
}

// Residual is optionally implemented by a backend that adds a product to
// the residual stream in the product's own launch (the CUDA backend's
// decode). LinearAdd writes y = W·x and then dst += y for n rows, what
// Linear into y and Add(dst, y) write, bit for bit; it returns false,
// having done nothing, where it does not take the call, and the caller
// runs those.
type Residual interface {
	LinearAdd(dst, y Buffer, w Matrix, x Buffer, n int) bool
}

// RoPEStorer is optionally implemented by a backend that rotates a step's
// queries and keys and caches the keys and values in one launch (the CUDA
// backend). RoPEStoreKV does what RoPE of q's heads heads and of k's
// kvHeads heads at pos0 and then StoreKV of k and v at slot do, bit for
// bit; it returns false, having done nothing, where it does not take the
// call, and the caller runs those.
type RoPEStorer interface {
	RoPEStoreKV(q, k, v Buffer, cache KV, layer, slot, pos0, n, heads, kvHeads, headDim int, r Rope) bool
}

// Viewer is optionally implemented by a backend whose buffers can be
// viewed a range of rows at a time. engine/model's Batcher runs several
// sequences in one step on it: every row-wise operation (norms, products,
// activations) takes all the step's rows at once, and each sequence's
// RoPE, KV store and attention take a view of its own rows. A backend
// without it runs each sequence's step on its own.
type Viewer interface {
	// View returns a buffer whose rows 0…n−1 are b's rows row0…row0+n−1:
	// the same memory, not a copy, so that what an operation writes
	// through the view is in b. It lives no longer than b. row0 ≥ 0, n ≥ 1
	// and row0+n ≤ b.Rows().
	View(b Buffer, row0, n int) Buffer
}

// Placer is optionally implemented by a backend that spreads a model over
// several devices by layers (the remote backend's servers): the model
// calls Place before binding the weights of each layer, with layer −1 for
// the embedding table and layer == layers for the output norm and
// classifier, so that the weights bound next go to the device that runs
// that layer. It returns the device chosen, so that the model can tell
// whether two layers share one (a tied classifier is bound again on the
// last device when the embedding is on another).
type Placer interface {
	Place(layer, layers int) (device int)
}

// Experts is optionally implemented by a backend that runs
// mixture-of-experts feed-forward blocks. engine/model writes the block as
// llama.cpp's build_moe_ffn does, one call a step:
//
//	logits = Wr·h (+ br)                       Linear, AddBias
//	route  = Route(logits)                     the k experts of each row and their weights
//	g, u   = W_gate[e]·h, W_up[e]·h (+ bias)   ExpertLinears, one row per (row, chosen expert)
//	g      = act(g, u)                         SwiGLU, GeGLU or SwiGLUOAI over n·k rows
//	y      = W_down[e]·g (+ bias)              ExpertLinears (PerSlot input)
//	out    = Σ_j w_j·y_j                       Combine
//
// A backend without it cannot run an MoE model; engine/model refuses one
// there in a sentence. The chosen experts stay where the backend computed
// them (a device reads them from its own memory); ReadRoute copies them to
// the host for the expert map.
type Experts interface {
	// ExpertMatrix binds a stack of matrices, one per expert, all of one
	// type and shape, as one Matrix the expert products index (its Shape
	// is one expert's). The matrices' bytes stay valid for the backend's
	// lifetime, as for Matrix. An expert's biases are bound as an F32
	// stack of 1×width matrices.
	ExpertMatrix(ms []*tensor.Matrix) (Matrix, error)
	// AllocRoute allocates the routing of up to rows rows of k chosen
	// experts each.
	AllocRoute(rows, k int) (Route, error)
	// Route chooses each of n rows' experts from its router logits (one
	// per expert; logits may be modified) as o says, writing their ids and
	// weights into r.
	Route(r Route, logits Buffer, n int, o RouteOptions)
	// ExpertLinears runs, for each of n rows i and each of its k chosen
	// experts e_ij (j in 0…k−1), every op: row i·k+j of op.Dst = W[e_ij]·x
	// (+ Bias[e_ij]). x's row is i, or i·k+j when perSlot (the down
	// products read the activations of each (row, expert) pair). A backend
	// may group the rows by expert so that each expert's weights are read
	// once per call.
	ExpertLinears(r Route, x Buffer, n int, perSlot bool, ops ...ExpertOp)
	// Combine writes dst row i = Σ_j w_ij · y row i·k+j for n rows.
	Combine(dst, y Buffer, r Route, n int)
	// SwiGLUOAI writes gpt-oss's clamped SwiGLU into g for n rows
	// (ggml_swiglu_oai): with x = min(g, limit) and y = clamp(u, −limit,
	// limit), g ← x·σ(alpha·x)·(y + 1).
	SwiGLUOAI(g, u Buffer, n int, alpha, limit float32)
	// ReadRoute copies the first n rows' chosen expert ids and weights
	// (n·k of each, row-major) to the host.
	ReadRoute(r Route, n int, ids []int32, weights []float32)
}

// Route is the experts a backend chose for a batch's rows and their
// weights (Experts.AllocRoute).
type Route interface {
	// K is the experts chosen per row.
	K() int
}

// ExpertOp is one product of an ExpertLinears group: Dst = W[e]·x + Bias[e].
type ExpertOp struct {
	Dst  Buffer
	W    Matrix // from ExpertMatrix
	Bias Matrix // from ExpertMatrix over F32 1×width matrices, or nil
}

// Gating is how a router's logits become the chosen experts and their
// weights (llama.cpp's llama_expert_gating_func_type).
type Gating uint8

const (
	// GateSoftmax: p = softmax(logits) over every expert; the k largest
	// p are chosen and weigh with their p (Mixtral, Qwen3-MoE).
	GateSoftmax Gating = iota
	// GateSoftmaxWeight: the k largest logits are chosen, and their
	// weights are the softmax over those k alone (gpt-oss).
	GateSoftmaxWeight
	// GateSigmoid: p = σ(logits) per expert (DeepSeek V3, GLM-4.5).
	GateSigmoid
)

// RouteOptions say how Route chooses.
type RouteOptions struct {
	Gating Gating
	// K is the experts chosen per row (expert_used_count).
	K int
	// SelectBias, when non-nil, is added to p for the choice only, not
	// to the weights (DeepSeek's exp_probs_b).
	SelectBias Vector
	// Mask, when non-nil, is added to the logits first: 0 for an expert
	// that may be chosen, −Inf for one switched off, so that the others
	// share the weight (a softmax renormalises over them).
	Mask Vector
	// Norm divides the chosen weights by their sum (at least 6.1035e-5,
	// the smallest normal f16, as llama.cpp clamps it).
	Norm bool
	// Scale multiplies the weights after; 0 means 1
	// (expert_weights_scale).
	Scale float32
}
