// Package session is the application layer over a loaded model: one
// conversation (engine/conversation keeps its messages, fits the prompt
// and reuses the KV cache) with its settings table (Knobs), compression
// (GRC ranks, built or read from the cache), geometry profile, living
// memory (COG), exploration (OGD) and .miku files. Send streams each reply
// as text pieces with live statistics. The TUI and scripted runs drive
// models through it.
package session

import (
	"context"
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/geometry"
)

// Mode says how input is turned into a prompt.
type Mode int

const (
	// ModeChat renders the conversation with the model's chat template.
	ModeChat Mode = iota
	// ModeCompletion continues the text as typed: the model has no chat
	// template (a base model), so there are no roles.
	ModeCompletion
)

func (m Mode) String() string {
	if m == ModeCompletion {
		return "completion"
	}
	return "chat"
}

// Info describes the loaded model for display.
type Info struct {
	Name      string // general.name, else the file name
	Path      string // the file, or "demo:kjv-q8_0.gguf" for the embedded demo
	Arch      string // general.architecture
	Params    int64  // parameter count (elements of all tensors)
	FileBytes int64  // bytes of tensor data: what the model keeps mapped, every expert included
	// TokenBytes is the weight bytes one decoded token reads
	// (model.Model.WeightBytes): of a mixture of experts, the router and
	// the experts a token runs, so decode speed is bounded by bandwidth
	// over this, not over FileBytes.
	TokenBytes int64
	// Experts describes a mixture of experts ("128 (8 per token, 768
	// wide)", model.Config.ExpertsSummary); "" for a dense model.
	Experts     string
	WeightType  string // the type most weight bytes use, e.g. "Q4_K"
	ContextSize int    // the context window in tokens (the KV cache's capacity, unless it evicts)
	Mode        Mode
	Demo        bool // an embedded demo model, not an assistant
	// DemoLabel says what the demo model is, for the UI's banner ("" for
	// the default KJV text generator's own label).
	DemoLabel string
	// Backend is what runs the model (backend.Backend.Name), e.g.
	// "cpu avx2 × 4 threads".
	Backend string
	Kernels string // the CPU's decode kernels, "avx512vnni", "avx2" or "go" ("" on another backend)
	Threads int
	// Rank is the GRC rank (0: uncompressed; the mean rank under gp and
	// mcr allocation); RankSpec the slots and allocation ("qkv uniform");
	// RankEnergy the mean share of the Q/K/V energy kept; RankBytes the
	// compressed slots' bytes per token relative to the uncompressed
	// weights; RankSlots every compressed slot's ranks and energy.
	Rank       int
	RankSpec   string
	RankEnergy float64
	RankBytes  float64
	RankSlots  []grc.SlotSummary
	// BytesBefore and BytesAfter are the compressed slots' weight bytes
	// one token reads without and with the compression.
	BytesBefore, BytesAfter int64
	// Depth is what the compression's calibration pass found: the
	// depth-sink block and the stream's intrinsic dimension per block (nil
	// for a compression built before Compression II, or without one).
	Depth *grc.Depth
	// Mechanisms names Compression II's mechanisms the compression uses
	// ("gauge", "sink channels 8", "sink bypass").
	Mechanisms []string
	// KVRank is the values each KV head caches per key and value under a
	// KV projection (0: none), of HeadDim; KVEntryBefore and KVEntryAfter
	// are one position's bytes without and with it, KVSaved what the
	// projection saves over the whole cache.
	KVRank, HeadDim             int
	KVEntryBefore, KVEntryAfter int64
	KVSaved                     int64
	// Types is every tensor type of the file with its share of the bytes,
	// most first (gguf.File.Census). MatrixTypes counts the types the
	// matrices use (norms and biases left out): more than one in an
	// importance-matrix or "dynamic" quantisation, or a K-quant mix.
	Types       []TypeShare
	MatrixTypes int
}

// TypeShare is one tensor type's part of a model file (Info.Types).
type TypeShare struct {
	Type    string // "IQ2_XXS"
	Tensors int
	Bytes   int64
	Share   float64 // of the file's tensor bytes, 0 to 1
}

