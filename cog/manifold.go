package cog

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// DefaultCapacity is the default bound on stored trajectories.
const DefaultCapacity = 10000

// MaxCapacity is the largest store bound accepted (and decoded).
const MaxCapacity = 1 << 24

// resyncEvery is how many metric updates may pass before the cached
// quadratic forms are recomputed from scratch. Between resyncs they are
// followed incrementally, a sum of non-negative terms whose relative
// rounding error grows at most by one ulp per update; the resync keeps a
// session of millions of turns as exact as a fresh one, at an amortised
// cost of O(n·k²/resyncEvery) per update.
const resyncEvery = 4096

// Trajectory is one answered query: where it sat in query space, what was
// asked and answered, and how it has been used since.
type Trajectory struct {
	// ID is unique within a Manifold and never reused, eviction included.
	ID uint64
	// Embedding is the query embedding q (length k).
	Embedding []float64
	// Prompt and Answer are the text of the turn.
	Prompt, Answer string
	// Key names the live state the answer was given under (the caller's
	// opaque string: see Find); "" for none.
	Key string
	// Context is where in a conversation the prompt was asked (see
	// Context and FindIn).
	Context Context
	// Tier is the tier the turn was recorded with.
	Tier Tier
	// Time is when it was recorded.
	Time time.Time
	// Cluster is the cluster id: a fresh one for EXPLORE, else the
	// nearest stored trajectory's at the time of recording.
	Cluster int
	// Uses counts the RETRIEVE hits that served this answer (Touch); a
	// regeneration that replaces the trajectory inherits it.
	Uses int
	// LastUsed is the time of the last use, or Time if never used.
	LastUsed time.Time
}

// Context is where in a conversation a prompt was asked, as far as the
// memory needs to know (docs/geometry.md, "When an answer is served from
// memory"). A conversation gives a message its meaning ("now add 5 to
// that"), and the query embedding is read without it, so it cannot tell
// two conversations apart: the caller fingerprints the conversation
// instead.
type Context struct {
	// ID fingerprints the conversation before the prompt (the caller's
	// opaque string). A stored answer asked again in the same context is
	// the same prompt to the model but for the wording of the request.
	// "" is no known context and equals none, not even another "".
	ID string
	// Portable says that the answer does not depend on the conversation
	// it was given in (the caller's judgement: in chat, a message that
	// opened its conversation), so that it may be served in any context;
	// one that is not is served only in its own (Gate.Decide).
	Portable bool
}

// Uncontexted is the context of a trajectory recorded without one (Record,
// RecordKey, Replace, and every trajectory of an encoding before version
// 3): portable, in no known context — served in any context, as every
// answer was before contexts were recorded.
func Uncontexted() Context { return Context{Portable: true} }

// Match is the answer to a Query.
type Match struct {
	// Found is false when the store is empty; Trajectory is then zero.
	Found bool
	// Trajectory is a copy of the nearest stored trajectory.
	Trajectory Trajectory
	// Distance is the metric distance to it (1 when nothing is stored).
	Distance float64
	// Tier is TierOf(Distance).
	Tier Tier
}

// Point is one trajectory's position in a Project2D plot.
type Point struct {
	ID      uint64 // the trajectory's ID
	Cluster int    // its cluster, for colouring
	Tier    Tier   // the tier it was recorded with
	X, Y    float64
}

// Config parameterises New. Zero fields take the defaults.
type Config struct {
	// Dim is the embedding dimension k (required, 1…MaxDim).
	Dim int
	// Capacity bounds the store; 0 means DefaultCapacity.
	Capacity int
	// Eta is the metric learning rate η; 0 means DefaultEta.
	Eta float64
}

// entry is a stored trajectory without its embedding, which lives in the
// Manifold's flat embedding array for the sake of the query loop.
type entry struct {
	id             uint64
	prompt, answer string
	key            string
	ctx            Context
	norm           string // Normalize(prompt), cached for Find
	tier           Tier
	time, lastUsed time.Time
	cluster        int
	uses           int
}

