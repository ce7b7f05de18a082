package generate

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/isagi-lab/isagi/engine/sample"
)

// Speculative decoding (docs/speculative.md): a Drafter proposes γ tokens,
// the generator's state (the verifier) runs the pending token and all γ in
// one batched forward pass, and the modified rejection sampling of
// Leviathan et al. and Chen et al. keeps each drafted token x with
// probability min(1, p(x)/q(x)) — p the verifier's distribution, q the
// drafter's, both after the same sampler chain — and on the first
// rejection draws from norm(max(0, p − q)) instead. The tokens that come
// out are distributed exactly as plain decoding's; greedy decoding (both
// distributions one-hot) keeps a draft iff it is the verifier's argmax, so
// its output is plain greedy decoding's, token for token.

// MaxGamma is the most tokens one speculative step drafts.
const MaxGamma = 16

// DefaultMaxGamma bounds the adaptive choice of γ.
const DefaultMaxGamma = 8

// DraftRequest is what a drafter continues.
type DraftRequest struct {
	// History is the whole conversation; its last token is sampled but
	// not yet run through the verifier.
	History []int32
	// Generated counts the tokens generated so far in this Generate call.
	Generated int
	// Stop is the call's stop tokens.
	Stop []int32
}

// Drafter proposes the tokens a speculative Generator verifies.
type Drafter interface {
	// Draft proposes up to len(out) tokens continuing req.History, writes
	// them to out and the distribution each was drawn from to q[i]
	// (reusing its storage; a deterministic drafter gives its token
	// probability 1), and returns how many it wrote. Zero means no
	// proposal: the generator decodes one token plainly.
	Draft(req DraftRequest, out []int32, q [][]sample.Prob) (int, error)
	// Name says what drafts ("rank 64 qkv", "n-gram").
	Name() string
}

// Syncer is optionally implemented by a drafter with a state to keep in
// step with the conversation: Sync(history) runs every token but the
// last that the drafter lacks, before the timed Draft call, so that the
// controller's per-token drafting cost is drafting's alone.
type Syncer interface {
	Sync(history []int32) error
}

// Rejecter is optionally implemented by a drafter that learns from its
// rejections (the online basis): Rejected(pos) is called when the
// verifier's and the drafter's distributions for the token after
// position pos led to a rejection, right after the verifying forward pass
// (both states still hold pos).
type Rejecter interface {
	Rejected(pos int)
}

// SpecOptions configure speculative decoding.
type SpecOptions struct {
	// Drafter proposes tokens; nil turns speculation off.
	Drafter Drafter
	// Gamma fixes γ, the tokens drafted per step (1…MaxGamma); 0 chooses
	// it adaptively from the measured acceptance rate and step costs, and
	// turns speculation off while it would be slower than plain decoding.
	Gamma int
	// MaxGamma bounds the adaptive γ; 0 means DefaultMaxGamma.
	MaxGamma int
}

// SpecStats describe speculative decoding over one Generate call (the
// counts) and as the generator last measured it (the estimates).
type SpecStats struct {
	Drafter string // the drafter's name, "" when speculation is off
	// Steps counts verifier forward passes that checked drafts; Drafted
	// and Accepted count the drafted tokens and those kept.
	Steps, Drafted, Accepted int
	// Plain counts the tokens decoded without drafts (speculation
	// switched off, or nothing drafted).
	Plain int
	// SpecTokens counts the tokens the speculative steps produced and
	// SpecTime the time they took (drafting and verifying).
	SpecTokens int
	SpecTime   time.Duration
	// DraftTime and VerifyTime are the parts of SpecTime spent drafting
	// (catching up excluded) and in the verifier's batched passes.
	DraftTime, VerifyTime time.Duration
	// Gamma is the γ of the last step (0: the last step was plain).
	Gamma int
	// Alpha is the estimated per-token acceptance rate (recent steps
	// weigh most); Predicted is the throughput model's speed relative to
	// plain decoding at Gamma (Paper 3 §3: (1−α^{γ+1})/(1−α) tokens per
	// step of T_V(γ+1) + γ·T_D against 1/T_V(1)).
	Alpha, Predicted float64
	// Measured is the speculative steps' tokens per second relative to
	// plain decoding's, both as this generator measured them (0 before
	// both were measured).
	Measured float64
	// Off is set when the adaptive choice found every γ slower than plain
	// decoding and decoded plainly; Note says so in a sentence.
	Off  bool
	Note string
}

// TokensPerStep is the tokens each verifying step produced.
func (s SpecStats) TokensPerStep() float64 {
	if s.Steps == 0 {
		return 0
	}
	return float64(s.SpecTokens) / float64(s.Steps)
}