// Settings are the knobs a user can change between turns (/set).
type Settings struct {
	Temperature   float32 `json:"temperature"`
	TopK          int     `json:"top_k"`
	TopP          float32 `json:"top_p"`
	MinP          float32 `json:"min_p"`
	RepeatPenalty float32 `json:"repeat_penalty"`
	Seed          uint64  `json:"seed"`
	MaxTokens     int     `json:"max_tokens"` // per reply
	System        string  `json:"system,omitempty"`
	Rank          int     `json:"rank,omitempty"` // GRC rank; 0 = uncompressed
	// Slots and Alloc pick what GRC compresses and how ranks are spread
	// over the blocks ("" = qkv, uniform).
	Slots string `json:"slots,omitempty"`
	Alloc string `json:"alloc,omitempty"`
	// Gauge, SinkChannels and SinkBypass are Compression II's mechanisms
	// (docs/grc.md): the γ-folded gauge, the input channels kept exact and
	// the dense path for outlier positions. KVProj stores K and V in a
	// rank-sized basis (needs a rank).
	Gauge        bool `json:"gauge,omitempty"`
	SinkChannels int  `json:"sink_channels,omitempty"`
	SinkBypass   bool `json:"sink_bypass,omitempty"`
	KVProj       bool `json:"kv_proj,omitempty"`
	// Snipe lists the categories whose projector is on, comma-separated
	// ("privacy,toxicity"); it needs a geometry profile.
	Snipe string `json:"snipe,omitempty"`
	// OGDAlpha is the Safe OGD exploration step α (0: off).
	OGDAlpha float64 `json:"ogd_alpha,omitempty"`
	// MemoryOff stops the living manifold from serving answers from
	// memory or showing stored answers as context; it still learns.
	MemoryOff bool `json:"memory_off,omitempty"`
	// Draft is the speculative drafter ("" off, "ngram", "rank:K[,slots]",
	// see ParseDraft); DraftN fixes γ (0 chooses it live); OnlineBasis
	// updates a compressed drafter's bases from its rejections.
	Draft       string `json:"draft,omitempty"`
	DraftN      int    `json:"draft_n,omitempty"`
	OnlineBasis bool   `json:"online_basis,omitempty"`
	// KVKeep is the share of positions the KV cache keeps (0: no
	// eviction); KVScorer picks what it keeps ("": manifold). See kv.go.
	KVKeep   float64 `json:"kv_keep,omitempty"`
	KVScorer string  `json:"kv_scorer,omitempty"`
	// ExpertOff lists the experts switched off on a mixture-of-experts
	// model ("12:37,*:5", see the expert_off knob; "": none).
	ExpertOff string `json:"expert_off,omitempty"`
	// Steer lists the steering vectors added to the residual stream,
	// NAME[:SCALE][@A-B] separated by commas (see ParseSteer; "": none).
	Steer string `json:"steer,omitempty"`
	// Format holds every reply to a form: "json" (one JSON object), or a
	// file — FILE.json a JSON Schema, FILE.gbnf a grammar ("": none).
	Format string `json:"format,omitempty"`
}

// Event is one step of a streaming reply.
type Event struct {
	Piece string // text decoded by this step (may be empty while a UTF-8 sequence is incomplete)
	// Thinking is chain-of-thought text decoded by this step: a harmony
	// model's (gpt-oss) analysis channel, which Piece and the reply leave
	// out.
	Thinking  string
	Tokens    int           // tokens generated so far in this reply
	TokPerSec float64       // decode speed so far
	Elapsed   time.Duration // since the turn started
	// Gauge is the TEH reading of the state that chose this token; Gauged
	// says whether a geometry profile is running.
	Gauge  geometry.Reading
	Gauged bool
	// ID is the token this step decoded and Pos the position whose logits
	// chose it; End says ID is a stop token (its Piece is empty). An
	// answer served from memory has no tokens: ID is -1.
	ID  int32
	Pos int
	End bool
	// Hidden says ID's text is not part of the reply: a control token,
	// which is not rendered, or in a harmony reply a channel marker, a
	// header or the chain of thought. A token whose bytes are held back
	// (an unfinished UTF-8 sequence, a possible marker) is not hidden.
	// The text before a harmony reply's first marker counts as the
	// answer, as the reply ends up when no marker ever comes.
	Hidden bool
}

