package session

import (
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/miku"
)

// The parts of a Session. Each owns its fields; each holds its session
// (s) for what a turn shares: the model, the state, the settings and the
// other parts a mechanism reads (the memory lives in the geometry
// profile's coordinates, the file saves every part).

// Conversation is the conversation part of a Session: the messages, kept
// as a tree of branches (see tree.go), and the engine conversation of the
// branch in use, which fits the prompt into the window and reuses the KV
// cache.
type Conversation struct {
	s    *Session
	conv *conversation.Conversation // the branch in use: messages, or the running text in completion mode
	tree *Tree                      // every branch (chat mode)

	lastInput string // the last message sent, for Regenerate

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
}

// Compression is the compression part of a Session: GRC ranks (built,
// cached, switched) and KV-cache eviction.
type Compression struct {
	s        *Session
	grcb     map[grc.Slots]*grc.Builder  // decompositions, made on the first /set rank
	grcs     map[string]*grc.Compression // compressions built so far: switching back is instant
	grcKey   string                      // the compression in use ("": none)
	cacheDir string                      // where built ranks are cached on disk ("": nowhere)
	kv       *kvState                    // KV eviction, or nil
	kvProj   map[int]*model.KVProjection // KV projections made so far, by rank
}

// Drafting is the speculative decoding part of a Session.
type Drafting struct {
	s           *Session
	drafter     *generate.ModelDrafter // the compressed drafter, or nil
	draftRemove func()                 // removes its hooks on the state (online basis)
	draftKey    string                 // the speculation settings in force ("": off)
}

// Geometry is the geometry part of a Session: the profile running live
// (the TEH gauge), the Snipe projectors and the OGD exploration step.
type Geometry struct {
	s             *Session
	geo           *geometry.Monitor // the geometry profile running live, or nil
	geoRemove     func()            // unregisters geo from the state
	profileDir    string            // where profiles are stored ("": nowhere)
	embed         *geometry.Embedder
	explore       *geometry.Explorer
	exploreRemove func()
	ogdDir        []float64 // a fixed exploration direction (isagi explore), or nil
	ogdSource     string
}

// Memory is the living manifold (COG) part of a Session, in the geometry
// profile's coordinates.
type Memory struct {
	s     *Session
	cog   *cog.Manifold
	cogFP string // the fingerprint of the profile cog was measured in
	// cogKept is the session file's manifold while the session does not
	// use it (no profile attached yet, another profile, unreadable): it is
	// saved back as read, so that a machine without the profile never
	// erases the memory. Never set together with cog.
	cogKept    *keptCOG
	lastServed *served        // the last turn answered from memory, for Regenerate
	served     []ServedAnswer // this conversation's answers served from memory (saved as cog.served)
}

// Files is the persistence part of a Session: the .miku file it was
// loaded from or last saved to.
type Files struct {
	s       *Session
	file    string     // the .miku file loaded or last saved
	created time.Time  // that file's creation time
	stamp   miku.Stamp // that file's content as loaded or last saved: a save over it checks it is unchanged
	// carry are the file's sections this build does not know (a newer
	// ISAGI's), saved back as read.
	carry      []miku.Section
	appVersion string // recorded in saved files
}

// Probe reads the model itself for analysis, on scratch states of its
// own: tokens, the residual stream, embeddings, UGT coordinates.
type Probe struct {
	s   *Session
	src []byte // the model's bytes when opened from memory (the demo)
	sha string // the model file's sha256, once computed
}
