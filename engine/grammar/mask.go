package grammar

import (
	"math"
	"math/bits"
)

// Mask is a set of token ids, one bit each: the tokens a grammar allows at
// one step. Make it with NewMask or Matcher.NewMask.
type Mask []uint64

// NewMask returns an empty mask for a vocabulary of n tokens.
func NewMask(n int) Mask { return make(Mask, (n+63)/64) }

// Has reports whether id is in the mask.
func (m Mask) Has(id int32) bool {
	i := int(id) >> 6
	return id >= 0 && i < len(m) && m[i]>>(uint(id)&63)&1 != 0
}

func (m Mask) set(id int32) { m[id>>6] |= 1 << (uint(id) & 63) }

// Count returns the number of ids in the mask.
func (m Mask) Count() int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}

// Apply sets the logit of every token not in the mask to -Inf, so that a
// sampler can only draw allowed tokens. Words of 64 allowed tokens are
// skipped whole.
func (m Mask) Apply(logits []float32) {
	ninf := float32(math.Inf(-1))
	for i := 0; i < len(logits); i += 64 {
		var w uint64
		if i>>6 < len(m) {
			w = m[i>>6]
		}
		if w == math.MaxUint64 {
			continue
		}
		end := min(i+64, len(logits))
		for j := i; j < end; j++ {
			if w>>(uint(j-i))&1 == 0 {
				logits[j] = ninf
			}
		}
	}
}