// Manifold is the living manifold: the metric M, the bounded trajectory
// store and the parameters that tie them together.
//
// Queries are the hot path, so the store is laid out for them. With
// p = Mq, the distance to stored e_i is 1 − (p·e_i)/(‖q‖_M ‖e_i‖_M), so a
// query is one k×k product and then one length-k dot product per stored
// trajectory over a contiguous array. The norms ‖e_i‖²_M = e_iᵀMe_i are
// cached and, because M only changes by η u uᵀ (and SPDFloor·I), followed
// in O(k) each per update: e_iᵀM'e_i = e_iᵀMe_i + η(u·e_i)². That is
// cheaper than the alternative of factoring M = LLᵀ and storing each
// normalised Lᵀe_i, which must re-transform every embedding, O(n·k²),
// after each novel turn; the query cost is the same.
//
// A Manifold is not safe for concurrent use: guard it with a mutex if
// goroutines share it. The zero Manifold is empty and unusable (its
// methods return errors); build one with New or Decode.
type Manifold struct {
	metric      Metric
	eta         float64
	capacity    int
	nextID      uint64
	nextCluster int

	// Slot-ordered store: entry i's embedding is emb[i*k:(i+1)*k].
	entries []entry
	emb     []float64
	quad    []float64 // e_iᵀ M e_i
	inv     []float64 // 1/√quad, or 0 for a zero embedding
	norm2   []float64 // ‖e_i‖², for following the SPDFloor guard
	byID    map[uint64]int
	members map[int]int // cluster id → number of stored trajectories

	sinceResync int
}

// New returns an empty manifold with M = I.
func New(cfg Config) (*Manifold, error) {
	if cfg.Capacity == 0 {
		cfg.Capacity = DefaultCapacity
	}
	if cfg.Eta == 0 {
		cfg.Eta = DefaultEta
	}
	if cfg.Capacity < 1 || cfg.Capacity > MaxCapacity {
		return nil, fmt.Errorf("cog: capacity %d outside 1…%d", cfg.Capacity, MaxCapacity)
	}
	if !(cfg.Eta > 0) || math.IsInf(cfg.Eta, 0) {
		return nil, fmt.Errorf("cog: learning rate η = %v, want finite and > 0", cfg.Eta)
	}
	met, err := NewMetric(cfg.Dim)
	if err != nil {
		return nil, fmt.Errorf("cog: new manifold: %w", err)
	}
	return &Manifold{
		metric:   *met,
		eta:      cfg.Eta,
		capacity: cfg.Capacity,
		byID:     make(map[uint64]int),
		members:  make(map[int]int),
	}, nil
}

// Dim returns the embedding dimension k.
func (m *Manifold) Dim() int { return m.metric.k }

// Eta returns the metric learning rate.
func (m *Manifold) Eta() float64 { return m.eta }

// Cap returns the store bound.
func (m *Manifold) Cap() int { return m.capacity }

// Len returns the number of stored trajectories.
func (m *Manifold) Len() int { return len(m.entries) }

// Clusters returns the number of distinct clusters among the stored
// trajectories (a cluster whose members were all evicted is not counted).
func (m *Manifold) Clusters() int { return len(m.members) }

// Growth returns ‖M − I‖_F.
func (m *Manifold) Growth() float64 { return m.metric.Growth() }

// Metric returns a copy of M.
func (m *Manifold) Metric() *mat.SymDense { return m.metric.SymDense() }

// Distance is the metric distance between two embeddings (see
// Metric.Distance).
func (m *Manifold) Distance(a, b []float64) (float64, error) {
	return m.metric.Distance(a, b)
}

// Query finds the stored trajectory nearest to q in the metric and
// classifies the distance. With an empty store it returns Found false,
// Distance 1 and Explore. Ties go to the earlier storage slot. Errors:
// wrong length or non-finite values.
func (m *Manifold) Query(q []float64) (Match, error) {
	if err := m.ready(); err != nil {
		return Match{}, err
	}
	if err := m.metric.checkVec("query", q); err != nil {
		return Match{}, err
	}
	i, d := m.nearest(q)
	if i < 0 {
		return Match{Distance: 1, Tier: Explore}, nil
	}
	return Match{Found: true, Trajectory: m.trajectory(i), Distance: d, Tier: TierOf(d)}, nil
}

