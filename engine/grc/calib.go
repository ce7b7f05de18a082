package grc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
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

// varianceHook accumulates, per layer, the sum and the sum of squares of
// every feature of the residual stream after the block.
type varianceHook struct {
	d         int
	sum, sqr  [][]float64
	n         []int
	skipFirst bool
}

// ReadOnly implements model.ReadOnlyHook: the hook only accumulates.
func (h *varianceHook) ReadOnly() bool { return true }

func (h *varianceHook) AfterBlock(layer, pos int, x []float32) {
	// Position 0 is the attention sink (BOS): its residual norm is several
	// standard deviations above the rest (Paper 6 §2.3), and one such
	// token per window would dominate E‖h − h̄‖².
	if pos == 0 && h.skipFirst {
		return
	}
	s, q := h.sum[layer], h.sqr[layer]
	for i, v := range x {
		f := float64(v)
		s[i] += f
		q[i] += f * f
	}
	h.n[layer]++
}

// LayerVariance runs the uncompressed model over calibration tokens and
// returns, per block ℓ, σ²_ℓ = E‖h_ℓ − h̄_ℓ‖²/d: the per-feature variance
// of the residual stream after the block, averaged over features (Paper 6
// §2.1). The tokens are cut into windows of window positions (0: the
// model's context, at most 512), each starting with bos when bos ≥ 0; the
// first position of each window is left out (see varianceHook). It runs
// on b, which no other State may be using meanwhile (nil: the CPU, on a
// pool of its own). A cancelled ctx stops it between windows with
// ctx.Err().
func LayerVariance(ctx context.Context, m *model.Model, b backend.Backend, tokens []int32, bos int32, window int) ([]float64, error) {
	if window <= 0 {
		window = min(m.CtxLen, 512)
	}
	var (
		st  *model.State
		err error
	)
	if b == nil {
		st, err = m.NewState(window, nil)
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
	h := &varianceHook{d: d, n: make([]int, L), skipFirst: true}
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
	out := make([]float64, L)
	for l := range L {
		n := float64(h.n[l])
		var v float64
		for i := range d {
			mean := h.sum[l][i] / n
			v += max(h.sqr[l][i]/n-mean*mean, 0)
		}
		out[l] = v / float64(d)
	}
	return out, nil
}
