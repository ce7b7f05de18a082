package evaluate

import (
	"context"
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/ugt"
)

// COGBins returns the upper edges of COGRow.Hist's bins, the distance
// histograms of `isagi eval cog`: bin i counts distances below edge i (and
// at or above edge i−1); the last bin counts distances at or above the
// last edge. The slice is fresh on every call.
func COGBins() []float64 { return []float64{0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5} }

// COGRow is one kind of question of `isagi eval cog`: how often it was
// served a stored answer, and how often wrongly, by the gate, by the gate
// before contexts were recorded (the RETRIEVE tier and the plain distance
// under τ) and by the seed's rule (whatever lies in the RETRIEVE tier).
type COGRow struct {
	// Group is "repeat", "near-miss" or "unrelated"; Kind the variant
	// ("exact", "case", …) or near-miss kind ("name", …).
	Group string `json:"group"`
	Kind  string `json:"kind"`
	N     int    `json:"n"`
	// Served counts questions answered from memory by the gate, the
	// stored answers portable (they opened their conversations) and the
	// questions asked in another conversation; Wrong those answered with
	// another request's answer (for near-misses and unrelated questions,
	// every served one).
	Served int `json:"served"`
	Wrong  int `json:"wrong"`
	// TauServed and TauWrong are the same under the gate as it was before
	// (RETRIEVE and under τ), SeedServed and SeedWrong under the seed's
	// rule.
	TauServed  int `json:"tau_served"`
	TauWrong   int `json:"tau_wrong"`
	SeedServed int `json:"seed_served"`
	SeedWrong  int `json:"seed_wrong"`
	// MidSame and MidOther count the questions served when the stored
	// answers were given in the middle of a conversation (not portable):
	// asked again at the same point of it, and in another conversation.
	MidSame  int `json:"mid_same"`
	MidOther int `json:"mid_other"`
	// Hist counts the plain distance between the question and the stored
	// request it was written against, over COGBins.
	Hist []int `json:"hist"`
}

// COGReport is `isagi eval cog`: precision and recall of serving from
// memory on the held-out set (prompts.COG).
type COGReport struct {
	Tau        float64  `json:"tau"`
	Calibrated bool     `json:"calibrated"`
	Stored     int      `json:"stored"`
	Rows       []COGRow `json:"rows"`
	// Precision is correct served / served; Recall is served correctly /
	// true repeats, for word-for-word repeats (RecallExact) and all of
	// them. With nothing served, Precision is 1 (no wrong answer).
	Precision   float64 `json:"precision"`
	RecallExact float64 `json:"recall_exact"`
	Recall      float64 `json:"recall"`
	// The same figures under the gate before contexts (Tau…) and under
	// the seed's rule (Seed…).
	TauPrecision    float64 `json:"tau_precision"`
	TauRecallExact  float64 `json:"tau_recall_exact"`
	TauRecall       float64 `json:"tau_recall"`
	SeedPrecision   float64 `json:"seed_precision"`
	SeedRecallExact float64 `json:"seed_recall_exact"`
	SeedRecall      float64 `json:"seed_recall"`
	// WrongNearMiss is how many near-misses were served a wrong answer
	// (the goal: 0), under each rule.
	WrongNearMiss     int `json:"wrong_near_miss"`
	TauWrongNearMiss  int `json:"tau_wrong_near_miss"`
	SeedWrongNearMiss int `json:"seed_wrong_near_miss"`
	// MidSameRecall is the recall of all repeats when the stored answers
	// were given mid-conversation and are asked again at the same point;
	// MidOtherServed how many questions of any kind are served such an
	// answer from another conversation (the context guard: 0).
	MidSameRecall  float64 `json:"mid_same_recall"`
	MidOtherServed int     `json:"mid_other_served"`
}

// evalKey is the one live state of the evaluation: every question is
// asked under the state its stored request was answered in, so the
// figures measure the gate and the exact check.
const evalKey = "eval"

