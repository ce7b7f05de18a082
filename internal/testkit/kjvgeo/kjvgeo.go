// Package kjvgeo is the kjv fixture's geometry for the tests that measure
// it (geometry's and geometry/evaluate's): a trimmed prompt set, its
// calibration options, a session on the fixture, and its profile,
// calibrated once per test binary. Faster and sloppier profiles for tests
// that only need the mechanisms to run are quickprofile's.
package kjvgeo

import (
	"context"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// SmallSet is the shipped prompt set trimmed so that a calibration under
// the race detector takes seconds: the pipeline is the same, only shorter.
// The counts the tests expect are this set's.
func SmallSet(tb testing.TB) *prompts.Set {
	tb.Helper()
	set, err := prompts.Default()
	if err != nil {
		tb.Fatal(err)
	}
	for i := range set.Zones {
		set.Zones[i].Train = set.Zones[i].Train[:6]
		set.Zones[i].Heldout = set.Zones[i].Heldout[:3]
	}
	for i := range set.Categories {
		set.Categories[i].Train = set.Categories[i].Train[:5]
		set.Categories[i].Heldout = set.Categories[i].Heldout[:3]
	}
	set.Benign.Train = set.Benign.Train[:3]
	set.Benign.Heldout = set.Benign.Heldout[:2]
	return set
}

// SmallOptions are the calibration options that go with SmallSet.
func SmallOptions() geometry.Options {
	o := geometry.DefaultOptions()
	o.MaxCoords, o.MaxForbidden, o.BenignTokens = 3, 4, 96
	return o
}

// Open opens a session on the kjv Q8_0 fixture (2 threads, a 256-token
// window), closed at the test's end.
func Open(tb testing.TB) *session.Session {
	tb.Helper()
	s, err := session.Open(fixtures.Path(tb, "kjv/kjv-q8_0.gguf"), session.Options{Threads: 2, Ctx: 256})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// profile is the fixture's profile, calibrated once per test binary:
// several tests of a package read it, and none changes it.
var profile struct {
	once sync.Once
	p    *geometry.Profile
	err  error
}

// Profile is the kjv fixture's profile from SmallSet and SmallOptions,
// calibrated once per test binary and shared: callers must not change it.
func Profile(tb testing.TB) *geometry.Profile {
	tb.Helper()
	profile.once.Do(func() {
		s, err := session.Open(fixtures.Path(tb, "kjv/kjv-q8_0.gguf"), session.Options{Threads: 2, Ctx: 256})
		if err != nil {
			profile.err = err
			return
		}
		defer s.Close()
		profile.p, profile.err = geometry.Calibrate(context.Background(), s.Geometry().CalibrationSource(), SmallSet(tb), SmallOptions(), nil)
		if profile.err == nil {
			profile.p.Model, profile.err = s.Probe().Ref()
		}
	})
	if profile.err != nil {
		tb.Fatal(profile.err)
	}
	return profile.p
}
