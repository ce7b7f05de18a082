// Package sample is the engine's token sampler: it turns one step's logits
// into the next token id, with llama.cpp-compatible repetition penalty,
// top-k, temperature, top-p and min-p.
//
// The chain, in order, is
//
//  1. repetition penalty over the last RepeatWindow tokens of the history;
//  2. if greedy (Temperature 0): argmax, lowest id on ties, and stop;
//  3. top-k;
//  4. top-p: the smallest prefix of the descending-sorted candidates whose
//     cumulative probability (softmax of the logits) is ≥ TopP (at least
//     one token);
//  5. min-p: drop tokens whose probability is < MinP·p_max;
//  6. temperature: the survivors' weights become softmax(logit/Temperature);
//  7. draw with a PCG generator (math/rand/v2) seeded from Params.Seed, so
//     the same seed, logits and history give the same tokens.
//
// This is llama.cpp's default order: the truncations see the untempered
// distribution, and temperature only reshapes what survives them.
//
// Candidates are ranked by logit, highest first, and by id, lowest first, on
// ties; that one total order decides argmax, the top-k boundary and the top-p
// boundary. NaN logits count as -Inf and are never chosen, +Inf counts as the
// largest finite float32, and when no token has a finite logit the sampler
// returns token 0. Tokens whose probability is below e^-50 of the best one's
// are dropped before any truncation; together they weigh under 1e-16 of it.
//
// A Sampler preallocates everything for its vocabulary, so Sample does not
// allocate. A Sampler is not safe for concurrent use.
package sample

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

const (
	// defaultRepeatWindow is llama.cpp's repeat_last_n default, used when the
	// penalty is on and Params.RepeatWindow is 0.
	defaultRepeatWindow = 64
	// negligible is the log-probability, relative to the best candidate,
	// below which a candidate is dropped before truncation and softmax.
	negligible = 50.0
	// pcgStream is the PCG's second seed word; the first is Params.Seed.
	pcgStream = 0x9e3779b97f4a7c15
	// smallRange is the size under which selection just sorts.
	smallRange = 16
	// heapMaxK is the largest top-k selected with a streaming heap; larger
	// ones partition all candidates.
	heapMaxK = 1024
	// histMin is the candidate count above which top-p goes through the
	// histogram of nBuckets buckets.
	histMin  = 256
	nBuckets = 512
)

var negInf = float32(math.Inf(-1))

// Params configures sampling. The zero value is greedy decoding with no
// repetition penalty.
type Params struct {
	// Temperature divides the surviving logits before the final softmax
	// (after top-k, top-p and min-p, which see T = 1). 0 means greedy:
	// argmax, lowest id on ties, and TopK, TopP, MinP and Seed are ignored.
	// Negative values are invalid.
	Temperature float32
	// TopK keeps only the TopK highest-ranked tokens; 0 turns it off.
	TopK int
	// TopP keeps the smallest prefix of the ranked tokens whose cumulative
	// probability is ≥ TopP; 0 or 1 turns it off.
	TopP float32
	// MinP drops tokens whose probability is < MinP times the best token's;
	// 0 turns it off.
	MinP float32
	// RepeatPenalty is llama.cpp's repeat_penalty: each distinct token in
	// the window has its logit divided by RepeatPenalty when positive and
	// multiplied by it otherwise. 0 or 1 turns it off; values in (0, 1)
	// favour repetition.
	RepeatPenalty float32
	// RepeatWindow is how many of the most recent history tokens the penalty
	// looks at (llama.cpp's repeat_last_n); 0 means 64.
	RepeatWindow int
	// Seed seeds the random stream of a non-greedy sampler.
	Seed uint64
}

// Validate reports every out-of-range field, joined into one error, or nil.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("sample: "+format, a...)) }
	finite := func(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }
	if !finite(p.Temperature) || p.Temperature < 0 {
		bad("Temperature must be finite and ≥ 0 (0 = greedy), got %v", p.Temperature)
	}
	if p.TopK < 0 {
		bad("TopK must be ≥ 0 (0 = off), got %d", p.TopK)
	}
	if !(p.TopP >= 0 && p.TopP <= 1) {
		bad("TopP must be in [0, 1] (0 or 1 = off), got %v", p.TopP)
	}
	if !(p.MinP >= 0 && p.MinP <= 1) {
		bad("MinP must be in [0, 1] (0 = off), got %v", p.MinP)
	}
	if !finite(p.RepeatPenalty) || p.RepeatPenalty < 0 {
		bad("RepeatPenalty must be finite and ≥ 0 (0 or 1 = off), got %v", p.RepeatPenalty)
	}
	if p.RepeatWindow < 0 {
		bad("RepeatWindow must be ≥ 0 (0 = %d), got %d", defaultRepeatWindow, p.RepeatWindow)
	}
	return errors.Join(errs...)
}

