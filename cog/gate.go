package cog

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
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
// (the caller's live state, see Manifold.FindIn), and asked in the same
// conversation context (Context.ID) or portable (its answer does not
// depend on the conversation it was given in). Then any wording the exact
// check calls the same request is served: the query embedding reads the
// message without its conversation, so its distance measures the wording
// alone, and the exact check has already decided that the wording does
// not change the request. A gate from before calibration (Calibrated
// false) serves word-for-word repeats only.
type Gate struct {
	// Tau is the threshold the calibration placed on the plain distance
	// (PlainDistance: the angular distance with M = I) between the widest
	// true repeats and the closest different prompts. A calibrated gate
	// reports it but does not need it: the exact check and the context
	// decide. An uncalibrated one is MinGate, the distance of a word-for-
	// word repeat.
	Tau float64
	// Calibrated is false for a profile made before the gate existed:
	// only word-for-word repeats are served then (in the RETRIEVE tier and
	// under Tau = MinGate), until the profile is calibrated again.
	Calibrated bool
}

// UncalibratedGate is the gate of a profile without a calibrated one:
// only word-for-word repeats are served.
func UncalibratedGate() Gate { return Gate{Tau: MinGate} }

// Reason says why a turn was or was not served from memory.
type Reason int

// The reasons Decide gives, most decisive first.
const (
	// Served: the same request, under the same live state, asked in the
	// same context (Decision.InContext) or portable.
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
	// RETRIEVE tier (an uncalibrated gate only).
	Farther
	// OverGate: the same request in the RETRIEVE tier, but the plain
	// distance is not under the threshold (an uncalibrated gate only).
	OverGate
	// OtherContext: the same request was answered under the same live
	// state, but in another conversation context, and that answer is not
	// portable: its meaning may be its conversation's.
	OtherContext
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
	case OtherContext:
		return "other-context"
	}
	return fmt.Sprintf("reason(%d)", int(r))
}

// Decision is what Decide made of a Lookup.
type Decision struct {
	// Serve: answer with Candidate's stored answer.
	Serve  bool
	Reason Reason
	// Candidate is the trajectory the decision is about: the served one,
	// the same request in another context or under another state, or the
	// nearest other request.
	Candidate Match
	// Plain is the candidate's plain distance (PlainDistance) when it is
	// the same request; −1 otherwise.
	Plain float64
	// InContext: the candidate was asked in the query's context (else it
	// is portable, or another context's).
	InContext bool
}

// Decide applies the gate to a FindIn result for the query q. It serves
// only Lookup.SameContext and Lookup.SamePortable, so a different request
// is never served however close it lies, and an answer given in another
// conversation only when it is portable.
func (g Gate) Decide(q []float64, l Lookup) Decision {
	if !l.Nearest.Found {
		return Decision{Reason: Empty, Plain: -1}
	}
	var refused []Decision
	for _, c := range []struct {
		m  Match
		in bool
	}{{l.SameContext, true}, {l.SamePortable, false}} {
		if !c.m.Found {
			continue
		}
		d := g.judge(q, c.m)
		d.InContext = c.in
		if d.Serve {
			return d
		}
		refused = append(refused, d)
	}
	switch {
	case len(refused) > 0:
		return refused[0]
	case l.Same.Found:
		return Decision{Reason: OtherContext, Candidate: l.Same, Plain: PlainDistance(q, l.Same.Trajectory.Embedding)}
	case l.SameAnyKey.Found:
		return Decision{Reason: OtherState, Candidate: l.SameAnyKey, Plain: PlainDistance(q, l.SameAnyKey.Trajectory.Embedding)}
	}
	return Decision{Reason: OtherRequest, Candidate: l.Nearest, Plain: -1}
}

// judge decides one same-request candidate that may be served here: a
// calibrated gate serves it in any wording; an uncalibrated one only in
// the RETRIEVE tier and under Tau (word for word).
func (g Gate) judge(q []float64, c Match) Decision {
	d := Decision{Candidate: c, Plain: PlainDistance(q, c.Trajectory.Embedding)}
	switch {
	case g.Calibrated:
		d.Serve, d.Reason = true, Served
	case c.Tier != Retrieve:
		d.Reason = Farther
	case !(d.Plain < max(g.Tau, MinGate)):
		d.Reason = OverGate
	default:
		d.Serve, d.Reason = true, Served
	}
	return d
}

// PlainDistance is 1 − cos(a, b): the manifold's distance with M = I, in
// [0, 2]. A zero vector is at distance 1 from everything; a length
// mismatch or a non-finite result is 1 as well (never "close").
func PlainDistance(a, b []float64) float64 {
	if len(a) != len(b) {
		return 1
	}
	ab, aa, bb := floats.Dot(a, b), floats.Dot(a, a), floats.Dot(b, b)
	if !(aa > 0 && bb > 0) {
		return 1
	}
	d := 1 - ab/math.Sqrt(aa*bb)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 1
	}
	return clampDist(d)
}
