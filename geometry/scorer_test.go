package geometry

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// The fast collateral path (last-block states rescored by the classifier)
// gives the cross-entropy of the forward pass with the projector hooked in.
func TestScorerFastPathMatchesForward(t *testing.T) {
	m, err := model.Open(fixtures.Path(t, "kjv/kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tok, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) ([]int32, error) { return tok.Encode(s, tokenizer.EncodeOptions{AddSpecial: true}) }
	src := Source{Model: m, Prompt: text, Text: text}
	r, err := newRunner(src)
	if err != nil {
		t.Fatal(err)
	}
	var seqs [][]int32
	for _, s := range []string{"In the beginning God created the heaven and the earth.", "And the evening and the morning were the first day, and it was good."} {
		ids, _ := text(s)
		seqs = append(seqs, ids)
	}
	// A profile-shaped projector: two orthonormal directions about a mean.
	d := m.Dim
	q := mat.NewDense(d, 2, nil)
	for i := range d {
		q.Set(i, 0, math.Sin(float64(i+1))/math.Sqrt(float64(d)/2))
		q.Set(i, 1, math.Cos(float64(3*i+2))/math.Sqrt(float64(d)/2))
	}
	var qr mat.QR
	qr.Factorize(q)
	var qq mat.Dense
	qr.QTo(&qq)
	Q := mat.DenseCopyOf(qq.Slice(0, d, 0, 2))
	mu := make([]float64, d)
	for i := range mu {
		mu[i] = 0.01 * float64(i%5)
	}
	p := &Profile{D: d, Mu: mu, SnipeLayer: m.Layers - 1}
	fast, err := newScorer(context.Background(), r, p, seqs)
	if err != nil {
		t.Fatal(err)
	}
	if fast.states == nil {
		t.Fatal("the fast path was not taken for a last-block projector")
	}
	slow := &scorer{r: r, p: p, seqs: seqs}
	var ces []float64
	for _, proj := range []*mat.Dense{nil, Q} {
		a, err := fast.crossEntropy(context.Background(), proj)
		if err != nil {
			t.Fatal(err)
		}
		b, err := slow.crossEntropy(context.Background(), proj)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("projector %v: fast path %.12f, forward %.12f", proj != nil, a, b)
		}
		ces = append(ces, a)
	}
	if ces[0] == ces[1] {
		t.Fatal("the projector did not change the cross-entropy: the comparison proves nothing")
	}
}
