package session

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// Options configure a new session.
type Options struct {
	Threads int // worker threads; 0 means one per core
	// Backend makes what runs the model, given Threads; nil runs it on the
	// CPU with Threads workers. The session owns the backend: every State
	// it makes runs on it (a Fork's on a Share of it), and Close closes it
	// when it implements io.Closer.
	Backend func(threads int) (backend.Backend, error)
	// Ctx is the context window in tokens; 0 means the model's, at most
	// 4096. Above the model's window it is capped to it, with a note (see
	// Session.Notes).
	Ctx int
	// KVType is how the conversation's KV cache (and the drafter's)
	// stores keys and values: f32 (the zero value), f16 or q8_0 (see
	// backend.KVType). Like Ctx it belongs to the process, not to the
	// session file: a .miku does not record it.
	KVType   backend.KVType
	Settings Settings
	Demo     bool // the file is an embedded demo model
	// DemoLabel says what that demo model is (Info.DemoLabel).
	DemoLabel string
	// AppVersion is recorded in the session files this session saves.
	AppVersion string
	// CacheDir is where GRC ranks are cached once built (keyed by the
	// model's sha256, the rank, the slots and the format); "" disables it.
	CacheDir string
	// ProfileDir is where geometry profiles live (see LoadGeometry and
	// Calibrate); "" keeps them in memory only.
	ProfileDir string
	// SteerDir is where steering vectors are found by name (NAME.gguf;
	// see Steering).
	SteerDir string
}

// DefaultSettings are llama.cpp's sampling defaults, with replies capped at
// 512 tokens so a base model that never stops still hands the prompt back.
func DefaultSettings() Settings {
	return Settings{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, MaxTokens: 512}
}