// cand is one candidate token: its id, its (penalised) logit and, once the
// softmax has run, its unnormalised probability w = exp((logit-max)/T).
type cand struct {
	id    int32
	logit float32
	w     float64
}

// Sampler draws tokens for one vocabulary size and one Params. Create it
// with New; it is not safe for concurrent use.
type Sampler struct {
	p      Params
	vocab  int
	window int       // penalty window, 0 when the penalty is off
	logits []float32 // working copy of the caller's logits
	cands  []cand    // candidate buffer, capacity vocab
	marks  []uint32  // marks[t] == gen: t already penalised in this call
	gen    uint32
	hist   [nBuckets]float64 // top-p histogram
	src    rand.PCG
	rng    *rand.Rand
}

// New returns a Sampler for vocab logits per step, with all its buffers
// preallocated. It fails if vocab is not in [1, 2^31) or p is invalid.
func New(vocab int, p Params) (*Sampler, error) {
	if vocab <= 0 || vocab > math.MaxInt32 {
		return nil, fmt.Errorf("sample: vocab must be in [1, %d], got %d", math.MaxInt32, vocab)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &Sampler{
		p:      p,
		vocab:  vocab,
		logits: make([]float32, vocab),
		cands:  make([]cand, 0, vocab),
	}
	if p.RepeatPenalty != 0 && p.RepeatPenalty != 1 {
		s.window = p.RepeatWindow
		if s.window == 0 {
			s.window = defaultRepeatWindow
		}
		s.marks = make([]uint32, vocab)
	}
	s.src.Seed(p.Seed, pcgStream)
	s.rng = rand.New(&s.src)
	return s, nil
}

// SetParams makes s sample as New(vocab, p) would, keeping its buffers: a
// server sets each request's parameters on one sampler (a new one per
// request, its vocabulary-sized buffers, was most of the garbage a request
// made). An invalid p changes nothing.
func (s *Sampler) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	s.p, s.window = p, 0
	if p.RepeatPenalty != 0 && p.RepeatPenalty != 1 {
		s.window = p.RepeatWindow
		if s.window == 0 {
			s.window = defaultRepeatWindow
		}
		if s.marks == nil {
			s.marks = make([]uint32, s.vocab)
		}
	}
	s.src.Seed(p.Seed, pcgStream)
	return nil
}

// Reset restarts the random stream as if the Sampler had been created with
// Params.Seed = seed.
func (s *Sampler) Reset(seed uint64) {
	s.p.Seed = seed
	s.src.Seed(seed, pcgStream)
}

// Sample returns the next token for logits, which must hold exactly one
// value per vocabulary entry (anything else is a programmer error and
// panics). history is every token so far, prompt and generated; only its
// last RepeatWindow entries are used, and ids outside the vocabulary are
// ignored. Neither slice is modified, and Sample does not allocate.
func (s *Sampler) Sample(logits []float32, history []int32) int32 {
	if len(logits) != s.vocab {
		panic(fmt.Sprintf("sample: Sample got %d logits, the Sampler was built for a vocabulary of %d", len(logits), s.vocab))
	}
	c := s.final(logits, history)
	switch len(c) {
	case 0:
		return 0
	case 1:
		return c[0].id
	}
	return draw(c, s.rng.Float64())
}