// ready rejects the zero Manifold, whose maps are nil.
func (m *Manifold) ready() error {
	if m.metric.k == 0 || m.byID == nil {
		return errors.New("cog: zero Manifold (use New or Decode)")
	}
	return nil
}

// nearest returns the slot of the nearest trajectory and its distance, or
// −1 and 1 for an empty store. q must be validated.
func (m *Manifold) nearest(q []float64) (int, float64) {
	n := len(m.entries)
	if n == 0 {
		return -1, 1
	}
	k := m.metric.k
	p := make([]float64, k)
	m.metric.mulVec(p, q)
	qq := floats.Dot(q, p)
	// Maximise the cosine: sim_i = (p·e_i)/‖e_i‖_M; the query's own norm
	// is a common factor and is divided out once at the end.
	best, bestSim := 0, math.Inf(-1)
	emb := m.emb
	for i := range n {
		s := floats.Dot(p, emb[i*k:(i+1)*k]) * m.inv[i]
		if s > bestSim {
			best, bestSim = i, s
		}
	}
	if !(qq > 0) {
		return best, 1
	}
	return best, clampDist(1 - bestSim/math.Sqrt(qq))
}

// best is a slot and its distance (slot −1: none).
type best struct {
	slot int
	dist float64
	sim  float64
}

// scanResult holds the nearest trajectories Find reports.
type scanResult struct{ nearest, near, same, sameCtx, samePortable, sameAny best }

// scan is nearest with the filtered candidates of FindIn in the same
// pass. q must be validated; norm is Normalize of the query's prompt and
// ctx the context it is asked in. Keys are asked about once each per scan
// (a store holds few distinct keys).
func (m *Manifold) scan(q []float64, norm, ctx string, accept func(string) bool) scanResult {
	none := best{slot: -1, dist: 1, sim: math.Inf(-1)}
	r := scanResult{none, none, none, none, none, none}
	n := len(m.entries)
	if n == 0 {
		return r
	}
	k := m.metric.k
	p := make([]float64, k)
	m.metric.mulVec(p, q)
	qq := floats.Dot(q, p)
	seen := map[string]bool{}
	ok := func(key string) bool {
		v, done := seen[key]
		if !done {
			v = accept(key)
			seen[key] = v
		}
		return v
	}
	emb := m.emb
	for i := range n {
		s := floats.Dot(p, emb[i*k:(i+1)*k]) * m.inv[i]
		if s > r.nearest.sim {
			r.nearest = best{slot: i, sim: s}
		}
		e := &m.entries[i]
		same := e.norm == norm
		if same && s > r.sameAny.sim {
			r.sameAny = best{slot: i, sim: s}
		}
		// An answer given in another conversation is not shown here at
		// all unless it is portable: its meaning is that conversation's.
		inCtx := ctx != "" && e.ctx.ID == ctx
		nearer := s > r.near.sim && (e.ctx.Portable || inCtx)
		sameNearer := same && (s > r.same.sim || (inCtx && s > r.sameCtx.sim) || (e.ctx.Portable && s > r.samePortable.sim))
		if (nearer || sameNearer) && ok(e.key) {
			if nearer {
				r.near = best{slot: i, sim: s}
			}
			if same && s > r.same.sim {
				r.same = best{slot: i, sim: s}
			}
			if same && inCtx && s > r.sameCtx.sim {
				r.sameCtx = best{slot: i, sim: s}
			}
			if same && e.ctx.Portable && s > r.samePortable.sim {
				r.samePortable = best{slot: i, sim: s}
			}
		}
	}
	for _, b := range []*best{&r.nearest, &r.near, &r.same, &r.sameCtx, &r.samePortable, &r.sameAny} {
		switch {
		case b.slot < 0:
		case !(qq > 0):
			b.dist = 1
		default:
			b.dist = clampDist(1 - b.sim/math.Sqrt(qq))
		}
	}
	return r
}

