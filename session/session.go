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
	"slices"
	"time"

	"github.com/isagi-lab/isagi/miku"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
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
	Name        string // general.name, else the file name
	Path        string // the file, or "demo:kjv-q8_0.gguf" for the embedded demo
	Arch        string // general.architecture
	Params      int64  // parameter count (elements of all tensors)
	FileBytes   int64  // bytes of tensor data
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
	Kernels string // the CPU's kernels, "avx2" or "go" ("" on another backend)
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
}

// Event is one step of a streaming reply.
type Event struct {
	Piece     string        // text decoded by this step (may be empty while a UTF-8 sequence is incomplete)
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
}

// Turn is a finished reply.
type Turn struct {
	Text        string
	Tokens      int // generated, the stop token included
	PromptTok   int // tokens fed for this turn (new ones only, after cache reuse)
	TimeToFirst time.Duration
	PrefillTokS float64
	DecodeTokS  float64
	Stop        string // why it ended: "stop token", "token limit", "context full", "cancelled"
	Dropped     int    // oldest turns dropped to make room before this one
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
type Session struct {
	m   *model.Model
	tok *tokenizer.Tokenizer
	// b runs every State of the session (the conversation's, the
	// drafter's, calibration's), one at a time as the session is used;
	// closeB closes it (the session that made it; a no-op for a fork's).
	b      backend.Backend
	closeB func()
	st     *model.State
	gen    *generate.Generator
	info   Info
	set    Settings
	stops  []int32

	conv *conversation.Conversation // the messages, or the running text in completion mode

	src     []byte     // the model's bytes when opened from memory (the demo)
	sha     string     // the model file's sha256, once computed
	file    string     // the .miku file loaded or last saved
	created time.Time  // that file's creation time
	stamp   miku.Stamp // that file's content as loaded or last saved: a save over it checks it is unchanged

	appVersion string // recorded in saved files

	grcb     map[grc.Slots]*grc.Builder  // decompositions, made on the first /set rank
	grcs     map[string]*grc.Compression // compressions built so far: switching back is instant
	grcKey   string                      // the compression in use ("": none)
	cacheDir string                      // where built ranks are cached on disk ("": nowhere)

	drafter     *generate.ModelDrafter // the compressed drafter, or nil
	kv          *kvState               // KV eviction, or nil
	draftRemove func()                 // removes its hooks on the state (online basis)
	draftKey    string                 // the speculation settings in force ("": off)

	geo        *geometry.Monitor // the geometry profile running live, or nil
	geoRemove  func()            // unregisters geo from the state
	profileDir string            // where profiles are stored ("": nowhere)

	// The living manifold (COG) and the exploration step (OGD), both in
	// the geometry profile's coordinates.
	cog   *cog.Manifold
	cogFP string // the fingerprint of the profile cog was measured in
	// cogKept is the session file's manifold while the session does not
	// use it (no profile attached yet, another profile, unreadable): it is
	// saved back as read, so that a machine without the profile never
	// erases the memory. Never set together with cog.
	cogKept *keptCOG
	// carry are the file's sections this build does not know (a newer
	// ISAGI's), saved back as read.
	carry         []miku.Section
	embed         *geometry.Embedder
	explore       *geometry.Explorer
	exploreRemove func()
	ogdDir        []float64 // a fixed exploration direction (isagi explore), or nil
	ogdSource     string
	lastInput     string         // the last message sent, for Regenerate
	lastServed    *served        // the last turn answered from memory, for Regenerate
	served        []ServedAnswer // this conversation's answers served from memory (saved as cog.served)
	notes         []string       // for the user, see Notes

	// convTok is how many tokens the conversation is as the model reads
	// it, for when the KV cache does not hold all of it: a loaded file's
	// conversation, an exchange served from memory, a conversation kept
	// through a reset of the cache are computed only at the next turn, but
	// they fill the window from then on, and ContextUsed says so.
	// convStale says the conversation changed since it was counted: it is
	// counted again at the next ContextUsed (once per change, not per
	// frame of the TUI). A decoded turn leaves the cache holding the
	// conversation and sets both to zero: the cache's own length is exact.
	convTok   int
	convStale bool

	// forked says the session shares another's model (Fork): Close leaves
	// the model and the backend to the session that loaded them.
	forked bool
}

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
	s.stopDraft()
	if s.st != nil {
		s.st.Close()
	}
}

