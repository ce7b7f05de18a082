package session

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/jsonwords"
	"github.com/isagi-lab/isagi/miku"
	"gonum.org/v1/gonum/mat"
)

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

// newMemory is the memory part of s, without a manifold until a geometry
// profile is attached.
func newMemory(s *Session) *Memory { return &Memory{s: s} }

// When the living manifold serves a stored answer (docs/geometry.md, "When
// an answer is served from memory"): the tiers are the geometry, and the
// gate decides. An answer is served only for the same request (the exact
// check, cog.SameRequest, in any wording it allows), stored under the same
// live state (memState), and asked at the same point of the same
// conversation or portable (memContext: in chat an answer that opened its
// conversation, in completion mode any); with "memory" off, never.

// memState is the live state an answer depends on beyond the message
// itself: the part of a stored answer's key that must equal the session's
// for the answer to be served (or shown to the model as AUGMENT context).
// Each field is a short token so that keys stay small and a difference can
// be told in words.
type memState struct {
	// Template is "completion", or "chat:" and a hash of the chat
	// template's source: another template renders another prompt.
	Template string
	// System is "none" or a hash of the system prompt (chat mode): it
	// steers every reply.
	System string
	// Temp is the sampler's temperature class: "greedy" (T = 0 or
	// top-k 1: one answer per prompt), "sampled" (0 < T ≤ 1: draws from
	// the model's own distribution) or "hot" (T > 1: a flattened one the
	// user asked for on purpose). Within a class another draw is as good
	// an answer; across classes it is another kind of answer.
	Temp string
	// Snipe is the projectors on ("off" or "a,b"): they remove behaviour
	// directions, and an answer made without them must not come back
	// with them on.
	Snipe string
	// OGD is the exploration step α ("off" or the value): it moves every
	// position's state.
	OGD string
	// GRC is the compression in use ("off" or its rank, slots and
	// allocation): another plan computes other logits.
	GRC string
}

// fields are the state's fields as they appear in a key, in order (name,
// value); "length" follows them.
func (st memState) fields() [6][2]string {
	return [...][2]string{{"template", st.Template}, {"system", st.System}, {"temp", st.Temp},
		{"snipe", st.Snipe}, {"ogd", st.OGD}, {"grc", st.GRC}}
}

// String is the state's part of a key: "template=…;system=…;…".
func (st memState) String() string {
	var b strings.Builder
	for i, f := range st.fields() {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(f[0] + "=" + keyValue(f[1]))
	}
	return b.String()
}

// keyValue keeps a value from breaking the key's syntax.
func keyValue(v string) string {
	return strings.NewReplacer(";", ",", "=", ":").Replace(v)
}

// memKey is the key an answer is stored under: the state and its length
// class — "end:T" for a reply that ended by itself after T tokens, "max:N"
// for one cut at max_tokens N, "cut" for one cut by the context window.
// A cut answer is only served when max_tokens is what cut it; one that
// ended by itself, when it fits max_tokens.
func memKey(st memState, length string) string { return st.String() + ";length=" + length }

// parseMemKey splits a key into its fields; ok is false for a key that
// is not one (a manifold saved before keys: "").
func parseMemKey(key string) (fields map[string]string, ok bool) {
	if key == "" {
		return nil, false
	}
	fields = map[string]string{}
	for _, f := range strings.Split(key, ";") {
		name, v, found := strings.Cut(f, "=")
		if !found {
			return nil, false
		}
		fields[name] = v
	}
	return fields, true
}

// lengthClass is the length part of the key of a reply of tokens tokens
// that stopped for reason stop.
func lengthClass(stop string, tokens, maxTokens int) string {
	switch stop {
	case "token limit":
		return "max:" + strconv.Itoa(maxTokens)
	case "stop token":
		return "end:" + strconv.Itoa(tokens)
	}
	return "cut"
}

