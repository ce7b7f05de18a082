package session

import (
	"context"
	"errors"
	"math"
	"path/filepath"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/miku"
)

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

// newCompression is the compression part of s, uncompressed; cacheDir is
// where built ranks are cached ("": nowhere).
func newCompression(s *Session, cacheDir string) *Compression {
	return &Compression{s: s, cacheDir: cacheDir}
}

// fork is the compression part of f, a fork of this part's session: the
// family shares the compressions built so far (a rank built for one
// conversation is instant for the others) and the cache on disk.
func (cp *Compression) fork(f *Session) *Compression {
	if cp.grcb == nil {
		cp.grcb = map[grc.Slots]*grc.Builder{}
	}
	if cp.grcs == nil {
		cp.grcs = map[string]*grc.Compression{}
	}
	return &Compression{s: f, grcb: cp.grcb, grcs: cp.grcs, cacheDir: cp.cacheDir}
}

// inUse names the compression in use ("": none), as GRCJob.Key does.
func (cp *Compression) inUse() string { return cp.grcKey }

// reset forgets the compression in use when the session's state is
// replaced (resize): the new state has none installed, and the next
// apply installs it again (from memory, instantly) instead of believing
// it is still there.
func (cp *Compression) reset() { cp.grcKey = "" }

// use switches the state's path to the GRC compression the settings
// ask for (rank 0: off). The first switch for a slot set decomposes every
// block (seconds to minutes on a large model; progress is told, ctx stops
// it); a compression is read from the disk cache when it is there, and
// kept in memory once built, so switching back and forth is instant. The
// KV cache was written under the old path, so the conversation is
// recomputed on the next turn.
func (cp *Compression) use(ctx context.Context, n Settings, progress func(done, total int)) error {
	s := cp.s
	want, key := GRCJob{}, ""
	if n.Rank > 0 {
		var err error
		if want, err = cp.spec(n); err != nil {
			return err
		}
		key = want.Key()
	}
	if key == cp.grcKey {
		return nil
	}
	var g *grc.Compression
	if key != "" {
		var err error
		if g, err = cp.get(ctx, want, progress); err != nil {
			return err
		}
	}
	if err := grc.Use(s.st, g); err != nil {
		return err
	}
	cp.grcKey = key
	s.resetCache(s.set.Seed)
	return nil
}

// get returns the compression job asks for: from memory when this
// session built it already, else from the disk cache or built (the one
// build path, shared with isagi run|bench|ppl --rank), and kept in memory
// so that switching back is instant.
func (cp *Compression) get(ctx context.Context, job GRCJob, progress func(done, total int)) (*grc.Compression, error) {
	s := cp.s
	key := job.Key()
	if g := cp.grcs[key]; g != nil {
		return g, nil
	}
	if cp.grcb == nil {
		cp.grcb = map[grc.Slots]*grc.Builder{}
	}
	gb := cp.grcb[job.Spec.Slots]
	if gb == nil {
		var err error
		if gb, err = grc.NewBuilder(s.m, job.Spec.Slots); err != nil {
			return nil, err
		}
		cp.grcb[job.Spec.Slots] = gb
	}
	cache, err := cp.Cache()
	if err != nil {
		cache = nil // no cache: build, and keep it in memory only
	}
	g, _, err := BuildGRC(ctx, s.m, s.b, gb, cache, job, progress)
	if err != nil {
		return nil, err
	}
	if cp.grcs == nil {
		cp.grcs = map[string]*grc.Compression{}
	}
	cp.grcs[key] = g
	return g, nil
}

