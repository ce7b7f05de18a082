package geometry_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/geometry"
)

// hostOnly hides a hook's AffineHook: the forward pass runs its AfterBlock
// on host rows, today's path on a backend without backend.Affiner.
type hostOnly struct {
	model.BlockHook
	model.ReadOnlyHook
}

// hostLayers is hostOnly for a hook that names its layers.
type hostLayers struct {
	model.BlockHook
	model.LayerHook
}

// copies counts the residual rows a forward pass copies between the
// backend and the host (Host and Sync): a CPU backend that a device's
// round trips would show on.
type copies struct {
	*cpu.Backend
	host, sync int
}

func (c *copies) Host(b backend.Buffer, row0, n int) []float32 {
	c.host++
	return c.Backend.Host(b, row0, n)
}

func (c *copies) Sync(b backend.Buffer, row0 int, rows []float32) {
	c.sync++
	c.Backend.Sync(b, row0, rows)
}

// snipeMonitor is a monitor with every projector that kept a coordinate on.
func snipeMonitor(t testing.TB, p *geometry.Profile) *geometry.Monitor {
	t.Helper()
	mon, err := geometry.NewMonitor(p)
	if err != nil {
		t.Fatal(err)
	}
	on := 0
	for _, c := range p.Categories {
		if len(c.Snipe.Coords) > 0 {
			if err := mon.SetSnipe(c.Name, true); err != nil {
				t.Fatal(err)
			}
			on++
		}
	}
	if on == 0 {
		t.Fatal("no category kept a projector coordinate; the test needs one")
	}
	return mon
}

