package geometry

import (
	"context"
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/ugt"
)

// COGBins returns the upper edges of COGRow.Hist's bins, the distance
// histograms of `isagi eval cog`: bin i counts distances below edge i (and
// at or above edge i−1); the last bin counts distances at or above the
// last edge. The slice is fresh on every call.
func COGBins() []float64 { return []float64{0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5} }

// COGRow is one kind of question of `isagi eval cog`: how often it was
// served a stored answer, and how often wrongly, by the gate and by the
// seed's rule (serve whatever lies in the RETRIEVE tier).
type COGRow struct {
	// Group is "repeat", "near-miss" or "unrelated"; Kind the variant
	// ("exact", "case", …) or near-miss kind ("name", …).
	Group string `json:"group"`
	Kind  string `json:"kind"`
	N     int    `json:"n"`
	// Served counts questions answered from memory; Wrong those answered
	// with another request's answer (for near-misses and unrelated
	// questions, every served one).
	Served int `json:"served"`
	Wrong  int `json:"wrong"`
	// SeedServed and SeedWrong are the same under the seed's rule.
	SeedServed int `json:"seed_served"`
	SeedWrong  int `json:"seed_wrong"`
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
	// The same figures under the seed's rule.
	SeedPrecision   float64 `json:"seed_precision"`
	SeedRecallExact float64 `json:"seed_recall_exact"`
	SeedRecall      float64 `json:"seed_recall"`
	// WrongNearMiss is how many near-misses were served a wrong answer
	// (the goal: 0).
	WrongNearMiss     int `json:"wrong_near_miss"`
	SeedWrongNearMiss int `json:"seed_wrong_near_miss"`
}

// evalKey is the one live state of the evaluation: every question is
// asked under the state its stored request was answered in, so the
// figures measure the distance gate and the exact check.
const evalKey = "eval"

// EvaluateCOG measures serving from memory on the held-out set: every
// stored request is recorded in a fresh manifold as a session would (its
// tier from the manifold, growing M), then every question is looked up
// and the profile's gate decides; the seed's rule is scored on the same
// lookups. Questions are not recorded, so each is measured against the
// same store.
func EvaluateCOG(ctx context.Context, src Source, p *Profile, set *prompts.COGSet, progress Progress) (*COGReport, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	r, err := newRunner(src)
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
	H, _, err := r.states(ctx, texts, p.Layer, nil, func() {
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
	m, err := cog.New(cog.Config{Dim: p.K})
	if err != nil {
		return nil, err
	}
	now := time.Unix(0, 0).UTC()
	for i, t := range stored {
		match, err := m.Query(emb[i])
		if err != nil {
			return nil, err
		}
		if _, err := m.RecordKey(emb[i], t, t, evalKey, match.Tier, now); err != nil {
			return nil, err
		}
	}
	gate := p.MemoryGate()
	rep := &COGReport{Tau: gate.Tau, Calibrated: gate.Calibrated, Stored: len(stored)}
	edges := COGBins()
	rows := map[[2]string]*COGRow{}
	var order [][2]string
	accept := func(k string) bool { return k == evalKey }
	var served, correct, seedServed, seedCorrect int
	var exact, exactOK, seedExactOK, repeats, repeatsOK, seedRepeatsOK int
	for i, q := range qs {
		e := emb[len(stored)+i]
		l, err := m.Find(e, q.text, accept)
		if err != nil {
			return nil, err
		}
		dec := gate.Decide(e, l)
		want := stored[q.of]
		ok := dec.Serve && q.group == "repeat" && dec.Candidate.Trajectory.Prompt == want
		seed := l.Nearest.Found && l.Nearest.Tier == cog.Retrieve
		seedOK := seed && q.group == "repeat" && l.Nearest.Trajectory.Prompt == want

		key := [2]string{q.group, q.kind}
		row := rows[key]
		if row == nil {
			row = &COGRow{Group: q.group, Kind: q.kind, Hist: make([]int, len(edges)+1)}
			rows[key] = row
			order = append(order, key)
		}
		row.N++
		row.Hist[bin(edges, cog.PlainDistance(e, emb[q.of]))]++
		if dec.Serve {
			row.Served++
			served++
			if ok {
				correct++
			} else {
				row.Wrong++
			}
		}
		if seed {
			row.SeedServed++
			seedServed++
			if seedOK {
				seedCorrect++
			} else {
				row.SeedWrong++
			}
		}
		if q.group == "repeat" {
			repeats++
			repeatsOK += b2i(ok)
			seedRepeatsOK += b2i(seedOK)
			if q.kind == "exact" {
				exact++
				exactOK += b2i(ok)
				seedExactOK += b2i(seedOK)
			}
		}
		if q.group == "near-miss" {
			rep.WrongNearMiss += b2i(dec.Serve && !ok)
			rep.SeedWrongNearMiss += b2i(seed && !seedOK)
		}
	}
	for _, k := range order {
		rep.Rows = append(rep.Rows, *rows[k])
	}
	rep.Precision, rep.SeedPrecision = ratio(correct, served, 1), ratio(seedCorrect, seedServed, 1)
	rep.RecallExact, rep.SeedRecallExact = ratio(exactOK, exact, 0), ratio(seedExactOK, exact, 0)
	rep.Recall, rep.SeedRecall = ratio(repeatsOK, repeats, 0), ratio(seedRepeatsOK, repeats, 0)
	return rep, nil
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