// Open loads the model in a GGUF file and starts an empty conversation.
func Open(path string, o Options) (*Session, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := fromFile(f, path, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// OpenBytes is Open for a model held in memory (the embedded demo); name
// labels it in messages.
func OpenBytes(name string, data []byte, o Options) (*Session, error) {
	f, err := gguf.Parse(name, data)
	if err != nil {
		return nil, err
	}
	s, err := fromFile(f, name, o)
	if err != nil {
		return nil, err
	}
	s.pr.holdBytes(data)
	return s, nil
}

func fromFile(f *gguf.File, path string, o Options) (*Session, error) {
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, err
	}
	tmpl, err := chat.FromGGUF(f, tok)
	mode := ModeChat
	if errors.Is(err, chat.ErrNoTemplate) {
		tmpl, mode, err = nil, ModeCompletion, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := model.Load(f)
	if err != nil {
		return nil, err
	}
	b, closeB, err := newBackend(o)
	if err != nil {
		return nil, err
	}
	info := Info{
		Name: m.Name, Path: path, Arch: m.Arch, WeightType: m.WeightType(),
		Mode: mode, Demo: o.Demo, DemoLabel: o.DemoLabel, Backend: b.Name(), Threads: o.Threads,
		TokenBytes: m.WeightBytes(), Experts: m.ExpertsSummary(),
	}
	if k := kernelsOf(b); k != nil {
		info.Kernels, info.Threads = k.Path(), k.Pool().Size()
	}
	if info.Name == "" {
		info.Name = filepath.Base(path)
	}
	census := f.Census()
	info.MatrixTypes = len(census.MatrixTypes())
	for _, t := range census.Types {
		info.Types = append(info.Types, TypeShare{Type: t.Type.String(), Tensors: t.Tensors, Bytes: int64(t.Bytes), Share: t.Share(census.Bytes)})
	}
	for i := range f.Tensors {
		info.Params += int64(f.Tensors[i].Elements())
		info.FileBytes += int64(f.Tensors[i].Size)
	}
	set := o.Settings
	defaulted := set == (Settings{})
	if defaulted {
		// No settings given (the TUI): llama.cpp's defaults with a seed
		// drawn from the clock, as `isagi run` does, so two launches do not
		// repeat each other. /show prints it and the session file keeps
		// it, so a reply can be reproduced with /set seed.
		set = DefaultSettings()
		set.Seed = uint64(time.Now().UnixNano())
	}
	s := newSession(m, tok, tmpl, o)
	s.b, s.closeB, s.info, s.kvType = b, closeB, info, o.KVType
	if err := s.resize(o.Ctx); err != nil {
		closeB()
		return nil, err
	}
	if window := s.st.MaxPos(); defaulted && set.MaxTokens > window/2 {
		// The default reply length must fit the model: 512 tokens in a
		// 256-token window (the demo's) ended every first reply with
		// "the context window is full". Half the window leaves the other
		// half for the conversation.
		set.MaxTokens = max(window/2, 16)
	}
	if o.Ctx > m.CtxLen {
		// Positions past the training window were never learnt, so the cap
		// stands; but the caller asked for more, and a reply that later
		// fills the window must not be the first sign of it.
		s.notes = append(s.notes, fmt.Sprintf("a %d-token context is above %s's context window (%d tokens); using %d",
			o.Ctx, info.Name, m.CtxLen, m.CtxLen))
	}
	if err := s.apply(set); err != nil {
		s.closeStates()
		closeB()
		return nil, err
	}
	if tmpl != nil {
		s.stops = tmpl.StopTokens(tok)
	} else {
		s.stops = tok.EndOfGeneration()
	}
	return s, nil
}

// newBackend makes the backend o asks for, and the function that closes
// it: for the CPU, the worker pool made for it; for another, its Close
// when it has one.
func newBackend(o Options) (backend.Backend, func(), error) {
	if o.Backend == nil {
		pool := tensor.NewPool(o.Threads)
		return cpu.New(tensor.NewKernels(pool)), pool.Close, nil
	}
	b, err := o.Backend(o.Threads)
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	if b == nil {
		return nil, nil, errors.New("session: the backend constructor returned no backend")
	}
	closeB := func() {}
	if c, ok := b.(io.Closer); ok {
		closeB = func() { _ = c.Close() }
	}
	return b, closeB, nil
}

// kernelsOf is the CPU kernels b runs on, or nil for another backend.
func kernelsOf(b backend.Backend) *tensor.Kernels {
	if c, ok := b.(interface{ Kernels() *tensor.Kernels }); ok {
		return c.Kernels()
	}
	return nil
}

// resize (re)allocates the KV cache for ctx tokens, forgetting what it held.
func (s *Session) resize(ctx int) error { return s.resizeKV(ctx, s.set.KVKeep) }

// resizeKV is resize with the KV cache sized for eviction at keep (see
// kv.go): kvEntries entries for a window of ctx positions.
func (s *Session) resizeKV(ctx int, keep float64) error {
	if ctx <= 0 {
		ctx = min(s.m.CtxLen, 4096)
	}
	if ctx < 16 {
		return fmt.Errorf("session: a context of %d tokens is too small", ctx)
	}
	ctx = min(ctx, s.m.CtxLen)
	st, err := s.m.NewStateWith(kvEntries(keep, ctx), s.b, model.StateOptions{KV: s.kvType})
	if err != nil {
		return err
	}
	if evicting(keep) {
		if err := st.SetMaxPos(ctx); err != nil {
			st.Close()
			return fmt.Errorf("session: %w", err)
		}
	}
	if s.st != nil {
		s.st.Close()
	}
	s.st = st
	if err := s.rejoin(); err != nil {
		return err
	}
	s.gen = nil // rebuilt by apply with the current settings
	// A conversation kept through a resize is recomputed at the next turn.
	s.cv.lags()
	// The drafter's cache and its hooks belong to the old state, and the
	// new state has no compression installed: apply makes a new drafter
	// and installs the compression again (from memory, instantly).
	s.dr.reset()
	s.comp.reset()
	if err := s.gm.attach(); err != nil {
		return err
	}
	if err := s.xp.attach(); err != nil {
		return err
	}
	if err := s.sr.attach(); err != nil {
		return err
	}
	s.info.ContextSize = st.MaxPos()
	return nil
}