// final runs the whole chain up to the draw: the candidates that survive
// it, with the weights the draw uses (unnormalised).
func (s *Sampler) final(logits []float32, history []int32) []cand {
	c := s.candidates(logits, history)
	if t := float64(s.p.Temperature); t > 0 && t != 1 && len(c) > 1 {
		// Temperature comes last, as in llama.cpp's default chain: the
		// truncations above saw the T = 1 distribution; the draw sees
		// logit/T.
		lmax := math.Inf(-1)
		for i := range c {
			lmax = max(lmax, float64(c[i].logit))
		}
		n := 0
		for i := range c {
			// A low temperature pushes survivors far below the best one;
			// below e^-50 they can never be drawn (and expNeg's range ends).
			if x := (float64(c[i].logit) - lmax) / t; x >= -negligible {
				c[i].w = expNeg(x)
				c[n] = c[i]
				n++
			}
		}
		c = c[:n]
	}
	return c
}

// Prob is one token's probability in a distribution.
type Prob struct {
	ID int32
	P  float64
}

// Dist appends to dst[:0] the distribution Sample draws from for these
// logits and history: every token it can return, with its probability
// (they sum to 1, in no particular order). A greedy sampler gives the
// argmax with probability 1; logits with no finite value give token 0.
// Speculative decoding compares two of these (the verifier's and the
// drafter's) token by token. Dist does not advance the random stream and
// does not allocate when dst has room for the survivors.
func (s *Sampler) Dist(logits []float32, history []int32, dst []Prob) []Prob {
	if len(logits) != s.vocab {
		panic(fmt.Sprintf("sample: Dist got %d logits, the Sampler was built for a vocabulary of %d", len(logits), s.vocab))
	}
	dst = dst[:0]
	c := s.final(logits, history)
	switch len(c) {
	case 0:
		return append(dst, Prob{ID: 0, P: 1})
	case 1:
		return append(dst, Prob{ID: c[0].id, P: 1})
	}
	z := sumW(c)
	for i := range c {
		dst = append(dst, Prob{ID: c[i].id, P: c[i].w / z})
	}
	return dst
}

// Uniform returns the next number in [0, 1) of the sampler's random
// stream (the one Sample draws with), for callers that decide between
// tokens themselves, such as a speculative verifier's acceptance test.
func (s *Sampler) Uniform() float64 { return s.rng.Float64() }

// Draw returns a token from d (probabilities that need not sum to 1 but
// must not all be zero) with the sampler's random stream, walking d in
// order; an empty d gives token 0.
func (s *Sampler) Draw(d []Prob) int32 {
	if len(d) == 0 {
		return 0
	}
	z := 0.0
	for _, p := range d {
		z += p.P
	}
	r := s.rng.Float64() * z
	for _, p := range d[:len(d)-1] {
		if r -= p.P; r < 0 {
			return p.ID
		}
	}
	return d[len(d)-1].ID
}

// drawBlock is how many candidates draw skips at a time.
const drawBlock = 16

// draw returns the candidate at fraction u ∈ [0, 1) of the cumulative
// weight of c (len(c) ≥ 2), a block of candidates at a time: one long
// chain of dependent float additions would be the slowest part of an
// untruncated 150k-token draw.
func draw(c []cand, u float64) int32 {
	r := u * sumW(c)
	i := 0
	for ; i+drawBlock <= len(c); i += drawBlock {
		bw := sumW(c[i : i+drawBlock])
		if r < bw {
			break
		}
		r -= bw
	}
	// Should rounding carry r past this block, the walk goes on.
	for ; i < len(c)-1; i++ {
		if r -= c[i].w; r < 0 {
			return c[i].id
		}
	}
	return c[len(c)-1].id
}

// sumW returns the total weight of c, summed in four independent chains.
func sumW(c []cand) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(c); i += 4 {
		s0 += c[i].w
		s1 += c[i+1].w
		s2 += c[i+2].w
		s3 += c[i+3].w
	}
	for ; i < len(c); i++ {
		s0 += c[i].w
	}
	return (s0 + s1) + (s2 + s3)
}