// Turn is a finished reply.
type Turn struct {
	Text string
	// Thinking is the reply's chain of thought, kept out of Text and the
	// conversation: a harmony model's (gpt-oss) analysis channel.
	Thinking    string
	Tokens      int // generated, the stop token included
	PromptTok   int // tokens fed for this turn (new ones only, after cache reuse)
	TimeToFirst time.Duration
	PrefillTokS float64
	DecodeTokS  float64
	Stop        string // why it ended: "stop token", "token limit", "context full", "cancelled"
	// Seed is the seed the reply was sampled from: with the same settings
	// and conversation, /set seed Seed (Set("seed", …)) makes the next
	// reply this one again. Served from memory, nothing was sampled: 0.
	Seed    uint64
	Dropped int // oldest turns dropped to make room before this one
	// Trimmed is, in completion mode, how many tokens at the start of the
	// text the model did not see this turn: the text is longer than the
	// window allows with room for the reply.
	Trimmed     int
	ContextUsed int // tokens in the KV cache after the turn
	// Geometry is the TEH gauge over the turn, when a profile is running.
	Geometry *geometry.TurnSummary
	// COG is the living manifold's decision for the turn, when one runs.
	COG *COGTurn
	// Spec is what speculative decoding did this turn, when a drafter is
	// set: acceptance, γ, tokens per verifier step, the predicted speed.
	Spec *generate.SpecStats
}

// Session is one conversation with a loaded model. It is not safe for
// concurrent use: one Send at a time (the TUI runs it on a worker goroutine
// and waits for it before the next).
//
// A Session is the turn loop — settings in, replies out — composed of parts
// that each own their state: the conversation tree (Conversation), the GRC
// compression and KV eviction (Compression), speculative drafting
// (Drafting), the geometry profile and its projectors (Geometry), the
// living manifold (Memory), the session file (Files) and the model's
// residual stream read for analysis (Probe). A caller holds the part it
// needs; docs/architecture.md walks one message through them. Only a
// part's own methods touch its fields (walls_test.go checks it): what the
// parts share — the model, the state, the settings — is the Session's.
type Session struct {
	m   *model.Model
	tok *tokenizer.Tokenizer
	// b runs every State of the session (the conversation's, the
	// drafter's, calibration's), one at a time as the session is used;
	// closeB closes it (the session that made it; a no-op for a fork's).
	b      backend.Backend
	closeB func()
	st     *model.State
	kvType backend.KVType // how st's cache stores keys and values (Options.KVType)
	gen    *generate.Generator
	info   Info
	set    Settings
	stops  []int32
	notes  []string // for the user, see Notes
	// seed is the seed the next generated reply draws from: the settings'
	// seed after every apply, then each reply's successor (nextSeed), so
	// that each reply starts a stream of its own from a seed it records
	// (Turn.Seed, Made.Seed) and /set seed S makes the next reply as the
	// one recorded with S was made.
	seed uint64
	// appVersion is recorded in the files the session writes: session
	// files, cached ranks, geometry profiles (Options.AppVersion).
	appVersion string

	cv   *Conversation
	comp *Compression
	dr   *Drafting
	gm   *Geometry
	mem  *Memory
	fl   *Files
	pr   *Probe
	xp   *Experts
	sr   *Steering

	// hl is the backend's fate, shared with the session's forks.
	hl *health
	// batch, when set, is the Batch the conversation's state computes in
	// (JoinBatch), with the other conversations of the family.
	batch *Batch

	// constraint limits what the next replies may sample (SetConstraint),
	// or nil.
	constraint generate.Constraint
	// format is the Format setting compiled (nil: none), and formatSpec
	// the setting it was compiled from.
	format     *Format
	formatSpec string
	// toolsHeld says the constraint is SetTools' (a required call), and
	// toolSpecial that the replies are decoded with control tokens shown
	// (a call syntax whose markers are control tokens).
	toolsHeld, toolSpecial bool

	// forked says the session shares another's model (Fork): Close leaves
	// the model and the backend to the session that loaded them.
	forked bool
}

// newSession makes a session's shell with its parts wired to it; the
// caller fills the model, the state and the settings. o says where the
// parts keep their files (the GRC cache, the geometry profiles) and what
// version the files record.
func newSession(m *model.Model, tok *tokenizer.Tokenizer, tmpl *chat.Template, o Options) *Session {
	s := &Session{m: m, tok: tok, appVersion: o.AppVersion, hl: &health{}}
	s.cv = newConversation(s, tmpl)
	s.comp = newCompression(s, o.CacheDir)
	s.dr = newDrafting(s)
	s.gm = newGeometry(s, o.ProfileDir)
	s.mem = newMemory(s)
	s.fl = newFiles(s)
	s.pr = newProbe(s)
	s.xp = newExperts(s)
	s.sr = newSteering(s, o.SteerDir)
	return s
}

