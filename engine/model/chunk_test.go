package model

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stepLog records, in order, what the sequences of a batched run did: 'P'
// a row of the long prompt (its NormHook, during the step), '0', '1' … a
// token decoded by that decoder (after its Forward returned).
type stepLog struct {
	mu sync.Mutex
	ev []byte
}

func (l *stepLog) add(c byte) {
	l.mu.Lock()
	l.ev = append(l.ev, c)
	l.mu.Unlock()
}

// promptRows marks each prompt position the long state computes.
type promptRows struct {
	log *stepLog
	n   int // the prompt's length: later positions are its decoding
}

func (h *promptRows) AfterNorm(pos int, _ []float32) {
	if pos < h.n {
		h.log.add('P')
	}
}

// TestBatcherLongPromptInterleaves (issue 55, item 4): a long prompt that
// joins a Batcher while other sequences decode is read a chunk at a time,
// each chunk in a step with every decoding sequence's next token — so the
// others advance between its chunks rather than waiting for the whole
// prompt — and every sequence's logits are still bit for bit its own
// alone. The batcher's long Wait makes each step wait for the decoders to
// come back: the order of the log does not depend on the machine's speed.
func TestBatcherLongPromptInterleaves(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	const (
		chunk   = 16
		longLen = 200
		maxDec  = 240 // the most a decoder decodes (kjv's window is 256)
		decs    = 2
	)
	V := m.Vocab
	rng := rand.New(rand.NewPCG(55, 4))
	long := make([]int32, longLen)
	for i := range long {
		long[i] = int32(1 + rng.IntN(V-1))
	}
	prompts := [decs][]int32{{1, 300, 391}, {1, 1187, 45, 9}}
	base := testBackend()
	newState := func() *State {
		b, err := base.Share()
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.NewStateOn(0, b)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	// decode runs prompt, then greedy tokens while more says so (at most
	// max), after each calling after; it returns every logits vector.
	decode := func(s *State, prompt []int32, max int, more func(int) bool, after func()) ([][]float32, error) {
		logits := make([]float32, V)
		if err := s.Forward(prompt, logits); err != nil {
			return nil, err
		}
		out := [][]float32{append([]float32(nil), logits...)}
		for i := 0; i < max && more(i); i++ {
			if err := s.Forward([]int32{argmax(logits)}, logits); err != nil {
				return nil, err
			}
			out = append(out, append([]float32(nil), logits...))
			after()
		}
		return out, nil
	}
	always := func(int) bool { return true }
	var aloneDec [decs][][]float32
	for i := range aloneDec {
		var err error
		if aloneDec[i], err = decode(newState(), prompts[i], maxDec, always, func() {}); err != nil {
			t.Fatal(err)
		}
	}
	aloneLong, err := decode(newState(), long, 4, always, func() {})
	if err != nil {
		t.Fatal(err)
	}

	qb, err := base.Share()
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.NewBatcher(qb, BatcherOptions{Chunk: chunk, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var log stepLog
	var dec [decs]*State
	for i := range dec {
		dec[i] = newState()
		if err := q.Join(dec[i]); err != nil {
			t.Fatal(err)
		}
	}
	ls := newState()
	if _, err := ls.AddHook(&promptRows{log: &log, n: longLen}); err != nil {
		t.Fatal(err)
	}
	if err := q.Join(ls); err != nil {
		t.Fatal(err)
	}
	var (
		wg       sync.WaitGroup
		gotDec   [decs][][]float32
		errs     [decs + 1]error
		gotLong  [][]float32
		longDone atomic.Bool // the long prompt's Forward returned
		begin    = make(chan struct{})
		once     sync.Once
		decoded  [decs]atomic.Int32
	)
	for i := range dec {
		wg.Go(func() {
			// Each decoder decodes until the long prompt is read and a few
			// tokens more: it is decoding the whole time the prompt is.
			extra := 0
			more := func(int) bool {
				if longDone.Load() {
					extra++
				}
				return extra <= 4
			}
			gotDec[i], errs[i] = decode(dec[i], prompts[i], maxDec, more, func() {
				log.add(byte('0' + i))
				decoded[i].Add(1)
				if decoded[0].Load() >= 3 && decoded[1].Load() >= 3 {
					// Both decode, each in every step: the long prompt
					// joins now.
					once.Do(func() { close(begin) })
				}
			})
			q.Idle(dec[i])
		})
	}
	wg.Go(func() {
		<-begin
		logits := make([]float32, V)
		if errs[decs] = ls.Forward(long, logits); errs[decs] != nil {
			return
		}
		longDone.Store(true)
		gotLong = [][]float32{append([]float32(nil), logits...)}
		for range 4 {
			if errs[decs] = ls.Forward([]int32{argmax(logits)}, logits); errs[decs] != nil {
				return
			}
			gotLong = append(gotLong, append([]float32(nil), logits...))
		}
		q.Idle(ls)
	})
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("sequence %d: %v", i, err)
		}
	}
	for i := range dec {
		if len(gotDec[i]) >= maxDec+1 {
			t.Fatalf("decoder %d ran out of tokens before the long prompt was read", i)
		}
		if err := sameLogits(aloneDec[i][:len(gotDec[i])], gotDec[i]); err != nil {
			t.Errorf("decoder %d: batched differs from alone: %v", i, err)
		}
	}
	if err := sameLogits(aloneLong, gotLong); err != nil {
		t.Errorf("the long prompt: batched differs from alone: %v", err)
	}

	// The log from the prompt's first row to its last: runs of at most a
	// chunk of rows, every decoder's token between two runs.
	ev := log.ev
	first, last := bytes.IndexByte(ev, 'P'), bytes.LastIndexByte(ev, 'P')
	if n := bytes.Count(ev, []byte("P")); n != longLen {
		t.Fatalf("%d prompt rows logged, want %d", n, longLen)
	}
	var runs []int
	for i := first; i <= last; {
		j := i
		for j <= last && ev[j] == 'P' {
			j++
		}
		runs = append(runs, j-i)
		if j > last {
			break
		}
		k := j
		for k < len(ev) && ev[k] != 'P' {
			k++
		}
		between := ev[j:k]
		for d := range decs {
			if bytes.Count(between, []byte{byte('0' + d)}) != 1 {
				t.Fatalf("between two chunks of the prompt (%d rows read) decoder %d decoded %q: want one token each",
					sumInts(runs), d, between)
			}
		}
		i = k
	}
	want := (longLen + chunk - 1) / chunk
	if len(runs) != want {
		t.Fatalf("the prompt was read in %d steps %v, want %d of at most %d rows", len(runs), runs, want, chunk)
	}
	for _, r := range runs {
		if r > chunk {
			t.Fatalf("a step read %d rows of the prompt, more than the chunk of %d, while others decode: %v", r, chunk, runs)
		}
	}
	// Every decoder still decoding after the prompt: all of it was read
	// beside them.
	for d := range decs {
		if bytes.IndexByte(ev[last:], byte('0'+d)) < 0 {
			t.Fatalf("decoder %d stopped before the prompt was read: %s", d, fmt.Sprintf("%q", ev))
		}
	}
	t.Logf("prompt of %d tokens read in %d steps of ≤ %d rows, each beside both decoders' tokens; %d steps in all",
		longLen, len(runs), chunk, q.Stats().Steps)
}

func sumInts(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}