// lengthFits reports whether a stored answer of length class l may be
// served with max_tokens n.
func lengthFits(l string, n int) bool {
	kind, v, _ := strings.Cut(l, ":")
	t, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return false
	case kind == "max":
		return t == n
	case kind == "end":
		return t <= n
	}
	return false
}

// state is the session's live state now.
func (mem *Memory) state() memState {
	s := mem.s
	st := memState{Template: "completion", System: "none", Temp: tempClass(s.set), Snipe: "off", OGD: "off", GRC: "off"}
	if t := s.cv.template(); t != nil {
		st.Template = "chat:" + shortHash(t.Source())
		if s.set.System != "" {
			st.System = shortHash(s.set.System)
		}
	}
	if sn := s.gm.Snipes(); len(sn) > 0 {
		st.Snipe = strings.Join(sn, ",")
	}
	if s.gm.exploring() && s.set.OGDAlpha > 0 {
		st.OGD = strconv.FormatFloat(s.set.OGDAlpha, 'g', -1, 64)
	}
	if key := s.comp.inUse(); key != "" {
		st.GRC = key
	}
	return st
}

// tempClass is the temperature class of memState.Temp.
func tempClass(set Settings) string {
	switch {
	case set.Temperature <= 0 || set.TopK == 1:
		return "greedy"
	case set.Temperature <= 1:
		return "sampled"
	}
	return "hot"
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// accepts is the key filter of a lookup under state st with max_tokens n.
func accepts(st memState, n int) func(key string) bool {
	want := st.String() + ";length="
	return func(key string) bool {
		l, ok := strings.CutPrefix(key, want)
		return ok && lengthFits(l, n)
	}
}

// sameState reports whether key was stored under state st, whatever its
// length class.
func sameState(key string, st memState) bool {
	return strings.HasPrefix(key, st.String()+";length=")
}

// stateDiff says in words how key's state differs from st and n (what the
// Manifold pane shows for an answer kept under another state).
func stateDiff(key string, st memState, n int) string {
	f, ok := parseMemKey(key)
	if !ok {
		return "stored before live states were recorded"
	}
	names := map[string]string{"template": "chat template", "system": "system prompt", "temp": "temperature",
		"snipe": "snipe", "ogd": "OGD α", "grc": "GRC"}
	var out []string
	for _, nv := range st.fields() {
		name, v := nv[0], nv[1]
		was := f[name]
		switch {
		case was == keyValue(v):
		case name == "template" || name == "system":
			out = append(out, names[name]+" changed")
		default:
			out = append(out, fmt.Sprintf("%s %s → %s", names[name], was, v))
		}
	}
	if len(out) == 0 {
		kind, t, _ := strings.Cut(f["length"], ":")
		switch kind {
		case "max":
			out = append(out, fmt.Sprintf("its answer was cut at max_tokens %s, now %d", t, n))
		case "end":
			out = append(out, fmt.Sprintf("its answer is %s tokens, max_tokens is %d", t, n))
		default:
			out = append(out, "its answer was cut short by the context window")
		}
	}
	return strings.Join(out, ", ")
}

// cogContext is where in its conversation the next message is asked
// (cog.Context): the conversation so far, fingerprinted — the user's
// messages as the exact check reads them (cog.Normalize: a conversation
// worded otherwise is the same one), the replies as they are, the system
// prompt left out (it is in the live state). The query embedding reads a
// message without its conversation, so this is what tells "now add 5 to
// that" after 3 + 4 from the same message after 10 + 2.
//
// In chat, an answer is portable — served in any context — only when its
// message opened the conversation: it was made from the message alone,
// and no other conversation's content is in it. One given later is served
// only at the same point of the same conversation. In completion mode
// every answer stays portable, as every answer was before contexts were
// recorded: an input is text to continue, served its continuation
// wherever it is typed again (docs/geometry.md says what that costs).
func (mem *Memory) cogContext() cog.Context {
	s := mem.s
	h := sha256.New()
	turns := 0
	for _, m := range s.cv.Transcript() {
		content := m.Content
		switch m.Role {
		case "system":
			continue
		case "user", conversation.RolePrompt:
			content = cog.Normalize(content)
		}
		turns++
		for _, part := range []string{m.Role, content} {
			var n [8]byte
			binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
			h.Write(n[:])
			h.Write([]byte(part))
		}
	}
	return cog.Context{ID: "conv:" + hex.EncodeToString(h.Sum(nil))[:16], Portable: turns == 0 || !s.cv.chat()}
}

// memTurn is one turn's use of the manifold: the lookup, the decision and
// what it says.
type memTurn struct {
	q     []float64
	where cog.Context
	look  cog.Lookup
	dec   cog.Decision
	gate  cog.Gate
	state memState
	// decision is cog.Reason's name, or "memory-off" or "regenerated";
	// gateServed is whether the gate itself would serve.
	decision   string
	why        string
	gateServed bool
}

// decide fills m.decision and m.why; m.dec.Serve is cleared when the
// session may not serve (memory off, a forced regeneration).
func (mem *Memory) decide(m *memTurn, force bool) {
	s := mem.s
	m.dec = m.gate.Decide(m.q, m.look)
	m.decision, m.gateServed = m.dec.Reason.String(), m.dec.Serve
	c := m.dec.Candidate
	switch m.dec.Reason {
	case cog.Served:
		switch {
		case !m.gate.Calibrated:
			m.why = fmt.Sprintf("same request as a stored one, same live state, word for word; d %.4f (RETRIEVE), gate %.4f < τ %.4f", c.Distance, m.dec.Plain, m.gate.Tau)
		case m.dec.InContext:
			m.why = fmt.Sprintf("same request as one asked at this point of the same conversation, same live state (any wording is served; d %.4f)", c.Distance)
		default:
			m.why = fmt.Sprintf("same request as a stored one, same live state, and its answer stands in any conversation (any wording is served; d %.4f)", c.Distance)
		}
	case cog.Empty:
		m.why = "nothing stored yet"
	case cog.OtherRequest:
		if c.Tier == cog.Retrieve || c.Tier == cog.Augment {
			m.why = fmt.Sprintf("not the same request as the nearest, %q (d %.4f)", c.Trajectory.Prompt, c.Distance)
		} else {
			m.why = "a new request"
		}
	case cog.OtherState:
		m.why = "asked before under another live state: " + stateDiff(c.Trajectory.Key, m.state, s.set.MaxTokens)
	case cog.Farther:
		m.why = fmt.Sprintf("asked before, but worded so differently that it lies at d %.4f (outside RETRIEVE)", c.Distance)
	case cog.OverGate:
		m.why = fmt.Sprintf("asked before, but the gate distance %.4f is not under τ %.4f", m.dec.Plain, m.gate.Tau)
	case cog.OtherContext:
		m.why = "asked before at another point of a conversation, and its answer may depend on what came before it: only an answer that opened its conversation is served elsewhere"
	}
	if (m.dec.Reason == cog.Farther || m.dec.Reason == cog.OverGate) && !m.gate.Calibrated {
		m.why += " (the profile has no calibrated gate: only word-for-word repeats are served)"
	}
	switch {
	case force:
		m.dec.Serve, m.decision, m.why = false, "regenerated", "regenerated on request (ctrl+r): the fresh answer replaces the stored one"
	case s.set.MemoryOff && m.dec.Serve:
		m.dec.Serve, m.decision, m.why = false, "memory-off", "memory is off (/set memory on serves repeats again)"
	}
}

// augmentWith is the stored answer an AUGMENT turn shows the model: the
// nearest under the same live state, when the geometry says AUGMENT (or a
// RETRIEVE-close answer that was not served) and memory is on.
func (m *memTurn) augmentWith(off bool) string {
	if off || !m.look.Near.Found || m.look.Near.Tier > cog.Augment {
		return ""
	}
	return m.look.Near.Trajectory.Answer
}

// record stores the turn's answer. It replaces the stored answer the gate
// would have served — the turn was a regeneration, or memory is off — so
// that the next repeat serves the fresh one; otherwise it is a new
// trajectory with the geometry's tier, RETRIEVE stored as AUGMENT: a
// RETRIEVE-close answer that was not served is another request's, another
// state's or another wording's, and keeps its own place (so switching a
// knob back finds the answer made under it).
func (mem *Memory) record(m *memTurn, input, answer, length string, now time.Time) error {
	key := memKey(m.state, length)
	var err error
	if m.gateServed {
		_, err = mem.cog.ReplaceIn(m.dec.Candidate.Trajectory.ID, m.q, input, answer, key, m.where, now)
	} else {
		tier := m.look.Nearest.Tier
		if tier == cog.Retrieve {
			tier = cog.Augment
		}
		_, err = mem.cog.RecordIn(m.q, input, answer, key, m.where, tier, now)
	}
	if err != nil {
		return fmt.Errorf("session: storing the answer in the manifold: %w", err)
	}
	return nil
}

// ServedAnswer is an answer the session served from memory, as its .miku
// file records it (section "cog.served").
type ServedAnswer struct {
	// Prompt is the message as the user sent it; Answer what was served.
	Prompt string `json:"prompt"`
	Answer string `json:"answer"`
	// Stored is the stored request it was served for (the same request,
	// perhaps worded with other case, spacing or punctuation) and
	// Trajectory its id in the manifold.
	Stored     string `json:"stored"`
	Trajectory uint64 `json:"trajectory"`
	// Distance is the manifold distance, Gate the plain distance and Tau
	// the profile's threshold (only a profile without a calibrated gate
	// needs Gate under Tau: word for word); SameContext says the stored
	// request was asked at the same point of the same conversation (else
	// its answer is portable).
	Distance    float64   `json:"distance"`
	Gate        float64   `json:"gate"`
	Tau         float64   `json:"tau"`
	SameContext bool      `json:"same_context,omitempty"`
	Time        time.Time `json:"time"`
}

// sectionCOGServed is the .miku section listing the answers served from
// memory.
const sectionCOGServed = "cog.served"

// servedFile is the section's JSON body.
type servedFile struct {
	Served []ServedAnswer `json:"served"`
}

// Served lists the answers of this conversation that were served from
// memory, oldest first (a copy).
func (mem *Memory) Served() []ServedAnswer {
	return append([]ServedAnswer(nil), mem.served...)
}

// servedSection is the section recording the served answers, or nil when
// there are none.
func (mem *Memory) servedSection() (*miku.Section, error) {
	if len(mem.served) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(servedFile{Served: mem.served})
	if err != nil {
		return nil, fmt.Errorf("session: served answers: %w", err)
	}
	return &miku.Section{Name: sectionCOGServed, Data: b}, nil
}

// loadServed restores the record of served answers; a section that cannot
// be read is left out with a note (the conversation itself is intact).
func (mem *Memory) loadServed(f *miku.File) (notes []string) {
	mem.served = nil
	sec, ok := f.Section(sectionCOGServed)
	if !ok {
		return nil
	}
	var sf servedFile
	if err := json.Unmarshal(sec.Data, &sf); err != nil {
		return []string{fmt.Sprintf("the record of which answers came from memory could not be read (%s): the conversation is intact", jsonwords.String(err))}
	}
	mem.served = sf.Served
	return nil
}

// lookup embeds input and looks it up under the live state; ok is false
// without a manifold.
func (mem *Memory) lookup(ctx context.Context, input string) (m memTurn, ok bool, err error) {
	s := mem.s
	if mem.cog == nil || !s.gm.embeds() {
		return memTurn{}, false, nil
	}
	if m.q, err = s.gm.embed(ctx, input); err != nil {
		return memTurn{}, false, fmt.Errorf("session: embedding the query: %w", err)
	}
	m.state, m.where = mem.state(), mem.cogContext()
	if m.look, err = mem.cog.FindIn(m.q, input, m.where.ID, accepts(m.state, s.set.MaxTokens)); err != nil {
		return memTurn{}, false, fmt.Errorf("session: looking the query up: %w", err)
	}
	m.gate = s.gm.Profile().MemoryGate()
	return m, true, nil
}

// AugmentedPrompt is the prompt Send feeds for message as the first turn
// of a new conversation — after the system prompt, if one is set — with
// shown as the AUGMENT tier's earlier answer ("" for none), fitted to
// the window as Send fits it. It is what `isagi eval cog --augment`
// decodes, so that the measurement shows the model exactly what a session
// shows it. Chat mode only: AUGMENT shows nothing in completion mode.
func (mem *Memory) AugmentedPrompt(message, shown string) ([]int32, error) {
	s := mem.s
	tmpl := s.cv.template()
	if tmpl == nil {
		return nil, fmt.Errorf("session: %s has no chat template, and AUGMENT shows an earlier answer in chat mode only", s.Info().Name)
	}
	c := conversation.New(s.tok, tmpl)
	c.SetSystem(s.set.System)
	p, err := c.Add(message, shown, s.st.MaxPos(), min(s.set.MaxTokens, s.st.MaxPos()/2))
	if err != nil {
		return nil, fmt.Errorf("session: the augmented prompt: %w", err)
	}
	return p.IDs, nil
}

// start gives a newly attached profile its manifold: the one kept from
// a session file when it was measured in this profile, else a new one —
// unless the file's manifold cannot be used with it, which stays kept
// (saved back unchanged) and leaves the session without memory; note
// says why.
func (mem *Memory) start(p *geometry.Profile) (note string, err error) {
	if mem.cogKept != nil {
		mem.cog, mem.cogFP = nil, ""
		return mem.useKept(p), nil
	}
	m, err := cog.New(cog.Config{Dim: p.K})
	if err != nil {
		return "", err
	}
	mem.cog, mem.cogFP = m, p.Fingerprint()
	return "", nil
}

// useKept starts using the kept manifold if it was measured in p, and
// otherwise says why it stays unused ("" when it is in use and there is
// nothing to tell).
func (mem *Memory) useKept(p *geometry.Profile) string {
	k := mem.cogKept
	if !k.usable {
		return k.why
	}
	fp := p.Fingerprint()
	if k.fp != fp {
		return fmt.Sprintf("the saved living manifold was measured with another geometry profile (%s; this one is %s): %s", k.fp, fp, keptSuffix)
	}
	m, err := cog.Decode(k.sections[0].Data)
	if err == nil && m.Dim() != p.K {
		err = fmt.Errorf("%d coordinates, the profile has %d", m.Dim(), p.K)
	}
	if err != nil {
		k.usable, k.why = false, fmt.Sprintf("the saved living manifold could not be read (%v): %s", err, keptSuffix)
		return k.why
	}
	mem.cog, mem.cogFP, mem.cogKept = m, fp, nil
	return keylessNote(m)
}

// waitingNote says, once, that the kept manifold waits for a profile
// ("" when there is nothing to say): a caller that attaches the profile
// after loading the file (isagi run --session, the TUI's start) asks
// Notes after it, so only a profile that did not come is told.
func (mem *Memory) waitingNote() string {
	s := mem.s
	k := mem.cogKept
	if k == nil || !k.usable || s.gm.Profile() != nil || k.told {
		return ""
	}
	k.told = true
	return fmt.Sprintf("the saved living manifold is inactive: it was measured with geometry profile %s, and no geometry profile is attached (none for this model here); it is kept in the session file unchanged, and is used again wherever that profile is attached", k.fp)
}

// turn describes a turn's decision after it was recorded. A served
// turn shows the trajectory it was served from; any other, the nearest.
func (mem *Memory) turn(m *memTurn, retrieved bool) *COGTurn {
	near := m.look.Nearest
	if retrieved {
		near = m.dec.Candidate
	}
	t := &COGTurn{Tier: near.Tier.String(), Distance: near.Distance, Retrieved: retrieved,
		Decision: m.decision, Why: m.why, SameContext: retrieved && m.dec.InContext, Gate: m.dec.Plain, Tau: m.gate.Tau,
		Growth: mem.cog.Growth(), Trajectories: mem.cog.Len()}
	if near.Found {
		t.Nearest = near.Trajectory.Prompt
	}
	return t
}

// serveRetrieved answers from memory: the stored answer, streamed as one
// piece, added to the conversation like a generated one, and noted in the
// record of served answers the session file keeps.
func (mem *Memory) serveRetrieved(input string, m *memTurn, start time.Time, emit func(Event)) (Turn, error) {
	s := mem.s
	c := m.dec.Candidate
	ans := c.Trajectory.Answer
	mem.lastServed = &served{input: input, answer: ans}
	s.cv.addExchange(input, ans) // nothing was decoded: the cache lacks it until the next turn
	emit(Event{Piece: ans, Elapsed: time.Since(start), ID: -1})
	now := time.Now()
	if err := mem.cog.Touch(c.Trajectory.ID, now); err != nil {
		return Turn{}, err
	}
	mem.served = append(mem.served, ServedAnswer{Prompt: input, Answer: ans, Stored: c.Trajectory.Prompt,
		Trajectory: c.Trajectory.ID, Distance: c.Distance, Gate: m.dec.Plain, Tau: m.gate.Tau, SameContext: m.dec.InContext, Time: now.UTC()})
	t := Turn{Text: ans, Stop: "retrieved", COG: mem.turn(m, true)}
	t.ContextUsed, _ = s.cv.ContextUsed()
	s.cv.record(input, &t)
	return t, nil
}

// Stats describes the living manifold; ok is false without one.
func (mem *Memory) Stats() (ManifoldStats, bool) {
	s := mem.s
	if mem.cog == nil {
		return ManifoldStats{}, false
	}
	st := ManifoldStats{Growth: mem.cog.Growth(), Trajectories: mem.cog.Len(), Clusters: mem.cog.Clusters(), Alpha: s.set.OGDAlpha,
		MemoryOff: s.set.MemoryOff}
	if p := s.gm.Profile(); p != nil {
		g := p.MemoryGate()
		st.Tau, st.Calibrated = g.Tau, g.Calibrated
	}
	if ev, err := mem.cog.TopEigen(min(4, mem.cog.Dim())); err == nil {
		st.TopEigen = ev
	}
	if pts, err := mem.cog.Project2D(); err == nil {
		st.Points = pts
	}
	st.Direction = s.gm.direction()
	return st, true
}

// dropServed forgets the last served answer, taken back out of the
// conversation.
func (mem *Memory) dropServed() {
	if n := len(mem.served); n > 0 {
		mem.served = mem.served[:n-1]
	}
}

func (mem *Memory) metric() *mat.SymDense {
	if mem.cog == nil {
		return nil
	}
	return mem.cog.Metric()
}

// sections are the manifold's sections for a session file: the one in
// use, or the one kept from the loaded file as it was read.
func (mem *Memory) sections() ([]miku.Section, error) {
	if mem.cog == nil {
		if mem.cogKept != nil {
			return mem.cogKept.sections, nil
		}
		return nil, nil
	}
	data, err := mem.cog.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("session: the living manifold: %w", err)
	}
	prof, err := json.Marshal(cogProfile{Fingerprint: mem.cogFP, K: mem.cog.Dim()})
	if err != nil {
		return nil, fmt.Errorf("session: the living manifold's profile record: %w", err)
	}
	// Not required: an older reader keeps the conversation and skips the
	// manifold.
	return []miku.Section{{Name: sectionCOG, Data: data}, {Name: sectionCOGProfile, Data: prof}}, nil
}

