package model

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
)

// Batcher runs the Forward calls of the States that join it together:
// continuous batching. Each State keeps its own KV cache, positions, hooks
// and settings; a step of the batcher takes the pending Forwards of several
// of them and runs their rows through the model at once, so that each
// weight is read once for all of them (a decode step of N sequences is one
// N-row product per matrix, which the prefill kernels already are), while
// every sequence's RoPE, cache and attention run on its own cache and
// positions (backend.Viewer's views of its rows), and its hooks see only its
// own rows.
//
// Batching changes no result: on the CPU every row of a product is bit for
// bit that row computed alone (engine/tensor's kernels promise it), norms
// and activations are row by row, and attention is per sequence, so a
// State's logits are the same whichever others share its steps
// (TestBatcherMatchesAlone).
//
// Scheduling. A State's Forward waits in the batcher until a step has run
// all its tokens. A step runs when every State of the last step that
// finished its Forward is back with its next one (or has gone idle, Idle),
// or when half the last step's duration has passed without it (a straggler
// joins the next step); the first State to find the step ready runs it, on
// its own goroutine, so a State alone pays no hand-over. A step runs one
// group: the States whose products are the same (dense, or the same
// Projections), the group of the oldest pending Forward first. Within it,
// every one-token Forward (a decoding sequence) gets its row, and prompts
// fill what is left of Rows, Chunk rows each while others decode (so that
// a long prompt does not stall running streams) and the whole step when
// nothing else waits. A State whose step cannot share — a KV projection, a
// sink bypass, experts switched off, or a backend without views — runs its
// Forward alone in its turn, a step at a time.
//
// The Forwards run on whichever goroutine leads a step, and a step reads
// and writes the States in it: a joined State must not be used while its
// Forward waits (as any State), and hooks run on the leading goroutine.
type Batcher struct {
	m      *Model
	c      *State         // the carrier: activations for rows rows, no cache of its own
	view   backend.Viewer // nil: every State runs alone
	rows   int
	chunk  int
	wait   time.Duration // 0: adaptive
	lock   func()        // BatcherOptions.Lock and Unlock, or no-ops
	unlock func()

	mu       sync.Mutex
	members  map[*State]*member
	pending  []*member // Forwards with rows left, in arrival order
	running  bool      // a step is running
	stepEnd  time.Time // when the last step ended
	lastStep time.Duration
	stats    BatcherStats
	closed   bool
	// err is the first lasting failure of the batcher's own backend (a
	// device that failed in a step): every later step fails with it.
	err error

	// Step scratch, reused from step to step so that decoding allocates
	// nothing: the plan's sequences, their tokens, the views of their
	// rows, the logits of the decoding rows.
	plan   []seqRun
	tok    []int32
	views  []seqViews
	logits []float32
}

// BatcherOptions say how a Batcher runs. The zero value is the default.
type BatcherOptions struct {
	// Rows is the most rows one step runs (0: the backend's batch size,
	// at most MaxBatch).
	Rows int
	// Chunk is the most rows of one prompt a step runs while other
	// sequences decode (0: 32). Smaller keeps the others' tokens coming
	// while a prompt is read; larger reads the prompt faster.
	Chunk int
	// Wait is how long a step waits for the last step's sequences to come
	// back (0: half the last step's duration, within 1–50 ms).
	Wait time.Duration
	// Unlock and Lock, when set, are called around a Forward's wait: a
	// caller that holds a lock of its own while it uses its State (a
	// server's turn on the model) releases it while the batcher runs.
	Unlock, Lock func()
}

// BatcherStats count a Batcher's steps.
type BatcherStats struct {
	// Steps is the steps run; Batched those that ran more than one
	// sequence.
	Steps, Batched int64
	// Rows is the rows (tokens) the steps ran, Seqs the sequences they
	// ran: Seqs/Steps is the mean batch.
	Rows, Seqs int64
}

// member is a joined State's place in the batcher: its Forward in
// progress and its wake-up.
type member struct {
	q      *Batcher
	s      *State
	tokens []int32
	logits []float32
	done   int // tokens computed of this Forward
	err    error
	// waiting: a Forward is in the batcher; finished: it has run (or
	// failed); expected: the last step finished its Forward, and the
	// next step waits for it to come back (or go idle).
	waiting, finished, expected bool
	wake                        chan struct{} // buffered 1
	timer                       *time.Timer
}

