package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/isagi-lab/isagi/engine/grammar"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/ugt"
)

// Probe reads the model itself for analysis, on scratch states of its
// own: tokens, the residual stream, embeddings, UGT coordinates.
type Probe struct {
	s   *Session
	src []byte // the model's bytes when opened from memory (the demo)
	sha string // the model file's sha256, once computed
	// gv is the vocabulary as a grammar reads it, built once for the
	// family (GrammarVocab).
	gv *grammarVocab
}

// grammarVocab is a model's vocabulary for grammar matchers, built on
// first use and shared by a session's forks.
type grammarVocab struct {
	once sync.Once
	v    *grammar.Vocab
	err  error
	// marked are vocabularies that also let a grammar choose some
	// control tokens (a tool-call syntax's markers), by marker set.
	mu     sync.Mutex
	marked map[string]*grammar.Vocab
}

// newProbe is the probe part of s.
func newProbe(s *Session) *Probe { return &Probe{s: s, gv: &grammarVocab{}} }

// fork is the probe part of f, a fork of this part's session: the same
// model, its bytes and its hash.
func (pr *Probe) fork(f *Session) *Probe { return &Probe{s: f, src: pr.src, sha: pr.sha, gv: pr.gv} }

// GrammarVocab is the model's vocabulary as engine/grammar matches it:
// every token's bytes (control tokens never produced as text) and the
// stop tokens as its end of generation. It is built once (a trie over the
// vocabulary: tens of milliseconds) and shared by the session's forks.
func (pr *Probe) GrammarVocab() (*grammar.Vocab, error) {
	pr.gv.once.Do(func() { pr.gv.v, pr.gv.err = GrammarVocab(pr.s.tok, pr.s.stops) })
	return pr.gv.v, pr.gv.err
}

// markedVocab is GrammarVocab with markers' control tokens choosable,
// built once per marker set and shared by the session's forks.
func (pr *Probe) markedVocab(markers []string) (*grammar.Vocab, error) {
	if len(markers) == 0 {
		return pr.GrammarVocab()
	}
	key := strings.Join(markers, "\x00")
	pr.gv.mu.Lock()
	defer pr.gv.mu.Unlock()
	if v, ok := pr.gv.marked[key]; ok {
		return v, nil
	}
	v, err := grammarVocabWith(pr.s.tok, pr.s.stops, markers)
	if err != nil {
		return nil, err
	}
	if pr.gv.marked == nil {
		pr.gv.marked = map[string]*grammar.Vocab{}
	}
	pr.gv.marked[key] = v
	return v, nil
}

// GrammarVocab is tok's vocabulary as engine/grammar matches it: every
// token's bytes, control tokens never produced as text, and stops as the
// end of generation.
func GrammarVocab(tok *tokenizer.Tokenizer, stops []int32) (*grammar.Vocab, error) {
	return grammarVocabWith(tok, stops, nil)
}

// grammarVocabWith is GrammarVocab with the control tokens whose texts
// are markers produced as those texts.
func grammarVocabWith(tok *tokenizer.Tokenizer, stops []int32, markers []string) (*grammar.Vocab, error) {
	texts := make([][]byte, tok.VocabSize())
	for id := range texts {
		if !tok.IsControl(int32(id)) {
			texts[id] = tok.TokenBytes(int32(id))
		}
	}
	for _, m := range markers {
		if id, ok := tok.TokenID(m); ok && !isStop(id, stops) {
			texts[id] = []byte(m)
		}
	}
	v, err := grammar.NewVocab(texts, stops)
	if err != nil {
		return nil, fmt.Errorf("session: the vocabulary for a grammar: %w", err)
	}
	return v, nil
}

// holdBytes says the model was opened from data in memory (the demo): its
// hash is data's.
func (pr *Probe) holdBytes(data []byte) { pr.src = data }

// TokenBytes is the text of one token on its own (nil out of range).
func (pr *Probe) TokenBytes(id int32) []byte { return pr.s.tok.TokenBytes(id) }

// CountTokens is how many tokens text is on its own (no special tokens).
func (pr *Probe) CountTokens(text string) (int, error) {
	s := pr.s
	ids, err := s.tok.Encode(text, tokenizer.EncodeOptions{})
	return len(ids), err
}

// Dim is the width of the residual stream; Layers the number of blocks.
func (pr *Probe) Dim() int { return pr.s.m.Dim }

// Layers is the number of transformer blocks.
func (pr *Probe) Layers() int { return pr.s.m.Layers }

