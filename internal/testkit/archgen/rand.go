package archgen

import "hash/fnv"

// rng is SplitMix64. The generator draws every weight from it with nothing
// but integer operations, exact scalings by powers of two, additions and
// single explicitly rounded products, so the files are bit-identical on
// every platform and Go version: no math/rand stream (whose derived
// distributions may change between releases), no transcendental function
// (whose last bit may differ between architectures) and no product that
// the compiler could fuse into an FMA.
type rng struct{ s uint64 }

// newRNG seeds a stream for one tensor of one model from the model's seed
// and the tensor's name, so a tensor's values do not depend on which other
// tensors the file holds or in which order they are drawn.
func newRNG(seed uint64, name string) *rng {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &rng{s: seed*0x9E3779B97F4A7C15 ^ h.Sum64()}
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// uniform is uniform on [0, 1) with 53 random bits (the product is exact).
func (r *rng) uniform() float64 { return float64(r.next()>>11) * 0x1p-53 }

// normal is approximately standard normal: the Irwin–Hall sum of 12
// uniforms, minus 6 (mean 0, variance 1, bounded by ±6). Exactness and
// portability matter here, not the tails.
func (r *rng) normal() float64 {
	s := 0.0
	for range 12 {
		s += r.uniform()
	}
	return s - 6
}

// gauss returns n values with mean 0 and standard deviation std.
func (r *rng) gauss(n int, std float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(float64(r.normal() * std))
	}
	return out
}

// between returns n values uniform on [lo, hi).
func (r *rng) between(n int, lo, hi float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(lo + float64(r.uniform()*(hi-lo)))
	}
	return out
}