// seqRun is one sequence of a carrier's step: rows row0…row0+n−1 are its
// tokens done…done+n−1.
type seqRun struct {
	j       *member
	row0, n int
	// out is where its logits go: the last row's (Vocab), every row's
	// (n·Vocab), or nil.
	out []float32
	// dec: the row is one of the step's first rows, whose logits are
	// computed together (a decoding sequence).
	dec bool
	v   *seqViews
}

// seqViews are the views of one sequence's rows of the carrier's buffers.
type seqViews struct {
	row0, n        int
	q, kb, vb, att backend.Buffer
	x              backend.Buffer // the residual stream's rows (a control vector's)
}

// NewBatcher makes a batcher for States of m on b's domain; b is the
// batcher's own backend (a Share of the States'), on which their steps run.
func (m *Model) NewBatcher(b backend.Backend, o BatcherOptions) (*Batcher, error) {
	if b == nil {
		return nil, fmt.Errorf("model: batcher: no backend")
	}
	rows := min(MaxBatch, b.BatchSize())
	if o.Rows > 0 {
		rows = min(rows, o.Rows)
	}
	if o.Chunk <= 0 {
		o.Chunk = 32
	}
	if o.Wait < 0 {
		return nil, fmt.Errorf("model: batcher: a wait of %v", o.Wait)
	}
	q := &Batcher{m: m, rows: rows, chunk: min(o.Chunk, rows), wait: o.Wait, lock: o.Lock, unlock: o.Unlock, members: map[*State]*member{}}
	if q.lock == nil || q.unlock == nil {
		q.lock, q.unlock = func() {}, func() {}
	}
	q.view, _ = b.(backend.Viewer)
	q.c = &State{m: m, b: b} // without views only its backend is read
	if q.view != nil {
		// The carrier: activations for rows rows and no cache of its own.
		c, err := m.newBare(b, rows)
		if err != nil {
			return nil, fmt.Errorf("model: batcher: %w", err)
		}
		q.c = c
	}
	q.tok = make([]int32, rows)
	q.plan = make([]seqRun, 0, rows)
	q.views = make([]seqViews, rows)
	return q, nil
}

// Join makes s's Forwards run in the batcher's steps, until Leave. s must
// be a State of the batcher's model on its backend's domain, not in a
// Forward, and in no other batcher.
func (q *Batcher) Join(s *State) error {
	switch {
	case s == nil || s.m != q.m:
		return fmt.Errorf("model: batcher: a state of another model")
	case s.b.Domain() != q.c.b.Domain():
		return fmt.Errorf("model: batcher: a state on %s, the batcher runs on %s", s.b.Name(), q.c.b.Name())
	case s.closed:
		return fmt.Errorf("model: batcher: the state is closed")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return fmt.Errorf("model: batcher: closed")
	}
	if s.joined != nil {
		if s.joined.q == q {
			return nil
		}
		return fmt.Errorf("model: batcher: the state is in another batcher")
	}
	j := &member{q: q, s: s, wake: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
	j.timer.Stop()
	q.members[s] = j
	s.joined = j
	return nil
}

// Leave takes s out of the batcher: its Forwards run on its own again. It
// must not be in a Forward.
func (q *Batcher) Leave(s *State) {
	q.mu.Lock()
	defer q.mu.Unlock()
	j := q.members[s]
	if j == nil {
		return
	}
	delete(q.members, s)
	s.joined = nil
	j.expected = false
	q.wakeAll()
}

// Idle says s will not call Forward soon (its reply is over): the next
// step does not wait for it.
func (q *Batcher) Idle(s *State) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j := q.members[s]; j != nil && j.expected {
		j.expected = false
		q.wakeAll()
	}
}

// Stats are the batcher's counts so far.
func (q *Batcher) Stats() BatcherStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stats
}

// Err is the first lasting failure of the batcher's own backend (a device
// that failed during a batched step), or nil. It is safe to call while
// steps run.
func (q *Batcher) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Batches says whether the batcher can run several States in one step:
// its backend has views (backend.Viewer). Without them each step runs one
// State's Forward, in turn.
func (q *Batcher) Batches() bool { return q.view != nil }

// Close takes every State out of the batcher. No Forward may be waiting
// in it.
func (q *Batcher) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for s := range q.members {
		s.joined = nil
	}
	clear(q.members)
	q.closed = true
}