// candidates runs the chain up to the draw and returns the surviving
// candidates (in no particular order) with their unnormalised
// probabilities; a greedy sampler returns just the argmax. It returns no
// candidate when no logit is finite.
func (s *Sampler) candidates(logits []float32, history []int32) []cand {
	greedy := s.p.Temperature <= 0
	buf := logits // read-only unless the penalty needs a copy
	if s.window > 0 && len(history) > 0 {
		buf = s.logits
		copy(buf, logits)
		s.penalize(history)
	}
	best, bestV := argmax(buf)
	if best < 0 {
		return s.cands[:0]
	}
	if greedy {
		return append(s.cands[:0], cand{id: int32(best), logit: bestV, w: 1})
	}

	// Truncation runs on the T = 1 distribution; Sample tempers the
	// survivors afterwards.
	t := 1.0
	inv := 1.0
	lmax := float64(bestV)
	floor := lmax - negligible*t // finite: ≥ -MaxFloat32·51
	topP := s.p.TopP > 0 && s.p.TopP < 1
	minW := float64(s.p.MinP) // the best candidate has w = e^0 = 1
	// NaN and -Inf logits fail every v ≥ floor test below; +Inf passes and
	// is clamped to MaxFloat32.
	var c []cand
	switch k := s.p.TopK; {
	case k > 0 && k < len(buf):
		if k <= heapMaxK {
			c = s.topKHeap(buf, k, floor)
		} else {
			c = s.cands[:0]
			for i, v := range buf {
				if float64(v) >= floor {
					c = append(c, cand{id: int32(i), logit: clampInf(v)})
				}
			}
			if k < len(c) {
				selectTop(c, k)
				c = c[:k]
			}
		}
		z := 0.0
		for i := range c {
			w := expNeg((float64(c[i].logit) - lmax) * inv)
			c[i].w = w
			z += w
		}
		if topP {
			c = c[:s.topP(c, float64(s.p.TopP)*z, lmax, inv)]
		}
	case topP:
		c = s.streamTopP(buf, floor, lmax, inv)
	default:
		// Without top-p nothing needs the normaliser, and min-p is a floor:
		// w ≥ MinP ⇔ logit ≥ lmax + T·ln MinP. The floor used here is one
		// unit of logit/T lower, which rounding cannot cross; the exact test
		// is on w.
		if minW > 0 {
			floor = max(floor, lmax-t*(1-math.Log(minW)))
		}
		c = s.cands[:0]
		for i, v := range buf {
			if float64(v) >= floor {
				v = clampInf(v)
				if w := expNeg((float64(v) - lmax) * inv); w >= minW {
					c = append(c, cand{id: int32(i), logit: v, w: w})
				}
			}
		}
		return c
	}
	if minW > 0 {
		// Top-p kept a prefix of the ranking and min-p keeps one: the
		// result is the shorter, i.e. the top-p prefix filtered by min-p.
		n := 0
		for i := range c {
			if c[i].w >= minW {
				c[n] = c[i]
				n++
			}
		}
		c = c[:n]
	}
	return c
}

// bucketOf maps x = (logit-lmax)/T ∈ [-negligible, 0] to one of the top-p
// histogram's nBuckets buckets, 0 holding the best candidates. It is
// monotone, so each bucket is a contiguous run of the ranking.
func bucketOf(x float64) int {
	return min(int(x*(-nBuckets/negligible)), nBuckets-1)
}

// cutBucket returns the bucket of s.hist in which the cumulative weight
// first reaches target (the last bucket if rounding keeps it short), and
// the weight of the buckets before it.
func (s *Sampler) cutBucket(target float64) (int, float64) {
	b, acc := 0, 0.0
	for ; b < nBuckets-1 && acc+s.hist[b] < target; b++ {
		acc += s.hist[b]
	}
	return b, acc
}

// streamTopP applies softmax and top-p to the logits in buf at or above
// floor without top-k. A first pass computes the normaliser and a
// histogram of the weights by bucketOf; that locates the bucket where the
// top-p cut falls, and a second pass collects only the candidates in it
// and the buckets before it, so the candidates far below the cut are never
// stored, let alone ranked.
func (s *Sampler) streamTopP(buf []float32, floor, lmax, inv float64) []cand {
	clear(s.hist[:])
	for _, v := range buf {
		if float64(v) >= floor {
			x := (float64(clampInf(v)) - lmax) * inv
			s.hist[bucketOf(x)] += expNeg(x)
		}
	}
	z := 0.0
	for _, w := range s.hist {
		z += w
	}
	target := float64(s.p.TopP) * z
	b, acc := s.cutBucket(target)
	// Buckets after b hold x < -(b+1)·negligible/nBuckets. A floor one
	// unit of x lower skips them without rounding ever crossing it; the
	// bucketOf test below is the exact one.
	floor = max(floor, lmax-(float64(b+1)*(negligible/nBuckets)+1)/inv)
	// c[:n] holds buckets before b, which are all kept, and c[n:] bucket b.
	c := s.cands[:0]
	n := 0
	for i, v := range buf {
		if float64(v) >= floor {
			v = clampInf(v)
			x := (float64(v) - lmax) * inv
			if bi := bucketOf(x); bi <= b {
				w := expNeg(x)
				c = append(c, cand{id: int32(i), logit: v, w: w})
				if bi < b {
					c[n], c[len(c)-1] = c[len(c)-1], c[n]
					n++
				}
			}
		}
	}
	return c[:n+cutTopP(c[n:], target-acc)]
}

