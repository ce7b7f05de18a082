package geometry

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/prompts"
)

// Steering vectors made from a model's states, in llama.cpp's control
// vector format (engine/steer). The layer convention is
// llama-cvector-generator's and repeng's: direction.N is read from the
// residual stream leaving block N−1 (the input of block N, Hugging Face's
// hidden_states[N]) and llama.cpp adds it after block N. A model of L
// blocks so gets direction.1 … direction.L−1, from the outputs of blocks
// 0 … L−2; the last block's output, which feeds only the final norm, has
// no direction.
//
// Each prompt is read at its last token, where a chat model (the prompt
// is a user turn with the generation prompt) decides how to answer;
// repeng reads the last token too.

// SteerPair is one contrast pair: a prompt showing the behaviour the
// vector steers towards (Positive) and a matched one without it
// (Negative).
type SteerPair struct {
	Positive string `json:"positive"`
	Negative string `json:"negative"`
}

// Steering methods (SteerOptions.Method, and steer.Vector.Method of the
// vectors Steer makes).
const (
	// SteerMean is the mean over pairs of positive − negative, as
	// llama-cvector-generator's mean method.
	SteerMean = "mean"
	// SteerPCA is the first principal component of the pairs'
	// differences, as repeng's pca_diff.
	SteerPCA = "pca"
)

// SteerOptions say how Steer makes each layer's direction.
type SteerOptions struct {
	// Method is SteerMean ("" too) or SteerPCA.
	Method string
	// Raw keeps the mean difference unnormalised (SteerMean only): its
	// magnitude is then "one mean difference" between the two sides, the
	// natural unit of a refusal direction. Otherwise every direction is
	// of unit length.
	Raw bool
}

// method is o.Method with its default, or an error for one Steer does
// not know.
func (o SteerOptions) method() (string, error) {
	switch o.Method {
	case "", SteerMean:
		return SteerMean, nil
	case SteerPCA:
		if o.Raw {
			return "", fmt.Errorf("geometry: a raw direction is the mean method's; the principal component has no magnitude of its own")
		}
		return SteerPCA, nil
	}
	return "", fmt.Errorf("geometry: steering method %q: want %s or %s", o.Method, SteerMean, SteerPCA)
}

// lastRows records the residual stream after every block at one
// position: read-only, and with no HookLayers, so that one forward pass
// hands it every layer.
type lastRows struct {
	d, at int
	rows  []float32 // layer l at rows[l·d:(l+1)·d]
	seen  []bool    // which layers were read at position at
}

// ReadOnly implements model.ReadOnlyHook.
func (h *lastRows) ReadOnly() bool { return true }

func (h *lastRows) AfterBlock(layer, pos int, x []float32) {
	if pos != h.at || layer < 0 || layer >= len(h.seen) || len(x) != h.d {
		return
	}
	copy(h.rows[layer*h.d:(layer+1)*h.d], x)
	h.seen[layer] = true
}

// lastAll runs text as a prompt once and leaves, in rec, its last token's
// state after every block. A prompt longer than the window is cut at the
// front (promptIDs), so that its last token stays the one read.
func (r *runner) lastAll(text string, rec *lastRows) error {
	ids, err := r.promptIDs(text, 0)
	if err != nil {
		return err
	}
	r.st.Reset()
	rec.at = r.st.Pos() + len(ids) - 1
	clear(rec.seen)
	if err := r.st.Forward(ids, nil); err != nil {
		return fmt.Errorf("geometry: prompt %q: %w", text, err)
	}
	for l, ok := range rec.seen {
		if !ok {
			return fmt.Errorf("geometry: prompt %q: block %d's output was never read", text, l)
		}
	}
	return nil
}