// load takes the living manifold of a session file in place of the
// session's: the memory belongs to the conversation and its file. It is
// used at once when the profile it was measured in is attached, else kept
// as read (and used if that profile is attached later, SetGeometry). A
// file without one starts a new manifold when a profile is attached.
// sameModel is false for a file saved with another model (loaded with
// force), whose manifold is kept and never used.
func (mem *Memory) load(f *miku.File, sameModel bool) (notes []string) {
	s := mem.s
	mem.cog, mem.cogFP, mem.cogKept = nil, "", nil
	sec, ok := f.Section(sectionCOG)
	if !ok {
		if p := s.gm.Profile(); p != nil {
			m, err := cog.New(cog.Config{Dim: p.K})
			if err != nil {
				return []string{"the living manifold could not start: " + err.Error()}
			}
			mem.cog, mem.cogFP = m, p.Fingerprint()
		}
		return nil
	}
	k := &keptCOG{sections: []miku.Section{cloneSection(sec)}}
	ps, hasProf := f.Section(sectionCOGProfile)
	if hasProf {
		k.sections = append(k.sections, cloneSection(ps))
	}
	var prof cogProfile
	switch {
	case !sameModel:
		k.why = "the saved living manifold belongs to the other model and is not used: " + keptSuffix
	case !hasProf || json.Unmarshal(ps.Data, &prof) != nil:
		k.why = "the saved living manifold has no readable profile record, so it cannot be used: " + keptSuffix
	default:
		k.fp, k.usable = prof.Fingerprint, true
	}
	mem.cogKept = k
	if !k.usable {
		return []string{k.why}
	}
	p := s.gm.Profile()
	if p == nil {
		return nil // used by SetGeometry, or told by Notes
	}
	if note := mem.useKept(p); note != "" {
		return []string{note}
	}
	return nil
}

