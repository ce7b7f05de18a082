package model

import "github.com/isagi-lab/isagi/engine/backend"

// gemmaBlock is one layer of Gemma 2 (and the text layers of Gemma 3):
//
//	h = RMSNorm(x)
//	q, k, v = Wq·h, Wk·h, Wv·h
//	q, k = RMSNorm per head (q), (k)                   gemma3
//	q, k = RoPE(q), RoPE(k); cache k, v                base per layer (gemma3)
//	(a KV projection: q, k, v in its rank-r basis, then back; kvproj.go)
//	a = attention(q, K, V), scores scaled by 1/√key_length (the 27B
//	    models: √(Dim/Heads)), soft-capped (gemma2), a sliding window on
//	    the local layers
//	x += RMSNorm(Wo·a)                                 post-attention norm
//	h = RMSNorm(x)
//	x += RMSNorm(Wdown · (gelu(Wgate·h) ⊙ Wup·h))      post-FFN norm
//
// The norm weights in the file are already the full multiplier (the
// converter stores Gemma's 1+w), so they are used as they are. The
// embedding scale and the final soft-cap are per model (Config).
func gemmaBlock(s *State, l, n, pos0 int) {
	c, b := &s.m.Config, s.b
	W, L := &s.w.blocks[l], &s.lin[l]

	b.RMSNorm(s.xb, s.x, W.attnNorm, n, c.Eps)
	s.linear(&L.qkv, s.xb, n, s.q, s.kb, s.vb)
	if W.qNorm != nil {
		b.HeadRMSNorm(s.q, W.qNorm, n, c.Heads, c.Eps)
		b.HeadRMSNorm(s.kb, W.kNorm, n, c.KVHeads, c.Eps)
	}
	s.attention(l, n, pos0) // RoPE, the cache, attention: into s.att
	s.linear(&L.o, s.att, n, s.xb)
	b.RMSNorm(s.xb, s.xb, W.postAttnNorm, n, c.Eps)
	b.Add(s.x, s.xb, n)

	b.RMSNorm(s.xb, s.x, W.ffnNorm, n, c.Eps)
	s.ffn(l, n, backend.GLUGELU, nil)
	b.RMSNorm(s.xb, s.xb, W.postFFNNorm, n, c.Eps)
	b.Add(s.x, s.xb, n)
}