// ContextUsed is how many tokens of the context window the conversation
// fills, and the window's size: what the KV cache holds, or, when the
// cache lags the conversation (a session just loaded, an answer served
// from memory, the cache reset by a setting), what the conversation will
// occupy at the next turn — a resumed conversation does not read 0.
func (s *Session) ContextUsed() (used, limit int) {
	if s.convStale {
		s.convTok, s.convStale = s.conversationTokens(), false
	}
	// The larger of the two, not their sum: the cache holds a prefix of
	// the conversation. The history holds the last sampled token too,
	// which is not in the cache yet: a reply that filled the window would
	// read 257/256 without the cap, and so would a loaded conversation
	// longer than this session's window (the next turn drops or trims it).
	return min(max(len(s.gen.History()), s.convTok), s.st.MaxPos()), s.st.MaxPos()
}

// cacheLags notes that the conversation changed without the KV cache
// following it (or the cache was emptied with the conversation kept):
// ContextUsed counts the conversation again.
func (s *Session) cacheLags() { s.convStale = true }

// cacheHolds notes that a decoded turn left the KV cache holding the
// conversation: ContextUsed reads the cache again.
func (s *Session) cacheHolds() { s.convTok, s.convStale = 0, false }

// resetCache empties the KV cache (the next turn recomputes the
// conversation from its first token) and restarts sampling from seed.
func (s *Session) resetCache(seed uint64) {
	s.gen.Reset(seed)
	s.cacheLags()
}

// conversationTokens is how many tokens the conversation is as the next
// turn's prompt starts: the chat messages through the template (without
// the header that opens a reply), or the running text in completion mode.
// A conversation with nothing but a system message counts 0, as the cache
// of a fresh conversation does; so does one that does not render (the
// next turn says why), leaving the cache's count.
func (s *Session) conversationTokens() int {
	rec := s.conv.Record()
	tmpl := s.conv.Template()
	if tmpl == nil {
		if rec.Text == "" {
			return 0
		}
		ids, err := s.tok.Encode(rec.Text, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			return 0
		}
		return len(ids)
	}
	if !slices.ContainsFunc(rec.Messages, func(m chat.Message) bool { return m.Role != "system" }) {
		return 0
	}
	p, err := tmpl.Render(rec.Messages, chat.Options{})
	if err != nil {
		return 0
	}
	ids, err := s.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
	if err != nil {
		return 0
	}
	return len(ids)
}

// Clear forgets the conversation's messages, its KV cache and its record
// of answers served from memory (the system message stays). It keeps the
// living manifold and the session file: scripts and tests use it to ask
// from a fresh context against the memory built so far. The TUI's /clear
// is NewConversation.
func (s *Session) Clear() {
	s.conv.Clear()
	s.served, s.lastServed, s.lastInput = nil, nil, ""
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
	var m *cog.Manifold
	if s.geo != nil {
		var err error
		if m, err = cog.New(cog.Config{Dim: s.geo.Profile().K}); err != nil {
			return fmt.Errorf("session: a new living manifold: %w", err)
		}
	}
	s.Clear()
	s.cog, s.cogKept, s.carry = m, nil, nil
	if m != nil {
		s.cogFP = s.geo.Profile().Fingerprint()
	}
	s.file, s.created, s.stamp = file, time.Time{}, miku.Stamp{}
	return nil
}