// restart starts the memory again, empty, for a new conversation: a new
// manifold in profile p's coordinates (none without p), the kept one
// dropped. An error changes nothing.
func (mem *Memory) restart(p *geometry.Profile) error {
	var m *cog.Manifold
	if p != nil {
		var err error
		if m, err = cog.New(cog.Config{Dim: p.K}); err != nil {
			return fmt.Errorf("session: a new living manifold: %w", err)
		}
	}
	mem.cog, mem.cogKept = m, nil
	if m != nil {
		mem.cogFP = p.Fingerprint()
	}
	return nil
}

// detach stops using the manifold as its profile is detached: the memory
// outlives its profile, kept, saved with the conversation and used again
// when the profile comes back.
func (mem *Memory) detach() error {
	if mem.cog != nil {
		cs, err := mem.sections()
		if err != nil {
			return err
		}
		mem.cogKept = &keptCOG{sections: cs, fp: mem.cogFP, usable: true}
	}
	mem.cog, mem.cogFP = nil, ""
	return nil
}

// last is the last turn if it was answered from memory: its input and
// answer (ok false otherwise), for Regenerate to take it back.
func (mem *Memory) last() (input, answer string, ok bool) {
	if mem.lastServed == nil {
		return "", "", false
	}
	return mem.lastServed.input, mem.lastServed.answer, true
}

// forgetLast forgets which turn was last answered from memory: another
// turn came after it, or the conversation moved.
func (mem *Memory) forgetLast() { mem.lastServed = nil }

// takeBackLast forgets the last answer served from memory, taken back out
// of the conversation, and its record.
func (mem *Memory) takeBackLast() {
	mem.lastServed = nil
	mem.dropServed()
}

// clearServed forgets the conversation's answers served from memory.
func (mem *Memory) clearServed() { mem.served, mem.lastServed = nil, nil }
