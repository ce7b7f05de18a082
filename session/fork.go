package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/ugt"
)

// This file holds what a server needs beyond the TUI's one conversation:
// more conversations on one loaded model (Fork), a conversation set whole
// from a request (SetTranscript), the prompt's size before anything runs
// (PromptTokens), and the residual stream of a text (Hidden, Embedding).

// Fork starts another conversation on s's loaded model: its own KV cache
// of ctx tokens (0: s's size), settings set, living manifold and
// conversation, sharing the weights (bound once on the device), the
// tokenizer, the compressions built so far (a rank built for one
// conversation is instant for the others) and the geometry profile. It
// runs on a Share of s's backend, so that the sessions of one family may
// run at the same time (on the CPU they share the worker pool, which takes
// their products in turn). Closing a fork releases what its own states
// bound; closing s releases the model for all of them, after which no
// fork may run.
func (s *Session) Fork(ctx int, set Settings) (*Session, error) {
	if ctx <= 0 {
		ctx = s.st.MaxPos()
	}
	b, err := s.b.Share()
	if err != nil {
		return nil, fmt.Errorf("session: a backend for another conversation: %w", err)
	}
	closeB := func() {}
	if c, ok := b.(io.Closer); ok {
		closeB = func() { _ = c.Close() }
	}
	if s.comp.grcb == nil {
		s.comp.grcb = map[grc.Slots]*grc.Builder{}
	}
	if s.comp.grcs == nil {
		s.comp.grcs = map[string]*grc.Compression{}
	}
	f := newSession(s.m, s.tok, s.cv.conv.Template())
	f.b, f.closeB, f.info, f.stops, f.forked = b, closeB, s.info, s.stops, true
	f.pr.src, f.pr.sha, f.fl.appVersion = s.pr.src, s.pr.sha, s.fl.appVersion
	f.comp.grcb, f.comp.grcs, f.comp.cacheDir = s.comp.grcb, s.comp.grcs, s.comp.cacheDir
	f.gm.profileDir = s.gm.profileDir
	if err := f.fork(s, ctx, set); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// fork sets up f, a fork of s: its state, settings and geometry.
func (f *Session) fork(s *Session, ctx int, set Settings) error {
	if err := f.resizeKV(ctx, set.KVKeep); err != nil {
		return err
	}
	if err := f.apply(set); err != nil {
		return err
	}
	if p := s.gm.Profile(); p != nil {
		if err := f.gm.Set(p); err != nil {
			return err
		}
		f.notes = nil // the profile's notes were told when s loaded it
	}
	return nil
}

// Apply installs a whole settings set, as a sequence of /set would, keeping
// the conversation: a rank not built yet is built (progress told, ctx
// stops it) or read from the cache. Invalid settings change nothing.
func (s *Session) Apply(ctx context.Context, n Settings, progress func(done, total int)) error {
	old := s.set
	if err := s.applyCtx(ctx, n, progress); err != nil {
		// applyCtx checks the sampling values before it changes anything;
		// what fails later (a build cancelled) leaves the old path in use.
		_ = s.applyCtx(context.Background(), old, nil)
		return err
	}
	return nil
}

// Built reports whether the compression the settings ask for needs no
// build: it is in memory (built by this session or a fork of its family)
// or in the disk cache, from which it is then read into memory.
func (cp *Compression) Built(n Settings) (bool, error) {
	s := cp.s
	if n.Rank <= 0 {
		return true, nil
	}
	job, err := cp.spec(n)
	if err != nil {
		return false, err
	}
	if cp.grcs[job.Key()] != nil {
		return true, nil
	}
	cache, err := cp.Cache()
	if err != nil || cache == nil {
		return false, nil
	}
	g, err := cache.Load(s.m, job.Spec)
	if err != nil || g == nil {
		return false, nil
	}
	cp.grcs[job.Key()] = g
	return true, nil
}

// ErrLastNotUser is returned by SetTranscript for chat messages that do not
// end with the user's: there is nothing to answer.
var ErrLastNotUser = errors.New("the last message must be the user's")

// SetTranscript replaces the conversation with msgs and returns the last
// message's text, which the caller sends. In chat mode the roles are
// system, user and assistant (a system message first if any) and the last
// must be the user's; in completion mode (no chat template) the messages'
// texts are one running text, continued after the last. The KV cache is
// kept: the next Send computes only where the new prompt departs from it.
func (cv *Conversation) SetTranscript(msgs []chat.Message) (string, error) {
	s := cv.s
	if len(msgs) == 0 {
		return "", errors.New("no messages")
	}
	last := msgs[len(msgs)-1]
	// The cache is kept and the next Send refits it, so ContextUsed reads
	// what the cache holds until then: a count of the new transcript would
	// tokenize it once more on every request of a server (which sets one
	// per request and asks ContextUsed only for the window), for a figure
	// no one shows before the Send. An older count (a loaded file's) must
	// not outlive the conversation it counted.
	cv.convTok, cv.convStale = 0, false
	if !cv.conv.Chat() {
		var text strings.Builder
		var parts []chat.Message
		for i, m := range msgs[:len(msgs)-1] {
			text.WriteString(m.Content)
			role := conversation.RolePrompt
			if m.Role == "assistant" {
				role = conversation.RoleContinuation
			}
			if m.Content != "" {
				parts = append(parts, chat.Message{Role: role, Content: msgs[i].Content})
			}
		}
		cv.conv.Restore(conversation.Record{Text: text.String(), Parts: parts})
		return last.Content, nil
	}
	if last.Role != "user" {
		return "", ErrLastNotUser
	}
	for i, m := range msgs {
		switch m.Role {
		case "user", "assistant":
		case "system":
			if i != 0 {
				return "", fmt.Errorf("message %d: a system message must come first", i)
			}
		default:
			return "", fmt.Errorf("message %d: unknown role %q (system, user or assistant)", i, m.Role)
		}
	}
	cv.conv.Restore(conversation.Record{Messages: slices.Clone(msgs[:len(msgs)-1])})
	// The tree follows: a client that edited an earlier message, or sends
	// the conversation again to regenerate, starts a branch beside the one
	// it left. Messages that do not alternate (two of the user's in a row)
	// do not fit a tree of turns: it starts again from them.
	if !cv.tree.follow(branchNodes(msgs[:len(msgs)-1]), time.Now()) {
		cv.tree = NewTree()
	}
	if msgs[0].Role == "system" {
		s.set.System = msgs[0].Content
	} else {
		s.set.System = ""
	}
	return last.Content, nil
}

// PromptTokens is how many tokens the prompt of sending input now would
// be, with nothing dropped or trimmed; nothing changes.
func (cv *Conversation) PromptTokens(input string) (int, error) {
	s := cv.s
	c := conversation.New(s.tok, cv.conv.Template())
	c.Restore(cv.conv.Record())
	p, err := c.Add(input, "", math.MaxInt32, 0)
	if err != nil {
		return 0, err
	}
	return len(p.IDs), nil
}

// TokenBytes is the text of one token on its own (nil out of range).
func (pr *Probe) TokenBytes(id int32) []byte { s := pr.s; return s.tok.TokenBytes(id) }

// CountTokens is how many tokens text is on its own (no special tokens).
func (pr *Probe) CountTokens(text string) (int, error) {
	s := pr.s
	ids, err := s.tok.Encode(text, tokenizer.EncodeOptions{})
	return len(ids), err
}

// Dim is the width of the residual stream; Layers the number of blocks.
func (pr *Probe) Dim() int { s := pr.s; return s.m.Dim }

// Layers is the number of transformer blocks.
func (pr *Probe) Layers() int { s := pr.s; return s.m.Layers }

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

// ErrNoProfile is returned where a geometry profile is needed and none is
// loaded.
var ErrNoProfile = errors.New("no geometry profile is loaded for this model: run `isagi calibrate` first")

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

// SendNoMemory is Send without the living manifold: nothing is looked up,
// served or recorded. A server's stateless requests use it, so that one
// client's answers are never served to another.
func (s *Session) SendNoMemory(ctx context.Context, input string, emit func(Event)) (Turn, error) {
	return s.send(ctx, input, sendNoMemory, emit)
}

// Complete continues text as raw text, whatever the model's template (an
// API's completion request), without the living manifold. The
// conversation is left as it was; the KV cache keeps what it computed, so
// a later turn reuses whatever prefix the two share.
func (s *Session) Complete(ctx context.Context, text string, emit func(Event)) (Turn, error) {
	saved := s.cv.conv
	s.cv.conv = conversation.New(s.tok, nil)
	defer func() { s.cv.conv = saved }()
	return s.send(ctx, text, sendNoMemory, emit)
}

// CompletionTokens is how many tokens Complete's prompt for text would be.
func (cv *Conversation) CompletionTokens(text string) (int, error) {
	s := cv.s
	c := conversation.New(s.tok, nil)
	p, err := c.Add(text, "", math.MaxInt32, 0)
	if err != nil {
		return 0, err
	}
	return len(p.IDs), nil
}

// AddHook registers a model hook (model.State.AddHook) on the
// conversation's state, e.g. to read each token's logits.
func (s *Session) AddHook(h any) (remove func(), err error) { return s.st.AddHook(h) }