// Steer makes a control vector from contrast pairs: each prompt read once
// (one forward pass, every block's output at its last token), then, for
// every layer N from 1 to the model's blocks − 1, a direction from the
// pairs' differences positive − negative at the output of block N−1
// (PairDirection). A layer where the two sides do not differ at all has
// no direction; a vector with none anywhere is refused. The vector's Hint
// is the model's architecture and its Method o's; the caller names its
// Source. progress, when not nil, is told after every pair.
func Steer(ctx context.Context, src Source, pairs []SteerPair, o SteerOptions, progress Progress) (*steer.Vector, error) {
	method, err := o.method()
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("geometry: steering needs at least one contrast pair")
	}
	if src.Model == nil {
		return nil, fmt.Errorf("geometry: steering needs a model")
	}
	L, d := src.Model.Layers, src.Model.Dim
	if L < 2 {
		return nil, fmt.Errorf("geometry: a model of %d block has no layer llama.cpp steers (it adds direction.N after block N ≥ 1)", L)
	}
	r, err := newRunner(src)
	if err != nil {
		return nil, err
	}
	defer r.st.Close()
	rec := &lastRows{d: d, rows: make([]float32, L*d), seen: make([]bool, L)}
	remove, err := r.st.AddHook(rec)
	if err != nil {
		return nil, err
	}
	defer remove()
	n := len(pairs)
	// Per layer l (the output of block l, direction.l+1): the differences,
	// kept whole only for the principal component, which needs them all.
	sums := make([][]float64, L-1)
	var diffs [][]float32
	for l := range sums {
		sums[l] = make([]float64, d)
	}
	if method == SteerPCA {
		diffs = make([][]float32, L-1)
		for l := range diffs {
			diffs[l] = make([]float32, n*d)
		}
	}
	pos := make([]float32, L*d)
	for i, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := r.lastAll(p.Positive, rec); err != nil {
			return nil, err
		}
		copy(pos, rec.rows)
		if err := r.lastAll(p.Negative, rec); err != nil {
			return nil, err
		}
		for l := range L - 1 {
			pr, nr := pos[l*d:(l+1)*d], rec.rows[l*d:(l+1)*d]
			s := sums[l]
			for j := range d {
				x := float64(pr[j]) - float64(nr[j])
				s[j] += x
				if diffs != nil {
					diffs[l][i*d+j] = float32(x)
				}
			}
		}
		if progress != nil {
			progress("steering pairs", i+1, n)
		}
	}
	v := &steer.Vector{Hint: src.Model.Arch, Dim: d, Dirs: make([][]float32, L), Method: method}
	found := false
	for l := range L - 1 {
		var dir []float64
		if method == SteerPCA {
			D := mat.NewDense(n, d, widen(diffs[l]))
			diffs[l] = nil // the float64 copy replaces it
			if dir, err = PairDirection(D, o); err != nil {
				return nil, fmt.Errorf("geometry: direction.%d: %w", l+1, err)
			}
		} else {
			dir = meanDirection(sums[l], n, o.Raw)
		}
		if dir != nil {
			v.Dirs[l+1] = narrow(dir)
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("geometry: the positive and negative prompts read the same at every layer; there is no direction between them")
	}
	return v, nil
}

// PairDirection is one layer's direction from the pairs' differences,
// one row positive − negative per pair:
//
//   - SteerMean: the mean row, of unit length unless o.Raw, as
//     llama-cvector-generator's mean method.
//   - SteerPCA: the first principal component of the rows centred on
//     their mean, as repeng's pca_diff, of unit length. A component's sign
//     is arbitrary (llama.cpp's PCA leaves it so); here it is the one on
//     which the positives project higher than the negatives on average
//     (mean row · direction ≥ 0), so that adding the vector pushes towards
//     the positive side. Where the centred rows vanish (one pair, or every
//     pair differing by the same vector) there is no component, and the
//     mean row's direction, which is then every row's, is taken.
//
// It is nil, with no error, when the rows are all zero.
func PairDirection(diffs *mat.Dense, o SteerOptions) ([]float64, error) {
	method, err := o.method()
	if err != nil {
		return nil, err
	}
	n, d := diffs.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("geometry: no pair differences")
	}
	sum := make([]float64, d)
	for i := range n {
		floats.Add(sum, diffs.RawRowView(i))
	}
	if method == SteerMean {
		return meanDirection(sum, n, o.Raw), nil
	}
	mean := meanDirection(sum, n, true)
	scale := mat.Norm(diffs, 2) // Frobenius: how large the rows are
	if !(scale > 0) {
		return nil, nil
	}
	c := mat.NewDense(n, d, nil)
	for i := range n {
		floats.SubTo(c.RawRowView(i), diffs.RawRowView(i), mean)
	}
	var svd mat.SVD
	if !svd.Factorize(c, mat.SVDThinV) {
		return nil, fmt.Errorf("geometry: SVD of the %d×%d centred pair differences did not converge", n, d)
	}
	// LAPACK's rank cut-off, against the rows' own size: below it the
	// centred rows are rounding error.
	if sv := svd.Values(nil); len(sv) == 0 || sv[0] <= float64(max(n, d))*0x1p-52*scale {
		return meanDirection(sum, n, false), nil
	}
	var V mat.Dense
	svd.VTo(&V)
	dir := make([]float64, d)
	mat.Col(dir, 0, &V)
	if floats.Dot(dir, mean) < 0 {
		floats.Scale(-1, dir)
	}
	if nrm := floats.Norm(dir, 2); nrm > 0 {
		floats.Scale(1/nrm, dir)
	}
	return dir, nil
}

