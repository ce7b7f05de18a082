package cog

import "fmt"

// Tier is how a query relates to the nearest stored trajectory, from
// "already answered" to "new territory". The zero value is Retrieve.
type Tier int

// The four tiers, in order of increasing distance to the nearest stored
// trajectory.
const (
	// Retrieve: d < RetrieveBelow. The stored answer is served as is
	// (marked as retrieved); the user may force regeneration.
	Retrieve Tier = iota
	// Augment: RetrieveBelow ≤ d < AugmentBelow. Generate with the nearest
	// stored answer as context; the trajectory is stored, M is not updated.
	Augment
	// Expand: AugmentBelow ≤ d < ExpandBelow. Generate fresh; the
	// trajectory is stored and M is updated.
	Expand
	// Explore: d ≥ ExpandBelow. Generate fresh; the trajectory seeds a new
	// cluster and M is updated.
	Explore
)

// Tier boundaries on the metric distance. Each is the first distance of
// the next tier: TierOf(RetrieveBelow) is Augment, and so on.
const (
	RetrieveBelow = 0.05
	AugmentBelow  = 0.20
	ExpandBelow   = 0.50
)

// NumTiers is the number of valid tiers; valid values are 0…NumTiers−1.
const NumTiers = 4

// String returns the lower-case tier name ("retrieve", "augment", "expand",
// "explore"), or "tier(N)" for a value outside the four.
func (t Tier) String() string {
	switch t {
	case Retrieve:
		return "retrieve"
	case Augment:
		return "augment"
	case Expand:
		return "expand"
	case Explore:
		return "explore"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// Valid reports whether t is one of the four tiers.
func (t Tier) Valid() bool { return t >= Retrieve && t <= Explore }

// UpdatesMetric reports whether recording a trajectory of this tier
// stretches the metric: only EXPAND and EXPLORE do (docs/mechanisms.md §9).
// AUGMENT is a variation on known ground, so it is stored for later
// retrieval but does not move M; RETRIEVE is a repeat.
func (t Tier) UpdatesMetric() bool { return t == Expand || t == Explore }

// TierOf classifies a distance. The comparisons are strict "less than" on
// the lower tier, so each boundary belongs to the tier above it: 0.05 is
// Augment, 0.20 Expand, 0.50 Explore. NaN compares false everywhere and
// lands in Explore, the tier that never serves a stored answer.
func TierOf(d float64) Tier {
	switch {
	case d < RetrieveBelow:
		return Retrieve
	case d < AugmentBelow:
		return Augment
	case d < ExpandBelow:
		return Expand
	}
	return Explore
}