// forward is a joined State's Forward: it waits in the batcher until steps
// have run all of tokens, leading the steps that are ready while it waits.
func (q *Batcher) forward(s *State, tokens []int32, logits []float32) error {
	j := s.joined
	q.mu.Lock()
	j.tokens, j.logits, j.done, j.err = tokens, logits, 0, nil
	j.waiting, j.finished, j.expected = true, false, false
	q.pending = append(q.pending, j)
	q.wakeAll() // a step waiting for this State may be ready now
	q.mu.Unlock()
	q.unlock()
	defer q.lock()
	q.mu.Lock()
	for !j.finished {
		var wait time.Duration
		if !q.running {
			ready, w := q.ready(time.Now())
			if ready {
				q.lead()
				continue
			}
			wait = w
		}
		q.mu.Unlock()
		if wait > 0 {
			j.timer.Reset(wait)
			select {
			case <-j.wake:
			case <-j.timer.C:
			}
			j.timer.Stop()
		} else {
			<-j.wake
		}
		q.mu.Lock()
	}
	j.tokens, j.logits = nil, nil
	err := j.err
	q.mu.Unlock()
	return err
}

// ready says whether a step may run now, or how long to wait before it
// may (q.mu held; no step running).
func (q *Batcher) ready(now time.Time) (bool, time.Duration) {
	if len(q.pending) == 0 {
		return false, 0
	}
	back := true
	for _, j := range q.members {
		if j.expected && !j.waiting {
			back = false
			break
		}
	}
	if back {
		return true, 0
	}
	wait := q.wait
	if wait == 0 {
		wait = min(max(q.lastStep/2, time.Millisecond), 50*time.Millisecond)
	}
	if left := q.stepEnd.Add(wait).Sub(now); left > 0 {
		return false, left
	}
	return true, 0
}

// wakeAll wakes every waiting Forward to look again (q.mu held).
func (q *Batcher) wakeAll() {
	for _, j := range q.pending {
		select {
		case j.wake <- struct{}{}:
		default:
		}
	}
}

// lead runs one step (q.mu held; it is released while the step runs).
func (q *Batcher) lead() {
	q.running = true
	// Whoever the last step expected and is not back now runs in a later
	// step: the steps after this one do not wait for it again.
	for _, j := range q.members {
		if j.expected && !j.waiting {
			j.expected = false
		}
	}
	q.makePlan()
	plan := q.plan
	q.mu.Unlock()
	start := time.Now()
	err := q.run(plan)
	end := time.Now()
	// The carrier's backend is read only here, between steps: a device's
	// failure is lasting, and the health of a server reads it (Err).
	var failed error
	if f, ok := q.c.b.(backend.Failer); ok && len(plan) > 1 {
		failed = f.Err()
	}
	q.mu.Lock()
	if failed != nil && q.err == nil {
		q.err = failed
	}
	q.running = false
	q.stepEnd, q.lastStep = end, end.Sub(start)
	q.stats.Steps++
	q.stats.Seqs += int64(len(plan))
	if len(plan) > 1 {
		q.stats.Batched++
	}
	for i := range plan {
		sq := &plan[i]
		j := sq.j
		q.stats.Rows += int64(sq.n)
		j.done += sq.n
		// A finished Forward is no longer waiting from here on, not from
		// when its goroutine wakes: the next step must wait for it to
		// come back with its next Forward.
		switch {
		case err != nil:
			j.err, j.finished, j.waiting = err, true, false
		case j.done == len(j.tokens):
			j.finished, j.expected, j.waiting = true, true, false
		}
	}
	kept := q.pending[:0]
	for _, j := range q.pending {
		if !j.finished {
			kept = append(kept, j)
		} else {
			select { // its own wake: it may be waiting on it
			case j.wake <- struct{}{}:
			default:
			}
		}
	}
	clear(q.pending[len(kept):])
	q.pending = kept
	q.wakeAll()
}

// groupKey is what a State's step shares with others': the products it
// runs (nil: the dense weights; else its Projections), and ok false when
// it cannot share a step at all.
func (q *Batcher) groupKey(s *State) (key any, ok bool) {
	if q.view == nil || s.kvp != nil || s.bp != nil || s.moe != nil && s.moe.anyOff() {
		return nil, false
	}
	if s.proj == nil {
		return nil, true
	}
	if !reflect.TypeOf(s.proj).Comparable() {
		return nil, false
	}
	return s.proj, true
}