// trajectory returns a copy of slot i (the embedding is copied too, so the
// caller cannot disturb the store).
func (m *Manifold) trajectory(i int) Trajectory {
	e := &m.entries[i]
	k := m.metric.k
	return Trajectory{
		ID:        e.id,
		Embedding: append([]float64(nil), m.emb[i*k:(i+1)*k]...),
		Prompt:    e.prompt,
		Answer:    e.answer,
		Key:       e.key,
		Context:   e.ctx,
		Tier:      e.tier,
		Time:      e.time,
		Cluster:   e.cluster,
		Uses:      e.uses,
		LastUsed:  e.lastUsed,
	}
}

// Record is RecordKey with no key.
func (m *Manifold) Record(q []float64, prompt, answer string, tier Tier, now time.Time) (Trajectory, error) {
	return m.RecordKey(q, prompt, answer, "", tier, now)
}

// RecordKey is RecordIn with no context (Uncontexted).
func (m *Manifold) RecordKey(q []float64, prompt, answer, key string, tier Tier, now time.Time) (Trajectory, error) {
	return m.RecordIn(q, prompt, answer, key, Uncontexted(), tier, now)
}

// RecordIn stores a new trajectory for the query q answered at time now
// under key (see FindIn) in context where, and, when tier is EXPAND or
// EXPLORE, stretches M along q (see Tier.UpdatesMetric; AUGMENT and
// RETRIEVE store without learning). The tier is the caller's — normally
// Query's — and decides the cluster: EXPLORE opens a new one, any other
// tier joins the nearest stored trajectory's cluster (or opens one when
// the store is empty).
//
// A RETRIEVE record is a regeneration of a stored answer: if a stored
// trajectory of the same request (SameRequest prompts) under the same key
// and in the same context (equal Context) is RETRIEVE-close
// (d < RetrieveBelow), the nearest such one is replaced, keeping its
// cluster and Uses, so that the next repeat of the query serves the
// regenerated answer rather than tying with the old one. A different
// request, however close, is never replaced: it keeps its own answer.
//
// Otherwise, when the store is full, one trajectory is evicted first: the
// one with the fewest Uses, ties broken by the oldest LastUsed and then
// the lowest ID. Merging was considered and rejected: two answers cannot
// be averaged into one, and a merged embedding would no longer be any real
// query.
//
// RecordIn returns a copy of what was stored. Errors (nothing is
// changed): wrong length or non-finite q, invalid tier.
func (m *Manifold) RecordIn(q []float64, prompt, answer, key string, where Context, tier Tier, now time.Time) (Trajectory, error) {
	if err := m.ready(); err != nil {
		return Trajectory{}, err
	}
	if err := m.metric.checkVec("query", q); err != nil {
		return Trajectory{}, err
	}
	if !tier.Valid() {
		return Trajectory{}, fmt.Errorf("cog: record: invalid tier %v", tier)
	}
	norm := Normalize(prompt)
	near, _ := m.nearest(q)
	// The regeneration's candidate: the nearest same request under key
	// whose context is where's (scan's same-context candidate needs a
	// known context ID; this one is plain equality, "" included).
	same, sameDist := -1, 1.0
	if tier == Retrieve {
		same, sameDist = m.sameIn(q, norm, key, where)
	}
	if tier.UpdatesMetric() {
		ch, err := m.metric.Update(q, m.eta)
		if err != nil {
			// Unreachable: q and η are validated. Kept so a future
			// change cannot silently skip the cache update.
			return Trajectory{}, fmt.Errorf("cog: record: %w", err)
		}
		m.follow(ch)
	}
	e := entry{id: m.nextID, prompt: prompt, answer: answer, key: key, ctx: where, norm: norm, tier: tier, time: now, lastUsed: now}
	switch {
	case tier == Explore || near < 0:
		e.cluster = m.nextCluster
		m.nextCluster++
	default:
		e.cluster = m.entries[near].cluster
	}
	switch {
	case same >= 0 && sameDist < RetrieveBelow:
		e.cluster = m.entries[same].cluster
		e.uses = m.entries[same].uses
		m.remove(same)
	case len(m.entries) >= m.capacity:
		m.remove(m.victim())
	}
	m.add(e, q)
	m.nextID++
	return m.trajectory(len(m.entries) - 1), nil
}

