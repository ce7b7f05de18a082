package grc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
)

// CalibrationText is the text MCR reads when the user gives none: a few
// paragraphs of plain English of different kinds (narrative, explanation,
// dialogue, a list, numbers), written for ISAGI and free to use. MCR only
// needs the residual stream's variance per layer, whose profile is a
// property of the model far more than of the text, so a short general
// text is enough to find the phases.
const CalibrationText = `The old lighthouse keeper climbed the spiral stairs every evening at dusk. He counted the steps out of habit, one hundred and twelve of them, and at the top he trimmed the wick, polished the lens and looked out over the grey water for the lights of the fishing boats coming home.

A lens works by bending light. Glass slows light down, and when a ray enters the glass at an angle, the part of the wave that arrives first is slowed first, so the whole ray turns. A curved surface turns each ray by a different amount, which is how a lens can gather the light of a small flame into a beam that sailors see from twenty miles away.

"Will the storm reach us tonight?" asked the girl who brought his bread.
"Not before midnight," he said. "The wind is still in the west, and the gulls are flying low. Tell your mother to bring the washing in."
"And the boats?"
"They know the signs as well as I do. Most of them are in already."

To make bread you need four things: flour, water, salt and yeast. Mix them, knead the dough until it is smooth, let it rise in a warm place for an hour, shape it, let it rise again, and bake it in a hot oven for about forty minutes. A loaf is done when it sounds hollow if you knock on the bottom.

In 1850 the town had three hundred people; by 1900 it had nearly four thousand, most of them working in the harbour or on the railway that ran along the coast. The census of 1911 counted 4,212 residents, 731 houses, two schools, five churches and eleven public houses.

Rivers carry water from the hills to the sea, and with it sand, mud and stones. Where a river slows down, near its mouth, it drops what it carries, and over thousands of years the deposits build up into flat, fertile land. Many of the world's great cities stand on such land, because it is easy to farm, easy to build on and close to the water that trade depends on.

She opened the letter slowly, as if the words inside might change if she hurried. It was short. The job was hers if she wanted it, the pay was better than she had hoped, and they would need an answer by Friday.
`