// SetSystem sets (or, with "", removes) the system message of the
// conversation; it applies from the next turn.
func (s *Session) SetSystem(text string) {
	s.set.System = text
	s.conv.SetSystem(text)
	s.cacheLags()
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
	if err := s.useKV(n); err != nil {
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
	if s.drafter != nil {
		if err := s.drafter.SetParams(p); err != nil {
			return err
		}
	}
	if err := s.useEviction(n); err != nil {
		return err
	}
	if err := s.useRank(ctx, n, progress); err != nil {
		return err
	}
	if err := s.useDraft(ctx, n, progress); err != nil {
		return err
	}
	if s.geo != nil {
		// Without a profile the toggles wait in the settings until
		// SetGeometry (a session saved with projectors on, loaded first).
		if err := s.useSnipe(n.Snipe); err != nil {
			return err
		}
		if err := s.useOGD(n.OGDAlpha); err != nil {
			return err
		}
	}
	s.set = n
	if n.System != "" && !s.conv.HasSystem() {
		s.SetSystem(n.System)
	}
	return nil
}

// useRank switches the state's path to the GRC compression the settings
// ask for (rank 0: off). The first switch for a slot set decomposes every
// block (seconds to minutes on a large model; progress is told, ctx stops
// it); a compression is read from the disk cache when it is there, and
// kept in memory once built, so switching back and forth is instant. The
// KV cache was written under the old path, so the conversation is
// recomputed on the next turn.
func (s *Session) useRank(ctx context.Context, n Settings, progress func(done, total int)) error {
	want, key := GRCJob{}, ""
	if n.Rank > 0 {
		var err error
		if want, err = s.grcSpec(n); err != nil {
			return err
		}
		key = want.Key()
	}
	if key == s.grcKey {
		return nil
	}
	var g *grc.Compression
	if key != "" {
		var err error
		if g, err = s.compression(ctx, want, progress); err != nil {
			return err
		}
	}
	if err := grc.Use(s.st, g); err != nil {
		return err
	}
	s.grcKey = key
	s.resetCache(s.set.Seed)
	return nil
}

// compression returns the compression job asks for: from memory when this
// session built it already, else from the disk cache or built (the one
// build path, shared with isagi run|bench|ppl --rank), and kept in memory
// so that switching back is instant.
func (s *Session) compression(ctx context.Context, job GRCJob, progress func(done, total int)) (*grc.Compression, error) {
	key := job.Key()
	if g := s.grcs[key]; g != nil {
		return g, nil
	}
	if s.grcb == nil {
		s.grcb = map[grc.Slots]*grc.Builder{}
	}
	gb := s.grcb[job.Spec.Slots]
	if gb == nil {
		var err error
		if gb, err = grc.NewBuilder(s.m, job.Spec.Slots); err != nil {
			return nil, err
		}
		s.grcb[job.Spec.Slots] = gb
	}
	cache, err := s.GRCCache()
	if err != nil {
		cache = nil // no cache: build, and keep it in memory only
	}
	g, _, err := BuildGRC(ctx, s.m, s.b, gb, cache, job, progress)
	if err != nil {
		return nil, err
	}
	if s.grcs == nil {
		s.grcs = map[string]*grc.Compression{}
	}
	s.grcs[key] = g
	return g, nil
}

// grcSpec is the compression the settings ask for (MCR calibrates on the
// built-in text), checked by ResolveGRC as the command-line flags are.
func (s *Session) grcSpec(n Settings) (GRCJob, error) {
	req := GRCRequest{Rank: n.Rank, Slots: grc.QKV, Alloc: grc.AllocUniform}
	var err error
	if n.Slots != "" {
		if req.Slots, err = grc.ParseSlots(n.Slots); err != nil {
			return GRCJob{}, err
		}
	}
	if n.Alloc != "" {
		if req.Alloc, err = grc.ParseAlloc(n.Alloc); err != nil {
			return GRCJob{}, err
		}
	}
	return ResolveGRC(s.m, s.tok, req)
}