// explorer is a Safe OGD step at α = 0.2 on the profile's probe block.
func explorer(t testing.TB, p *geometry.Profile) *geometry.Explorer {
	t.Helper()
	dir, src, err := geometry.Direction(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := geometry.NewExplorer(p, dir, 0.2, src)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// decodeLogits feeds the prompt and then greedy tokens one at a time with
// hook registered on a fresh state over b, and returns every step's logits.
func decodeLogits(t testing.TB, b backend.Backend, hook any, steps int) [][]float32 {
	t.Helper()
	s := openKJV(t)
	src := s.Geometry().CalibrationSource()
	st, err := src.Model.NewStateOn(64, b)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if hook != nil {
		if _, err := st.AddHook(hook); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := src.Text("In the beginning God created the heaven and the earth.")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	logits := make([]float32, src.Model.Vocab)
	if err := st.Forward(ids, logits); err != nil {
		t.Fatal(err)
	}
	out = append(out, slices.Clone(logits))
	for range steps {
		next := int32(0)
		for i, v := range logits {
			if v > logits[next] {
				next = int32(i)
			}
		}
		if err := st.Forward([]int32{next}, logits); err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(logits))
	}
	return out
}

func maxLogitDiff(a, b [][]float32) float64 {
	var d float64
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return d
}

// The backend's affine form of Snipe and of Safe OGD gives the host
// hook's logits (bit for bit for Snipe, whose arithmetic is the same;
// within 1e-5 for OGD), and the monitor reads the same gauges.
func TestAffineFormMatchesHostHook(t *testing.T) {
	p := kjvProfile(t)
	const steps = 6
	monA, monH := snipeMonitor(t, p), snipeMonitor(t, p)
	dev := decodeLogits(t, cpu.New(nil), monA, steps)
	host := decodeLogits(t, cpu.New(nil), &hostOnly{monH, monH}, steps)
	if d := maxLogitDiff(dev, host); d != 0 {
		t.Fatalf("snipe: the affine form's logits differ from the host hook's by %g", d)
	}
	if monA.Last() != monH.Last() || !slices.Equal(monA.Snipes(), monH.Snipes()) {
		t.Fatalf("snipe: readings %+v vs %+v", monA.Last(), monH.Last())
	}
	off := decodeLogits(t, cpu.New(nil), nil, steps)
	if maxLogitDiff(dev, off) == 0 {
		t.Fatal("snipe: the projectors changed nothing; the comparison shows nothing")
	}

	xA, xH := explorer(t, p), explorer(t, p)
	dev = decodeLogits(t, cpu.New(nil), xA, steps)
	host = decodeLogits(t, cpu.New(nil), &hostLayers{xH, xH}, steps)
	if d := maxLogitDiff(dev, host); d > 1e-5 {
		t.Fatalf("ogd: the affine form's logits differ from the host hook's by %g", d)
	}
	if maxLogitDiff(dev, off) == 0 {
		t.Fatal("ogd: the step changed nothing; the comparison shows nothing")
	}
}

// With the affine form a Snipe-only or OGD-only step copies no residual
// rows to the host and back, except the rows the monitor reads at its
// probe layer (copied to the host, never back); the host hook copies
// them both ways at every layer it writes. A decode step allocates
// nothing.
func TestAffineFormCopiesNoRows(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	src := s.Geometry().CalibrationSource()
	mon, x := snipeMonitor(t, p), explorer(t, p)
	for _, tc := range []struct {
		name     string
		hook     any
		wantHost int // Host calls per decode step
		wantSync int // Sync calls per decode step
	}{
		{"snipe", mon, 1, 0},
		{"ogd", x, 0, 0},
		// The host hooks, for contrast: the monitor below ℓ_s writes
		// nothing but says it may, so every layer of the six goes both
		// ways.
		{"snipe on the host", &hostOnly{mon, mon}, 6, 6},
		{"ogd on the host", &hostLayers{x, x}, 1, 1},
	} {
		b := &copies{Backend: cpu.New(nil)}
		st, err := src.Model.NewStateOn(64, b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddHook(tc.hook); err != nil {
			t.Fatal(err)
		}
		logits := make([]float32, src.Model.Vocab)
		if err := st.Forward([]int32{1, 2, 3}, logits); err != nil {
			t.Fatal(err)
		}
		b.host, b.sync = 0, 0
		if err := st.Forward([]int32{4}, logits); err != nil {
			t.Fatal(err)
		}
		// The monitor reads its probe layer: one copy to the host. The
		// Snipe projector's layers and the OGD step's need none.
		if b.sync != tc.wantSync || b.host != tc.wantHost {
			t.Errorf("%s: a decode step made %d copies to the host and %d back, want %d and %d", tc.name, b.host, b.sync, tc.wantHost, tc.wantSync)
		}
		tok := []int32{5}
		if a := testing.AllocsPerRun(5, func() {
			_ = st.Forward(tok, logits)
			tok[0]++
		}); a != 0 {
			t.Errorf("%s: a decode step allocates %v times", tc.name, a)
		}
		st.Close()
	}
}

// BenchmarkAffineDecode is a decode step of the kjv fixture on one CPU
// thread with no hook, with the Snipe monitor (every projector on) or the
// Safe OGD step run as host hooks, and run as backend affine maps. The
// five states step in turn, the order rotating every round, so that a
// shared machine's drift falls on every side alike; it reports each
// side's time per token and its ratio to the unhooked step's.
func BenchmarkAffineDecode(b *testing.B) {
	p := kjvProfile(b)
	s := openKJV(b)
	src := s.Geometry().CalibrationSource()
	mon, x := snipeMonitor(b, p), explorer(b, p)
	sides := []struct {
		name string
		hook any
	}{
		{"off", nil},
		{"snipe-host", &hostOnly{mon, mon}},
		{"snipe-affine", mon},
		{"ogd-host", &hostLayers{x, x}},
		{"ogd-affine", x},
	}
	sts := make([]*model.State, len(sides))
	logits := make([]float32, src.Model.Vocab)
	for i, sd := range sides {
		st, err := src.Model.NewStateOn(64, cpu.New(tensor.NewKernels(tensor.NewPool(1))))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if sd.hook != nil {
			if _, err := st.AddHook(sd.hook); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Forward([]int32{1, 2, 3, 4, 5, 6, 7, 8}, logits); err != nil {
			b.Fatal(err)
		}
		sts[i] = st
	}
	tok := []int32{9}
	spent := make([]time.Duration, len(sides))
	round := 0
	for b.Loop() {
		for j := range sides {
			i := (j + round) % len(sides)
			t0 := time.Now()
			sts[i].Truncate(sts[i].Pos() - 1)
			if err := sts[i].Forward(tok, logits); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(t0)
		}
		round++
	}
	for i, sd := range sides {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(round), sd.name+"-ns/token")
		if i > 0 {
			b.ReportMetric(float64(spent[i])/float64(spent[0]), sd.name+"/off")
		}
	}
	b.ReportMetric(float64(spent[2])/float64(spent[1]), "snipe-affine/host")
	b.ReportMetric(float64(spent[4])/float64(spent[3]), "ogd-affine/host")
}