// sameIn returns the slot of the nearest trajectory of the request norm
// under key in context where, and its distance (−1 and 1 for none). q
// must be validated.
func (m *Manifold) sameIn(q []float64, norm, key string, where Context) (int, float64) {
	k := m.metric.k
	p := make([]float64, k)
	m.metric.mulVec(p, q)
	qq := floats.Dot(q, p)
	slot, sim := -1, math.Inf(-1)
	for i := range m.entries {
		e := &m.entries[i]
		if e.norm != norm || e.key != key || e.ctx != where {
			continue
		}
		if s := floats.Dot(p, m.emb[i*k:(i+1)*k]) * m.inv[i]; s > sim {
			slot, sim = i, s
		}
	}
	switch {
	case slot < 0:
		return -1, 1
	case !(qq > 0):
		return slot, 1
	}
	return slot, clampDist(1 - sim/math.Sqrt(qq))
}

// Replace is ReplaceIn with no context (Uncontexted).
func (m *Manifold) Replace(id uint64, q []float64, prompt, answer, key string, now time.Time) (Trajectory, error) {
	return m.ReplaceIn(id, q, prompt, answer, key, Uncontexted(), now)
}

// ReplaceIn stores a regenerated answer in place of trajectory id: the
// new trajectory (a fresh ID, tier RETRIEVE, the given prompt, answer, key
// and context, embedding q) keeps the old one's cluster and Uses; M does
// not change. A caller uses it when it knows which stored answer the new
// one supersedes — the one it served, under the same live state — where
// RecordIn's RETRIEVE rule would need the keys and contexts to be equal.
// The new answer was made in where, so it carries where's context, not
// the old one's. Errors (nothing is changed): no trajectory id, wrong
// length or non-finite q.
func (m *Manifold) ReplaceIn(id uint64, q []float64, prompt, answer, key string, where Context, now time.Time) (Trajectory, error) {
	if err := m.ready(); err != nil {
		return Trajectory{}, err
	}
	if err := m.metric.checkVec("query", q); err != nil {
		return Trajectory{}, err
	}
	i, ok := m.byID[id]
	if !ok {
		return Trajectory{}, fmt.Errorf("cog: replace: no trajectory %d", id)
	}
	old := m.entries[i]
	e := entry{id: m.nextID, prompt: prompt, answer: answer, key: key, ctx: where, norm: Normalize(prompt), tier: Retrieve,
		time: now, lastUsed: now, cluster: old.cluster, uses: old.uses}
	m.remove(i)
	m.add(e, q)
	m.nextID++
	return m.trajectory(len(m.entries) - 1), nil
}

// Lookup is the answer to FindIn: the nearest stored trajectories of the
// kinds a precise memory needs, each a Match (Found false when there is
// none).
type Lookup struct {
	// Nearest is the nearest of all, whatever its key, context or
	// request: its distance is the query's tier, which drives the
	// manifold's growth.
	Nearest Match
	// Near is the nearest whose key was accepted and that may be used in
	// the query's context — portable, or asked in that context — (the
	// answer an AUGMENT may show the model).
	Near Match
	// Same is the nearest whose key was accepted and whose prompt is the
	// same request (SameRequest), in whatever context.
	Same Match
	// SameContext is the nearest of those asked in the query's context
	// (equal, known Context.ID), and SamePortable the nearest of those
	// whose answer is portable: the answers that may be served here
	// (Gate.Decide).
	SameContext  Match
	SamePortable Match
	// SameAnyKey is the nearest of the same request whatever its key, so
	// that a caller can say "answered before, under another state".
	SameAnyKey Match
}

