package model

import "github.com/isagi-lab/isagi/engine/backend"

// llamaBlock is one layer of the llama family (llama, qwen2, qwen3,
// qwen3moe, gpt-oss):
//
//	h = RMSNorm(x)
//	q, k, v = Wq·h (+bq), Wk·h (+bk), Wv·h (+bv)      biases: qwen2
//	q, k = RMSNorm per head (q), (k)                   qwen3
//	q, k = RoPE(q), RoPE(k); cache k, v
//	(a KV projection: q, k, v in its rank-r basis, then back; kvproj.go)
//	x += Wo · attention(q, K, V) (+ bo)                gpt-oss: a sink logit
//	                                                   per head, bias bo
//	h = RMSNorm(x)                                     gpt-oss: post_attention_norm
//	x += Wdown · (silu(Wgate·h) ⊙ Wup·h)               or a mixture of experts
//	                                                   (qwen3moe, Mixtral; moe.go)
func llamaBlock(s *State, l, n, pos0 int) {
	c, b := &s.m.Config, s.b
	W, L := &s.w.blocks[l], &s.lin[l]

	b.RMSNorm(s.xb, s.x, W.attnNorm, n, c.Eps)
	s.linear(&L.qkv, s.xb, n, s.q, s.kb, s.vb)
	// Each bias and norm is optional on its own (the loader reads
	// attn_{q,k,v}.bias independently).
	if W.bq != nil {
		b.AddBias(s.q, W.bq, n)
	}
	if W.bk != nil {
		b.AddBias(s.kb, W.bk, n)
	}
	if W.bv != nil {
		b.AddBias(s.vb, W.bv, n)
	}
	if W.qNorm != nil {
		b.HeadRMSNorm(s.q, W.qNorm, n, c.Heads, c.Eps)
	}
	if W.kNorm != nil {
		b.HeadRMSNorm(s.kb, W.kNorm, n, c.KVHeads, c.Eps)
	}
	s.attention(l, n, pos0) // RoPE, the cache, attention: into s.att
	if W.bo != nil {
		s.linear(&L.o, s.att, n, s.xb)
		b.AddBias(s.xb, W.bo, n)
		b.Add(s.x, s.xb, n)
	} else {
		s.linearAdd(&L.o, s.att, n, s.xb, s.x)
	}

	b.RMSNorm(s.xb, s.x, W.ffnNorm, n, c.Eps)
	s.ffn(l, n, backend.GLUSiLU, s.x) // dense, or the mixture of experts (moe.go)
}
