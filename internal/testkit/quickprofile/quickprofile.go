// Package quickprofile calibrates a geometry profile on a few prompts, in
// well under a second on the test models, for tests that need every
// geometry mechanism to run (TEH gauges, Snipe, the living manifold) but
// not figures that mean anything.
package quickprofile

import (
	"context"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
)

// Calibrate builds a profile over src from 4 prompts per zone, 2 per
// category and 1 benign text, one coordinate per gauge and projector. The
// caller sets its Model before attaching it to a session.
func Calibrate(tb testing.TB, src geometry.Source) *geometry.Profile {
	tb.Helper()
	set, err := prompts.Default()
	if err != nil {
		tb.Fatal(err)
	}
	for i := range set.Zones {
		set.Zones[i].Train = set.Zones[i].Train[:4]
	}
	for i := range set.Categories {
		set.Categories[i].Train = set.Categories[i].Train[:2]
	}
	set.Benign.Train = set.Benign.Train[:1]
	o := geometry.DefaultOptions()
	o.MaxCoords, o.MaxForbidden, o.BenignTokens = 1, 1, 16
	p, err := geometry.Calibrate(context.Background(), src, set, o, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