// spec is the compression the settings ask for (MCR calibrates on the
// built-in text), checked by ResolveGRC as the command-line flags are.
func (cp *Compression) spec(n Settings) (GRCJob, error) {
	s := cp.s
	req := GRCRequest{Rank: n.Rank, Slots: grc.QKV, Alloc: grc.AllocUniform,
		Gauge: n.Gauge, SinkChannels: n.SinkChannels, SinkBypass: n.SinkBypass}
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

// Cache is this session's cache of built compressions, or nil when the
// session has no cache directory.
func (cp *Compression) Cache() (*GRCCache, error) {
	s := cp.s
	if cp.cacheDir == "" {
		return nil, nil
	}
	sum, err := s.pr.SHA256()
	if err != nil {
		return nil, err
	}
	return &GRCCache{
		Dir:        cp.cacheDir,
		Model:      miku.ModelRef{File: filepath.Base(s.info.Path), SHA256: sum, Arch: s.info.Arch, Name: s.info.Name},
		AppVersion: s.appVersion,
	}, nil
}

// load reads uniform Q/K/V rank k from the cache (what /set rank uses).
func (cp *Compression) load(k int) (*grc.Compression, error) {
	s := cp.s
	c, err := cp.Cache()
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("session: no GRC cache directory")
	}
	return c.Load(s.m, grc.Spec{Slots: grc.QKV, K: k})
}

// save writes g to the cache.
func (cp *Compression) save(g *grc.Compression) error {
	s := cp.s
	c, err := cp.Cache()
	if err != nil {
		return err
	}
	if c == nil {
		return errors.New("session: no GRC cache directory")
	}
	return c.Save(s.m, g)
}

// useKV makes the state's cache fit n's kv_keep (a rebuilt cache: the
// conversation is read again at the next turn), before the generator is
// made.
func (cp *Compression) useKV(n Settings) error {
	s := cp.s
	window := s.st.MaxPos()
	if s.st.Cap() == kvEntries(n.KVKeep, window) {
		return nil // a window small enough needs no fewer entries
	}
	return s.resizeKV(window, n.KVKeep)
}

// useEviction installs n's eviction on the generator.
func (cp *Compression) useEviction(n Settings) error {
	s := cp.s
	if !evicting(n.KVKeep) || scorerName(n.KVScorer) == kvpress.None.String() {
		cp.kv = nil
		return s.gen.SetEviction(nil)
	}
	kind, err := kvpress.ParseKind(scorerName(n.KVScorer))
	if err != nil {
		return err
	}
	if cp.kv == nil || cp.kv.pol.Kind != kind {
		cp.kv = &kvState{pol: kvpress.Policy{Kind: kind, Seed: n.Seed}, kvHeads: s.m.KVHeads, heads: s.m.Layers * s.m.KVHeads}
	}
	k := cp.kv
	return s.gen.SetEviction(&generate.Eviction{Keep: n.KVKeep, Choose: k.choose})
}

// KV reports the cache and its eviction.
func (cp *Compression) KV() KVStatus {
	s := cp.s
	st := KVStatus{
		Keep: 1, Scorer: "none", Entries: s.st.Cap(), Window: s.st.MaxPos(),
		Positions: s.st.Pos(), Kept: s.st.Len(), Evicted: s.st.Evicted(),
		EntryBytes: int(s.st.KVEntryBytes()), // smaller under a KV projection
	}
	if cp.kv != nil {
		st.On, st.Scorer, st.Keep = true, cp.kv.pol.Kind.String(), s.set.KVKeep
		st.Budget = int(math.Ceil(st.Keep * float64(st.Positions)))
		st.Drift, st.Evictions = cp.kv.drift, cp.kv.evictions
	}
	st.SavedBytes = int64(st.Window-st.Entries) * int64(st.EntryBytes)
	return st
}

// useKVProj stores the state's keys and values in the rank's share of
// each head when n asks for it (grc.KVRank of the compression's rank), or
// as the model has them. A change of layout empties the cache: the
// conversation is read again at the next turn. The projection of each
// rank is made once and kept.
func (cp *Compression) useKVProj(n Settings) error {
	s := cp.s
	var want *model.KVProjection
	if n.KVProj {
		g := grc.Of(s.st)
		if g == nil {
			return ErrKVProjNeedsRank
		}
		r := grc.KVRank(s.m.HeadDim, g.K, s.m.Dim)
		if want = cp.kvProj[r]; want == nil {
			var err error
			if want, err = grc.KVProjectionFor(s.m, r); err != nil {
				return err
			}
			if cp.kvProj == nil {
				cp.kvProj = map[int]*model.KVProjection{}
			}
			cp.kvProj[r] = want
		}
	}
	if s.st.KVProjection() == want {
		return nil
	}
	if err := s.st.SetKVProjection(want); err != nil {
		return err
	}
	s.resetCache(n.Seed)
	return nil
}