// makePlan chooses the next step's sequences and rows into q.plan (q.mu
// held): the group of the oldest pending Forward; its decoding sequences
// first, a row each, then its prompts.
func (q *Batcher) makePlan() {
	q.plan = q.plan[:0]
	first := q.pending[0]
	key, ok := q.groupKey(first.s)
	others := len(q.pending) > 1
	if !ok {
		lim := q.rows
		if others {
			lim = q.chunk
		}
		q.plan = append(q.plan, q.seq(first, min(len(first.tokens)-first.done, lim), 0))
		return
	}
	var group [64]*member // the group's Forwards; more than 64 wait a step
	g := group[:0]
	for _, j := range q.pending {
		if k, ok := q.groupKey(j.s); ok && k == key && len(g) < len(group) {
			g = append(g, j)
		}
	}
	rows := 0
	// Decoding rows first, so that their logits are one product.
	for _, j := range g {
		if rows < q.rows && len(j.tokens)-j.done == 1 && len(j.logits) > 0 {
			sq := q.seq(j, 1, rows)
			sq.dec = true
			q.plan = append(q.plan, sq)
			rows++
		}
	}
	decoding := rows > 0
	for _, j := range g {
		left := len(j.tokens) - j.done
		if rows >= q.rows || left == 1 && len(j.logits) > 0 {
			continue
		}
		n := min(left, q.rows-rows)
		if decoding || len(q.pending) > len(g) {
			n = min(n, q.chunk)
		}
		q.plan = append(q.plan, q.seq(j, n, rows))
		rows += n
	}
}

// seq is j's next n tokens at rows row0…, with where their logits go.
func (q *Batcher) seq(j *member, n, row0 int) seqRun {
	V := q.m.Vocab
	sq := seqRun{j: j, row0: row0, n: n}
	end := j.done + n
	switch {
	case len(j.logits) == len(j.tokens)*V && len(j.tokens) > 1:
		sq.out = j.logits[j.done*V : end*V]
	case len(j.logits) == V && end == len(j.tokens):
		sq.out = j.logits
	}
	return sq
}

// run runs a plan: one sequence on its own State, several on the carrier.
func (q *Batcher) run(plan []seqRun) error {
	if len(plan) == 1 {
		sq := &plan[0]
		j := sq.j
		return j.s.forward(j.tokens[j.done:j.done+sq.n], sq.out)
	}
	c := q.c
	first := plan[0].j.s
	c.lin, c.proj = first.lin, first.proj
	if first.xt != nil && (c.xt == nil || c.xt.Width() < first.xt.Width()) {
		xt, err := c.b.Alloc(q.rows, first.xt.Width())
		if err != nil {
			return fmt.Errorf("model: batcher: %w", err)
		}
		c.xt = xt
	}
	n, dec := 0, 0
	for i := range plan {
		sq := &plan[i]
		j := sq.j
		copy(q.tok[sq.row0:], j.tokens[j.done:j.done+sq.n])
		sq.v = q.viewsOf(i, sq.row0, sq.n)
		n += sq.n
		if sq.dec {
			dec++
		}
	}
	if V := q.m.Vocab; len(q.logits) < dec*V {
		q.logits = make([]float32, dec*V)
	}
	c.seqs = plan
	err := c.stepSeqs(q.tok[:n], dec, q.logits)
	c.seqs = nil
	c.lin, c.proj = c.dense.lin, nil
	return err
}

// viewsOf are the views of rows row0…row0+n−1 for the plan's i-th
// sequence, made again only when its rows change.
func (q *Batcher) viewsOf(i, row0, n int) *seqViews {
	v := &q.views[i]
	if v.q == nil || v.row0 != row0 || v.n != n {
		c := q.c
		*v = seqViews{row0: row0, n: n,
			q: q.view.View(c.q, row0, n), kb: q.view.View(c.kb, row0, n),
			vb: q.view.View(c.vb, row0, n), att: q.view.View(c.att, row0, n),
			x: q.view.View(c.x, row0, n)}
	}
	return v
}