// meanDirection is sum/n, of unit length unless raw; nil when it is zero.
func meanDirection(sum []float64, n int, raw bool) []float64 {
	out := make([]float64, len(sum))
	for j, s := range sum {
		out[j] = s / float64(n)
	}
	nrm := floats.Norm(out, 2)
	if !(nrm > 0) || math.IsInf(nrm, 0) {
		return nil
	}
	if !raw {
		floats.Scale(1/nrm, out)
	}
	return out
}

// CategoryPairs are the calibration (train) pairs of set's category name
// as contrast pairs, the harmful prompt positive: a vector from them
// steers towards the category's requests.
func CategoryPairs(set *prompts.Set, name string) ([]SteerPair, error) {
	c, ok := set.Category(name)
	if !ok {
		return nil, fmt.Errorf("geometry: no prompt category %q (the shipped ones: %v)", name, prompts.CategoryNames())
	}
	out := make([]SteerPair, 0, len(c.Train))
	for _, p := range c.Train {
		out = append(out, SteerPair{Positive: p.Harm, Negative: p.Benign})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("geometry: prompt category %q has no calibration pairs", name)
	}
	return out, nil
}

// RefusalPairs are every category's held-out pairs, the harmful prompt
// positive: the prompts `isagi eval refusals` reads, whose mean
// difference is the refusal-direction paper's difference in means.
func RefusalPairs(set *prompts.Set) []SteerPair {
	var out []SteerPair
	for _, c := range set.Categories {
		for _, p := range c.Heldout {
			out = append(out, SteerPair{Positive: p.Harm, Negative: p.Benign})
		}
	}
	return out
}

// CategoryVector is a one-layer control vector from the profile's probe
// direction of category name (harm mean minus benign mean, unit length),
// for a model of layers blocks with architecture arch. The probe reads
// the output of block p.Layer, which is direction.(p.Layer+1) in the
// convention above; when p.Layer is the last block (the default probe),
// whose output llama.cpp never steers after, the direction is put at
// direction.(p.Layer) instead, one block early, and the vector's Source
// says so.
func (p *Profile) CategoryVector(name, arch string, layers int) (*steer.Vector, error) {
	c, ok := p.Category(name)
	if !ok {
		return nil, fmt.Errorf("geometry: the profile has no category %q (it has %v)", name, p.CategoryNames())
	}
	if len(c.Direction) == 0 || len(c.Direction) != p.D {
		return nil, fmt.Errorf("geometry: the profile's category %q has no probe direction", name)
	}
	if nrm := floats.Norm(c.Direction, 2); !(nrm > 0) || math.IsInf(nrm, 0) {
		return nil, fmt.Errorf("geometry: the profile's category %q has a zero probe direction", name)
	}
	if p.Layer < 0 || p.Layer >= layers {
		return nil, fmt.Errorf("geometry: the profile's probe block %d is not one of the model's %d", p.Layer, layers)
	}
	n := p.Layer + 1
	src := fmt.Sprintf("category %s of the profile (probe block %d's output, direction.%d)", name, p.Layer, n)
	if n == layers {
		n = p.Layer
		src = fmt.Sprintf("category %s of the profile (probe block %d's output, the last block's, put at direction.%d: llama.cpp never steers after the last block)", name, p.Layer, n)
	}
	if n < 1 {
		return nil, fmt.Errorf("geometry: a model of %d block has no layer llama.cpp steers", layers)
	}
	v := &steer.Vector{Hint: arch, Dim: p.D, Dirs: make([][]float32, n+1), Method: "category", Source: src}
	v.Dirs[n] = narrow(c.Direction)
	return v, nil
}