// topKHeap streams buf through a heap of the k best candidates at or above
// floor, in s.cands, and returns them (all of them if fewer than k pass).
// The heap's root is its lowest-ranked entry, so most logits cost one
// comparison with it.
func (s *Sampler) topKHeap(buf []float32, k int, floor float64) []cand {
	h := s.cands[:0]
	i := 0
	for ; i < len(buf) && len(h) < k; i++ {
		if v := buf[i]; float64(v) >= floor { // NaN fails
			h = append(h, cand{id: int32(i), logit: clampInf(v)})
		}
	}
	if len(h) < k {
		return h
	}
	for j := k/2 - 1; j >= 0; j-- {
		siftDown(h, j)
	}
	root := h[0].logit // ≥ floor
	for ; i < len(buf); i++ {
		// A later id never outranks an equal logit, so v must be greater.
		if v := buf[i]; v > root {
			if v = clampInf(v); v == root {
				continue // +Inf, clamped, ties the root
			}
			h[0] = cand{id: int32(i), logit: v}
			siftDown(h, 0)
			root = h[0].logit
		}
	}
	return h
}

// siftDown restores the heap order below h[j]: every parent ranks behind
// its children.
func siftDown(h []cand, j int) {
	for {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && before(&h[l], &h[r]) {
			l = r
		}
		if !before(&h[j], &h[l]) {
			return
		}
		h[j], h[l] = h[l], h[j]
		j = l
	}
}

// topP reorders the weighted candidates c and returns the length of the
// smallest prefix of the ranking that weighs ≥ target. Many candidates go
// through a histogram first, as in streamTopP, so that only the bucket the
// cut falls in is ranked.
func (s *Sampler) topP(c []cand, target, lmax, inv float64) int {
	if len(c) <= histMin {
		return cutTopP(c, target)
	}
	clear(s.hist[:])
	for i := range c {
		s.hist[bucketOf((float64(c[i].logit)-lmax)*inv)] += c[i].w
	}
	b, acc := s.cutBucket(target)
	// One pass: c[:n] gets the buckets before b, c[n:m] bucket b.
	n, m := 0, 0
	for i := range c {
		switch bi := bucketOf((float64(c[i].logit) - lmax) * inv); {
		case bi < b:
			c[i], c[m] = c[m], c[i]
			c[m], c[n] = c[n], c[m]
			n++
			m++
		case bi == b:
			c[i], c[m] = c[m], c[i]
			m++
		}
	}
	return n + cutTopP(c[n:m], target-acc)
}

// argmax returns the index and value of the highest-ranked logit, with NaN
// below everything and +Inf counted as MaxFloat32, or -1 if none is finite.
func argmax(x []float32) (int, float32) {
	best, bestV := -1, negInf
	for i, v := range x {
		if v > bestV {
			if v > math.MaxFloat32 {
				if bestV == math.MaxFloat32 {
					continue
				}
				v = math.MaxFloat32
			}
			best, bestV = i, v
		}
	}
	return best, bestV
}

// clampInf maps +Inf to MaxFloat32 (with a branch that predicts well,
// unlike the builtin min's NaN handling).
func clampInf(v float32) float32 {
	if v > math.MaxFloat32 {
		return math.MaxFloat32
	}
	return v
}