// Hidden runs text (tokenised as a text after BOS, not as a chat turn) on
// a scratch state of its own — the conversation's KV cache and hooks are
// not touched, and no compression or projector applies: it is the model's
// own residual stream — and returns the rows after the layers asked (-1:
// the final norm). maxTokens bounds the text (0: the context size).
func (pr *Probe) Hidden(ctx context.Context, text string, layers []int, maxTokens int) (Hidden, error) {
	s := pr.s
	ids, err := s.tok.Encode(text, tokenizer.EncodeOptions{AddSpecial: true})
	if err != nil {
		return Hidden{}, err
	}
	if len(ids) == 0 {
		return Hidden{}, errors.New("the text is empty")
	}
	if maxTokens <= 0 {
		maxTokens = s.st.MaxPos()
	}
	if len(ids) > min(maxTokens, s.m.CtxLen) {
		return Hidden{}, fmt.Errorf("the text is %d tokens, over the limit of %d (the model's context window is %d)", len(ids), min(maxTokens, s.m.CtxLen), s.m.CtxLen)
	}
	h := &hiddenHook{at: map[int]int{}, norm: -1, limit: len(ids)}
	for i, l := range layers {
		if l < -1 || l >= s.m.Layers {
			return Hidden{}, fmt.Errorf("layer %d is out of range: the model has layers 0..%d (-1: the final norm)", l, s.m.Layers-1)
		}
		if l == -1 {
			h.norm = i
		} else {
			h.at[l] = i
			h.lays = append(h.lays, l)
		}
		h.out = append(h.out, make([][]float32, len(ids)))
	}
	st, err := s.m.NewStateOn(len(ids), s.b)
	if err != nil {
		return Hidden{}, err
	}
	defer st.Close()
	if len(h.lays) > 0 || h.norm >= 0 {
		if _, err := st.AddHook(h); err != nil {
			return Hidden{}, err
		}
	}
	for i := 0; i < len(ids); i += model.MaxBatch {
		if err := ctx.Err(); err != nil {
			return Hidden{}, err
		}
		if err := st.Forward(ids[i:min(i+model.MaxBatch, len(ids))], nil); err != nil {
			return Hidden{}, err
		}
	}
	return Hidden{Tokens: ids, Layers: slices.Clone(layers), States: h.out}, nil
}

// Embedding is a text's embedding: the mean over its tokens of the final
// hidden state (after the output norm), scaled to unit length.
func (pr *Probe) Embedding(ctx context.Context, text string, maxTokens int) ([]float32, int, error) {
	s := pr.s
	h, err := pr.Hidden(ctx, text, []int{-1}, maxTokens)
	if err != nil {
		return nil, 0, err
	}
	sum := make([]float64, s.m.Dim)
	for _, row := range h.States[0] {
		for j, v := range row {
			sum[j] += float64(v)
		}
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	out := make([]float32, len(sum))
	if norm = math.Sqrt(norm); norm > 0 {
		for j, v := range sum {
			out[j] = float32(v / norm)
		}
	}
	return out, len(h.Tokens), nil
}

// UGTCoords are a text's UGT coordinates: each token's probe-layer state
// in the profile's basis, Bᵀ(h − μ) (docs/mechanisms.md), and the layer
// they were read at.
func (pr *Probe) UGTCoords(ctx context.Context, text string, maxTokens int) (coords [][]float64, layer int, tokens []int32, err error) {
	s := pr.s
	p := s.gm.Profile()
	if p == nil {
		return nil, 0, nil, ErrNoProfile
	}
	h, err := pr.Hidden(ctx, text, []int{p.Layer}, maxTokens)
	if err != nil {
		return nil, 0, nil, err
	}
	hs := make([][]float64, len(h.States[0]))
	for i, row := range h.States[0] {
		hs[i] = make([]float64, len(row))
		for j, v := range row {
			hs[i][j] = float64(v)
		}
	}
	b := &ugt.Basis{D: p.D, K: p.K, Mu: p.Mu, B: p.B}
	if coords, err = b.CoordsRows(hs); err != nil {
		return nil, 0, nil, err
	}
	return coords, p.Layer, h.Tokens, nil
}

// Ref names this session's model for files bound to it (sessions,
// caches, geometry profiles).
func (pr *Probe) Ref() (miku.ModelRef, error) {
	s := pr.s
	sum, err := pr.SHA256()
	if err != nil {
		return miku.ModelRef{}, err
	}
	return miku.ModelRef{File: filepath.Base(s.info.Path), SHA256: sum, Arch: s.info.Arch, Name: s.info.Name}, nil
}

// SHA256 is the sha256 of the model file (computed once, on first
// use: a session file names its model by content, not by path).
func (pr *Probe) SHA256() (string, error) {
	s := pr.s
	if pr.sha != "" {
		return pr.sha, nil
	}
	if pr.src == nil { // a file on disk: hashed by the one hashing path
		sum, err := FileSHA256(s.info.Path)
		if err != nil {
			return "", err
		}
		pr.sha = sum
		return pr.sha, nil
	}
	h := sha256.New()
	h.Write(pr.src)
	pr.sha = hex.EncodeToString(h.Sum(nil))
	return pr.sha, nil
}

// ModelContext is the model's own context window (its training length):
// the most Options.Ctx or num_ctx can give.
func (pr *Probe) ModelContext() int { return pr.s.m.CtxLen }

// ErrNoProfile is returned where a geometry profile is needed and none is
// loaded.
var ErrNoProfile = errors.New("no geometry profile is loaded for this model: run `isagi calibrate` first")

// Hidden is the residual stream of a text: for each layer asked, one row of
// Dim values per token, after that block (Layers[i] == -1: after the
// final norm, what the classifier reads).
type Hidden struct {
	Tokens []int32
	Layers []int
	States [][][]float32 // States[i][pos] for Layers[i]
}

// hiddenHook copies the residual stream at the layers asked.
type hiddenHook struct {
	at    map[int]int // layer → index in out
	norm  int         // index of the final norm's rows, or -1
	out   [][][]float32
	lays  []int
	limit int
}

func (h *hiddenHook) HookLayers() []int { return h.lays }

// ReadOnly implements model.ReadOnlyHook: the hook only copies.
func (h *hiddenHook) ReadOnly() bool { return true }

func (h *hiddenHook) AfterBlock(layer, pos int, x []float32) {
	if i, ok := h.at[layer]; ok && pos < h.limit {
		h.out[i][pos] = slices.Clone(x)
	}
}

func (h *hiddenHook) AfterNorm(pos int, x []float32) {
	if h.norm >= 0 && pos < h.limit {
		h.out[h.norm][pos] = slices.Clone(x)
	}
}