// CalibrationID identifies calibration tokens in a cache key: the first 16
// hex digits of the sha256 of the token ids (little-endian int32), so a
// different text or tokenizer gets a different MCR cache.
func CalibrationID(tokens []int32) string {
	h := sha256.New()
	var b [4]byte
	for _, t := range tokens {
		binary.LittleEndian.PutUint32(b[:], uint32(t))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// profileHook accumulates, per layer, what LayerProfile reports: the sum
// and the sum of squares of every feature of the residual stream after the
// block, the norms of every position, and up to idRows rows for the
// intrinsic dimension.
type profileHook struct {
	d        int
	sum, sqr [][]float64
	n        []int
	norms    [][]float64
	rows     [][]float32 // per layer, n×d (first positions left out)
	nrows    []int
	idRows   int
}

// ReadOnly implements model.ReadOnlyHook: the hook only accumulates.
func (h *profileHook) ReadOnly() bool { return true }

func (h *profileHook) AfterBlock(layer, pos int, x []float32) {
	var nn float64
	for _, v := range x {
		nn += float64(v) * float64(v)
	}
	h.norms[layer] = append(h.norms[layer], math.Sqrt(nn))
	// Position 0 is the attention sink (BOS): its residual norm is several
	// standard deviations above the rest (Paper 6 §2.3), and one such
	// token per window would dominate E‖h − h̄‖² and the principal
	// components. The norms keep it: the bypass's thresholds are about it.
	if pos == 0 {
		return
	}
	s, q := h.sum[layer], h.sqr[layer]
	for i, v := range x {
		f := float64(v)
		s[i] += f
		q[i] += f * f
	}
	h.n[layer]++
	if h.nrows[layer] < h.idRows {
		h.rows[layer] = append(h.rows[layer], x...)
		h.nrows[layer]++
	}
}

// Profile is what the calibration pass measures of the uncompressed
// model's residual stream after each block ℓ.
type Profile struct {
	// Variance is σ²_ℓ = E‖h_ℓ − h̄_ℓ‖²/d (MCR's profile, Paper 6 §2.1),
	// first positions left out.
	Variance []float64
	// NormMean and NormStd are the mean and standard deviation of ‖h_ℓ‖
	// over every position, first ones included (the sink bypass, §2.3).
	NormMean, NormStd []float64
	// IntrinsicDim is the PCA-95 dimension of h_ℓ (Paper 2 §2): the
	// fewest principal components of the centred states that hold 95 % of
	// their variance, over the first IDPositions positions (first
	// positions left out).
	IntrinsicDim []int
	// Positions is how many positions were read; IDPositions how many the
	// intrinsic dimension was measured over.
	Positions, IDPositions int
}

// idPositions bounds the positions the intrinsic dimension is measured
// over: its principal components come from an n×n Gram matrix, and n
// states of an 8B model's width take n·16 KiB per layer.
const idPositions = 256

// LayerProfile runs the uncompressed model over calibration tokens and
// measures its residual stream after every block (Profile). The tokens are
// cut into windows of window positions (0: the model's context, at most
// 512), each starting with bos when bos ≥ 0. It runs on b, which no other
// State may be using meanwhile (nil: the CPU, on a pool of its own). A
// cancelled ctx stops it between windows with ctx.Err().
func LayerProfile(ctx context.Context, m *model.Model, b backend.Backend, tokens []int32, bos int32, window int) (*Profile, error) {
	if window <= 0 {
		window = min(m.CtxLen, 512)
	}
	var (
		st  *model.State
		err error
	)
	if b == nil {
		st, err = m.NewStateOn(window, cpu.New(nil))
	} else {
		st, err = m.NewStateOn(window, b)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	window = st.Cap()
	if bos >= 0 && window < 3 || window < 2 {
		return nil, fmt.Errorf("grc: a calibration window of %d positions is too short", window)
	}
	L, d := m.Layers, m.Dim
	h := &profileHook{d: d, n: make([]int, L), norms: make([][]float64, L), rows: make([][]float32, L), nrows: make([]int, L), idRows: idPositions}
	for range L {
		h.sum = append(h.sum, make([]float64, d))
		h.sqr = append(h.sqr, make([]float64, d))
	}
	if _, err := st.AddHook(h); err != nil {
		return nil, err
	}
	per := window
	if bos >= 0 {
		per--
	}
	buf := make([]int32, 0, window)
	for start := 0; start < len(tokens); start += per {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		buf = buf[:0]
		if bos >= 0 {
			buf = append(buf, bos)
		}
		buf = append(buf, tokens[start:min(start+per, len(tokens))]...)
		st.Reset()
		if err := st.Forward(buf, nil); err != nil {
			return nil, fmt.Errorf("grc: calibration window at token %d: %w", start, err)
		}
	}
	if h.n[0] < 2 {
		return nil, errors.New("grc: calibration needs at least two tokens after each window's first")
	}
	p := &Profile{Variance: make([]float64, L), NormMean: make([]float64, L), NormStd: make([]float64, L),
		IntrinsicDim: make([]int, L), Positions: len(h.norms[0]), IDPositions: h.nrows[0]}
	for l := range L {
		n := float64(h.n[l])
		var v float64
		for i := range d {
			mean := h.sum[l][i] / n
			v += max(h.sqr[l][i]/n-mean*mean, 0)
		}
		p.Variance[l] = v / float64(d)
		p.NormMean[l], p.NormStd[l] = meanStd(h.norms[l])
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.IntrinsicDim[l], err = pca95(h.rows[l], h.nrows[l], d); err != nil {
			return nil, fmt.Errorf("grc: block %d: %w", l, err)
		}
	}
	return p, nil
}

// LayerVariance is LayerProfile's Variance alone: MCR's profile.
func LayerVariance(ctx context.Context, m *model.Model, b backend.Backend, tokens []int32, bos int32, window int) ([]float64, error) {
	p, err := LayerProfile(ctx, m, b, tokens, bos, window)
	if err != nil {
		return nil, err
	}
	return p.Variance, nil
}

// meanStd is the mean and the (population) standard deviation of xs.
func meanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// pca95 is the PCA-95 dimension of n rows of width d (row-major): the
// eigenvalues of the centred rows' n×n Gram matrix are those of their
// covariance (up to the factor n), without the d×d matrix.
func pca95(rows []float32, n, d int) (int, error) {
	if n < 2 {
		return 0, nil
	}
	c := make([]float64, n*d)
	for j := range d {
		var mean float64
		for i := range n {
			mean += float64(rows[i*d+j])
		}
		mean /= float64(n)
		for i := range n {
			c[i*d+j] = float64(rows[i*d+j]) - mean
		}
	}
	g := mat.NewSymDense(n, nil)
	g.SymRankK(g, 1, mat.NewDense(n, d, c))
	var eig mat.EigenSym
	if !eig.Factorize(g, false) {
		return 0, errors.New("principal components did not converge")
	}
	vals := eig.Values(nil)
	slices.Reverse(vals)
	return k95(vals), nil
}

// DepthSink is the depth-sink block the profile detects (Paper 2 §5.1):
// the first block whose residual stream's intrinsic dimension reaches
// within 0.1 % of the plateau — the most any block reaches — where the
// paper has activations saturate in effective dimension. ok is false when
// the profile has no dimension to go by (then the caller keeps ⌊2L/3⌋).
func (p *Profile) DepthSink() (l int, ok bool) {
	top := 0
	for _, d := range p.IntrinsicDim {
		top = max(top, d)
	}
	if top == 0 {
		return 0, false
	}
	for l, d := range p.IntrinsicDim {
		if float64(d) >= (1-1e-3)*float64(top) {
			return l, true
		}
	}
	return 0, false
}

// Bypass is the sink bypass's threshold for every block: a position whose
// residual stream entering block ℓ has ‖h‖ > μ + 3σ — the stream after
// block ℓ−1 over the calibration text — is an outlier (Paper 6 §2.3).
// Block 0 reads the token embeddings, where no sink has formed yet (and
// the calibration hooks do not see them): it is never bypassed (0).
func (p *Profile) Bypass() []float32 {
	out := make([]float32, len(p.NormMean))
	for l := 1; l < len(out); l++ {
		out[l] = float32(p.NormMean[l-1] + 3*p.NormStd[l-1])
	}
	return out
}
