package base

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
)

// KVFlags are KV eviction's flags (docs/kv.md): run and the TUI take them,
// as the settings kv_keep and kv_scorer.
type KVFlags struct {
	keep   float64
	scorer string
}

// Register registers --kv-keep and --kv-scorer.
func (k *KVFlags) Register(fs *flag.FlagSet) {
	fs.Float64Var(&k.keep, "kv-keep", 1, "KV eviction: keep this share of the positions in the KV cache (0.01…1; 1 keeps every one), so that a conversation runs to the whole context in that share of the memory")
	fs.StringVar(&k.scorer, "kv-scorer", "manifold", "with --kv-keep: what the cache keeps: manifold, windowed, keydiff, knorm, streaming, random, manifold-l1, manifold-linf or none")
}

// Check validates the flags.
func (k *KVFlags) Check() error {
	if !(k.keep >= 0.01 && k.keep <= 1) {
		return Usagef("--kv-keep %v: want a share of the positions, 0.01…1", k.keep)
	}
	if _, err := kvpress.ParseKind(k.scorer); err != nil {
		return UsageError{Err: fmt.Errorf("--kv-scorer: %w", err)}
	}
	return nil
}

// CheckScorer refuses --kv-scorer without --kv-keep below 1 where nothing
// else can give the share (run without --session): alone it changes
// nothing, and a run that silently ignored it would measure the whole
// cache while its user thought it measured the scorer.
func (k *KVFlags) CheckScorer(fs *flag.FlagSet) error {
	if FlagGiven(fs, "kv-scorer") && !(k.keep < 1) {
		return Usagef("--kv-scorer %s chooses what KV eviction keeps, and without --kv-keep SHARE (below 1) nothing is evicted: give --kv-keep too", k.scorer)
	}
	return nil
}

// evicting says whether the flags turn eviction on.
func (k *KVFlags) evicting() bool {
	if !(k.keep > 0 && k.keep < 1) {
		return false // the zero value too: a command that did not register them
	}
	kind, err := kvpress.ParseKind(k.scorer)
	return err == nil && kind != kvpress.None
}

// Knobs are the flags as session settings.
func (k *KVFlags) Knobs() [][2]string {
	keep := "off"
	if k.keep < 1 {
		keep = strconv.FormatFloat(k.keep, 'g', -1, 64)
	}
	return [][2]string{{"kv_keep", keep}, {"kv_scorer", k.scorer}}
}

// entries is the cache a window of ctx positions needs under the flags.
func (k *KVFlags) entries(ctx int) int {
	if !k.evicting() {
		return ctx
	}
	return generate.EvictCap(k.keep, ctx)
}

// Install turns eviction on for gen (run's pipeline).
func (k *KVFlags) Install(gen *generate.Generator, seed uint64) error {
	if !k.evicting() {
		return nil
	}
	kind, err := kvpress.ParseKind(k.scorer)
	if err != nil {
		return err
	}
	p := &kvpress.Policy{Kind: kind, Seed: seed}
	var choose model.Chooser = func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) {
		p.Choose(keys, n, hd, pos, keep)
	}
	return gen.SetEviction(&generate.Eviction{Keep: k.keep, Choose: choose})
}