// The evaluation's conversation contexts: a stored request opened a
// conversation (portable) or was asked in the middle of one, evalMid;
// questions are asked at that point, or in another conversation,
// evalOther.
const (
	evalOpened = "eval:opened"
	evalMid    = "eval:mid"
	evalOther  = "eval:other"
)

// COG measures serving from memory on the held-out set: every
// stored request is recorded in a fresh manifold as a session would (its
// tier from the manifold, growing M), as the opening message of a
// conversation — and, in a second manifold, as a message in the middle of
// one; then every question is looked up and the profile's gate decides,
// beside the gate as it was before contexts (RETRIEVE and under τ) and
// the seed's rule, on the same lookups. Questions are not recorded, so
// each is measured against the same store.
func COG(ctx context.Context, src geometry.Source, p *geometry.Profile, set *prompts.COGSet, progress geometry.Progress) (*COGReport, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	r, err := geometry.NewReader(src)
	if err != nil {
		return nil, err
	}
	basis := &ugt.Basis{D: p.D, K: p.K, Mu: p.Mu, B: p.B}
	// Every text once: stored requests first, then the questions.
	var stored, asked []string
	type question struct {
		group, kind, text string
		of                int // index into stored of the request it was written against
	}
	var qs []question
	for _, rp := range set.Repeats {
		of := len(stored)
		stored = append(stored, rp.Prompt)
		for i, a := range rp.Asks() {
			qs = append(qs, question{"repeat", prompts.RepeatKinds()[i], a, of})
		}
	}
	for _, n := range set.NearMisses {
		qs = append(qs, question{"near-miss", n.Kind, n.Asked, len(stored)})
		stored = append(stored, n.Stored)
	}
	for _, u := range set.Unrelated {
		qs = append(qs, question{"unrelated", "unrelated", u.Asked, len(stored)})
		stored = append(stored, u.Stored)
	}
	for _, q := range qs {
		asked = append(asked, q.text)
	}
	texts := append(append([]string(nil), stored...), asked...)
	done := 0
	H, _, err := r.States(ctx, texts, p.Layer, func() {
		done++
		progress("embedding", done, len(texts))
	})
	if err != nil {
		return nil, err
	}
	emb := make([][]float64, len(texts))
	for i := range texts {
		if emb[i], err = basis.Coords(H.RawRowView(i), nil); err != nil {
			return nil, fmt.Errorf("geometry: eval cog: %w", err)
		}
	}
	at := time.Unix(0, 0).UTC()
	manifold := func(where cog.Context) (*cog.Manifold, error) {
		m, err := cog.New(cog.Config{Dim: p.K})
		if err != nil {
			return nil, err
		}
		for i, t := range stored {
			match, err := m.Query(emb[i])
			if err != nil {
				return nil, err
			}
			if _, err := m.RecordIn(emb[i], t, t, evalKey, where, match.Tier, at); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	opened, err := manifold(cog.Context{ID: evalOpened, Portable: true})
	if err != nil {
		return nil, err
	}
	mid, err := manifold(cog.Context{ID: evalMid})
	if err != nil {
		return nil, err
	}
	gate := p.MemoryGate()
	before := cog.Gate{Tau: gate.Tau} // not calibrated: RETRIEVE and under τ
	rep := &COGReport{Tau: gate.Tau, Calibrated: gate.Calibrated, Stored: len(stored)}
	edges := COGBins()
	rows := map[[2]string]*COGRow{}
	var order [][2]string
	accept := func(k string) bool { return k == evalKey }
	cur, tau, seed, midSame := &tally{}, &tally{}, &tally{}, &tally{}
	for i, q := range qs {
		e := emb[len(stored)+i]
		want := stored[q.of]
		decide := func(m *cog.Manifold, g cog.Gate, ctx string) (verdict, error) {
			l, err := m.FindIn(e, q.text, ctx, accept)
			if err != nil {
				return verdict{}, err
			}
			dec := g.Decide(e, l)
			return verdict{dec.Serve, dec.Serve && q.group == "repeat" && dec.Candidate.Trajectory.Prompt == want}, nil
		}
		var now, was, midHere, midElse verdict
		for _, c := range []struct {
			v   *verdict
			m   *cog.Manifold
			g   cog.Gate
			ctx string
		}{{&now, opened, gate, evalOther}, {&was, opened, before, evalOther}, {&midHere, mid, gate, evalMid}, {&midElse, mid, gate, evalOther}} {
			if *c.v, err = decide(c.m, c.g, c.ctx); err != nil {
				return nil, err
			}
		}
		nearest, err := opened.Query(e)
		if err != nil {
			return nil, err
		}
		seedRule := verdict{served: nearest.Found && nearest.Tier == cog.Retrieve}
		seedRule.ok = seedRule.served && q.group == "repeat" && nearest.Trajectory.Prompt == want

		key := [2]string{q.group, q.kind}
		row := rows[key]
		if row == nil {
			row = &COGRow{Group: q.group, Kind: q.kind, Hist: make([]int, len(edges)+1)}
			rows[key] = row
			order = append(order, key)
		}
		row.N++
		row.Hist[bin(edges, cog.PlainDistance(e, emb[q.of]))]++
		row.Served += b2i(now.served)
		row.Wrong += b2i(now.wrong())
		row.TauServed += b2i(was.served)
		row.TauWrong += b2i(was.wrong())
		row.MidSame += b2i(midHere.served)
		row.MidOther += b2i(midElse.served)
		row.SeedServed += b2i(seedRule.served)
		row.SeedWrong += b2i(seedRule.wrong())
		cur.add(q.group, q.kind, now)
		tau.add(q.group, q.kind, was)
		midSame.add(q.group, q.kind, midHere)
		rep.MidOtherServed += b2i(midElse.served)
		seed.add(q.group, q.kind, seedRule)
	}
	for _, k := range order {
		rep.Rows = append(rep.Rows, *rows[k])
	}
	rep.Precision, rep.RecallExact, rep.Recall = cur.figures()
	rep.TauPrecision, rep.TauRecallExact, rep.TauRecall = tau.figures()
	rep.SeedPrecision, rep.SeedRecallExact, rep.SeedRecall = seed.figures()
	_, _, rep.MidSameRecall = midSame.figures()
	rep.WrongNearMiss, rep.TauWrongNearMiss, rep.SeedWrongNearMiss = cur.wrongNearMiss, tau.wrongNearMiss, seed.wrongNearMiss
	return rep, nil
}

// verdict is one rule's decision on one question: served, and served its
// own stored request's answer.
type verdict struct{ served, ok bool }

// wrong: served another request's answer.
func (v verdict) wrong() bool { return v.served && !v.ok }

// tally counts one serving rule's decisions over the questions.
type tally struct {
	served, correct    int
	exact, exactOK     int
	repeats, repeatsOK int
	wrongNearMiss      int
}

// add counts the verdict on one question of group and kind.
func (t *tally) add(group, kind string, v verdict) {
	t.served += b2i(v.served)
	t.correct += b2i(v.ok)
	switch group {
	case "repeat":
		t.repeats++
		t.repeatsOK += b2i(v.ok)
		if kind == "exact" {
			t.exact++
			t.exactOK += b2i(v.ok)
		}
	case "near-miss":
		t.wrongNearMiss += b2i(v.wrong())
	}
}

// figures are the precision (1 when nothing was served) and the recall of
// word-for-word repeats and of all repeats.
func (t *tally) figures() (precision, recallExact, recall float64) {
	return ratio(t.correct, t.served, 1), ratio(t.exactOK, t.exact, 0), ratio(t.repeatsOK, t.repeats, 0)
}

// bin is the bin of distance d over edges (see COGBins).
func bin(edges []float64, d float64) int {
	for i, edge := range edges {
		if d < edge {
			return i
		}
	}
	return len(edges)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ratio is a/b, or empty when b is 0.
func ratio(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}
