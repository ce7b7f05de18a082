package cog

import (
	"fmt"
	"math"
)

// MinGate is the smallest serving threshold: a word-for-word repeat reads
// the same tokens, so its embedding is the same vector and its distance is
// 0 up to rounding; MinGate lets that through and nothing else.
const MinGate = 1e-9

// Gate decides whether a stored answer is served (docs/geometry.md, "When
// an answer is served from memory"). The tiers are the geometry — they
// say how close a query is and drive the manifold's growth — but a tier
// is not a licence to answer: an answer is served only for the same
// request (the exact check, SameRequest), stored under an accepted key
// (the caller's live state, see Manifold.Find), in the RETRIEVE tier, and
// with the plain distance under Tau.
type Gate struct {
	// Tau is the threshold on the plain distance (PlainDistance: the
	// angular distance with M = I, the space Tau was calibrated in, so
	// that the manifold's growth cannot move it). At least MinGate.
	Tau float64
	// Calibrated is false for a profile made before the gate existed:
	// Tau is then MinGate, and only word-for-word repeats are served.
	Calibrated bool
}

// UncalibratedGate is the gate of a profile without a calibrated one:
// only word-for-word repeats are served.
func UncalibratedGate() Gate { return Gate{Tau: MinGate} }

// Reason says why a turn was or was not served from memory.
type Reason int

// The reasons Decide gives, most decisive first.
const (
	// Served: the same request, under the same live state, in the
	// RETRIEVE tier and under the gate.
	Served Reason = iota
	// Empty: nothing is stored yet.
	Empty
	// OtherRequest: the nearest stored prompt is another request (the
	// exact check failed): at most AUGMENT.
	OtherRequest
	// OtherState: the same request was answered under another live state
	// (system prompt, template, sampler, projectors, α, compression or
	// reply length).
	OtherState
	// Farther: the same request, but its embedding is outside the
	// RETRIEVE tier.
	Farther
	// OverGate: the same request in the RETRIEVE tier, but the plain
	// distance is not under the calibrated threshold.
	OverGate
)

// String is a short name for logs and JSON.
func (r Reason) String() string {
	switch r {
	case Served:
		return "served"
	case Empty:
		return "empty"
	case OtherRequest:
		return "other-request"
	case OtherState:
		return "other-state"
	case Farther:
		return "farther"
	case OverGate:
		return "over-gate"
	}
	return fmt.Sprintf("reason(%d)", int(r))
}

// Decision is what Decide made of a Lookup.
type Decision struct {
	// Serve: answer with Candidate's stored answer.
	Serve  bool
	Reason Reason
	// Candidate is the trajectory the decision is about: the served one,
	// the same request under another state, or the nearest other request.
	Candidate Match
	// Plain is the candidate's plain distance (PlainDistance) when it is
	// the same request; −1 otherwise.
	Plain float64
}

// Decide applies the gate to a Find result for the query q. It serves
// only Lookup.Same, so a different request is never served however close
// it lies.
func (g Gate) Decide(q []float64, l Lookup) Decision {
	switch {
	case !l.Nearest.Found:
		return Decision{Reason: Empty, Plain: -1}
	case l.Same.Found:
		d := Decision{Candidate: l.Same, Plain: PlainDistance(q, l.Same.Trajectory.Embedding)}
		switch {
		case l.Same.Tier != Retrieve:
			d.Reason = Farther
		case !(d.Plain < max(g.Tau, MinGate)):
			d.Reason = OverGate
		default:
			d.Serve, d.Reason = true, Served
		}
		return d
	case l.SameAnyKey.Found:
		return Decision{Reason: OtherState, Candidate: l.SameAnyKey, Plain: PlainDistance(q, l.SameAnyKey.Trajectory.Embedding)}
	}
	return Decision{Reason: OtherRequest, Candidate: l.Nearest, Plain: -1}
}

// PlainDistance is 1 − cos(a, b): the manifold's distance with M = I, in
// [0, 2]. A zero vector is at distance 1 from everything; a length
// mismatch or a non-finite result is 1 as well (never "close").
func PlainDistance(a, b []float64) float64 {
	if len(a) != len(b) {
		return 1
	}
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if !(aa > 0 && bb > 0) {
		return 1
	}
	d := 1 - ab/math.Sqrt(aa*bb)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 1
	}
	return clampDist(d)
}
