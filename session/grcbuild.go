package session

import (
	"context"
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// GRCRequest is a GRC compression (docs/grc.md) as a user asks for it,
// before it is checked against a model: the --rank, --slots, --alloc,
// --rank-floor and --calib flags of `isagi run|bench|ppl`, or a session's
// rank, slots and alloc settings (/set rank, run --session). Both go
// through ResolveGRC and BuildGRC, so one request names one cache file
// whichever of them asked, and a compression built by one is read from the
// cache by the other.
type GRCRequest struct {
	// Rank is every block's rank (uniform), or the mean rank (GP, MCR).
	Rank int
	// Slots is what to compress; 0 means Q/K/V.
	Slots grc.Slots
	// Alloc spreads the rank over the blocks: uniform, GP or MCR.
	Alloc grc.Alloc
	// Floor is the least rank a block gets under GP and MCR; 0 means the
	// model's default (grc.DefaultFloor).
	Floor int
	// CalibText is the calibration text; "" means the built-in
	// grc.CalibrationText (so a caller that reads the text from a file
	// refuses an empty one). Only MCR and the sink bypass, whose result
	// depends on it, take one; every build reads the built-in text for its
	// figures (intrinsic dimension, the depth-sink block).
	CalibText string
	// Gauge, SinkChannels and SinkBypass are grc.Spec's.
	Gauge        bool
	SinkChannels int
	SinkBypass   bool
}

// GRCJob is a GRCRequest checked against a model: the spec that names its
// cache entry and what building it takes.
type GRCJob struct {
	// Spec is resolved (grc.Resolve): the defaults are filled in
	// and MCR's calibration tokens are identified, so Spec.Key names the
	// compression exactly.
	Spec grc.Spec
	// Calib holds the calibration pass's tokens, and BOS the token it
	// starts from.
	Calib []int32
	BOS   int32
}

// Key names the job's compression among the model's others, e.g.
// "k64-qkv" (the rank, then the spec's key).
func (j GRCJob) Key() string { return fmt.Sprintf("k%d-%s", j.Spec.K, j.Spec.Key()) }

// ResolveGRC checks req against the model m, whose tokenizer is tok: the
// slot set, allocation and rank bounds, and for MCR the calibration text,
// tokenised here because its tokens' id is part of the cache key (the same
// text through another tokenizer is another calibration).
func ResolveGRC(m *model.Model, tok *tokenizer.Tokenizer, req GRCRequest) (GRCJob, error) {
	spec := grc.Spec{Slots: req.Slots, Alloc: req.Alloc, K: req.Rank, Floor: req.Floor,
		Gauge: req.Gauge, SinkChannels: req.SinkChannels, SinkBypass: req.SinkBypass}
	if spec.Slots == 0 {
		spec.Slots = grc.QKV
	}
	calibrated := spec.Alloc == grc.AllocMCR || spec.SinkBypass
	if req.CalibText != "" && !calibrated {
		return GRCJob{}, fmt.Errorf("session: calibration text is for mcr allocation and the sink bypass, not %s alone", spec.Alloc)
	}
	text := req.CalibText
	if text == "" {
		text = grc.CalibrationText
	}
	ids, err := tok.Encode(text, tokenizer.EncodeOptions{})
	if err != nil {
		return GRCJob{}, fmt.Errorf("session: tokenising the calibration text: %w", err)
	}
	job := GRCJob{Calib: ids, BOS: tok.BOS()}
	if calibrated {
		spec.Calib = grc.CalibrationID(ids)
	}
	if job.Spec, err = grc.Resolve(m, spec); err != nil {
		return GRCJob{}, err
	}
	return job, nil
}

// BuildGRC returns the compression job asks for: read from cache when it
// holds a valid copy, else planned and built — after the calibration pass
// over job.Calib on b (nil: the CPU, on a pool of its own), which nothing
// else may be running on meanwhile — and written to cache (see
// GRCCache.Get). gb is the builder to use, whose slot set must be the
// job's (a session keeps one per slot set, so that its decompositions serve
// every rank); nil makes one. A nil cache builds without one. progress
// sees blocks done/total of a build and is never called when the cache
// answers; a cancelled ctx stops the build with ctx.Err(). built reports
// whether it was built.
func BuildGRC(ctx context.Context, m *model.Model, b backend.Backend, gb *grc.Builder, cache *GRCCache,
	job GRCJob, progress func(done, total int)) (g *grc.Compression, built bool, err error) {
	if gb == nil {
		if gb, err = grc.NewBuilder(m, job.Spec.Slots); err != nil {
			return nil, false, fmt.Errorf("session: GRC %s: %w", job.Spec.Slots, err)
		}
	}
	profile := func(ctx context.Context) (*grc.Profile, error) {
		return grc.LayerProfile(ctx, m, b, job.Calib, job.BOS, 0)
	}
	return cache.Get(ctx, m, gb, job.Spec, profile, progress)
}