// Conversation is the conversation part: its messages as a tree of
// branches, the prompt fitted to the window and the KV cache's reuse.
func (s *Session) Conversation() *Conversation { return s.cv }

// Compression is the compression part: GRC ranks and KV eviction.
func (s *Session) Compression() *Compression { return s.comp }

// Drafting is the speculative decoding part.
func (s *Session) Drafting() *Drafting { return s.dr }

// Geometry is the geometry part: the profile, its live gauge, the Snipe
// projectors and the OGD exploration step.
func (s *Session) Geometry() *Geometry { return s.gm }

// Memory is the living manifold (COG) part.
func (s *Session) Memory() *Memory { return s.mem }

// Files is the persistence part: the session's .miku file.
func (s *Session) Files() *Files { return s.fl }

// Probe is the part that reads the model itself: tokens, the residual
// stream, embeddings and UGT coordinates.
func (s *Session) Probe() *Probe { return s.pr }

// SetConstraint limits every token the replies sample from now on to what
// c allows (a grammar: engine/grammar.NewConstraint), until it is set to
// nil. A constraint keeps its own place in its grammar, so it serves one
// reply: set a new one for each. The speculative drafter is not used
// while one is set.
func (s *Session) SetConstraint(c generate.Constraint) { s.constraint = c }

// Steering is the steering part: control vectors added to the residual
// stream.
func (s *Session) Steering() *Steering { return s.sr }

// Experts is the expert map part: a mixture-of-experts model's routing,
// token by token, and the experts switched off.
func (s *Session) Experts() *Experts { return s.xp }

// Info describes the model and the compression in use.
func (s *Session) Info() Info {
	i := s.info
	if g := grc.Of(s.st); g != nil {
		i.Rank = g.K
		var e float64
		for _, l := range g.Energy {
			e += (l[0] + l[1] + l[2]) / 3
		}
		i.RankEnergy = e / float64(len(g.Energy))
		i.RankBytes = float64(g.BytesAfter) / float64(g.BytesBefore)
		i.RankSpec = g.Plan.Slots.String() + " " + g.Plan.Alloc.String()
		i.RankSlots = g.Summary()
		i.BytesBefore, i.BytesAfter = g.BytesBefore, g.BytesAfter
		i.Depth = g.Depth
		if g.Plan.Gauge {
			i.Mechanisms = append(i.Mechanisms, "gauge")
		}
		if t := g.Plan.SinkChannels; t > 0 {
			i.Mechanisms = append(i.Mechanisms, fmt.Sprintf("sink channels %d", t))
		}
		if g.Plan.SinkBypass {
			i.Mechanisms = append(i.Mechanisms, "sink bypass")
		}
	}
	if p := s.st.KVProjection(); p != nil {
		before, after := p.ValuesPerToken()
		i.KVRank, i.HeadDim = p.Rank(), s.m.HeadDim
		i.KVEntryBefore, i.KVEntryAfter = int64(before)*4, int64(after)*4
		i.KVSaved = int64(s.st.Cap()) * (i.KVEntryBefore - i.KVEntryAfter)
	}
	return i
}

// Settings returns the current knobs.
func (s *Session) Settings() Settings { return s.set }

// Close releases what the session's States bound for themselves, and —
// for the session that loaded the model, not a fork — the backend and the
// model. The session must not be used after.
func (s *Session) Close() error {
	s.closeStates()
	s.closeB()
	if s.forked {
		return nil
	}
	return s.m.Close()
}

// closeStates closes the conversation's and the drafter's states.
func (s *Session) closeStates() {
	s.dr.stop()
	if s.st != nil {
		s.st.Close()
	}
}

// resetCache empties the KV cache (the next turn recomputes the
// conversation from its first token) and restarts sampling from seed.
func (s *Session) resetCache(seed uint64) {
	s.gen.Reset(seed)
	s.cv.lags()
}

