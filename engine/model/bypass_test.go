package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// testProj is a hand-built Projections: Q/K/V of every block through a
// random orthonormal basis of k rows (x̃ = P x, W̃ = W Pᵀ), with a bypass
// threshold per block.
type testProj struct{ blocks []BlockProjections }

func (p testProj) Layers() int                  { return len(p.blocks) }
func (p testProj) Block(l int) BlockProjections { return p.blocks[l] }

func newTestProj(t *testing.T, m *Model, k int, thr []float32) testProj {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var p testProj
	for l := range m.Layers {
		basis := randomBasis(rng, k, m.Dim)
		in, err := kvF32Matrix(k, m.Dim, basis)
		if err != nil {
			t.Fatal(err)
		}
		bw := m.Block(l)
		pr := &Projection{In: in}
		for _, w := range []*tensor.Matrix{bw.Q, bw.K, bw.V} {
			f := make([]float32, w.Rows*w.Cols)
			if err := tensor.Dequantize(w.Type, f, w.Data); err != nil {
				t.Fatal(err)
			}
			out := make([]float32, w.Rows*k)
			for r := range w.Rows {
				for j := range k {
					var s float64
					for c := range w.Cols {
						s += float64(f[r*w.Cols+c]) * float64(basis[j*m.Dim+c])
					}
					out[r*k+j] = float32(s)
				}
			}
			mm, err := kvF32Matrix(w.Rows, k, out)
			if err != nil {
				t.Fatal(err)
			}
			pr.Out = append(pr.Out, mm)
		}
		bp := BlockProjections{QKV: pr}
		if thr != nil {
			bp.Bypass = thr[l]
		}
		p.blocks = append(p.blocks, bp)
	}
	return p
}

// normHook records ‖h‖ after every block, per position.
type normHook struct{ norms [][]float64 }

func (h *normHook) AfterBlock(layer, pos int, x []float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	for len(h.norms[layer]) <= pos {
		h.norms[layer] = append(h.norms[layer], 0)
	}
	h.norms[layer][pos] = math.Sqrt(ss)
}

func rowDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestSinkBypass: a threshold every position exceeds runs the compressed
// state exactly as the dense model (decoding) and to rounding (prefill); a
// threshold only the sink exceeds gives the same logits batched as one by
// one, and counts the same dense runs; no threshold changes nothing; a
// NaN or negative one is refused and the state keeps what it ran.
func TestSinkBypass(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	toks := []int32{1, 300, 391, 12, 57, 1200, 9, 44}
	V := m.Vocab
	run := func(st *State, batch bool) []float32 {
		t.Helper()
		st.Reset()
		out := make([]float32, len(toks)*V)
		if batch {
			if err := st.Forward(toks, out); err != nil {
				t.Fatal(err)
			}
			return out
		}
		for i, tok := range toks {
			if err := st.Forward([]int32{tok}, out[i*V:(i+1)*V]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	dense, _ := m.NewStateOn(64, testBackend())
	denseSeq, denseBatch := run(dense, false), run(dense, true)

	// The norms of the dense stream: the sink's and the rest's.
	h := &normHook{norms: make([][]float64, m.Layers)}
	if _, err := dense.AddHook(h); err != nil {
		t.Fatal(err)
	}
	run(dense, true)
	thr := make([]float32, m.Layers)
	for l := 1; l < m.Layers; l++ {
		rest := 0.0
		for _, v := range h.norms[l-1][1:] {
			rest = max(rest, v)
		}
		thr[l] = float32(rest * 1.01) // only what stands out above every ordinary position
	}

	plain, _ := m.NewStateOn(64, testBackend())
	if err := plain.SetProjections(newTestProj(t, m, 32, nil)); err != nil {
		t.Fatal(err)
	}
	plainSeq := run(plain, false)
	if rowDiff(plainSeq, denseSeq) < 1e-2 {
		t.Fatal("the projection changes nothing: the test cannot see a bypass")
	}

	all, _ := m.NewStateOn(64, testBackend())
	tiny := make([]float32, m.Layers)
	for l := range tiny {
		tiny[l] = 1e-6
	}
	if err := all.SetProjections(newTestProj(t, m, 32, tiny)); err != nil {
		t.Fatal(err)
	}
	if d := rowDiff(run(all, false), denseSeq); d != 0 {
		t.Errorf("every position bypassing, decoding: logits %g from the dense model's", d)
	}
	if d := rowDiff(run(all, true), denseBatch); d > 1e-4 {
		t.Errorf("every position bypassing, prefill: logits %g from the dense model's", d)
	}
	if got, want := all.Bypassed(), int64(2*len(toks)*m.Layers); got != want {
		t.Errorf("%d dense block runs, want %d", got, want)
	}

	sink, _ := m.NewStateOn(64, testBackend())
	if err := sink.SetProjections(newTestProj(t, m, 32, thr)); err != nil {
		t.Fatal(err)
	}
	seq := run(sink, false)
	afterSeq := sink.Bypassed()
	batch := run(sink, true)
	if afterSeq == 0 || sink.Bypassed() != 2*afterSeq {
		t.Errorf("dense runs: %d one by one, %d in all after the batch", afterSeq, sink.Bypassed())
	}
	if d := rowDiff(seq, batch); d > 1e-4 {
		t.Errorf("with the sink bypassed, batch and one-by-one logits differ by %g", d)
	}
	if rowDiff(seq, plainSeq) == 0 {
		t.Error("bypassing the sink changed nothing")
	}
	t.Logf("sink only: %d block runs dense over %d positions × %d blocks; logits move %.3g from the plain projection", afterSeq, len(toks), m.Layers, rowDiff(seq, plainSeq))

	for _, bad := range []float32{float32(math.NaN()), -1, float32(math.Inf(1))} {
		b := slicesRepeat(bad, m.Layers)
		if err := sink.SetProjections(newTestProj(t, m, 32, b)); err == nil {
			t.Errorf("threshold %g accepted", bad)
		}
	}
	if d := rowDiff(run(sink, false), seq); d != 0 {
		t.Errorf("a refused projection moved the logits by %g", d)
	}

	// Decoding allocates nothing, bypassed or not.
	logits := make([]float32, V)
	next := []int32{394}
	for _, st := range []*State{all, sink} {
		st.Reset()
		if err := st.Forward(toks[:3], logits); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := st.Forward(next, logits); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v allocations per decoded token", n)
		}
	}
}

func slicesRepeat(v float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}
