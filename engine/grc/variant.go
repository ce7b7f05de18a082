package grc

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/model"
)

// variant is how a group's matrices are prepared before their Gram matrix
// is decomposed: the gauge (Paper 6 §3, folded into the norm's γ) and the
// sink channels kept exact (Paper 1, journal form, Limitations). Both only
// apply to the groups that read a norm's output — Q/K/V and gate/up —
// whose input is the residual stream, normalised; O and down keep the
// plain construction whatever the variant.
type variant struct {
	gauge bool
	sink  int // T: the input channels kept exact
}

// variantOf is the variant a spec asks for.
func variantOf(sp Spec) variant { return variant{gauge: sp.Gauge, sink: sp.SinkChannels} }

// readsNorm reports whether group g reads a norm's output (qkv, ffn).
func readsNorm(g int) bool { return g == 0 || g == 2 }

// gaugeFloor bounds a gauge's smallest entry against its largest: a norm
// whose γ has a (near-)zero channel would otherwise divide by zero, and a
// channel the norm silences is one the products barely read anyway.
const gaugeFloor = 1e-4

// Gauge returns the diagonal gauge s of the input a group reads through an
// RMSNorm of weights gamma: s_i = |γ_i| (floored at gaugeFloor·max|γ|),
// scaled so that ∏ s_i = 1 (the paper's normalisation; the scale is
// otherwise free).
//
// Why this gauge, and why it is exact: a matrix W that reads a norm's
// output sees x = γ ⊙ n, n the unit-RMS stream. Writing W x = (W D)(D⁻¹x)
// with D = diag(s) changes nothing — the rescaling is folded into the
// norm's γ (γ/s) and absorbed by the reading matrix (W D) — so any s is an
// exact gauge, at every rank, and the residual stream (whose RMSNorm a
// rescaling would change) is untouched. What s changes is which rank-k
// approximation the truncation picks: truncating X = W D by its top-k
// right singular space minimises ‖(W − Ŵ) D‖_F over every rank-k Ŵ
// (Eckart–Young), the error weighted by how much each channel carries. With
// s = |γ| that is the error on the stream n itself, whose channels the
// norm leaves at one RMS on average: the tail the paper descends on,
// measured where the model reads, and at its minimum in closed form — so
// no descent is run (TestGaugeIsOptimal checks that no perturbation of s
// does better).
func Gauge(gamma []float32) []float32 {
	s := make([]float32, len(gamma))
	var top float64
	for _, g := range gamma {
		if a := math.Abs(float64(g)); a > top && !math.IsInf(a, 0) { // NaN compares false
			top = a
		}
	}
	if top == 0 {
		for i := range s {
			s[i] = 1
		}
		return s
	}
	var logSum float64
	for i, g := range gamma {
		v := math.Abs(float64(g))
		if !(v >= gaugeFloor*top) || math.IsInf(v, 0) { // NaN too
			v = gaugeFloor * top
		}
		s[i] = float32(v)
		logSum += math.Log(v)
	}
	norm := math.Exp(-logSum / float64(len(gamma)))
	for i := range s {
		s[i] = float32(float64(s[i]) * norm)
	}
	return s
}

// SinkChannels returns the T input channels (columns) of a group with the
// largest ‖W[:, i]‖² summed over its matrices, ascending; ties go to the
// lower index, so two builds agree. Massive activations live in a few
// channels of the residual stream (Sun et al. 2024), and the columns that
// read them are the heavy ones: keeping those channels exact takes them
// out of the truncation.
func SinkChannels(slots []Matrix, t int) []int {
	if t <= 0 || len(slots) == 0 {
		return nil
	}
	d := slots[0].Cols
	norms := make([]float64, d)
	for _, s := range slots {
		for r := range s.Rows {
			for i, w := range s.W[r*d : (r+1)*d] {
				norms[i] += float64(w) * float64(w)
			}
		}
	}
	idx := make([]int, d)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(norms[b], norms[a]) })
	out := slices.Clone(idx[:min(t, d)])
	slices.Sort(out)
	return out
}