// stepSeqs is step for a carrier's sequences (s.seqs): n rows in all, the
// first dec of them decoding sequences' single rows, whose logits are
// computed together into scratch and copied out.
func (s *State) stepSeqs(tokens []int32, dec int, scratch []float32) error {
	m, c, b := s.m, &s.m.Config, s.b
	n, D, V := len(tokens), c.Dim, c.Vocab
	if err := b.Embed(s.x, s.w.tokEmbd, tokens); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if m.arch.gemma {
		b.Scale(s.x, n, float32(math.Sqrt(float64(D))))
	}
	for l := range m.layers {
		m.arch.block(s, l, n, 0)
		for i := range s.seqs {
			sq := &s.seqs[i]
			if v := sq.j.s.steerAt(l); v != nil {
				b.AddBias(sq.v.x, v, sq.n) // its own control vector (steer.go)
			}
			if sq.j.s.hooks.atLayer(l) {
				st := sq.j.s
				s.blockHooks(&st.hooks, l, sq.row0, sq.n, st.pos)
			}
		}
	}
	b.RMSNorm(s.hn, s.x, s.w.outNorm, n, c.Eps)
	for i := range s.seqs {
		sq := &s.seqs[i]
		st := sq.j.s
		if len(st.hooks.norm) == 0 {
			continue
		}
		rows := b.Host(s.hn, sq.row0, sq.n)
		for _, h := range st.hooks.norm {
			for r := range sq.n {
				h.AfterNorm(st.pos+r, rows[r*D:(r+1)*D])
			}
		}
	}
	if dec > 0 {
		b.Logits(scratch[:dec*V], s.w.output, s.hn, 0, dec)
	}
	for i := range s.seqs {
		sq := &s.seqs[i]
		switch {
		case sq.dec:
			copy(sq.out, scratch[sq.row0*V:(sq.row0+1)*V])
		case len(sq.out) == V:
			b.Logits(sq.out, s.w.output, s.hn, sq.row0+sq.n-1, 1)
		case len(sq.out) > 0:
			b.Logits(sq.out, s.w.output, s.hn, sq.row0, sq.n)
		}
	}
	// A device reports a failed operation late: no sequence's positions
	// are counted then, and no logits are read.
	if f, ok := b.(backend.Failer); ok {
		if err := f.Err(); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
	for i := range s.seqs {
		sq := &s.seqs[i]
		st := sq.j.s
		pos0 := st.pos
		st.pos += sq.n
		st.n += sq.n
		if len(sq.out) == 0 {
			continue
		}
		softCap(sq.out, c.LogitSoftCap)
		for _, h := range st.hooks.logits {
			if len(sq.out) == V {
				h.Logits(pos0+sq.n-1, sq.out)
				continue
			}
			for r := range sq.n {
				h.Logits(pos0+r, sq.out[r*V:(r+1)*V])
			}
		}
	}
	return nil
}

// attentionSeqs is attention on a carrier: each sequence's rows rotated
// at its positions, cached in its cache and attending to it, with its own
// layer options (its RoPE factors and window).
func (s *State) attentionSeqs(l int) {
	c, b := &s.m.Config, s.b
	for i := range s.seqs {
		sq := &s.seqs[i]
		st, v := sq.j.s, sq.v
		A := &st.lay[l]
		b.RoPE(v.q, sq.n, c.Heads, c.HeadDim, st.pos, A.rope)
		b.RoPE(v.kb, sq.n, c.KVHeads, c.HeadDim, st.pos, A.rope)
		if len(st.hooks.query) > 0 {
			st.hooks.queries(b, l, st.pos, v.q, sq.n, A.attend.Scale, c.HeadDim)
		}
		b.StoreKV(st.kv, l, st.n, sq.n, v.kb, v.vb)
		b.Attend(v.att, v.q, st.kv, l, st.n, sq.n, A.attend)
	}
}

// routedSeqs hands a carrier's routing of layer l to each sequence's
// RouteHooks, its rows at its positions.
func (s *State) routedSeqs(l, n int) {
	r, k := s.moe, s.m.ExpertsUsed
	read := false
	for i := range s.seqs {
		sq := &s.seqs[i]
		st := sq.j.s
		if len(st.hooks.route) == 0 {
			continue
		}
		if !read {
			s.readRoute(n)
			read = true
		}
		for row := sq.row0; row < sq.row0+sq.n; row++ {
			for _, h := range st.hooks.route {
				h.Routed(l, st.pos+row-sq.row0, r.ids[row*k:(row+1)*k], r.w[row*k:(row+1)*k])
			}
		}
	}
}