// AcceptRate is the share of drafted tokens kept.
func (s SpecStats) AcceptRate() float64 {
	if s.Drafted == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.Drafted)
}

// specState is a generator's speculative machinery, allocated once.
type specState struct {
	opt     SpecOptions
	maxG    int
	drafts  []int32
	q, p    [][]sample.Prob
	logits  []float32 // (MaxGamma+1)·vocab
	dense   []float64 // p scattered by id, zero elsewhere between uses
	resid   []sample.Prob
	batch   []int32
	ctl     specCtl
	stats   SpecStats // this call's
	lastRun SpecStats // the last call's, for displays
}

// SetSpeculation turns speculative decoding on with o.Drafter (nil turns
// it off). The conversation is kept; the drafter catches up with it at
// its first draft.
func (g *Generator) SetSpeculation(o SpecOptions) error {
	if o.Drafter == nil {
		g.spec = nil
		return nil
	}
	if o.Gamma < 0 || o.Gamma > MaxGamma {
		return fmt.Errorf("generate: γ %d outside 0…%d (0 = adaptive)", o.Gamma, MaxGamma)
	}
	maxG := o.MaxGamma
	if maxG == 0 {
		maxG = DefaultMaxGamma
	}
	if maxG < 1 || maxG > MaxGamma {
		return fmt.Errorf("generate: maximum γ %d outside 1…%d", maxG, MaxGamma)
	}
	if o.Gamma > 0 {
		maxG = o.Gamma
	}
	vocab := g.state.Model().Vocab
	s := &specState{
		opt: o, maxG: maxG,
		drafts: make([]int32, maxG),
		q:      make([][]sample.Prob, maxG),
		p:      make([][]sample.Prob, maxG+1),
		logits: make([]float32, (maxG+1)*vocab),
		dense:  make([]float64, vocab),
		batch:  make([]int32, maxG+1),
	}
	s.ctl.init(o.Gamma, maxG)
	g.spec = s
	return nil
}

// Speculation is what the last Generate call's speculative decoding did
// (zero when it was off).
func (g *Generator) Speculation() SpecStats {
	if g.spec == nil {
		return SpecStats{}
	}
	return g.spec.lastRun
}

// begin starts a Generate call's counts.
func (s *specState) begin() {
	s.stats = SpecStats{Drafter: s.opt.Drafter.Name()}
}

// end closes a call's counts with the controller's estimates.
func (s *specState) end() SpecStats {
	st := &s.stats
	st.Alpha = s.ctl.alpha()
	st.Predicted = s.ctl.ratio(max(st.Gamma, 1))
	st.Off = s.ctl.off
	if st.SpecTokens > 0 && st.SpecTime > 0 && s.ctl.tv[1] > 0 {
		st.Measured = float64(st.SpecTokens) / st.SpecTime.Seconds() * s.ctl.tv[1]
	}
	if st.Off {
		st.Note = fmt.Sprintf("speculation is off: at α = %.2f drafting costs more than it saves (predicted %.2f× plain decoding at best)", st.Alpha, s.ctl.bestRatio)
	}
	s.lastRun = *st
	return *st
}

// errNoPending guards the step's precondition.
var errNoPending = errors.New("generate: a speculative step needs a pending token")

// step decodes from the pending token (the last of g.history, not yet in
// the state): a speculative step when the controller picks γ > 0 and the
// drafter proposes something, else a plain one. It passes each new token
// to out in order; out returns false to stop (the token it was given
// stays pending, and nothing after it is kept).
func (g *Generator) step(generated int, opts Options, out func(tok int32) (more bool, err error)) error {
	if !g.pending {
		return errNoPending
	}
	s := g.spec
	gamma := 0
	if s != nil {
		gamma = s.ctl.choose()
		// Never draft past the cache: the batch is the pending token and γ.
		gamma = min(gamma, g.state.Cap()-g.state.Pos()-1, s.maxG)
	}
	if gamma <= 0 {
		return g.plainStep(nil, out)
	}
	start := time.Now()
	if sy, ok := s.opt.Drafter.(Syncer); ok {
		// Catching up is not drafting: after a stretch of plain steps it
		// is a prefill, and charged to T_D it would keep speculation off.
		if err := sy.Sync(g.history); err != nil {
			return fmt.Errorf("generate: drafter catching up: %w", err)
		}
	}
	t0 := time.Now()
	n, err := s.opt.Drafter.Draft(DraftRequest{History: g.history, Generated: generated, Stop: opts.Stop}, s.drafts[:gamma], s.q[:gamma])
	if err != nil {
		return fmt.Errorf("generate: drafting: %w", err)
	}
	tDraft := time.Since(t0)
	n = min(n, gamma) // a drafter never gets more room than γ
	if n <= 0 {
		return g.plainStep(nil, out)
	}
	for i := range n {
		if s.drafts[i] < 0 || int(s.drafts[i]) >= len(s.dense) {
			return fmt.Errorf("generate: the drafter proposed token %d, outside the vocabulary", s.drafts[i])
		}
	}
	return g.verify(n, start, tDraft, out)
}