// prepared is one group of one block as its variant decomposes it.
type prepared struct {
	// w are the matrices as the model holds them (dequantised).
	w []Matrix
	// x are the matrices the Gram matrix is taken of: W·diag(s) when
	// gauged, with the sink channels' columns zeroed.
	x []Matrix
	// scale is the gauge s (nil: none); chans the sink channels.
	scale []float32
	chans []int
}

// prepare dequantises group g of block l and applies variant v to it.
func prepare(m *model.Model, g, l int, v variant) (*prepared, error) {
	w, err := dequantGroup(m, g, l)
	if err != nil {
		return nil, err
	}
	p := &prepared{w: w, x: w}
	if !readsNorm(g) || (!v.gauge && v.sink == 0) {
		return p, nil
	}
	if v.gauge {
		bw := m.Block(l)
		gamma := bw.AttnNorm
		if g == 2 {
			gamma = bw.FFNNorm
		}
		if len(gamma) == w[0].Cols {
			p.scale = Gauge(gamma)
		}
	}
	full := make([]Matrix, len(w))
	for i, s := range w {
		x := Matrix{Rows: s.Rows, Cols: s.Cols, W: append([]float32(nil), s.W...)}
		if p.scale != nil {
			for r := range x.Rows {
				row := x.W[r*x.Cols : (r+1)*x.Cols]
				for c := range row {
					row[c] *= p.scale[c]
				}
			}
		}
		full[i] = x
	}
	p.chans = SinkChannels(full, v.sink)
	// The Gram is taken of the full (gauged) matrices when nothing is
	// exempt; otherwise of what is left once the exempt channels go.
	p.x = full
	if len(p.chans) > 0 {
		for _, x := range full {
			for r := range x.Rows {
				for _, c := range p.chans {
					x.W[r*x.Cols+c] = 0
				}
			}
		}
	}
	return p, nil
}

// gaugedFull returns X_s = W_s·diag(s) of a prepared group without the sink
// channels zeroed: the matrix whose error the gauge's metric measures.
func (p *prepared) gaugedFull(i int) Matrix {
	s := p.w[i]
	if p.scale == nil {
		return s
	}
	x := Matrix{Rows: s.Rows, Cols: s.Cols, W: make([]float32, len(s.W))}
	for r := range s.Rows {
		for c, v := range s.W[r*s.Cols : (r+1)*s.Cols] {
			x.W[r*s.Cols+c] = v * p.scale[c]
		}
	}
	return x
}

// k95 is the intrinsic dimension of a spectrum (eigenvalues, largest
// first): the fewest leading components that hold 95 % of its sum (Paper
// 2 §2's PCA-95 estimate, here of a weight group's Gram).
func k95(spectrum []float64) int {
	var total float64
	for _, v := range spectrum {
		total += max(v, 0)
	}
	if total <= 0 {
		return 0
	}
	var acc float64
	for j, v := range spectrum {
		acc += max(v, 0)
		if acc >= 0.95*total {
			return j + 1
		}
	}
	return len(spectrum)
}

// tailAbove is Σ_{j ≥ k} of a spectrum: the energy a rank-k truncation
// leaves (the Eckart–Young bound, for σ²).
func tailAbove(spectrum []float64, k int) float64 {
	var t float64
	for j := k; j < len(spectrum); j++ {
		t += max(spectrum[j], 0)
	}
	return t
}

// slotSpectrum is the eigenvalues of XᵀX (σ² of X), largest first, taken
// from the smaller of XᵀX and XXᵀ, values only.
func slotSpectrum(x Matrix) ([]float64, error) {
	n := min(x.Rows, x.Cols)
	g := mat.NewSymDense(n, nil)
	if x.Rows < x.Cols {
		g.SymRankK(g, 1, mat.NewDense(x.Rows, x.Cols, widen(x.W))) // XXᵀ: few rows
	} else {
		// XᵀX as Decompose takes it: a wide FFN matrix is never widened
		// whole.
		addGram(g, x, make([]float64, min(gramChunk, x.Rows)*x.Cols))
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, false) {
		return nil, errors.New("grc: eigendecomposition did not converge")
	}
	vals := eig.Values(nil)
	slices.Reverse(vals)
	return vals, nil
}
