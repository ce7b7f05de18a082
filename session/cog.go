package session

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/ogd"
)

// Sections of a .miku file that hold the living manifold: the manifold
// itself (package cog's encoding) and the profile it was measured in.
const (
	sectionCOG        = "cog"
	sectionCOGProfile = "cog.profile"
)

// COGTurn is what the living manifold decided for a turn (docs/mechanisms.md
// §9, docs/geometry.md): the tier, the distance to the nearest stored
// trajectory (1 when there was none), whether the answer was served from
// memory and why (or why not), and the manifold after the turn.
type COGTurn struct {
	Tier      string  `json:"tier"`
	Distance  float64 `json:"distance"`
	Nearest   string  `json:"nearest,omitempty"` // the nearest trajectory's prompt
	Retrieved bool    `json:"retrieved"`         // the answer was served from memory
	// Decision names the reason: "served", "empty", "other-request",
	// "other-state", "farther", "over-gate", "other-context" (cog.Reason),
	// "memory-off" or "regenerated"; Why says it in words for the
	// Manifold pane.
	Decision string `json:"decision"`
	Why      string `json:"why"`
	// SameContext: the answer served was given to the same request at
	// the same point of the same conversation (else it is portable).
	SameContext bool `json:"same_context,omitempty"`
	// Gate is the plain distance of the same request asked before (−1
	// when there was none) and Tau the profile's threshold: a calibrated
	// gate serves the same request in any wording, whatever Gate is; one
	// from before calibration only word for word (Gate under Tau).
	Gate         float64 `json:"gate"`
	Tau          float64 `json:"tau"`
	Growth       float64 `json:"growth"` // ‖M − I‖_F
	Trajectories int     `json:"trajectories"`
}

// ManifoldStats is the living manifold for display.
type ManifoldStats struct {
	Growth       float64
	Trajectories int
	Clusters     int
	TopEigen     []float64   // of M, largest first (up to 4)
	Points       []cog.Point // trajectories on M's top two eigenvectors
	Alpha        float64     // the OGD step (0: off)
	Direction    string      // where the OGD direction comes from
	// Tau is the memory gate's threshold; Calibrated is false for a
	// profile made before the gate (only word-for-word repeats are
	// served); MemoryOff is the "memory" setting off (nothing is served).
	Tau        float64
	Calibrated bool
	MemoryOff  bool
}

// cogProfile is the cog.profile section: which coordinate system the
// stored embeddings are in.
type cogProfile struct {
	Fingerprint string `json:"fingerprint"`
	K           int    `json:"k"`
}

// keptCOG is the living manifold of a session file that the session does
// not use: its sections exactly as read (cog, then cog.profile when the
// file has it), which every save writes back unchanged.
type keptCOG struct {
	sections []miku.Section
	// fp is the fingerprint of the profile it was measured in; usable
	// is false when it can never be used here (another model's, no
	// readable profile record, unreadable), and why then says why.
	fp     string
	usable bool
	why    string
	// told is set once Notes has said that no profile is attached.
	told bool
}

// keptSuffix ends every note about a manifold the session keeps unused.
const keptSuffix = "it is kept in the session file unchanged, and this conversation runs without memory (a new conversation, /clear in the TUI, starts a new one)"

// keylessNote tells about trajectories saved before answers were keyed on
// the live state ("" when there are none): they keep their place in the
// manifold, but nothing says under which state they were answered, so they
// are never served.
func keylessNote(m *cog.Manifold) string {
	n := 0
	for _, t := range m.Trajectories() {
		if t.Key == "" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the saved manifold holds %d %s from before answers were keyed on the live state: kept in the manifold, never served from memory",
		n, map[bool]string{true: "answer", false: "answers"}[n == 1])
}

func parseAlpha(value string) (float64, error) {
	if value == "off" {
		return 0, nil
	}
	a, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return 0, err
	}
	if a < 0 || a > 0.5 {
		return 0, fmt.Errorf("want off or 0…0.5 (the useful range is 0.05–0.30)")
	}
	return a, nil
}

// cloneSection copies a section read from a file, which aliases the
// whole file's buffer.
func cloneSection(sec miku.Section) miku.Section {
	sec.Data = slices.Clone(sec.Data)
	return sec
}

// ChainStep is one generation of an exploration chain.
type ChainStep struct {
	Alpha float64 `json:"alpha"`
	Seed  uint64  `json:"seed"`
	Text  string  `json:"text"`
	// TEH is the overall gauge on what was generated: the mean state of
	// the reply and its highest token (the step guarantees nothing about
	// later blocks, so it is measured, not assumed).
	TEH     float32 `json:"teh"`
	TEHPeak float32 `json:"teh_peak"`
}

// Chain is an exploration chain and its creativity score.
type Chain struct {
	Concept   string      `json:"concept"`
	Steps     []ChainStep `json:"steps"`
	Score     ogd.Score   `json:"score"`
	Direction string      `json:"direction"`
}

// served is a turn answered from memory, so that Regenerate can take it
// back out of a completion-mode text.
type served struct{ input, answer string }