// verify checks n drafted tokens in one forward pass of the pending token
// and the drafts, keeps the accepted prefix and one more token, and rolls
// the state back over the rest.
func (g *Generator) verify(n int, t0 time.Time, tDraft time.Duration, out func(int32) (bool, error)) error {
	s := g.spec
	vocab := len(s.dense)
	base := g.state.Pos() // the pending token's position
	s.batch = append(s.batch[:0], g.history[len(g.history)-1])
	s.batch = append(s.batch, s.drafts[:n]...)
	logits := s.logits[:(n+1)*vocab]
	tv := time.Now()
	if err := g.state.Forward(s.batch, logits); err != nil {
		return err
	}
	tVerify := time.Since(tv)
	g.pending = false

	h := len(g.history)
	g.history = append(g.history, s.drafts[:n]...) // tentatively, for the penalty window
	accepted, rejected, next := s.walk(g.sampler, logits, g.history, h, n, func(i int) {
		if r, ok := s.opt.Drafter.(Rejecter); ok {
			r.Rejected(base + i)
		}
	})
	g.history = g.history[:h]

	elapsed := time.Since(t0)
	s.ctl.spec(n, accepted, rejected, tDraft, tVerify)
	s.stats.Steps++
	s.stats.Drafted += n
	s.stats.Accepted += accepted
	s.stats.SpecTokens += accepted + 1
	s.stats.SpecTime += elapsed
	s.stats.DraftTime += tDraft
	s.stats.VerifyTime += tVerify
	s.stats.Gamma = n

	// The state holds the pending token and every draft; keep the pending
	// token and the accepted drafts, then hand out the tokens one by one.
	keep := func(tokens int) { g.state.Truncate(base + tokens) }
	for i := 0; i < accepted; i++ {
		g.history = append(g.history, s.drafts[i])
		more, err := out(s.drafts[i])
		if err != nil || !more {
			// drafts[i] becomes the pending token; the state keeps what
			// precedes it.
			keep(1 + i)
			g.pending = true
			return err
		}
	}
	keep(1 + accepted)
	g.history = append(g.history, next)
	g.pending = true
	_, err := out(next)
	return err
}

// walk runs the modified rejection sampling over n drafts (s.drafts, with
// their distributions s.q): row i of logits is the verifier's logits for
// the token after hist[:h+i], which is drafts[i] (hist holds the drafts
// after its first h tokens). It returns how many drafts were accepted,
// whether one was rejected (reject(i) is told which), and the token drawn
// after the accepted ones: from norm(max(0, p−q)) at a rejection, from p
// after all n.
func (s *specState) walk(smp *sample.Sampler, logits []float32, hist []int32, h, n int, reject func(i int)) (accepted int, rejected bool, next int32) {
	vocab := len(s.dense)
	row := func(i int) []float32 { return logits[i*vocab : (i+1)*vocab] }
	for i := range n {
		p := smp.Dist(row(i), hist[:h+i], s.p[i][:0])
		s.p[i] = p
		x := s.drafts[i]
		px, qx := probOf(p, x), probOf(s.q[i], x)
		// Accept with probability min(1, p/q). A drafter that gave its own
		// draft no probability cannot have drawn it: rejected.
		if qx > 0 && (px >= qx || smp.Uniform()*qx < px) {
			accepted++
			continue
		}
		reject(i)
		return accepted, true, smp.Draw(s.residual(p, s.q[i]))
	}
	s.p[n] = smp.Dist(row(n), hist[:h+n], s.p[n][:0])
	return accepted, false, smp.Draw(s.p[n])
}

// residual is norm(max(0, p − q)) as an unnormalised list (Draw
// normalises); when rounding leaves nothing (p ≈ q), it is p.
func (s *specState) residual(p, q []sample.Prob) []sample.Prob {
	for _, e := range p {
		s.dense[e.ID] = e.P
	}
	for _, e := range q {
		s.dense[e.ID] -= e.P
	}
	r := s.resid[:0]
	for _, e := range p {
		if d := s.dense[e.ID]; d > 0 {
			r = append(r, sample.Prob{ID: e.ID, P: d})
		}
	}
	for _, e := range p {
		s.dense[e.ID] = 0
	}
	for _, e := range q {
		s.dense[e.ID] = 0
	}
	s.resid = r
	if len(r) == 0 {
		return p
	}
	return r
}