// Clear forgets the conversation's messages, its KV cache and its record
// of answers served from memory (the system message stays). It keeps the
// living manifold and the session file: scripts and tests use it to ask
// from a fresh context against the memory built so far. The TUI's /clear
// is NewConversation.
func (s *Session) Clear() {
	s.cv.clear()
	s.mem.clearServed()
	s.resetCache(s.set.Seed)
}

// ClearForgets lists what NewConversation forgets, for the TUI's /clear
// to say.
const ClearForgets = "the messages, the KV cache, the answers served from memory and what the living manifold learned (its memory starts empty)"

// NewConversation starts a new conversation in place of this one, as the
// TUI's /clear does: it forgets ClearForgets, and the sections of the
// loaded file it kept without using them. The memory goes with the
// conversation because it holds the conversation's own prompts and
// answers, and is saved in the conversation's file (docs/miku.md): a new
// conversation that kept it would copy the "forgotten" text into its own
// file. The settings, the system prompt, the geometry profile and the
// compression stay.
//
// The session forgets its file too, so that the new conversation is never
// saved over the old one: file ("" for none) is where the next Save goes.
// It must not exist yet: Save creates it, and refuses (ErrExists) if
// someone else has created it meanwhile.
func (s *Session) NewConversation(file string) error {
	// The memory goes first: a manifold that cannot start changes nothing.
	if err := s.mem.restart(s.gm.Profile()); err != nil {
		return err
	}
	s.Clear()
	s.fl.restart(file)
	return nil
}

// Set changes one setting by name, as /set does; Knobs lists the names,
// the values each accepts and what it does. An unknown name or a bad value
// changes nothing.
func (s *Session) Set(name, value string) error {
	return s.SetCtx(context.Background(), name, value, nil)
}

// SetCtx is Set for a caller that can wait and watch: building a GRC
// compression (the knobs marked Build: rank, slots, alloc) reports blocks
// done to progress and stops when ctx is cancelled, changing nothing.
func (s *Session) SetCtx(ctx context.Context, name, value string, progress func(done, total int)) error {
	k, ok := LookupKnob(name)
	if !ok {
		return unknownSetting(name)
	}
	n := s.set
	if err := k.set(s, &n, value); err != nil {
		return fmt.Errorf("%s %q: %w", name, value, err)
	}
	return s.applyCtx(ctx, n, progress)
}

// apply validates and installs settings, keeping the conversation.
func (s *Session) apply(n Settings) error { return s.applyCtx(context.Background(), n, nil) }

func (s *Session) applyCtx(ctx context.Context, n Settings, progress func(done, total int)) error {
	p := sample.Params{
		Temperature: n.Temperature, TopK: n.TopK, TopP: n.TopP, MinP: n.MinP,
		RepeatPenalty: n.RepeatPenalty, Seed: n.Seed,
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := s.comp.useKV(n); err != nil {
		return err
	}
	if s.gen == nil {
		g, err := generate.New(s.st, p)
		if err != nil {
			return err
		}
		s.gen = g
	} else if err := s.gen.SetParams(p); err != nil {
		return err
	}
	s.seed = n.Seed
	if err := s.dr.setParams(p); err != nil {
		return err
	}
	if err := s.comp.useEviction(n); err != nil {
		return err
	}
	if err := s.comp.use(ctx, n, progress); err != nil {
		return err
	}
	if err := s.comp.useKVProj(n); err != nil {
		return err
	}
	if err := s.dr.use(ctx, n, progress); err != nil {
		return err
	}
	if err := s.xp.use(n); err != nil {
		return err
	}
	if err := s.gm.use(n); err != nil {
		return err
	}
	if err := s.sr.use(n); err != nil {
		return fmt.Errorf("steer %q: %w", n.Steer, err)
	}
	if err := s.useFormat(n.Format); err != nil {
		return fmt.Errorf("format %q: %w", n.Format, err)
	}
	s.set = n
	if n.System != "" && !s.cv.hasSystem() {
		s.cv.SetSystem(n.System)
	}
	return nil
}

// nextSeed is the seed of the reply after one drawn from seed: Steele, Lea
// and Flood's splitmix64 mixer, so that consecutive replies draw unrelated
// streams and a fixed seed still gives the same conversation run to run.
func nextSeed(seed uint64) uint64 {
	seed += 0x9e3779b97f4a7c15
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111eb
	return seed ^ (seed >> 31)
}