// Find is FindIn in no known context: only portable answers can be
// served, as the gate allows.
func (m *Manifold) Find(q []float64, prompt string, accept func(key string) bool) (Lookup, error) {
	return m.FindIn(q, prompt, "", accept)
}

// FindIn looks q up for a message prompt asked in context ctx (a
// Context.ID; "" for none known) under the keys accept takes (nil accepts
// every key). It is Query with the candidates a precise memory needs: the
// geometry's nearest trajectory, and the nearest ones that are the same
// request and were answered under an accepted key — in this context, and
// portable. Each Match's Tier is TierOf its own distance. Errors: wrong
// length or non-finite q.
func (m *Manifold) FindIn(q []float64, prompt, ctx string, accept func(key string) bool) (Lookup, error) {
	if err := m.ready(); err != nil {
		return Lookup{}, err
	}
	if err := m.metric.checkVec("query", q); err != nil {
		return Lookup{}, err
	}
	if accept == nil {
		accept = func(string) bool { return true }
	}
	sc := m.scan(q, Normalize(prompt), ctx, accept)
	match := func(b best) Match {
		if b.slot < 0 {
			return Match{Distance: 1, Tier: Explore}
		}
		return Match{Found: true, Trajectory: m.trajectory(b.slot), Distance: b.dist, Tier: TierOf(b.dist)}
	}
	return Lookup{Nearest: match(sc.nearest), Near: match(sc.near), Same: match(sc.same), SameContext: match(sc.sameCtx),
		SamePortable: match(sc.samePortable), SameAnyKey: match(sc.sameAny)}, nil
}

// Touch counts one use of trajectory id (a RETRIEVE served its answer) at
// time now. Error: no such trajectory (it may have been evicted).
func (m *Manifold) Touch(id uint64, now time.Time) error {
	i, ok := m.byID[id]
	if !ok {
		return fmt.Errorf("cog: touch: no trajectory %d", id)
	}
	e := &m.entries[i]
	if e.uses < math.MaxInt {
		e.uses++
	}
	e.lastUsed = now
	return nil
}

// Get returns a copy of trajectory id.
func (m *Manifold) Get(id uint64) (Trajectory, bool) {
	i, ok := m.byID[id]
	if !ok {
		return Trajectory{}, false
	}
	return m.trajectory(i), true
}

// Trajectories returns copies of all stored trajectories in storage order
// (which eviction permutes; sort by ID or Time for a stable listing).
func (m *Manifold) Trajectories() []Trajectory {
	out := make([]Trajectory, len(m.entries))
	for i := range out {
		out[i] = m.trajectory(i)
	}
	return out
}

// TopEigen returns the n largest eigenvalues of M, largest first; n above
// k is clipped to k. Error: negative n, or the eigensolver failing.
func (m *Manifold) TopEigen(n int) ([]float64, error) {
	if n < 0 {
		return nil, fmt.Errorf("cog: top eigenvalues: n = %d", n)
	}
	vals, _, err := m.metric.Eigen()
	if err != nil {
		return nil, err
	}
	return vals[:min(n, len(vals))], nil
}

// Project2D returns each stored trajectory (storage order) as a point on
// the plane of M's top two eigenvectors u₁, u₂: the metric-normalised
// embedding's coordinates along them, (√λ₁ u₁·e, √λ₂ u₂·e)/‖e‖_M. These
// are the first two coordinates of Lᵀe/‖Lᵀe‖ in M's eigenbasis
// (M = UΛUᵀ, L = UΛ^½), so every point lies in the unit disc, distances
// between points reflect the metric the tiers use, and the axes are the
// directions the manifold has grown most along. With k = 1 every Y is 0;
// a zero embedding sits at the origin.
func (m *Manifold) Project2D() ([]Point, error) {
	vals, vecs, err := m.metric.Eigen()
	if err != nil {
		return nil, err
	}
	k := m.metric.k
	axes := min(2, k)
	u := make([][]float64, axes)
	scale := make([]float64, axes)
	for a := range axes {
		u[a] = mat.Col(nil, a, vecs)
		scale[a] = math.Sqrt(math.Max(vals[a], 0))
	}
	pts := make([]Point, len(m.entries))
	for i := range m.entries {
		e := m.emb[i*k : (i+1)*k]
		c := [2]float64{}
		for a := range axes {
			c[a] = scale[a] * floats.Dot(u[a], e) * m.inv[i]
		}
		pts[i] = Point{ID: m.entries[i].id, Cluster: m.entries[i].cluster, Tier: m.entries[i].tier, X: c[0], Y: c[1]}
	}
	return pts, nil
}