// probOf is x's probability in d (0 when absent).
func probOf(d []sample.Prob, x int32) float64 {
	for _, e := range d {
		if e.ID == x {
			return e.P
		}
	}
	return 0
}

// specCtl chooses γ from the measured acceptance rate and step costs
// (Paper 3 §3's throughput model) and switches speculation off while it
// predicts a loss, probing now and then so that a drafter that improves
// (the online basis) gets its chance back; while on, a plain step every
// probeEvery steps keeps the plain cost it compares against fresh.
type specCtl struct {
	fixed, maxG int
	// tv[b] is the verifier's time for a batch of b tokens (tv[1] is a
	// plain decode step), td the drafter's time per drafted token, as
	// exponentially weighted means; zero is not yet measured.
	tv []float64
	td float64
	// acc and trials are decayed counts of accepted drafts and of draft
	// positions tried (accepted, plus the rejected one): α̂ = acc/trials.
	acc, trials float64
	off         bool
	sinceProbe  int
	probeGap    int // plain steps between probes while off: doubles per failed probe
	sincePlain  int // speculative steps since the last plain one
	bestRatio   float64
	bestGamma   int
}

const (
	// ewmaW is the weight of a new timing.
	ewmaW = 0.2
	// countDecay ages the acceptance counts per speculative step, so α̂
	// follows the conversation (about the last 30 steps).
	countDecay = 0.97
	// probeEvery is how many plain steps pass before the first probe
	// while off; each probe after which it stays off doubles the gap, up
	// to maxProbeGap, so that a drafter that keeps losing costs ever less
	// (a probe after plain steps makes the drafter catch up on them).
	probeEvery  = 32
	maxProbeGap = 1024
)

func (c *specCtl) init(fixed, maxG int) {
	*c = specCtl{fixed: fixed, maxG: maxG, tv: make([]float64, maxG+2), probeGap: probeEvery}
}

// alpha is the acceptance estimate, starting from one success in two
// tries (a uniform prior) so that a fresh drafter is tried.
func (c *specCtl) alpha() float64 { return (c.acc + 1) / (c.trials + 2) }

// ratio is the predicted speed of γ-token steps relative to plain decoding.
// An unmeasured batch cost counts as a plain step's (optimism: it gets
// measured by being tried).
func (c *specCtl) ratio(gamma int) float64 {
	t1 := c.tv[1]
	if t1 == 0 || gamma < 1 {
		return 0 // unknown until a plain step is measured
	}
	a := math.Min(c.alpha(), 0.999)
	perStep := (1 - math.Pow(a, float64(gamma+1))) / (1 - a)
	tb := c.tv[min(gamma+1, len(c.tv)-1)]
	if tb == 0 {
		tb = t1
	}
	return perStep / (tb + float64(gamma)*c.td) * t1
}

// choose returns the γ for the next step (0: a plain step).
func (c *specCtl) choose() int {
	if c.fixed > 0 {
		return c.fixed
	}
	if c.tv[1] == 0 {
		return 0 // measure a plain step first
	}
	c.bestGamma, c.bestRatio = 1, c.ratio(1)
	for g := 2; g <= c.maxG; g++ {
		if r := c.ratio(g); r > c.bestRatio {
			c.bestGamma, c.bestRatio = g, r
		}
	}
	wasOff := c.off
	c.off = c.bestRatio < 1
	switch {
	case !c.off && c.sincePlain >= probeEvery:
		// The comparison is only as good as T_V(1): measure it again now
		// and then, or one slow plain step would keep speculation on.
		return 0
	case !c.off:
		c.probeGap = probeEvery
	case c.sinceProbe < c.probeGap:
		return 0
	default:
		c.sinceProbe = 0
		if wasOff {
			c.probeGap = min(2*c.probeGap, maxProbeGap)
		}
	}
	return c.bestGamma
}

// ewma folds x into old; a sample over four times the mean (a page fault,
// the machine busy elsewhere) counts as four times it.
func ewma(old, x float64) float64 {
	if old == 0 {
		return x
	}
	return old + ewmaW*(min(x, 4*old)-old)
}

// plain records a plain step's time.
func (c *specCtl) plain(d time.Duration) {
	c.tv[1] = ewma(c.tv[1], d.Seconds())
	c.sinceProbe++
	c.sincePlain = 0
}

// spec records a speculative step.
func (c *specCtl) spec(n, accepted int, rejected bool, draft, verify time.Duration) {
	c.sincePlain++
	c.td = ewma(c.td, draft.Seconds()/float64(n))
	if n+1 < len(c.tv) {
		c.tv[n+1] = ewma(c.tv[n+1], verify.Seconds())
	}
	c.acc = c.acc*countDecay + float64(accepted)
	tries := float64(accepted)
	if rejected {
		tries++
	}
	c.trials = c.trials*countDecay + tries
}
