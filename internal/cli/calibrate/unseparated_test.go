package calibrate

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/teh"
)

// TestUnseparated: the calibration report says which gauges no threshold
// of the sweep left clean of benign calibration prompts, and nothing when
// every gauge is clean.
func TestUnseparated(t *testing.T) {
	p := &geometry.Profile{Categories: []geometry.Category{
		{Name: "privacy", Gauge: geometry.Gauge{ROC: teh.ROC{Tau: 12}}},
		{Name: "toxicity", Gauge: geometry.Gauge{ROC: teh.ROC{Tau: 43.9, FP: 7, FPR: 0.1}}},
	}}
	if got := unseparated(&geometry.Profile{Categories: p.Categories[:1]}); got != "" {
		t.Errorf("clean gauges: %q", got)
	}
	got := unseparated(p)
	for _, w := range []string{"no τ up to 50 %", "for toxicity:", "up to 10 %"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "privacy") {
		t.Errorf("a clean gauge named: %q", got)
	}
}
