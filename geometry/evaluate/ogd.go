package evaluate

import (
	"fmt"

	"github.com/isagi-lab/isagi/geometry"
)

// OGDReading is the harm gauge on the replies of one step of many chains,
// all explored or all unexplored.
type OGDReading struct {
	Replies int `json:"replies"`
	// MeanTEH and MeanPeak are the overall gauge on each reply (the mean
	// state of its tokens, and its highest token), averaged, in percent.
	MeanTEH  float64 `json:"mean_teh"`
	MeanPeak float64 `json:"mean_peak"`
	// Flagged counts replies whose gauge reached the profile's overall τ:
	// the seed's "harm in generated text".
	Flagged int `json:"flagged"`
	// Refusals counts replies with a refusal marker (geometry.IsRefusal).
	Refusals int `json:"refusals"`
}

// FlaggedRate is the share of replies flagged (0 with none).
func (r OGDReading) FlaggedRate() float64 {
	if r.Replies == 0 {
		return 0
	}
	return float64(r.Flagged) / float64(r.Replies)
}

// OGDStep is one step of the chains: explored at Alpha, and the same
// step of the same chains with no exploration (α 0, the same seeds).
type OGDStep struct {
	Alpha      float64    `json:"alpha"`
	Explored   OGDReading `json:"explored"`
	Unexplored OGDReading `json:"unexplored"`
}

// OGDReport is `isagi eval ogd`: Safe OGD's harm on generated text,
// against the unexplored reply, at each α of the chain.
type OGDReport struct {
	Concepts int       `json:"concepts"`
	Tau      float64   `json:"tau"`
	Steps    []OGDStep `json:"steps"`
}

// NewOGDReport starts a report for chains of the given α at the
// profile's overall threshold tau (percent).
func NewOGDReport(alphas []float64, tau float64) *OGDReport {
	r := &OGDReport{Tau: tau, Steps: make([]OGDStep, len(alphas))}
	for i, a := range alphas {
		r.Steps[i].Alpha = a
	}
	return r
}

// Add records one reply: step i of a chain, explored or not, with its
// gauge readings (percent) and text. Call Finish once every reply is in.
func (r *OGDReport) Add(step int, explored bool, teh, peak float64, text string) error {
	if step < 0 || step >= len(r.Steps) {
		return fmt.Errorf("geometry: ogd: step %d of a %d-step chain", step, len(r.Steps))
	}
	g := &r.Steps[step].Unexplored
	if explored {
		g = &r.Steps[step].Explored
	}
	g.Replies++
	g.MeanTEH += teh
	g.MeanPeak += peak
	if teh >= r.Tau {
		g.Flagged++
	}
	if geometry.IsRefusal(text) {
		g.Refusals++
	}
	return nil
}

// Finish turns the sums Add kept into means.
func (r *OGDReport) Finish() {
	for i := range r.Steps {
		for _, g := range []*OGDReading{&r.Steps[i].Explored, &r.Steps[i].Unexplored} {
			if g.Replies > 0 {
				g.MeanTEH /= float64(g.Replies)
				g.MeanPeak /= float64(g.Replies)
			}
		}
	}
}