// exp2Tab[j] = 2^(j/64), for expNeg.
var exp2Tab = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// expNeg is e^x for x in about [-100, 0], to within 1e-13 relative:
// x = (k + r)·ln2/64 with k = round(x·64/ln2), so e^x = 2^(k>>6)·2^((k&63)/64)·e^g
// with |g| ≤ ln2/128 and e^g from a degree-4 Taylor polynomial. It is
// branch-free, inlined, and several times cheaper than math.Exp, which
// dominated sampling without top-k.
func expNeg(x float64) float64 {
	k := int64(x*(64*math.Log2E) - 0.5) // round half down: x ≤ 0
	g := x - float64(k)*(math.Ln2/64)
	p := 1 + g*(1+g*(1.0/2+g*(1.0/6+g*(1.0/24))))
	return math.Float64frombits(math.Float64bits(exp2Tab[k&63]*p) + uint64(k>>6)<<52)
}

// penalize applies the repetition penalty to s.logits for each distinct
// in-vocabulary token among the last s.window entries of history.
func (s *Sampler) penalize(history []int32) {
	if s.window == 0 || len(history) == 0 {
		return
	}
	if len(history) > s.window {
		history = history[len(history)-s.window:]
	}
	s.gen++
	if s.gen == 0 {
		clear(s.marks)
		s.gen = 1
	}
	pen := s.p.RepeatPenalty
	for _, t := range history {
		if t < 0 || int(t) >= s.vocab || s.marks[t] == s.gen {
			continue
		}
		s.marks[t] = s.gen
		v := s.logits[t]
		if v > 0 {
			v /= pen
		} else {
			v *= pen
		}
		s.logits[t] = v
	}
}

// before reports whether a ranks ahead of b: higher logit, then lower id.
func before(a, b *cand) bool {
	return a.logit > b.logit || (a.logit == b.logit && a.id < b.id)
}

// cmpCand orders candidates by rank for slices.SortFunc.
func cmpCand(a, b cand) int {
	if r := cmp.Compare(b.logit, a.logit); r != 0 {
		return r
	}
	return cmp.Compare(a.id, b.id)
}

// partition picks a median-of-three pivot of c (len(c) ≥ 3), moves every
// candidate ranked ahead of it to the front and the pivot right after them,
// and returns the pivot's index and the weight of the candidates before it.
func partition(c []cand) (int, float64) {
	n := len(c)
	a, b, d := 0, n/2, n-1
	if before(&c[b], &c[a]) {
		a, b = b, a
	}
	if before(&c[d], &c[b]) {
		b = d
		if before(&c[b], &c[a]) {
			b = a
		}
	}
	c[b], c[n-1] = c[n-1], c[b]
	p := &c[n-1]
	i, sum := 0, 0.0
	for j := range c[:n-1] {
		if before(&c[j], p) {
			c[i], c[j] = c[j], c[i]
			sum += c[i].w
			i++
		}
	}
	c[i], c[n-1] = c[n-1], c[i]
	return i, sum
}

// depthLimit bounds the partitioning rounds on n candidates before the
// selections below fall back to sorting, which caps the worst case at
// O(n log n).
func depthLimit(n int) int { return 2 * bits.Len(uint(n)) }

// selectTop reorders c so that c[:k] are its k highest-ranked candidates
// (0 < k < len(c)), in no particular order.
func selectTop(c []cand, k int) {
	lo, hi := 0, len(c)
	for depth := depthLimit(len(c)); hi-lo > smallRange && depth > 0; depth-- {
		i, _ := partition(c[lo:hi])
		i += lo
		switch {
		case i == k || i == k-1:
			return
		case k < i:
			hi = i
		default:
			lo = i + 1
		}
	}
	slices.SortFunc(c[lo:hi], cmpCand)
}

// cutTopP reorders c and returns m such that c[:m] is the smallest prefix
// of the ranking whose weight is ≥ target; m ≥ 1 unless c is empty. If
// rounding keeps the sums just short of target, m is len(c), and if target
// ≤ 0 it is 1.
func cutTopP(c []cand, target float64) int {
	lo, hi, acc := 0, len(c), 0.0 // c[:lo] is kept, weighing acc < target
	for depth := depthLimit(len(c)); hi-lo > smallRange && depth > 0; depth-- {
		i, sum := partition(c[lo:hi])
		i += lo
		if acc+sum >= target {
			hi = i
			continue
		}
		acc += sum + c[i].w
		if acc >= target {
			return i + 1
		}
		lo = i + 1
	}
	r := c[lo:hi]
	slices.SortFunc(r, cmpCand)
	for i := range r {
		if acc += r[i].w; acc >= target {
			return lo + i + 1
		}
	}
	return hi
}