// follow brings the cached quadratic forms up to date after a metric
// update.
func (m *Manifold) follow(ch Change) {
	if !ch.Applied {
		return
	}
	m.sinceResync++
	if m.sinceResync >= resyncEvery {
		m.resync()
		return
	}
	k := m.metric.k
	for i := range m.entries {
		e := m.emb[i*k : (i+1)*k]
		t := floats.Dot(ch.Dir, e)
		q := m.quad[i] + ch.Eta*t*t
		if ch.Guarded {
			q += SPDFloor * m.norm2[i]
		}
		m.quad[i] = q
		m.inv[i] = invSqrt(q)
	}
}

// resync recomputes every cached quadratic form from M.
func (m *Manifold) resync() {
	m.sinceResync = 0
	k := m.metric.k
	p := make([]float64, k)
	for i := range m.entries {
		e := m.emb[i*k : (i+1)*k]
		m.metric.mulVec(p, e)
		m.quad[i] = floats.Dot(e, p)
		m.inv[i] = invSqrt(m.quad[i])
	}
}

// invSqrt is 1/√x for positive x and 0 otherwise, so that a zero
// embedding scores a cosine of 0 against everything (distance 1).
func invSqrt(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return 1 / math.Sqrt(x)
}

// add appends an entry with embedding q (copied).
func (m *Manifold) add(e entry, q []float64) {
	k := m.metric.k
	if e.norm == "" && e.prompt != "" {
		e.norm = Normalize(e.prompt)
	}
	m.entries = append(m.entries, e)
	m.emb = append(m.emb, q...)
	p := make([]float64, k)
	m.metric.mulVec(p, q)
	qq := floats.Dot(q, p)
	m.quad = append(m.quad, qq)
	m.inv = append(m.inv, invSqrt(qq))
	m.norm2 = append(m.norm2, floats.Dot(q, q))
	m.byID[e.id] = len(m.entries) - 1
	m.members[e.cluster]++
}

// victim picks the slot to evict: fewest Uses, then oldest LastUsed, then
// lowest ID (so the choice never depends on storage order).
func (m *Manifold) victim() int {
	v := 0
	for i := 1; i < len(m.entries); i++ {
		a, b := &m.entries[i], &m.entries[v]
		switch {
		case a.uses != b.uses:
			if a.uses < b.uses {
				v = i
			}
		case !a.lastUsed.Equal(b.lastUsed):
			if a.lastUsed.Before(b.lastUsed) {
				v = i
			}
		case a.id < b.id:
			v = i
		}
	}
	return v
}

// remove deletes slot i by moving the last slot into it: O(k), where
// closing the gap would be O(n·k).
func (m *Manifold) remove(i int) {
	k := m.metric.k
	last := len(m.entries) - 1
	gone := m.entries[i]
	delete(m.byID, gone.id)
	if c := m.members[gone.cluster] - 1; c > 0 {
		m.members[gone.cluster] = c
	} else {
		delete(m.members, gone.cluster)
	}
	if i != last {
		m.entries[i] = m.entries[last]
		copy(m.emb[i*k:(i+1)*k], m.emb[last*k:(last+1)*k])
		m.quad[i] = m.quad[last]
		m.inv[i] = m.inv[last]
		m.norm2[i] = m.norm2[last]
		m.byID[m.entries[i].id] = i
	}
	m.entries[last] = entry{} // drop the strings for the collector
	m.entries = m.entries[:last]
	m.emb = m.emb[:last*k]
	m.quad = m.quad[:last]
	m.inv = m.inv[:last]
	m.norm2 = m.norm2[:last]
}
